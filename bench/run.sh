#!/usr/bin/env bash
# run.sh - the whole benchmark in one command (also `make bench`):
#   bash bench/run.sh [--quick] [--setup-only] [bench.py options...]
# 1. builds ctvm-emit; 2. makes/updates the Python env (a venv over Debian's
# python3 with its system site-packages, plus pip onnxruntime and, where it
# installs, apache-tvm); 3. exports the seed models (cached); 4. builds the
# OpenBLAS sgemm ceiling program; 5. runs bench/bench.py (all engines
# interleaved in one process; it also runs the sgemm ceiling); 6. writes bench/RESULTS.md, bench/results.svg and (not for
# --quick runs) the README's Performance block.
#
# Environment: CTVM_BENCH_VENV (default ~/.cache/ctvm/bench-venv),
# CTVM_CACHE (seed models, default ~/.cache/ctvm/models), BENCH_NO_INSTALL=1
# (use the venv as it is, no pip/apt), BENCH_NO_TVM=1 (skip TVM entirely).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/bench/out
VENV=${CTVM_BENCH_VENV:-$HOME/.cache/ctvm/bench-venv}
SYS_PY=/usr/bin/python3
MODELS="resnet18 resnet50 mobilenet_v2 squeezenet1_1 shufflenet_v2_x1_0"
mkdir -p "$OUT"
say() { printf '== %s\n' "$*" >&2; }

QUICK=0 SETUP_ONLY=0 ARGS=()
for a in "$@"; do
  case $a in
    --quick) QUICK=1; ARGS+=("$a") ;;
    --setup-only) SETUP_ONLY=1 ;;     # install and export, do not measure
    *) ARGS+=("$a") ;;
  esac
done

say "build ctvm-emit"
make -j2 build/ctvm-emit >&2

# --- Python environment -----------------------------------------------------
# Debian's python3 has torch 1.13, torchvision, onnx and numpy; pip packages go
# into a venv that sees them (--system-site-packages), never into /usr. numpy
# is pinned to Debian's version so pip cannot upgrade it under torch.
apt_install() {
  if [ "$(id -u)" = 0 ] && [ -z "${BENCH_NO_INSTALL:-}" ]; then
    say "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2 ||
      { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2; }
  else
    echo "run.sh: please install Debian package(s): $*" >&2; return 1
  fi
}
$SYS_PY -c 'import torch, torchvision, onnx, numpy' 2>/dev/null ||
  apt_install python3-torch python3-torchvision python3-onnx python3-numpy
if [ ! -x "$VENV/bin/python" ]; then
  $SYS_PY -c 'import ensurepip' 2>/dev/null || apt_install python3-venv
  say "create venv $VENV (--system-site-packages over $SYS_PY)"
  $SYS_PY -m venv --system-site-packages "$VENV"
fi
PY=$VENV/bin/python
has_mod() { "$PY" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec(sys.argv[1]) is None)' "$1"; }
CONSTRAINTS=$OUT/pip-constraints.txt
echo "numpy==$($SYS_PY -c 'import numpy; print(numpy.__version__)')" > "$CONSTRAINTS"
pip_install() {  # pip_install LOG PKG...: 0 on success; the log keeps pip's output
  local log=$1; shift
  "$PY" -m pip install --disable-pip-version-check -q -c "$CONSTRAINTS" "$@" >"$log" 2>&1
}
TVM_LOG=$OUT/tvm_install.txt
if [ -z "${BENCH_NO_INSTALL:-}" ]; then
  if ! "$PY" -c 'import onnxruntime' 2>/dev/null; then
    say "pip install onnxruntime"
    pip_install "$OUT/ort_install.log" onnxruntime || { cat "$OUT/ort_install.log" >&2; exit 1; }
  fi
  if [ -z "${BENCH_NO_TVM:-}" ] && ! has_mod tvm; then
    say "pip install apache-tvm (optional)"
    if pip_install "$OUT/tvm_install.log" apache-tvm; then
      rm -f "$TVM_LOG"
    else
      # Keep pip's error line for RESULTS.md; the bench runs without TVM.
      { grep -m1 '^ERROR' "$OUT/tvm_install.log" || tail -n1 "$OUT/tvm_install.log"; } > "$TVM_LOG"
      say "apache-tvm did not install: $(cat "$TVM_LOG")"
    fi
  fi
fi
has_mod tvm && rm -f "$TVM_LOG"
"$PY" -c 'import onnxruntime' || { echo "run.sh: onnxruntime is not importable in $VENV" >&2; exit 1; }

# --- seed models ------------------------------------------------------------
say "export seed models (cached in ${CTVM_CACHE:-$HOME/.cache/ctvm/models})"
$SYS_PY golden/export_models.py $MODELS >&2
[ $SETUP_ONLY = 1 ] && { say "setup done ($VENV)"; exit 0; }

# --- OpenBLAS sgemm ceiling -------------------------------------------------
# bench.py runs it (OPENBLAS_CORETYPE=SkylakeX: Debian's OpenBLAS 0.3.21 does
# not know this CPU and would use SSE3 kernels) next to the conv layers.
gcc -O2 -std=c11 -Wall -Wextra bench/sgemm_ceiling.c -o "$OUT/sgemm_ceiling" -lopenblas

# --- the interleaved benchmark ----------------------------------------------
ENGINES=()
[ -n "${BENCH_NO_TVM:-}" ] && ENGINES=(--engines ctvm ort torch)
say "bench.py ${ARGS[*]:-} ${ENGINES[*]:-}"
# OPENBLAS_CORETYPE also for the bench process: any BLAS call (PyTorch's
# Linear through Debian's libblas) gets the AVX-512 kernels.
OPENBLAS_CORETYPE=SkylakeX "$PY" bench/bench.py --out "$OUT" \
  --sgemm-bin "$OUT/sgemm_ceiling" --tvm-install-log "$TVM_LOG" \
  ${ENGINES[@]+"${ENGINES[@]}"} ${ARGS[@]+"${ARGS[@]}"}

say "report"
"$PY" bench/report.py "$OUT/results.json" --md bench/RESULTS.md --svg bench/results.svg
if [ $QUICK = 0 ]; then
  "$PY" bench/update_readme.py "$OUT/results.json" README.md
else
  say "quick run: README.md not updated (run without --quick, or bench/update_readme.py by hand)"
fi
say "done: bench/RESULTS.md bench/results.svg"
