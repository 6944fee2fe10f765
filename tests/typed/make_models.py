"""make_models.py OUT_DIR - the elementwise models of the typed-vectorizer
check (tests/typed/check.sh): int32 Add, uint8 Clip, uint8 Max, Cast
float16 -> float32, float32 -> float16, QuantizeLinear float32 -> uint8 and
-> int8, a bool Greater/Where and an int8 Add that wraps; each with inputs
and the expected outputs computed by numpy (the independent reference).
Shapes [3, 64] and [2, 37] (a last axis off the vector grid)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
rng = np.random.default_rng(21)
T = {np.int32: TensorProto.INT32, np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8,
     np.float16: TensorProto.FLOAT16, np.float32: TensorProto.FLOAT, np.bool_: TensorProto.BOOL}


def f16(f):
    with np.errstate(over="ignore"):  # 70000 and the tie 65520 become inf, as they should
        return f.astype(np.float16)


def save(name, nodes, inputs, outputs, inits=()):
    """inputs/outputs: [(name, array)]"""
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info(n, T[a.dtype.type], a.shape) for n, a in inputs],
                          [helper.make_tensor_value_info(n, T[a.dtype.type], a.shape) for n, a in outputs],
                          list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 8
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    np.savez(os.path.join(d, "inputs.npz"), **dict(inputs))
    np.savez(os.path.join(d, "outputs.npz"), **dict(outputs))


for shape in ([3, 64], [2, 37]):
    tag = "x".join(map(str, shape))
    a = rng.integers(-2**31, 2**31 - 1, shape, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31 - 1, shape, dtype=np.int64).astype(np.int32)
    save(f"add_int32_{tag}", [helper.make_node("Add", ["a", "b"], ["y"])], [("a", a), ("b", b)],
         [("y", (a.astype(np.int64) + b).astype(np.int32))])  # wraps

    u = rng.integers(0, 256, shape, dtype=np.int64).astype(np.uint8)
    v = rng.integers(0, 256, shape, dtype=np.int64).astype(np.uint8)
    lo, hi = np.array(30, np.uint8), np.array(200, np.uint8)
    save(f"clip_uint8_{tag}", [helper.make_node("Clip", ["u", "lo", "hi"], ["y"])], [("u", u)],
         [("y", np.clip(u, lo, hi))], [numpy_helper.from_array(lo, "lo"), numpy_helper.from_array(hi, "hi")])
    save(f"max_uint8_{tag}", [helper.make_node("Max", ["u", "v"], ["y"])], [("u", u), ("v", v)],
         [("y", np.maximum(u, v))])

    i8a = rng.integers(-128, 128, shape, dtype=np.int64).astype(np.int8)
    i8b = rng.integers(-128, 128, shape, dtype=np.int64).astype(np.int8)
    save(f"add_int8_{tag}", [helper.make_node("Add", ["a", "b"], ["y"])], [("a", i8a), ("b", i8b)],
         [("y", (i8a.astype(np.int16) + i8b).astype(np.int8))])  # wraps

    h = (rng.standard_normal(shape) * 100).astype(np.float16)
    h.flat[:6] = [0.0, -0.0, np.inf, -np.inf, 6e-8, 65504]  # zeros, infinities, a denormal, the largest
    save(f"cast_f16_f32_{tag}", [helper.make_node("Cast", ["h"], ["y"], to=TensorProto.FLOAT)], [("h", h)],
         [("y", h.astype(np.float32))])
    f = (rng.standard_normal(shape) * 1000).astype(np.float32)
    f.flat[:4] = [70000.0, -1e-9, 65520.0, 2.0 ** -25]  # to inf, to -0, the tie to inf, the tie to 0
    save(f"cast_f32_f16_{tag}", [helper.make_node("Cast", ["f"], ["y"], to=TensorProto.FLOAT16)], [("f", f)],
         [("y", f16(f))])

    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    x.flat[:4] = [0.5 * 0.05, 1.5 * 0.05, -0.5 * 0.05, 1e6]  # ties to even, saturation
    scale = np.array(0.05, np.float32)
    for zp in (np.array(128, np.uint8), np.array(-3, np.int8)):
        info = np.iinfo(zp.dtype)
        q = np.clip(np.rint(x / scale) + zp.astype(np.int32), info.min, info.max).astype(zp.dtype)
        save(f"quantize_{zp.dtype.name}_{tag}", [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"])],
             [("x", x)], [("y", q)], [numpy_helper.from_array(scale, "s"), numpy_helper.from_array(zp, "zp")])

    p, r = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
    save(f"where_greater_{tag}",
         [helper.make_node("Greater", ["p", "r"], ["c"]), helper.make_node("Where", ["c", "p", "r"], ["y"]),
          helper.make_node("Not", ["c"], ["n"])],
         [("p", p), ("r", r)], [("y", np.where(p > r, p, r)), ("n", ~(p > r))])
