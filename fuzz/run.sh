#!/usr/bin/env bash
# run.sh SECONDS [TARGET...] - runs each fuzz target (default: all of
# build-fuzz/fuzz/) for SECONDS on its corpus: the seeds (fuzz/seeds.sh, made
# once into build-fuzz/seeds), the regression inputs (fuzz/regressions/<target>)
# and what earlier runs found (build-fuzz/corpus/<target>, where new inputs
# go). A crash, leak, timeout or out-of-memory stops a target and fails the
# run; its input is left in build-fuzz/crashes/ (copy it to
# fuzz/regressions/<target>/ once fixed). Prints the executions, coverage and
# "fuzz: N passed, N failed" last. Run from anywhere after `make fuzz-build`.
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
FB=build-fuzz
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(cd $FB/fuzz && ls fuzz_* 2>/dev/null))
[ -d $FB/seeds ] || bash fuzz/seeds.sh $FB/seeds
pass=0; fail=0
for t in "${targets[@]}"; do
  mkdir -p $FB/corpus/$t $FB/crashes fuzz/regressions/$t
  # -timeout: one input may take this long (a big valid model under ASan);
  # -rss_limit_mb: ctvm's own caps keep a hostile model far below it
  $FB/fuzz/$t -max_total_time="$secs" -timeout=30 -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix=$FB/crashes/$t- $FB/corpus/$t $FB/seeds/$t fuzz/regressions/$t > $FB/$t.log 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' $FB/$t.log | tail -1)
  cov=$(grep -o 'cov: [0-9]*' $FB/$t.log | tail -1)
  ft=$(grep -o 'ft: [0-9]*' $FB/$t.log | tail -1)
  if [ $rc -eq 0 ]; then
    pass=$((pass + 1)); echo "ok   $t: ${runs:-?} executions in ${secs} s, ${cov:-cov: ?} edges, ${ft:-ft: ?} features"
  else
    fail=$((fail + 1)); echo "FAIL $t (exit $rc): see $FB/$t.log"
    grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' $FB/$t.log | head -20 | sed 's/^/     /'
  fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
