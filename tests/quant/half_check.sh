#!/usr/bin/env bash
# half_check.sh - float16 and bfloat16 models against ONNX Runtime
# (tests/quant/half_check.py: the fp16/bf16 zoo forms made by
# zoo/export_quant.py, built as a user builds them). Prints
# "half: N passed, N failed" last; exits 1 on any failure. Needs the quant
# venv (CTVM_QUANT_PY, default ~/.cache/ctvm/quant-venv/bin/python) and
# build/ctvm-emit. Extra arguments (model names, --jobs) go to the script.
set -u
cd "$(dirname "$0")/../.."
PY=${CTVM_QUANT_PY:-$HOME/.cache/ctvm/quant-venv/bin/python}
if [ ! -x "$PY" ]; then echo "half: 0 passed, 1 failed (no python with onnxruntime at $PY)"; exit 1; fi
exec "$PY" tests/quant/half_check.py "$@"
