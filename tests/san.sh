#!/usr/bin/env bash
# san.sh - the sanitizer stage (issue 20), after `make san` built the
# compiler, its unit tests and the fuzz replay binaries with
# -fsanitize=address,undefined into build-san/: the unit tests, the fuzz
# regression inputs and seed corpora replayed, the end-to-end checks on the
# small models for the native target (tests/e2e.sh with CTVM_BIN=build-san;
# no seed or zoo models, no cross targets), the hostile-names checks and a
# sample of the ONNX conformance suite. Any sanitizer report fails the check
# it happens in (UBSan does not recover; ASan and LeakSanitizer exit non-zero).
# Prints "san: N passed, N failed" last.
set -u
cd "$(dirname "$0")/.."
# a report aborts (SIGABRT), so runners that classify exit codes (conformance.py,
# ctvm-run's own 1-6) see a crash, never a mismatch or a refusal
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:abort_on_error=1}
S=build-san
pass=0; fail=0
T=$(mktemp -d /tmp/ctvm-san-XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { local name=$1; shift; if "$@" > "$T/log" 2>&1; then pass=$((pass+1)); echo "ok   san: $name";
  else fail=$((fail+1)); echo "FAIL san: $name"; sed 's/^/     /' "$T/log" | tail -30; fi; }
count() { # name runner-output-file: adds a "N passed, N failed" closing line
  local p f; p=$(sed -n "s/^$2: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p" "$3" | tail -1)
  f=$(sed -n "s/^$2: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p" "$3" | tail -1)
  if [ -z "$p" ]; then fail=$((fail+1)); echo "FAIL san: $1 (no result line)"; tail -30 "$3"
  else pass=$((pass+p)); fail=$((fail+f)); echo "     san: $1: $p passed, $f failed"; fi
}

for t in $S/tests/test_*; do
  check "unit $(basename "$t")" "$t"
done
[ -d build-fuzz/seeds ] || bash fuzz/seeds.sh build-fuzz/seeds > /dev/null
for r in $S/fuzz/replay_*; do
  n=${r##*/replay_}
  check "fuzz regressions and seeds of $n replayed" "$r" fuzz/regressions/$n build-fuzz/seeds/$n
done
CTVM_BIN=$S CTVM_SKIP_SEED=1 CTVM_CROSS_TARGETS= CTVM_TARGETS="${CTVM_SAN_TARGETS:-generic x86_64-avx2}" \
  bash tests/e2e.sh > "$T/e2e.log" 2>&1
grep '^FAIL' "$T/e2e.log" | sed 's/^/     /'
count "tests/e2e.sh (small models)" e2e "$T/e2e.log"
CTVM_BIN=$S bash tests/hostile_names.sh > "$T/hn.log" 2>&1
grep '^FAIL' "$T/hn.log" | sed 's/^/     /'
count "tests/hostile_names.sh" "hostile names" "$T/hn.log"
# a sample of the node suite: the operators most models use and the ones
# with the most index arithmetic
SAMPLE='test_(conv|gemm|matmul|add|mul|relu|softmax|reshape|slice|gather|concat|resize|pad|reduce_mean|lstm|gru|if|loop|scan|einsum|topk|nonzero|cast|quantizelinear|dequantizelinear|batchnorm|layer_normalization|averagepool|maxpool|transpose|expand|tile|split|where|range|constantofshape|cumsum|onehot|scatter|col2im|deform_conv|roialign|nms|unique|grid_sample)'
check "conformance sample (debian-node: $SAMPLE)" /usr/bin/python3 tests/conformance/conformance.py \
  --suite debian-node --filter "$SAMPLE" -j 2 --target native --cflags=-O1 --threshold 0 \
  --ctvm-run $S/ctvm-run --json $S/conformance-sample.json
echo "san: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
