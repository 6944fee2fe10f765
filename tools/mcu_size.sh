#!/usr/bin/env bash
# mcu_size.sh - build a model for a Cortex-M7 and report what it needs there.
#
#   tools/mcu_size.sh model.onnx [ctvm-emit options...]
#
# Emits model.c with --target cortex-m7 (plus the options given, e.g.
# --arena caller or --weights-section .ctvm_weights), compiles it with
# arm-none-eabi-gcc -O2 -mcpu=cortex-m7 -mthumb -mfloat-abi=hard, and
#  - checks that every undefined symbol of the object is defined by libgcc or
#    libm (looked up in the toolchain's own libgcc.a and newlib's libm.a for
#    that CPU), so the model links without a C library;
#  - prints flash (read-only allocated sections: text, rodata, and the
#    weights wherever they were placed) and RAM (writable ones: data, bss,
#    the static arena) in bytes, and the caller's workspace for --arena caller;
#  - names the soft-double helpers the object calls (libgcc's __aeabi_d* and
#    __aeabi_*2d, libm functions that have a float twin): double arithmetic
#    in software on a single-precision FPU;
#  - ends with one line for scripts: "mcu_size: flash F ram R soft_double N"
#    (F counts .data's initial values, R a caller's workspace).
# Exit 1 when the build fails or a symbol comes from elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 model.onnx [ctvm-emit options...]" >&2; exit 2; }
model=$1; shift
CC=arm-none-eabi-gcc
command -v $CC > /dev/null || { echo "mcu_size: $CC not found (bash tools/deps.sh installs gcc-arm-none-eabi)" >&2; exit 1; }
T=$(mktemp -d /tmp/ctvm-mcu-XXXXXX)
trap 'rm -rf "$T"' EXIT

build/ctvm-emit "$model" -o "$T/model.c" --target cortex-m7 "$@"
. tools/stamp.sh # the CPU flags are the ones the stamp names
[ "$(stamp_cc "$T/model.c")" = $CC ] || { echo "mcu_size: model.c's stamp names no $CC build line" >&2; exit 1; }
read -r -a CPU <<< "$(stamp_flags "$T/model.c")"
$CC -O2 "${CPU[@]}" -std=c99 -Wall -Wextra -pedantic -Werror -c "$T/model.c" -o "$T/model.o"

# symbols the object needs, and the ones libgcc and libm for this CPU define
libgcc=$($CC "${CPU[@]}" -print-libgcc-file-name)
libm=$($CC "${CPU[@]}" -print-file-name=libm.a)
arm-none-eabi-nm -g --defined-only "$libgcc" 2>/dev/null | awk 'NF==3{print $3}' | sort -u > "$T/libgcc.syms"
arm-none-eabi-nm -g --defined-only "$libm" 2>/dev/null | awk 'NF==3{print $3}' | sort -u > "$T/libm.syms"
[ -s "$T/libgcc.syms" ] && [ -s "$T/libm.syms" ] || { echo "mcu_size: cannot read $libgcc or $libm" >&2; exit 1; }
bad=0; needs=(); dbl=()
for s in $(arm-none-eabi-nm -u "$T/model.o" | awk '{print $2}'); do
  if grep -qx "$s" "$T/libgcc.syms"; then needs+=("$s(libgcc)")
  elif grep -qx "$s" "$T/libm.syms"; then needs+=("$s(libm)")
  else needs+=("$s(NOT libgcc/libm)"); bad=1
  fi
  # double precision in software on a single-precision FPU: libgcc's
  # __aeabi_d* / __aeabi_*2d helpers, and libm functions with a float twin
  if [[ $s =~ ^__aeabi_(d.*|.*2d)$ ]] || grep -qx "${s}f" "$T/libm.syms"; then dbl+=("$s"); fi
done
echo "undefined symbols: ${needs[*]:-none}"
echo "soft-double: ${dbl[*]:-none}"

# flash = allocated read-only sections, RAM = allocated writable ones
# (readelf -S -W: [Nr] Name Type Addr Off Size ES Flg ...)
flash=0 data=0 bss=0
while read -r name type _ _ size _ flg _; do
  [[ $name == .* && $flg == *A* ]] || continue
  n=$((16#$size))
  printf '  %-24s %-9s %-4s %8d\n' "$name" "$type" "$flg" "$n"
  if [[ $flg != *W* ]]; then flash=$((flash + n))
  elif [ "$type" = NOBITS ]; then bss=$((bss + n))
  else data=$((data + n))
  fi
done < <(readelf -S -W "$T/model.o" | sed -n 's/^ *\[ *[0-9]*\] //p')
echo "flash: $flash bytes (text + rodata + weights; .data adds its $data bytes of initial values)"
echo "RAM:   $((data + bss)) bytes (data $data + bss $bss, including the static arena)"
ws=$(sed -n 's/^#define model_WORKSPACE_SIZE \([0-9]*\)/\1/p' "$T/model.c" | head -1)
if grep -q '^int model_run(' "$T/model.c"; then
  echo "arena: ${ws:-?} bytes, static (in RAM above)"; ram=$((data + bss))
else
  echo "arena: ${ws:-?} bytes, provided by the caller to model_run_ws (not in RAM above)"; ram=$((data + bss + ${ws:-0}))
fi
# one line for scripts (tests/mcu/run_m7.sh --int8): flash with .data's
# initial values, RAM with a caller's workspace
echo "mcu_size: flash $((flash + data)) ram $ram soft_double ${#dbl[@]}"
exit $bad
