#!/usr/bin/env python3
"""bf16_models.py - small bfloat16 models for tests/quant/bf16_check.py
(issue 22, bfloat16 products on vdpbf16ps), made with onnx.helper, and
their float64 references computed by numpy from the bfloat16 operands.

  mm      x bf16 [2,64,96] @ W bf16 [96,160] + b -> Cast float32
  gemm    Gemm(x bf16 [48,256], W bf16 [200,256], C bf16, transB=1) -> Relu
          -> Cast float32 (N = 200: off the panel grid)
  chain   x bf16 [64,128] @ W1 [128,256] -> Relu -> @ W2 [256,96] + b2
          (the middle value is declared bfloat16: the reference rounds it)
  mm_out  x bf16 [32,128] @ W bf16 [128,64], output bfloat16
  gemv    x bf16 [1,768] @ W bf16 [768,1000] (one row, N off the grid)
  gemm_ab Gemm(x [40,128], W [128,96], C, alpha 0.5, beta 2): alpha folded
  gemm_a3 Gemm alpha 1/3, transB: alpha*B is not bfloat16 -> float32 path
  oddk    x bf16 [64,75] @ W bf16 [75,128] -> Cast float32 (K odd: float32)
  zoo     x float32 [64,96] @ Cast(W bf16 [96,160]) (the zoo's *_bf16 form:
          float32 activations; must not take the bfloat16 path)
  ffn     bert-base-shaped FFN, bfloat16 end to end (speed): 2 layers of
          x [128,768] @ W1 [768,3072] + b1 -> Relu -> @ W2 [3072,768] + b2
          -> + x; ffn_f32 is the same weights in float32
Usage: bf16_models.py OUTDIR [--ffn]  (writes NAME.onnx, NAME.npz inputs,
NAME_ref.npz: "y" exact in float64, and for the products that take
vdpbf16ps "y_vdp", its float32 sums in its order; ffn and ffn_f32 only
with --ffn: 57 MB of weights)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BF, F = TensorProto.BFLOAT16, TensorProto.FLOAT


def bf16_round(a):
    """float32 -> bfloat16 bits (nearest even), as uint16"""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_val(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def rnd(rng, shape, scale=1.0):
    return bf16_round(rng.standard_normal(shape).astype(np.float32) * scale)


def init(name, bits):
    return helper.make_tensor(name, BF, bits.shape, np.ascontiguousarray(bits, np.uint16).tobytes(), raw=True)


def vdp(a, b):
    """a [M, K] @ b [K, N] (bfloat16 bits) as vdpbf16ps computes it, in float32:
    per k pair, + the odd product, rounded, then + the even one, rounded"""
    a, b = bf16_val(a), bf16_val(b)
    y = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for g in range(a.shape[1] // 2):
        y = y + a[:, 2 * g + 1, None] * b[None, 2 * g + 1]
        y = y + a[:, 2 * g, None] * b[None, 2 * g]
    return y


def save(out, name, nodes, inputs, outputs, inits, feeds, refs):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, name + ".onnx"))
    np.savez(os.path.join(out, name + ".npz"), **feeds)
    np.savez(os.path.join(out, name + "_ref.npz"), **refs)


def main(out, ffn=False):
    rng = np.random.default_rng(22)
    os.makedirs(out, exist_ok=True)
    # mm
    x, w, b = rnd(rng, (2, 64, 96)), rnd(rng, (96, 160), 0.1), rnd(rng, (160,), 0.1)
    ref = bf16_val(x).astype(np.float64) @ bf16_val(w).astype(np.float64) + bf16_val(b)
    save(out, "mm", [helper.make_node("MatMul", ["x", "w"], ["p"]), helper.make_node("Add", ["p", "b"], ["q"]),
                     helper.make_node("Cast", ["q"], ["y"], to=F)],
         [helper.make_tensor_value_info("x", BF, x.shape)], [helper.make_tensor_value_info("y", F, ref.shape)],
         [init("w", w), init("b", b)], {"x": x}, {"y": ref, "y_vdp": (vdp(x.reshape(128, 96), w) + bf16_val(b)).reshape(2, 64, 160)})
    # gemm
    x, w, c = rnd(rng, (48, 256)), rnd(rng, (200, 256), 0.1), rnd(rng, (200,), 0.1)
    ref = np.maximum(bf16_val(x).astype(np.float64) @ bf16_val(w).astype(np.float64).T + bf16_val(c), 0)
    ref_vdp = np.maximum(vdp(x, np.ascontiguousarray(w.T)) + bf16_val(c), 0)
    save(out, "gemm", [helper.make_node("Gemm", ["x", "w", "c"], ["p"], transB=1), helper.make_node("Relu", ["p"], ["q"]),
                       helper.make_node("Cast", ["q"], ["y"], to=F)],
         [helper.make_tensor_value_info("x", BF, x.shape)], [helper.make_tensor_value_info("y", F, ref.shape)],
         [init("w", w), init("c", c)], {"x": x}, {"y": ref, "y_vdp": ref_vdp})
    # chain: the middle value rounded to bfloat16 in the reference (the model declares it bfloat16)
    x, w1, w2, b2 = rnd(rng, (64, 128)), rnd(rng, (128, 256), 0.1), rnd(rng, (256, 96), 0.1), rnd(rng, (96,), 0.1)
    h = np.maximum(bf16_val(x).astype(np.float64) @ bf16_val(w1).astype(np.float64), 0)
    hr = bf16_val(bf16_round(h.astype(np.float32))).astype(np.float64)
    ref = hr @ bf16_val(w2).astype(np.float64) + bf16_val(b2)
    ref_f32 = h @ bf16_val(w2).astype(np.float64) + bf16_val(b2)  # the middle value not rounded
    save(out, "chain", [helper.make_node("MatMul", ["x", "w1"], ["h0"]), helper.make_node("Relu", ["h0"], ["h"]),
                        helper.make_node("MatMul", ["h", "w2"], ["p"]), helper.make_node("Add", ["p", "b2"], ["q"]),
                        helper.make_node("Cast", ["q"], ["y"], to=F)],
         [helper.make_tensor_value_info("x", BF, x.shape)], [helper.make_tensor_value_info("y", F, ref.shape)],
         [init("w1", w1), init("w2", w2), init("b2", b2)], {"x": x}, {"y": ref, "y_unrounded": ref_f32})
    # mm_out: bfloat16 output
    x, w = rnd(rng, (32, 128)), rnd(rng, (128, 64), 0.1)
    ref = bf16_val(x).astype(np.float64) @ bf16_val(w).astype(np.float64)
    save(out, "mm_out", [helper.make_node("MatMul", ["x", "w"], ["y"])],
         [helper.make_tensor_value_info("x", BF, x.shape)], [helper.make_tensor_value_info("y", BF, ref.shape)],
         [init("w", w)], {"x": x}, {"y": ref})
    # gemv: one row, N off the panel grid (the GEMM schedule's M = 1 tile)
    x, w = rnd(rng, (1, 768)), rnd(rng, (768, 1000), 0.05)
    ref = bf16_val(x).astype(np.float64) @ bf16_val(w).astype(np.float64)
    ref_vdp = vdp(x, w)
    save(out, "gemv", [helper.make_node("MatMul", ["x", "w"], ["p"]), helper.make_node("Cast", ["p"], ["y"], to=F)],
         [helper.make_tensor_value_info("x", BF, x.shape)], [helper.make_tensor_value_info("y", F, ref.shape)],
         [init("w", w)], {"x": x}, {"y": ref, "y_vdp": ref_vdp})
    # gemm_ab: Gemm without transB, alpha 0.5 (folded into B: still bfloat16), beta 2
    x, w, c = rnd(rng, (40, 128)), rnd(rng, (128, 96), 0.1), rnd(rng, (96,), 0.1)
    ref = 0.5 * (bf16_val(x).astype(np.float64) @ bf16_val(w).astype(np.float64)) + 2.0 * bf16_val(c)
    ref_vdp = vdp(x, bf16_round(0.5 * bf16_val(w))) + np.float32(2.0) * bf16_val(c)
    save(out, "gemm_ab", [helper.make_node("Gemm", ["x", "w", "c"], ["p"], alpha=0.5, beta=2.0),
                          helper.make_node("Cast", ["p"], ["y"], to=F)],
         [helper.make_tensor_value_info("x", BF, x.shape)], [helper.make_tensor_value_info("y", F, ref.shape)],
         [init("w", w), init("c", c)], {"x": x}, {"y": ref, "y_vdp": ref_vdp})
    # gemm_a3: alpha 1/3 (alpha*B not bfloat16: the float32 path)
    x, w = rnd(rng, (40, 128)), rnd(rng, (96, 128), 0.1)
    ref = (bf16_val(x).astype(np.float64) @ bf16_val(w).astype(np.float64).T) * np.float64(np.float32(1.0 / 3.0))
    save(out, "gemm_a3", [helper.make_node("Gemm", ["x", "w"], ["p"], alpha=1.0 / 3.0, transB=1),
                          helper.make_node("Cast", ["p"], ["y"], to=F)],
         [helper.make_tensor_value_info("x", BF, x.shape)], [helper.make_tensor_value_info("y", F, ref.shape)],
         [init("w", w)], {"x": x}, {"y": ref})
    # oddk
    x, w = rnd(rng, (64, 75)), rnd(rng, (75, 128), 0.1)
    ref = bf16_val(x).astype(np.float64) @ bf16_val(w).astype(np.float64)
    save(out, "oddk", [helper.make_node("MatMul", ["x", "w"], ["p"]), helper.make_node("Cast", ["p"], ["y"], to=F)],
         [helper.make_tensor_value_info("x", BF, x.shape)], [helper.make_tensor_value_info("y", F, ref.shape)],
         [init("w", w)], {"x": x}, {"y": ref})
    # zoo: float32 activations, bfloat16 weights behind a Cast
    xf, w = rng.standard_normal((64, 96)).astype(np.float32), rnd(rng, (96, 160), 0.1)
    ref = xf.astype(np.float64) @ bf16_val(w).astype(np.float64)
    save(out, "zoo", [helper.make_node("Cast", ["w"], ["wf"], to=F), helper.make_node("MatMul", ["x", "wf"], ["y"])],
         [helper.make_tensor_value_info("x", F, xf.shape)], [helper.make_tensor_value_info("y", F, ref.shape)],
         [init("w", w)], {"x": xf}, {"y": ref})
    if ffn:
        make_ffn(out, np.random.default_rng(2022))


def make_ffn(out, rng):
    """ffn (speed): bfloat16 end to end, and its float32 twin"""
    S, H, FF, L = 128, 768, 3072, 2
    x = rnd(rng, (S, H))
    ws = [(rnd(rng, (H, FF), 0.03), rnd(rng, (FF,), 0.02), rnd(rng, (FF, H), 0.02), rnd(rng, (H,), 0.02)) for _ in range(L)]
    for prec in ("bf16", "f32"):
        T = BF if prec == "bf16" else F
        nodes, inits, cur = [], [], "x"
        for i, (w1, b1, w2, b2) in enumerate(ws):
            for nm, a in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)):
                inits.append(init("l%d_%s" % (i, nm), a) if prec == "bf16" else
                             numpy_helper.from_array(bf16_val(a), "l%d_%s" % (i, nm)))
            p = "l%d_" % i
            nodes += [helper.make_node("MatMul", [cur, p + "w1"], [p + "m1"]),
                      helper.make_node("Add", [p + "m1", p + "b1"], [p + "a1"]),
                      helper.make_node("Relu", [p + "a1"], [p + "g"]),
                      helper.make_node("MatMul", [p + "g", p + "w2"], [p + "m2"]),
                      helper.make_node("Add", [p + "m2", p + "b2"], [p + "a2"]),
                      helper.make_node("Add", [p + "a2", cur], [p + "out"])]
            cur = p + "out"
        nodes.append(helper.make_node("Cast", [cur], ["y"], to=F) if prec == "bf16" else
                     helper.make_node("Identity", [cur], ["y"]))
        feeds = {"x": x} if prec == "bf16" else {"x": bf16_val(x)}
        save(out, "ffn" if prec == "bf16" else "ffn_f32", nodes, [helper.make_tensor_value_info("x", T, x.shape)],
             [helper.make_tensor_value_info("y", F, (S, H))], inits, feeds, {})


if __name__ == "__main__":
    main(sys.argv[1], "--ffn" in sys.argv[2:])
