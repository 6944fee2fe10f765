#!/usr/bin/env bash
# team_identical.sh - a --threads model gives the same output bits whichever
# thread runs which chunk (templates/ctvm_team.h: chunk boundaries fixed at
# compile time, chunks taken at run time). For each model directory
# (model.onnx + inputs.npz): the --threads 2 file is built without threads
# (one thread), with -fopenmp on teams of 2 and 3 (always opened:
# CTVM_TEAM_ADAPT=0), and on 2 and 3
# application threads (NAME_run_thread), the last also with threads that
# start late in turn (CTVM_MAIN_TEAM_LATE) and as without atomics (chunks
# assigned statically, the caller's pthread barrier for every wait:
# CTVM_TEAM_NO_ATOMICS); each runs 4 inferences and every
# output file must equal the one-thread build's byte for byte.
#   bash tests/team_identical.sh DIR...     (exit 1 on any difference)
set -uo pipefail
cd "$(dirname "$0")/.."
EMIT=${EMIT:-build/ctvm-emit}
T=$(mktemp -d /tmp/ctvm-team-id.XXXXXX)
trap 'rm -rf "$T"' EXIT
rc=0
for d in "$@"; do
  w=$T/$(basename "$d")
  mkdir -p "$w/in"
  "$EMIT" "$d/model.onnx" -o "$w/m.c" --threads 2 --prefix model || { rc=1; continue; }
  /usr/bin/python3 - "$w/m.c" "$d/inputs.npz" "$w/in" <<'PY' || { rc=1; continue; }
import re, sys
import numpy as np
names = dict(re.findall(r'#define model_INPUT(\d+)_NAME "(.*)"', open(sys.argv[1]).read()))
z = np.load(sys.argv[2])
for i, n in names.items():
    np.ascontiguousarray(z[n]).tofile("%s/in%s.bin" % (sys.argv[3], i))
PY
  CC="gcc -O2 -march=native -DCTVM_MAIN $w/m.c -lm"
  declare -A how=(
    [one]="$CC -o $w/bin_one"
    [omp]="$CC -fopenmp -DCTVM_TEAM_ADAPT=0 -o $w/bin_omp"
    [app2]="$CC -pthread -DCTVM_MAIN_TEAM=2 -o $w/bin_app2"
    [app3]="$CC -pthread -DCTVM_MAIN_TEAM=3 -o $w/bin_app3"
    [late3]="$CC -pthread -DCTVM_MAIN_TEAM=3 -DCTVM_MAIN_TEAM_LATE=300 -o $w/bin_late3"
    [static3]="$CC -pthread -DCTVM_MAIN_TEAM=3 -DCTVM_MAIN_TEAM_PBARRIER -DCTVM_TEAM_NO_ATOMICS -o $w/bin_static3"
  )
  for b in "${!how[@]}"; do ${how[$b]} || { echo "build $b failed"; rc=1; }; done
  run() { # name binary [env]
    mkdir -p "$w/$1"; timeout 600 env "${@:3}" "$2" "$w/in" "$w/$1" 4 > /dev/null || { echo "$1: run failed"; rc=1; }
  }
  run one "$w/bin_one"
  run omp2 "$w/bin_omp" OMP_NUM_THREADS=2
  run omp3 "$w/bin_omp" OMP_NUM_THREADS=3
  run app2 "$w/bin_app2"
  run app3 "$w/bin_app3"
  run late3 "$w/bin_late3"
  run static3 "$w/bin_static3"
  ls "$w/one"/out*.bin > /dev/null 2>&1 || { echo "$(basename "$d"): no outputs"; rc=1; }
  for o in omp2 omp3 app2 app3 late3 static3; do
    for f in "$w/one"/out*.bin; do
      if ! cmp -s "$f" "$w/$o/$(basename "$f")"; then
        echo "$(basename "$d") $o: $(basename "$f") differs from one thread's"; rc=1
      fi
    done
  done
  [ $rc = 0 ] && echo "$(basename "$d"): outputs identical on 1 thread, OpenMP 2 and 3, 2 and 3 application threads, 3 late ones, 3 without atomics"
  unset how
done
exit $rc
