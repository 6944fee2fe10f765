#!/usr/bin/env bash
# tune.sh - ctvm-tune the seed models for the bench's "ctvm_tuned" engine:
# bench/records/<target>-t<threads>.json, one file per thread count shared
# by the models (records are keyed by workload, so models with common
# layers share them). Resumes: what a file holds is not measured again.
#   bash bench/tune.sh [--budget S] [--threads "1 2"] [--models "resnet18 ..."] [--trials N]
# Default: 300 s of tuning per model and thread count (docs/TUNING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=300 THREADS="1 2" TRIALS=40
MODELS="resnet18 resnet50 mobilenet_v2 squeezenet1_1 shufflenet_v2_x1_0"
while [ $# -gt 0 ]; do
  case $1 in
    --budget) BUDGET=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --models) MODELS=$2; shift 2 ;;
    --trials) TRIALS=$2; shift 2 ;;
    *) echo "usage: bash bench/tune.sh [--budget S] [--threads '1 2'] [--models '...'] [--trials N]" >&2; exit 2 ;;
  esac
done
make -j2 build/ctvm-tune >&2
CACHE=${CTVM_CACHE:-$HOME/.cache/ctvm/models}
mkdir -p bench/records
for th in $THREADS; do
  for m in $MODELS; do
    [ -f "$CACHE/$m/model.onnx" ] || /usr/bin/python3 golden/export_models.py "$m" >&2
    tgt=$(build/ctvm-tune "$CACHE/$m/model.onnx" --tasks list --threads "$th" | sed -n 's/.* for \([^ ,]*\), .*/\1/p')
    echo "== $m, $th thread(s), $tgt, budget ${BUDGET} s" >&2
    build/ctvm-tune "$CACHE/$m/model.onnx" -o "bench/records/$tgt-t$th.json" --threads "$th" \
      --trials "$TRIALS" --time-budget "$BUDGET" -q
  done
done
