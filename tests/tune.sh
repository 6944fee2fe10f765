#!/usr/bin/env bash
# tune.sh - end-to-end tests of ctvm-tune and ctvm-emit --tuning-records on
# the committed small CNN (docs/TUNING.md): records written and read back,
# resume, knobs applied and still matching PyTorch, records that match
# nothing or belong to another target, wrong and hanging candidates
# recorded as failed and never chosen, --runner through qemu. Prints
# "tune: N passed, N failed" last; exit 1 on any failure.
set -u
cd "$(dirname "$0")/.."
EMIT=build/ctvm-emit TUNE=build/ctvm-tune
M=golden/small_cnn
T=$(mktemp -d /tmp/ctvm-tune-test-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass+1)); echo "ok   $1"; }
bad()  { fail=$((fail+1)); echo "FAIL $1"; }
check() { local name=$1; shift; if "$@" > "$T/log" 2>&1; then ok "$name"; else bad "$name"; sed 's/^/     /' "$T/log" | tail -20; fi; }
# records.json field checks: python3 -c over every line (stdlib json only)
records() { # file python-expression-over-list-r
  python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
# this machine's target (what --target native resolves to)
NAT=$($TUNE $M/model.onnx --tasks list | sed -n 's/.* for \([^ ,]*\), .*/\1/p')
echo "native target: $NAT"
# the task index of a node's workload (the list is in model order)
task_of() { local n=$1; shift; $TUNE $M/model.onnx --tasks list "$@" | awk -v n="$n" '$4 == n {print $1}'; }
EXPAND=$(task_of /expand/Conv) PROJECT=$(task_of /project/Conv)
# the generated C without its stamp (the command line differs)
body() { grep -v '^ \* command:' "$1"; }

tune_and_resume() {
  $TUNE $M/model.onnx -o "$T/r.json" --trials 5 --repeat 3 -q &&
  records "$T/r.json" 'len(r) >= 7 and all(x["v"] == 1 and x["target"] == "'"$NAT"'" for x in r)' &&
  records "$T/r.json" 'len({x["workload"] for x in r}) == 7 and any(x["knobs"] == [0,0,0,0] and x["status"] == "ok" for x in r)' &&
  records "$T/r.json" 'all(x["status"] != "ok" or (x["median_ms"] > 0 and x["gflops"] > 0 and len(x["runs_ms"]) == 3) for x in r)' &&
  n=$(wc -l < "$T/r.json") &&
  $TUNE $M/model.onnx -o "$T/r.json" --trials 5 --repeat 3 2> "$T/resume.log" &&
  [ "$(wc -l < "$T/r.json")" -eq "$n" ] && grep -q ' 0 new trials' "$T/resume.log"
}
check "ctvm-tune writes one JSON record per candidate, and a second run resumes (measures nothing again)" tune_and_resume

applied() { # the tuned file matches PyTorch and says how many workloads matched
  $EMIT $M/model.onnx -o "$T/tuned.c" --describe "$T/tuned.json" --tuning-records "$T/r.json" --main test 2> "$T/emit.log" &&
  grep -qF "r.json: 7 of its 7 tuned workloads ($NAT, 1 thread) matched, applied to 7 kernels" "$T/emit.log" &&
  build/ctvm-run "$T/tuned.c" --inputs $M/inputs.npz --golden $M/outputs.npz
}
check "ctvm-emit --tuning-records applies the best record per workload, says so once, and matches PyTorch" applied

# a hand-written record with knobs far from the defaults: the code changes, the result does not
forced() {
  local w; w=$($TUNE $M/model.onnx --tasks list | awk -v t="$PROJECT" '$1 == t {for (i = 5; i <= NF; i++) printf "%s%s", $i, i < NF ? " " : ""}') &&
  printf '{"v":1,"ctvm":"0.1.0","target":"'"$NAT"'","workload":"%s","threads":1,"knobs":[1,1,1,0],"status":"ok","median_ms":0.001,"gflops":1,"runs_ms":[0.001],"error":""}\n' "$w" > "$T/forced.json" &&
  $EMIT $M/model.onnx -o "$T/forced.c" --describe "$T/forced_api.json" --tuning-records "$T/forced.json" --main test 2> "$T/forced.log" &&
  grep -q '1 of its 1 tuned workloads' "$T/forced.log" &&
  $EMIT $M/model.onnx -o "$T/plain.c" --main test --target $NAT &&
  ! cmp -s <(body "$T/forced.c") <(body "$T/plain.c") &&
  build/ctvm-run "$T/forced.c" --describe "$T/forced_api.json" --inputs $M/inputs.npz --golden $M/outputs.npz
}
check "knobs from a record change the kernel (T=U=R=1) and it still matches PyTorch" forced

nomatch() { # records of another workload, target and thread count change nothing
  printf '%s\n' \
    '{"v":1,"ctvm":"0.1.0","target":"'"$NAT"'","workload":"conv 9x9x9x9x16 r1x1x1x16 #0000000000000000","threads":1,"knobs":[2,2,0,0],"status":"ok","median_ms":0.1,"gflops":1,"runs_ms":[0.1],"error":""}' \
    '{"v":1,"ctvm":"0.1.0","target":"aarch64","workload":"conv 9x9x9x9x16 r1x1x1x16 #0000000000000000","threads":1,"knobs":[2,2,0,0],"status":"ok","median_ms":0.1,"gflops":1,"runs_ms":[0.1],"error":""}' \
    '{"v":1,"ctvm":"0.0.9","target":"'"$NAT"'","workload":"conv 9x9x9x9x16 r1x1x1x16 #0000000000000000","threads":1,"knobs":[2,2,0,0],"status":"ok","median_ms":0.1,"gflops":1,"runs_ms":[0.1],"error":""}' \
    'not json' > "$T/other.json" &&
  $EMIT $M/model.onnx -o "$T/other.c" --tuning-records "$T/other.json" --main test --target $NAT 2> "$T/other.log" &&
  grep -qF "0 of its 1 tuned workloads ($NAT, 1 thread) matched, applied to 0 kernels" "$T/other.log" &&
  grep -qF "ignored 1 records of another ctvm version, 1 of another target than $NAT, 1 unreadable" "$T/other.log" &&
  grep -q 'other.json:4: not a tuning record' "$T/other.log" &&
  cmp <(body "$T/other.c") <(body "$T/plain.c")
}
check "records that match nothing (other workload, target, version, unreadable) are reported and change nothing" nomatch

wrong() { # every non-default candidate corrupts its output: recorded wrong, never chosen
  $TUNE $M/model.onnx -o "$T/w.json" --tasks $EXPAND,$PROJECT --trials 5 --repeat 3 --cflags "-O2 -DCTVM_TUNE_FAULT" -q &&
  records "$T/w.json" 'sum(x["status"] == "wrong" for x in r) >= 4 and all((x["status"] == "ok") == (x["knobs"] == [0,0,0,0]) for x in r)' &&
  $EMIT $M/model.onnx -o "$T/w.c" --tuning-records "$T/w.json" --main test 2> "$T/w.log" &&
  grep -q '2 of its 2 tuned workloads' "$T/w.log" && cmp <(body "$T/w.c") <(body "$T/plain.c")
}
check "candidates whose output differs from the reference kernel are recorded as wrong and never applied" wrong

hang() { # a candidate that never returns is killed at the timeout and recorded
  $TUNE $M/model.onnx -o "$T/h.json" --tasks $EXPAND --trials 3 --repeat 3 --timeout 1 --cflags "-O2 -DCTVM_TUNE_HANG" -q &&
  records "$T/h.json" 'any(x["status"] == "timeout" for x in r) and all((x["status"] == "ok") == (x["knobs"] == [0,0,0,0]) for x in r)'
}
check "a hanging candidate is killed at --timeout and recorded as timeout" hang

badbuild() { # a compiler that fails: build_fail records, exit 0, nothing chosen
  $TUNE $M/model.onnx -o "$T/b.json" --tasks $EXPAND --trials 2 --cc false -q &&
  records "$T/b.json" 'len(r) >= 1 and all(x["status"] == "build_fail" for x in r)'
}
check "a failing build is recorded as build_fail" badbuild

if command -v aarch64-linux-gnu-gcc > /dev/null && command -v qemu-aarch64 > /dev/null; then
  runner() { # the candidates of another target, built by its gcc and run through --runner
    $TUNE $M/model.onnx -o "$T/q.json" --tasks "$(task_of /expand/Conv --target aarch64)" --trials 3 --repeat 3 --target aarch64 \
      --runner "qemu-aarch64 -L /usr/aarch64-linux-gnu" -q &&
    records "$T/q.json" 'len(r) >= 3 and all(x["target"] == "aarch64" and (x["status"] == "ok" or x["error"].startswith("not built")) for x in r) and any(x["status"] == "ok" and x["knobs"] != [0,0,0,0] for x in r)'
  }
  check "--runner: aarch64 candidates built by aarch64-linux-gnu-gcc and run under qemu-aarch64" runner
fi

sshrun() { # tools/ssh_runner.sh: copy to the "board", run there, remove; ssh and scp replaced
  # by stand-ins that keep the command line's meaning (options, host:path, a remote shell
  # string), so the copy, the quoting, the exit status and the clean-up are what is tested
  mkdir -p "$T/board" &&
  printf '%s\n' '#!/bin/sh' 'while [ "${1#-}" != "$1" ]; do case $1 in -q) shift ;; *) shift 2 ;; esac; done' \
    'cp "$1" "${2#*:}"' > "$T/fake_scp" &&
  printf '%s\n' '#!/bin/sh' 'while [ "${1#-}" != "$1" ]; do shift 2; done' 'shift' \
    'echo "$*" >> "$(dirname "$0")/ssh.log"' 'exec sh -c "$*"' > "$T/fake_ssh" &&
  chmod +x "$T/fake_scp" "$T/fake_ssh" &&
  CTVM_SSH=$T/fake_ssh CTVM_SCP=$T/fake_scp $TUNE $M/model.onnx -o "$T/s.json" --tasks $EXPAND --trials 8 --repeat 3 \
    --cflags "-O2 -DCTVM_TUNE_FAULT" --runner "tools/ssh_runner.sh -p 2222 -d $T/board user@board" -q &&
  records "$T/s.json" 'sum(x["status"] == "wrong" for x in r) >= 2 and all((x["status"] == "ok") == (x["knobs"] == [0,0,0,0]) for x in r) and any(x["status"] == "ok" for x in r)' &&
  grep -q "'$T/board/ctvm-cand-.*' '3'; rc=" "$T/ssh.log" && [ -z "$(ls -A "$T/board")" ]
}
check "--runner tools/ssh_runner.sh: candidates copied to the board, run there (wrong ones recorded), removed" sshrun

noshell() { # a compiler and a runner in folders whose names are shell payloads: run as argv words, no shell
  local cc_dir="$T/c;touch\${IFS}PWNED;d" run_dir="$T/r;touch\${IFS}PWNED2;s" top=$PWD
  mkdir -p "$cc_dir" "$run_dir" &&
  printf '%s\n' '#!/bin/sh' 'exec gcc "$@"' > "$cc_dir/gcc" && printf '%s\n' '#!/bin/sh' 'exec "$@"' > "$run_dir/run" &&
  chmod +x "$cc_dir/gcc" "$run_dir/run" &&
  (cd "$T" && "$top/$TUNE" "$top/$M/model.onnx" -o "$T/n.json" --tasks $EXPAND --trials 2 --repeat 3 \
     --cc "$cc_dir/gcc" --cflags " -O2	-DCTVM_UNUSED=1 " --runner "$run_dir/run" -q) &&
  records "$T/n.json" 'len(r) >= 1 and all(x["status"] == "ok" for x in r)' &&
  [ ! -e "$T/PWNED" ] && [ ! -e "$T/PWNED2" ]
}
check "--cc and --runner in folders named like shell payloads: candidates built and run, no payload runs" noshell

badargs() { # bad input: clear error, non-zero exit, no records file
  ! $TUNE $M/model.onnx -o "$T/x.json" --tasks 99 2> "$T/x.log" && grep -q 'tasks takes' "$T/x.log" &&
  ! $TUNE /nonexistent.onnx -o "$T/x.json" 2> /dev/null && [ ! -e "$T/x.json" ] &&
  ! $EMIT $M/model.onnx -o "$T/x.c" --tuning-records /nonexistent.json 2> "$T/x.log" &&
  grep -q 'cannot open /nonexistent.json' "$T/x.log" && [ ! -e "$T/x.c" ]
}
check "bad --tasks, a missing model or records file: an error, a non-zero exit, no output" badargs

echo "tune: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
