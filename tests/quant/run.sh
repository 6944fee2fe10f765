#!/usr/bin/env bash
# tests/quant/run.sh - the odd-shape int8 conformance tests (issue 22):
# QLinearConv, ConvInteger, MatMulInteger, QLinearMatMul and QDQ Conv/MatMul/
# Gemm (onnxruntime.quantization.quantize_static) on odd shapes, against
# ONNX Runtime, on every ISA this host executes and, under qemu-user, on
# aarch64 (and its dotprod target when ctvm has one) and armv7-neon.
#   bash tests/quant/run.sh            (tests/run_all.sh calls it)
# 1. the quant venv (zoo/setup_venvs.sh quant: pip onnx + onnxruntime);
# 2. tests/quant/gen_cases.py writes the models and ORT's outputs once into
#    $CTVM_CACHE/quant_cases (regenerated when gen_cases.py changes);
# 3. tests/quant/check.py: ctvm-run per target and group, one line per case.
# Last line: "quant: N passed, N failed"; exit status non-zero on a failure.
# Environment: CTVM_QUANT_TARGETS (default: the host ISAs as tests/e2e.sh
# picks them, every aarch64* target, armv7-neon), CTVM_QUANT_JOBS (2).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CACHE=${CTVM_CACHE:-$HOME/.cache/ctvm/models}/quant_cases
VENV=${CTVM_QUANT_VENV:-$HOME/.cache/ctvm/quant-venv}
WORK=$ROOT/build/quant
fail() { echo "quant: $*" >&2; echo "quant: 0 passed, 1 failed"; exit 1; }

make --no-print-directory -j2 build/ctvm-run build/ctvm-emit >/dev/null || fail "building ctvm-run failed"
bash zoo/setup_venvs.sh quant >/dev/null || fail "the quant venv (zoo/setup_venvs.sh quant) did not set up"

# the cases, cached: keyed by the generator's and the step reader's contents
key=$(cat tests/quant/gen_cases.py zoo/lowp_check.py | sha1sum | cut -c1-16)
if [ "$(cat "$CACHE/key" 2>/dev/null)" != "$key" ]; then
  rm -rf "$CACHE"
  "$VENV/bin/python" tests/quant/gen_cases.py "$CACHE" || fail "gen_cases.py failed"
  echo "$key" >"$CACHE/key"
fi

# targets: the host ISAs (as tests/e2e.sh), then the qemu ones whose toolchain is here
host_targets() {
  local t=generic f; f=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
  [[ " $f " == *" sse4_1 "* ]] && t="$t x86_64-sse4"
  [[ " $f " == *" avx2 "* && " $f " == *" fma "* ]] && t="$t x86_64-avx2"
  [[ " $f " == *" avx512f "* ]] && t="$t x86_64-avx512"
  echo $t
}
declare -A TCC TRUNNER
while read -r name _ _ _ cc runner _; do TCC[$name]=$cc TRUNNER[$name]=$runner; done < <(build/ctvm-emit --list-targets)
# the qemu ones: every aarch64* target ctvm has (aarch64, and the dotprod one
# another part of issue 22 adds, whatever its name), and armv7-neon
cross_targets() {
  local t
  for t in "${!TCC[@]}"; do [[ $t == aarch64* ]] && echo "$t"; done | sort
  echo armv7-neon
}
if [ -z "${CTVM_QUANT_TARGETS:-}" ] && ! cross_targets | grep -q dot; then
  echo "quant: skip aarch64 with dotprod: ctvm has no such target yet (ctvm-emit --list-targets)"
fi
targets=()
for t in ${CTVM_QUANT_TARGETS:-$(host_targets) $(cross_targets)}; do
  if [ -z "${TCC[$t]:-}" ]; then
    echo "quant: skip $t: not a target of this ctvm (ctvm-emit --list-targets)"; continue
  fi
  if ! command -v "${TCC[$t]}" >/dev/null || { [ "${TRUNNER[$t]}" != - ] && ! command -v "${TRUNNER[$t]}" >/dev/null; }; then
    echo "quant: skip $t: ${TCC[$t]} or ${TRUNNER[$t]} not installed (tools/deps.sh)"; continue
  fi
  targets+=("$t")
done
[ ${#targets[@]} -gt 0 ] || fail "no target to run"
echo "quant: targets ${targets[*]}"
exec "$VENV/bin/python" tests/quant/check.py "$CACHE" "$WORK" "${targets[@]}" -j "${CTVM_QUANT_JOBS:-2}"
