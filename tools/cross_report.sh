#!/usr/bin/env bash
# cross_report.sh - the qemu-user results table for README: every model x
# target, built by ctvm-run with the target's cross gcc, run under qemu-user
# and diffed against PyTorch with the end-to-end tolerance.
#
#   tools/cross_report.sh [models...]   (default: small_cnn and the 7 seed models)
#
# TARGETS (default "aarch64 armv7-neon riscv64") picks the targets. Prints
# one markdown row per model: max abs error / tolerance per target, FAIL on a
# mismatch. Exit 1 when any run fails. Seed models come from
# golden/export_models.py's cache ($CTVM_CACHE or ~/.cache/ctvm/models).
set -u
cd "$(dirname "$0")/.."
CACHE=${CTVM_CACHE:-$HOME/.cache/ctvm/models}
TARGETS=${TARGETS:-aarch64 armv7-neon riscv64}
models=${*:-small_cnn resnet18 resnet50 mobilenet_v2 squeezenet1_1 shufflenet_v2_x1_0 resnet18_bn mobilenet_v2_bn}
printf '| model |'; for t in $TARGETS; do printf ' %s |' "$t"; done; echo
printf '|---|'; for t in $TARGETS; do printf -- '---|'; done; echo
rc=0
for m in $models; do
  d=$CACHE/$m; [ "$m" = small_cnn ] && d=golden/small_cnn
  printf '| %s |' "$m"
  for t in $TARGETS; do
    out=$(build/ctvm-run "$d/model.onnx" --inputs "$d/inputs.npz" --golden "$d/outputs.npz" \
      --rtol 1e-3 --atol 1e-4 --target "$t" 2>&1)
    line=$(echo "$out" | grep -m1 "^output ")
    err=$(echo "$line" | sed -n 's/.*max_abs_err=\([^ ]*\).*tol=\([^ ]*\) OK$/\1 \/ \2/p')
    if [ -n "$err" ]; then printf ' %s |' "$err"; else printf ' FAIL |'; rc=1; echo "$out" | tail -5 >&2; fi
  done
  echo
done
exit $rc
