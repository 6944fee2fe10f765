#!/bin/sh
# ssh_runner.sh - a ctvm-tune --runner for a board reached over ssh: copies
# the candidate program to the board with scp, runs it there with its
# arguments, removes it, and exits with the program's status, so the
# board's timings and failures reach ctvm-tune as if it had run locally.
#
#   ctvm-tune model.onnx --target aarch64 -o r.json \
#     --runner 'tools/ssh_runner.sh [-p PORT] [-i KEY] [-d DIR] user@board'
#
# ctvm-tune appends the candidate's path and arguments, so the script is
# called as: ssh_runner.sh [options] HOST EXE [ARGS...]
#   -p PORT  ssh port    -i KEY  identity file
#   -d DIR   where the program goes on the board (default /tmp)
# CTVM_SSH and CTVM_SCP replace the ssh and scp commands (tests use them).
# ctvm-tune's timeout kills the local ssh; a program still running on the
# board is left there (ssh sends it no signal without a terminal).
set -eu
port="" key="" dir=/tmp
while getopts p:i:d: opt; do
  case $opt in
    p) port=$OPTARG ;;
    i) key=$OPTARG ;;
    d) dir=$OPTARG ;;
    *) echo "usage: ssh_runner.sh [-p PORT] [-i KEY] [-d DIR] HOST EXE [ARGS...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
  echo "usage: ssh_runner.sh [-p PORT] [-i KEY] [-d DIR] HOST EXE [ARGS...]" >&2
  exit 2
fi
host=$1 exe=$2
shift 2
ssh_cmd=${CTVM_SSH:-ssh} scp_cmd=${CTVM_SCP:-scp}
sopts="-o BatchMode=yes" copts="-q -o BatchMode=yes"
[ -z "$port" ] || { sopts="$sopts -p $port"; copts="$copts -P $port"; }
[ -z "$key" ] || { sopts="$sopts -i $key"; copts="$copts -i $key"; }
# one name per run on the board: a runner of another ctvm-tune may share DIR
remote="$dir/ctvm-cand-$(hostname)-$$-$(basename "$exe")"
# shellcheck disable=SC2086 # the option strings are word lists
$scp_cmd $copts "$exe" "$host:$remote"
# the arguments are numbers and plain words; each is quoted for the remote shell
args=""
for a in "$@"; do
  args="$args '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done
set +e
# shellcheck disable=SC2086
$ssh_cmd $sopts "$host" "chmod +x '$remote' && '$remote'$args; rc=\$?; rm -f '$remote'; exit \$rc"
