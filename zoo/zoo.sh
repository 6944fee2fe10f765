#!/usr/bin/env bash
# zoo.sh - the model zoo (issue 10), `make zoo` and `make zoo-ci`:
#   bash zoo/zoo.sh [--ci] [run_zoo.py options...]
# 1. the Python environments: the bench venv (Debian's torch + pip
#    onnxruntime, bench/run.sh --setup-only) and the pip exporters' venvs
#    (zoo/setup_venvs.sh: torch 2 for the dynamo exporter, tensorflow +
#    tf2onnx) and the quant venv (onnx + onnxruntime.quantization);
#    2. exports every model into the cache (kept across runs, never
#    committed), then the int8 / float16 / bfloat16 forms of four of them
#    (zoo/export_quant.py, issue 22); 3. zoo/run_zoo.py: ctvm vs ONNX Runtime
#    per model (low-precision forms also against ctvm's float32 source).
# Without --ci: all models, timed at 1 and 2 threads, docs/ZOO.md rewritten.
# With --ci: the representative subset (meta.json "ci"), checked, not timed.
set -euo pipefail
cd "$(dirname "$0")/.."
CI_ONLY=() RUN_ARGS=()
for a in "$@"; do
  case $a in
    --ci) CI_ONLY=(--ci) ;;
    *) RUN_ARGS+=("$a") ;;
  esac
done
say() { printf '== zoo: %s\n' "$*" >&2; }
BENCH_NO_TVM=1 bash bench/run.sh --setup-only >/dev/null
VENV=${CTVM_BENCH_VENV:-$HOME/.cache/ctvm/bench-venv}
say "torch.onnx exports (Debian torch)"
/usr/bin/python3 zoo/export_torch.py "${CI_ONLY[@]}"
say "pip exporters' environments"
bash zoo/setup_venvs.sh
say "torch dynamo exports"
"$HOME/.cache/ctvm/zoo-dynamo/bin/python" zoo/export_dynamo.py "${CI_ONLY[@]}"
say "tf2onnx exports"
"$HOME/.cache/ctvm/zoo-tf/bin/python" zoo/export_tf.py "${CI_ONLY[@]}"
say "int8 / float16 / bfloat16 forms (onnxruntime.quantization)"
"${CTVM_QUANT_VENV:-$HOME/.cache/ctvm/quant-venv}/bin/python" zoo/export_quant.py "${CI_ONLY[@]}"
if [ ${#CI_ONLY[@]} -gt 0 ]; then
  exec "$VENV/bin/python" zoo/run_zoo.py --ci --no-time --threads 1 "${RUN_ARGS[@]}"
fi
exec "$VENV/bin/python" zoo/run_zoo.py --doc docs/ZOO.md "${RUN_ARGS[@]}"
