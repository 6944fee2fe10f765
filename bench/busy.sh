#!/usr/bin/env bash
# busy.sh - ctvm's threads on a busy machine (issue 23): starts N plain
# spinning processes (default 3, not pinned to any CPU), then bench/busy.py
# times ctvm --threads 2, ctvm --threads 1 and ONNX Runtime at 2 threads on
# mobilenet_v2, resnet18 and the BERT-shaped encoder (zoo bert_mini) side by
# side in interleaved rounds, and prints medians with the ratios
# ctvm2T/ORT2T (target <= 1.0) and ctvm2T/ctvm1T (target <= 1.2). The busy
# processes are killed on exit, however the script ends.
#   bash bench/busy.sh [--busy N] [busy.py options: --models, --rounds, --burst,
#                       --base-emit OTHER_CTVM_EMIT, --json FILE ...]
# --busy 0 measures the quiet machine the same way. Needs the bench venv
# (bash bench/run.sh --setup-only) and the zoo's bert_mini (make zoo).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${CTVM_BENCH_VENV:-$HOME/.cache/ctvm/bench-venv}/bin/python
BUSY=3 ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --busy) BUSY=$2; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
make -j2 build/ctvm-emit >&2
# build and check first, on the quiet machine (busy.py reuses the binaries)
"$PY" bench/busy.py --build-only ${ARGS[@]+"${ARGS[@]}"}

PIDS=()
stop_busy() {
  for p in ${PIDS[@]+"${PIDS[@]}"}; do kill "$p" 2>/dev/null || true; done
  PIDS=()
}
trap stop_busy EXIT
trap 'stop_busy; exit 130' INT TERM
for _ in $(seq 1 "$BUSY"); do
  ( trap - EXIT INT TERM; while :; do :; done ) &
  PIDS+=($!)
done
echo "== $BUSY busy processes: ${PIDS[*]:-none}" >&2
"$PY" bench/busy.py --busy "$BUSY" ${ARGS[@]+"${ARGS[@]}"}
