#!/usr/bin/env bash
# check.sh - the typed vectorizer on every SIMD target (issue 21): integer,
# bool and half-precision elementwise models (tests/typed/make_models.py)
# emitted for x86_64-sse4/avx2/avx512 (run here), aarch64 and armv7-neon
# (run under qemu-user when installed) and generic; each output must equal
# numpy's bit for bit, and on the SIMD targets the kernel code must use the
# typed vector API named below (loads, stores, conversions, integer ops).
# Env: CTVM_BIN (default build).
set -u
cd "$(dirname "$0")/../.."
BIN=${CTVM_BIN:-build}
T=$(mktemp -d /tmp/ctvm-typed.XXXXXX)
trap 'rm -rf "$T"' EXIT
/usr/bin/python3 tests/typed/make_models.py "$T/models" || { echo "FAIL typed: cannot make the models"; exit 1; }
pass=0 fail=0
# model prefix -> vector API functions its kernel must call
need() {
  case $1 in
    add_int32*) echo ctvm_vload_i32 ctvm_vadd_i32 ctvm_vstore_i32 ;;
    add_int8*) echo ctvm_vload_8 ctvm_vcvt_i8_i32 ctvm_vadd_i32 ctvm_vcvt_i32_8 ctvm_vstore_8 ;;
    clip_uint8*) echo ctvm_vload_8 ctvm_vcvt_u8_i32 ctvm_vmin_i32 ctvm_vmax_i32 ctvm_vstore_8 ;;
    max_uint8*) echo ctvm_vload_8 ctvm_vcvt_u8_i32 ctvm_vmax_i32 ctvm_vstore_8 ;;
    cast_f16_f32*) echo ctvm_vload_16 ctvm_vcvt_f16_f32 ctvm_vstore ;;
    cast_f32_f16*) echo ctvm_vcvt_f32_f16 ctvm_vstore_16 ;;
    quantize_*) echo ctvm_vcvt_f32_i32_rne_in ctvm_vmin ctvm_vmax ctvm_vcvt_i32_8 ctvm_vstore_8 ;; # clamp, then one rounding conversion
    where_greater*) echo ctvm_vgt ctvm_vselect ctvm_vb_of_mask ctvm_vmnot ;;
  esac
}
targets="generic x86_64-sse4 x86_64-avx2 x86_64-avx512"
command -v qemu-aarch64 > /dev/null && command -v aarch64-linux-gnu-gcc > /dev/null && targets="$targets aarch64"
command -v qemu-arm > /dev/null && command -v arm-linux-gnueabihf-gcc > /dev/null && targets="$targets armv7-neon"
for m in "$T"/models/*/; do
  name=$(basename "$m")
  for t in $targets; do
    why=""
    if ! "$BIN/ctvm-emit" "$m/model.onnx" -o "$T/k.c" --target "$t" > "$T/log" 2>&1; then
      why="emit: $(tail -1 "$T/log")"
    elif [ "$t" != generic ]; then
      sed -n '/^\/\* k0_/,$p' "$T/k.c" > "$T/kernels.c"
      for fn in $(need "$name"); do
        grep -q "\b$fn(" "$T/kernels.c" || why="$why no $fn;"
      done
    fi
    if [ -z "$why" ] && ! "$BIN/ctvm-run" "$m/model.onnx" --inputs "$m/inputs.npz" --golden "$m/outputs.npz" \
         --target "$t" --atol 0 --rtol 0 --elementwise > "$T/log" 2>&1; then
      why="run: $(grep -m1 -E 'FAIL|error' "$T/log")"
    fi
    if [ -z "$why" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL typed $name [$t]: $why"; fi
  done
done
echo "typed vectorizer: $pass passed, $fail failed ($targets)"
[ "$fail" -eq 0 ]
