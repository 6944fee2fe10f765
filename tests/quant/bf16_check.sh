#!/usr/bin/env bash
# bf16_check.sh - bfloat16 x bfloat16 products (vdpbf16ps on
# x86_64-avx512-bf16, float32 elsewhere) against float64 numpy references
# (tests/quant/bf16_check.py: small MatMul / Gemm models made with
# onnx.helper, on native, generic, aarch64 and armv7-neon under qemu).
# Prints "bf16: N passed, N failed" last; exits 1 on any failure. Needs the
# quant venv (CTVM_QUANT_PY, default ~/.cache/ctvm/quant-venv/bin/python: onnx
# and numpy) and build/ctvm-emit, build/ctvm-run. Extra arguments are targets.
set -u
cd "$(dirname "$0")/../.."
PY=${CTVM_QUANT_PY:-$HOME/.cache/ctvm/quant-venv/bin/python}
if [ ! -x "$PY" ]; then echo "bf16: 0 passed, 1 failed (no python with onnx at $PY)"; exit 1; fi
make --no-print-directory -j2 build/ctvm-emit build/ctvm-run >/dev/null || { echo "bf16: 0 passed, 1 failed (build)"; exit 1; }
if [ $# -eq 0 ]; then set -- native generic; for t in aarch64 armv7-neon; do
  r=$(build/ctvm-emit --list-targets | awk -v t=$t '$1 == t {print $5 " " $6}')
  cc=${r% *} run=${r#* }
  command -v "$cc" >/dev/null && command -v "$run" >/dev/null && set -- "$@" $t
done; fi
exec "$PY" tests/quant/bf16_check.py "$@"
