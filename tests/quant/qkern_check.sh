#!/bin/sh
# qkern_check.sh - integer convolutions (ConvInteger and the contract's
# Cast -> Mul -> Add [-> Relu] -> QuantizeLinear chain) on odd shapes,
# ctvm against ONNX Runtime on the same files (tests/quant/qkern_models.py
# makes them): int32 outputs must be equal, uint8 ones within one step and
# >= 99.9% equal. Also checks that the blocked int8 kernel (EX_DOT) was used
# where it applies (for depthwise: channel-lane 16-bit multiply-adds into
# int32, ctvm_vmla16_i32, reading the input unpadded: no PadHW kernel), that a QuantizeLinear after it is fused into its kernel
# (no kernel of its own) and that two convolutions in a row pass the uint8
# blocked (no Unpack between them), and MatMulInteger with a constant int8 B
# (ctvm.QMatMul: dot products, its QuantizeLinear fused); the same with int8
# activations (s8_*: made uint8 by pass quant_u8_acts, before
# qmatmul_runtime, so s8_mm_rt, int8 x int8 with a run-time B, gets
# ctvm.QPackB as the rt_* cases do; its 11 columns stay scalar), and per-channel
# output QuantizeLinears (pc_*, fused all the same), weights with zero
# points whose w - wz fit in int8 (wz_*; wz_wide_conv, which does not, only
# checked for its values), and MatMulInteger with a run-time B (rt_*: B
# packed at run time by ctvm.QPackB, then the dot products, a Transpose
# before B read through, no kernel of its own; rt_k18, K off the 4-grid,
# stays generic). Exit status 1 on any mismatch.
# Usage: tests/quant/qkern_check.sh [CTVM_RUN] (default build/ctvm-run);
# PY (default ~/.cache/ctvm/quant-venv/bin/python), CFLAGS_QK (gcc flags of
# the generated code, default -O2 -march=native).
set -u
RUN=${1:-build/ctvm-run}
PY=${PY:-$HOME/.cache/ctvm/quant-venv/bin/python}
CFLAGS_QK=${CFLAGS_QK:--O2 -march=native}
HERE=$(dirname "$0")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$PY" "$HERE/qkern_models.py" "$TMP" >/dev/null || { echo "qkern_check: making the models failed"; exit 1; }
fail=0
for d in "$TMP"/*/; do
    c=$(basename "$d")
    if ! "$RUN" "$d/model.onnx" --inputs "$d/inputs.npz" --output "$d/out.npz" --cflags "$CFLAGS_QK" \
        --keep "$d/build" >"$d/log" 2>&1; then
        echo "$c: ctvm-run failed"; cat "$d/log"; fail=1; continue
    fi
    if ! r=$("$PY" "$HERE/qkern_compare.py" "$d/out.npz" "$d/ref.npz"); then fail=1; fi
    dot=$(grep -c ' = ctvm_vdot_u8i8(' "$d/build/model.c")
    case $c in
    wz_wide_conv|rt_k18) ;;
    s8_mm_rt) grep -q '^static void k[0-9]*_.*QPackB(' "$d/build/model.c" ||
              { echo "$c: int8 x int8 run-time product not rewritten for the dot-product kernel"; fail=1; } ;;
    rt_*) [ "$dot" -gt 0 ] && grep -q '^static void k[0-9]*_.*QPackB(' "$d/build/model.c" ||
              { echo "$c: run-time B not packed for the dot product"; fail=1; }
          ! grep -q '^static void k[0-9]*_.*Transpose(' "$d/build/model.c" ||
              { echo "$c: the Transpose before B not read through by the packing"; fail=1; } ;;
    depthwise|s8_depthwise|dw*) grep -q ' = ctvm_vmla16_i32(acc[0-9]*, .*ctvm_vcvt_u8_i32(ctvm_vload_8(' "$d/build/model.c" ||
                   { echo "$c: not the blocked int8 depthwise kernel (16-bit multiply-adds)"; fail=1; }
                   ! grep -q '^static void k[0-9]*_pad(' "$d/build/model.c" ||
                   { echo "$c: a PadHW kernel before the depthwise one (it should test its bounds)"; fail=1; } ;;
    *) [ "$dot" -gt 0 ] || { echo "$c: no dot product in the generated code"; fail=1; } ;;
    esac
    # 40 channels in blocks of 16 (AVX-512): the 1x1 conv reduces over their 10 groups of 4 only
    if [ "$c" = c40_k1 ] && grep -q '^/\* k[0-9]*_.*QConvNCHWc.* 16\]' "$d/build/model.c" &&
        ! grep -q 'for (int ig = 0; ig < 10; ++ig)' "$d/build/model.c"; then
        echo "$c: the padding lanes' groups are still multiplied"; fail=1
    fi
    qk=$(grep -c '^static void k[0-9]*_.*QuantizeLinear[_0-9]*(' "$d/build/model.c")
    unpk=$(grep -c '^static void k[0-9]*_unpack(' "$d/build/model.c")
    qmax=0
    case $c in s8_*) qmax=1 ;; esac # the graph's own QuantizeLinear of its float32 input
    case $c in
    s8_mm_rt|wz_wide_conv|rt_k18) ;;
    *) [ "$qk" -le $qmax ] || { echo "$c: QuantizeLinear not fused into the convolution"; fail=1; }
       [ "$unpk" -le 1 ] || { echo "$c: $unpk Unpacks (the uint8 should stay blocked)"; fail=1; } ;;
    esac
    echo "$c: $r (dot products: $dot)"
done
[ $fail = 0 ] && echo "qkern_check: all passed"
exit $fail
