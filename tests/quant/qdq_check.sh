#!/bin/bash
# qdq_check.sh - the quantized graph passes (quant_canon, quant_moves)
# end to end against ONNX Runtime: small QDQ / QOperator models made with
# onnxruntime.quantization (about half a minute on 2 cores); with
# QDQ_CHECK_ZOO=1 also resnet18, mobilenet_v2 and bert_mini qdq_u8/qdq_s8
# from ~/.cache/ctvm/models/zoo (several minutes). Needs the quantization
# venv (QDQ_PYTHON, default ~/.cache/ctvm/quant-venv/bin/python); skips
# (exit 0) without it. usage: tests/quant/qdq_check.sh [BUILD_DIR]
set -eo pipefail
here=$(dirname "$0")
build=${1:-$here/../../build}
py=${QDQ_PYTHON:-$HOME/.cache/ctvm/quant-venv/bin/python}
if ! "$py" -c "import onnxruntime.quantization" 2>/dev/null; then
    echo "qdq_check: skipped (no onnxruntime.quantization in $py)"
    exit 0
fi
work=$(mktemp -d /tmp/ctvm_qdq_XXXXXX)
trap 'rm -rf "$work"' EXIT
"$py" "$here/qdq_check.py" "$build" "$work" 2>&1 | grep -v -e '^WARNING:root' -e 'Please consider' -e '^$'
