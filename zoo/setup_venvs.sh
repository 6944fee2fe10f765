#!/bin/bash
# zoo/setup_venvs.sh - creates (if missing) and fills the two venvs the pip
# exporters of the model zoo run in (issue 10). Idempotent: a venv whose
# stamp matches the pinned requirements and that imports is left alone.
#
#   ~/.cache/ctvm/zoo-dynamo  torch 2 CPU + torchvision + onnx + onnxscript + onnxruntime
#                             (for zoo/export_dynamo.py: torch.onnx.export(..., dynamo=True))
#   ~/.cache/ctvm/zoo-tf      tensorflow-cpu + tf2onnx + onnx + onnxruntime (zoo/export_tf.py)
#   ~/.cache/ctvm/quant-venv  onnx + onnxruntime + ml_dtypes, nothing else (issue 22:
#                             zoo/export_quant.py and tests/quant/gen_cases.py; Debian's
#                             onnx 1.12 is too old for onnxruntime.quantization)
#
# Python: Debian's /usr/bin/python3 (3.11.2) -m venv; it has venv and ensurepip.
# (The pyenv python3 first on PATH, 3.11.7, would work too; Debian's is on every machine.)
# pip output goes to ~/.cache/ctvm/setup_venvs.log.
#
# torch without the nvidia-* wheels: PyPI has no CPU-only torch for Linux
# x86_64; `pip install torch` pulls ~2.4 GB of nvidia-*/triton wheels (5.6 GB
# installed venv). Instead torch and torchvision go in with --no-deps, plus
# torch's pure-python deps and the three small CUDA libraries CPU code really
# loads and calls (cudart 2 MB, cupti 12 MB, cufile 1 MB); zoo/cuda_stubs.py
# then writes empty stubs for cuBLAS/cuDNN/cuFFT/NCCL/... so torch imports
# (torch.cuda.is_available() is False). Result: ~1.9 GB venv.
# Set ZOO_TORCH_FULL=1 to install torch with all its dependencies instead.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
BASE=${CTVM_VENVS:-$HOME/.cache/ctvm}
LOG=$BASE/setup_venvs.log
PY=/usr/bin/python3
mkdir -p "$BASE"

# Pins (found working together on 2026-11-23):
# torch 2.15.0 / torchvision 0.29.2 are a matched pair; the dynamo exporter
# needs onnxscript (which brings onnx-ir); onnx 1.23.2 and onnxruntime 1.32.0 are
# the newest, and ORT 1.32 runs the opset 20 the exporter chooses.
TORCH_PKGS="torch==2.15.0 torchvision==0.29.2"
TORCH_PY_DEPS="filelock typing-extensions>=4.10 sympy>=1.13.3 networkx jinja2 fsspec setuptools>=77.0.3 numpy pillow"
TORCH_CUDA_SMALL="nvidia-cuda-runtime==13.2.86 nvidia-cuda-cupti==13.2.86 nvidia-cufile==1.17.1.22"
ONNX_PKGS="onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.32.0"
# tensorflow-cpu 2.21.0 (Keras 3.15) with tf2onnx 1.17.0: pip resolves them to
# protobuf 7 / numpy 2 without conflict; tf2onnx converts a tf.function of the
# Keras 3 model (export_tf.py), not the Keras object itself.
TF_PKGS="tensorflow-cpu==2.21.0 tf2onnx==1.17.0 onnx==1.23.2 onnxruntime==1.32.0"

# onnxruntime.quantization needs onnx >= 1.16; ml_dtypes (onnx's own dependency)
# carries the bfloat16/float8 numpy types; sympy comes in with onnxruntime.
QUANT_PKGS="onnx==1.23.2 onnxruntime==1.32.0 ml_dtypes==0.6.0"

die() { echo "setup_venvs: $*" >&2; echo "setup_venvs: see $LOG" >&2; exit 1; }

pip_in() {  # pip_in VENV ARGS...: pip install, output to the log
    local v=$1; shift
    echo "+ pip install $*" >>"$LOG"
    "$v/bin/pip" install --disable-pip-version-check "$@" >>"$LOG" 2>&1 \
        || die "pip install $* failed in $v"
}

make_venv() {  # make_venv VENV
    [ -x "$1/bin/python" ] && return 0
    echo "setup_venvs: creating $1"
    "$PY" -m venv "$1" >>"$LOG" 2>&1 || die "$PY -m venv $1 failed"
    pip_in "$1" -U pip
}

fresh() {  # fresh VENV STAMP CHECK: venv built from this stamp and CHECK imports
    [ -f "$1/ctvm-stamp" ] && [ "$(cat "$1/ctvm-stamp")" = "$2" ] \
        && "$1/bin/python" -c "$3" >>"$LOG" 2>&1
}

setup_dynamo() {
    local v=$BASE/zoo-dynamo stamp="$TORCH_PKGS $ONNX_PKGS full=${ZOO_TORCH_FULL:-0}"
    local check="import torch, torchvision, onnx, onnxscript, onnxruntime"
    if fresh "$v" "$stamp" "$check"; then echo "setup_venvs: $v up to date"; return; fi
    make_venv "$v"
    if [ "${ZOO_TORCH_FULL:-0}" = 1 ]; then
        pip_in "$v" $TORCH_PKGS $ONNX_PKGS
    else
        pip_in "$v" --no-deps $TORCH_PKGS
        pip_in "$v" $TORCH_PY_DEPS $ONNX_PKGS
        pip_in "$v" --no-deps $TORCH_CUDA_SMALL
        local sp
        sp=$("$v/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
        "$v/bin/python" "$HERE/cuda_stubs.py" "$sp" >>"$LOG" 2>&1 || die "cuda_stubs.py failed for $v"
    fi
    "$v/bin/python" -c "$check; assert not torch.cuda.is_available()" >>"$LOG" 2>&1 \
        || die "$v: torch does not import (last lines of $LOG)"
    echo "$stamp" >"$v/ctvm-stamp"
    echo "setup_venvs: $v ready ($(du -sh "$v" | cut -f1))"
}

plain_venv() {  # plain_venv VENV CHECK PKGS...: a venv of PKGS (its stamp) in which CHECK runs
    local v=$1 check=$2; shift 2
    local stamp="$*"
    if fresh "$v" "$stamp" "$check"; then echo "setup_venvs: $v up to date"; return; fi
    make_venv "$v"
    pip_in "$v" "$@"
    "$v/bin/python" -c "$check" >>"$LOG" 2>&1 || die "$v: $check failed"
    echo "$stamp" >"$v/ctvm-stamp"
    echo "setup_venvs: $v ready ($(du -sh "$v" | cut -f1))"
}

setup_tf() {
    plain_venv "$BASE/zoo-tf" "import tensorflow, tf2onnx, onnx, onnxruntime" $TF_PKGS
}

setup_quant() {
    plain_venv "${CTVM_QUANT_VENV:-$BASE/quant-venv}" \
        "import onnx, onnxruntime, ml_dtypes; from onnxruntime import quantization; assert tuple(map(int, onnx.__version__.split('.')[:2])) >= (1, 16)" \
        $QUANT_PKGS
}

echo "=== setup_venvs $(date -u +%FT%TZ)" >>"$LOG"
[ -x "$PY" ] || die "$PY not found"
"$PY" -c "import venv, ensurepip" 2>/dev/null || die "$PY lacks venv/ensurepip (apt-get install python3-venv)"
command -v gcc >/dev/null && command -v readelf >/dev/null && command -v nm >/dev/null \
    || die "gcc, readelf and nm are needed to stub the CUDA libraries (apt-get install gcc binutils)"
case "${1:-all}" in
    dynamo) setup_dynamo ;;
    tf) setup_tf ;;
    quant) setup_quant ;;
    all) setup_dynamo; setup_tf; setup_quant ;;
    *) die "usage: $0 [dynamo|tf|quant|all]" ;;
esac
