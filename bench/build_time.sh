#!/usr/bin/env bash
# build_time.sh - how long `gcc -O2 <target flags> -c` takes on each seed
# model's generated model.c (--target native; the flags are the ones the
# file's stamp names), and its peak memory (the end-to-end issue's bound for resnet50:
# <= 60 s and <= 4 GB). Also prints ctvm-emit's arena figures.
# Needs the seed models in $CTVM_CACHE (golden/export_models.py).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${CTVM_CACHE:-$HOME/.cache/ctvm/models}
. tools/stamp.sh
T=$(mktemp -d /tmp/ctvm-bt-XXXXXX); trap 'rm -rf "$T"' EXIT
printf '| model | model.c bytes | gcc -O2 -c seconds | gcc peak MB | arena bytes | activations bytes |\n|---|---|---|---|---|---|\n'
for m in ${MODELS:-resnet18 resnet50 mobilenet_v2 squeezenet1_1 shufflenet_v2_x1_0}; do
  v=$(build/ctvm-emit "$CACHE/$m/model.onnx" -o "$T/$m.c" --verbose 2>&1)
  arena=$(echo "$v" | sed -n 's/.*arena \([0-9]*\) bytes.*/\1/p')
  acts=$(echo "$v" | sed -n 's/.*activations \([0-9]*\) bytes.*/\1/p')
  flags=$(stamp_flags "$T/$m.c")
  /usr/bin/time -f '%e %M' -o "$T/time" gcc -O2 $flags -std=c99 -c "$T/$m.c" -o "$T/$m.o"
  read -r secs kb < "$T/time"
  printf '| %s | %s | %s | %s | %s | %s |\n' "$m" "$(stat -c %s "$T/$m.c")" "$secs" "$((kb / 1024))" "$arena" "$acts"
  rm -f "$T/$m.c" "$T/$m.o"
done
