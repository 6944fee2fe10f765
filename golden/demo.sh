#!/usr/bin/env bash
# demo.sh - the main job on the bundled model: emit golden/small_cnn/model.onnx
# to C for this host (--target native), build it with gcc -O2 and the flags
# the file's stamp names for its target, run it on the committed input, diff
# against the PyTorch output and print the result and the time.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${DEMO_OUT:-build/demo}
mkdir -p "$out"
echo "== ctvm-emit golden/small_cnn/model.onnx -o $out/model.c"
build/ctvm-emit golden/small_cnn/model.onnx -o "$out/model.c" --header "$out/model.h" --describe "$out/model.json" --verbose
. tools/stamp.sh
flags=$(stamp_flags "$out/model.c")
echo "== gcc -O2 ${flags}-c $out/model.c"
gcc -O2 $flags -std=c99 -Wall -Wextra -pedantic -c "$out/model.c" -o "$out/model.o"
ls -l "$out/model.c" "$out/model.o" | awk '{print "   " $5 " bytes  " $9}'
echo "== run + diff against PyTorch (golden/small_cnn/outputs.npz)"
build/ctvm-run "$out/model.c" --inputs golden/small_cnn/inputs.npz \
  --golden golden/small_cnn/outputs.npz --print-time --repeat 100
