#!/bin/sh
# msquant_check.sh - the com.microsoft quantized operators against ONNX
# Runtime (tests/quant/msquant_check.py): small models per operator, about
# 20 s on 2 cores (QAttention included); with CTVM_MSQUANT_ZOO=1 also resnet18_qop,
# mobilenet_v2_qop, bert_mini_qop and lstm_bidir_dyn (another minute).
# Needs build/ctvm-run and the quant venv (ORT + pip onnx; zoo/export_quant.py);
# without the venv it says so and exits 0, as the other venv-based checks.
cd "$(dirname "$0")/../.." || exit 1
PY=${CTVM_QUANT_PY:-$HOME/.cache/ctvm/quant-venv/bin/python}
if [ ! -x "$PY" ]; then
    echo "msquant_check: skipped, no quant venv at $PY"
    exit 0
fi
if [ "${CTVM_MSQUANT_ZOO:-0}" = 1 ]; then
    exec "$PY" tests/quant/msquant_check.py --zoo "$@"
fi
exec "$PY" tests/quant/msquant_check.py "$@"
