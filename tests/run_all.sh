#!/usr/bin/env bash
# run_all.sh - every test: the cmocka unit tests (build/tests/test_*) and the
# end-to-end tests (tests/e2e.sh, tests/tune.sh, tests/typed/check.sh, tests/quant/run.sh and
# tests/quant/*_check.sh), the zoo's CI subset (zoo/zoo.sh --ci;
# CTVM_SKIP_ZOO=1 skips it) and the fast ONNX conformance run
# (tests/conformance/ci.sh; CTVM_SKIP_CONFORMANCE=1 skips it), the sanitizer
# stage and the fuzz targets for a minute each (CTVM_SKIP_SAN=1 skips them), the readability
# count of the generated kernels (tools/readability_count.py). Prints the
# combined "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
pass=0; fail=0
for t in build/tests/test_*; do
  [ -x "$t" ] || continue
  out=$("$t" 2>&1); rc=$?
  echo "$out" | grep -E '^\[  (PASSED|FAILED) |^\[  ERROR' || true
  p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
  if [ $rc -ne 0 ] && [ -z "$f" ]; then fail=$((fail + 1)); echo "$out" | tail -20; fi
  echo "  ($t: ${p:-0} passed, ${f:-0} failed)"
done
# the inputs the fuzzers found crashes with (fuzz/regressions/), replayed
for r in build/fuzz/replay_*; do
  [ -x "$r" ] || continue
  if "$r" "fuzz/regressions/${r##*/replay_}" > build/replay.log 2>&1; then pass=$((pass + 1)); echo "ok   $(tail -1 build/replay.log) (${r##*/})"
  else fail=$((fail + 1)); echo "FAIL ${r##*/} on fuzz/regressions/${r##*/replay_}"; tail -20 build/replay.log; fi
done
out=$(bash tests/e2e.sh 2>&1 | tee /dev/stderr | tail -1)
p=$(echo "$out" | sed -n 's/^e2e: \([0-9]*\) passed, \([0-9]*\) failed/\1/p')
f=$(echo "$out" | sed -n 's/^e2e: \([0-9]*\) passed, \([0-9]*\) failed/\2/p')
[ -n "$p" ] || f=$(( ${f:-0} + 1 ))
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
# ctvm-tune and --tuning-records end to end (tests/tune.sh)
out=$(bash tests/tune.sh 2>&1 | tee /dev/stderr | tail -1)
p=$(echo "$out" | sed -n 's/^tune: \([0-9]*\) passed, \([0-9]*\) failed/\1/p')
f=$(echo "$out" | sed -n 's/^tune: \([0-9]*\) passed, \([0-9]*\) failed/\2/p')
[ -n "$p" ] || f=$(( ${f:-0} + 1 ))
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
# model names that attack the generated C (tests/hostile_names.sh)
out=$(bash tests/hostile_names.sh 2>&1 | tee /dev/stderr | tail -1)
p=$(echo "$out" | sed -n 's/^hostile names: \([0-9]*\) passed, \([0-9]*\) failed/\1/p')
f=$(echo "$out" | sed -n 's/^hostile names: \([0-9]*\) passed, \([0-9]*\) failed/\2/p')
[ -n "$p" ] || f=$(( ${f:-0} + 1 ))
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
# odd-shape int8 convs and GEMMs against ONNX Runtime on every ISA (tests/quant/run.sh)
out=$(bash tests/quant/run.sh 2>&1 | tee /dev/stderr | tail -1)
p=$(echo "$out" | sed -n 's/^quant: \([0-9]*\) passed, \([0-9]*\) failed/\1/p')
f=$(echo "$out" | sed -n 's/^quant: \([0-9]*\) passed, \([0-9]*\) failed/\2/p')
[ -n "$p" ] || f=$(( ${f:-0} + 1 ))
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
# quantized and half-precision paths against ONNX Runtime (issue 22; the quant
# venv is set up by tests/quant/run.sh above): com.microsoft operators, the QDQ
# rewrite, the integer kernels (float16/bfloat16 models: after the zoo's exports below)
for q in msquant_check qdq_check qkern_check bf16_check; do
  if bash tests/quant/$q.sh > build/$q.log 2>&1; then pass=$((pass + 1)); echo "ok   tests/quant/$q.sh: $(tail -1 build/$q.log)"
  else fail=$((fail + 1)); echo "FAIL tests/quant/$q.sh"; tail -30 build/$q.log; fi
done
# the typed vectorizer on every SIMD target (tests/typed/check.sh)
out=$(bash tests/typed/check.sh 2>&1 | tee /dev/stderr | tail -1)
p=$(echo "$out" | sed -n 's/^typed vectorizer: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
f=$(echo "$out" | sed -n 's/^typed vectorizer: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
[ -n "$p" ] || f=$(( ${f:-0} + 1 ))
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
if [ "${CTVM_SKIP_SAN:-0}" != 1 ]; then
  # the sanitizer stage (tests/san.sh) and every fuzz target for
  # CTVM_FUZZ_SECONDS (default 60) each (fuzz/run.sh); CTVM_SKIP_SAN=1 skips both
  if make --no-print-directory -j2 san-build fuzz-build > build/san-build.log 2>&1; then
    for stage in "san:tests/san.sh" "fuzz:fuzz/run.sh ${CTVM_FUZZ_SECONDS:-60}"; do
      key=${stage%%:*}
      out=$(bash ${stage#*:} 2>&1 | tee /dev/stderr | tail -1)
      p=$(echo "$out" | sed -n "s/^$key: \([0-9]*\) passed, \([0-9]*\) failed/\1/p")
      f=$(echo "$out" | sed -n "s/^$key: \([0-9]*\) passed, \([0-9]*\) failed/\2/p")
      [ -n "$p" ] || f=$(( ${f:-0} + 1 ))
      pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
    done
  else
    tail -30 build/san-build.log; fail=$((fail + 1)); echo "FAIL building the sanitizer and fuzz binaries"
  fi
fi
if [ "${CTVM_SKIP_ZOO:-0}" != 1 ]; then
  # the zoo's representative subset (zoo/README.md): exported, checked against ONNX Runtime
  if bash zoo/zoo.sh --ci; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL zoo subset (zoo/zoo.sh --ci)"; fi
  # the float16 / bfloat16 forms it exported, against ONNX Runtime (issue 22)
  if bash tests/quant/half_check.sh > build/half_check.log 2>&1; then pass=$((pass + 1)); echo "ok   tests/quant/half_check.sh: $(tail -1 build/half_check.log)"
  else fail=$((fail + 1)); echo "FAIL tests/quant/half_check.sh"; tail -30 build/half_check.log; fi
fi
# readable output (issue 21): no extent-1 loops, provable guards, (void) lines or
# b<number> names in the kernels of the golden, seed and zoo CI models
if python3 tools/readability_count.py; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL readability (tools/readability_count.py)"; fi
if [ "${CTVM_SKIP_CONFORMANCE:-0}" != 1 ]; then
  if bash tests/conformance/ci.sh; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL conformance (tests/conformance/ci.sh)"; fi
fi
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
