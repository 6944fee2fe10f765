#!/usr/bin/env python3
"""gen_cases.py - the odd-shape int8 test models (issue 22) and ONNX Runtime's
outputs for them, written once into a cache directory that tests/quant/run.sh
then compiles with ctvm for every target.

  quant-venv/bin/python tests/quant/gen_cases.py OUT_DIR

Cases: QLinearConv, ConvInteger, MatMulInteger, QLinearMatMul built by hand
(random integer weights and zero points), and float Conv / MatMul / Gemm
quantized by onnxruntime.quantization.quantize_static into QDQ form, on odd
shapes: channels 1, 3, 5, 17, 33, 65 (off every vector-lane and 4-wide dot
group), pads (symmetric and not), strides, dilations, groups, depthwise, 1x1;
u8 and s8 activations; per-tensor and per-channel weights; zero points 0 and
non-zero. Each group of cases is one ONNX model whose case i reads input
<case>_x and writes output <case>_y (one compile per target per group).
OUT_DIR/<group>/: model.onnx, inputs.npz, ort.npz (ORT with all graph
optimizations, its integer kernels), ort_nofuse.npz (ORT_DISABLE_ALL: the
literal QDQ semantics), cases.json ({output: {case: description, step: one
quantization step of that output (1 for integer outputs, else the scale of its
DequantizeLinear), integer: bool}}).
Needs onnx >= 1.16, onnxruntime and numpy (the quant venv, zoo/setup_venvs.sh)."""
import json
import os
import sys

import logging

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "zoo"))
from lowp_check import dq_steps  # noqa: E402  (the step of a float output: its DequantizeLinear's scale)

OPSET = 13
U8, S8 = TensorProto.UINT8, TensorProto.INT8
NP = {U8: np.uint8, S8: np.int8}
RANGE = {U8: (0, 255), S8: (-128, 127)}

# conv shapes: (name, c_in, c_out, group, kernel, stride, pads [t,l,b,r], dilation, H, W)
CONVS = [
    ("c3to17_k3p1", 3, 17, 1, 3, 1, [1, 1, 1, 1], 1, 9, 9),
    ("c17to33_k3s2", 17, 33, 1, 3, 2, [1, 1, 1, 1], 1, 11, 11),
    ("c33to5_1x1", 33, 5, 1, 1, 1, [0, 0, 0, 0], 1, 7, 7),
    ("c5to65_k3d2", 5, 65, 1, 3, 1, [2, 2, 2, 2], 2, 10, 10),
    ("dw65_k3p1", 65, 65, 65, 3, 1, [1, 1, 1, 1], 1, 8, 8),
    ("c1to1_k5p2", 1, 1, 1, 5, 1, [2, 2, 2, 2], 1, 6, 6),
    ("g3_c33_k3s2_asympad", 33, 33, 3, 3, 2, [0, 1, 1, 0], 1, 9, 9),
    ("c65to17_k3p0_5x7", 65, 17, 1, 3, 1, [0, 0, 0, 0], 1, 5, 7),
    ("c17to3_1x1s2", 17, 3, 1, 1, 2, [0, 0, 0, 0], 1, 9, 9),
    ("dw17_k5s2p2", 17, 17, 17, 5, 2, [2, 2, 2, 2], 1, 11, 11),
    ("g5_c5to65_k3p1", 5, 65, 5, 3, 1, [1, 1, 1, 1], 1, 6, 6),
    ("dw33_k3s2_asympad", 33, 33, 33, 3, 2, [0, 1, 2, 0], 1, 10, 9),
    ("dw24_k3p1_7x5", 24, 24, 24, 3, 1, [1, 1, 1, 1], 1, 7, 5),
]
# matmul shapes: (name, A shape, K, N)
MATMULS = [
    ("m1k3n17", [1, 3], 3, 17),
    ("m5k17n33", [5, 17], 17, 33),
    ("m7k33n5", [7, 33], 33, 5),
    ("b2m3k65n65", [2, 3, 65], 65, 65),
    ("m17k5n1", [17, 5], 5, 1),
    ("m3k64n65", [3, 64], 64, 65),
    ("b3m1k33n17", [3, 1, 33], 33, 17),
    ("m1k64n37", [1, 64], 64, 37),  # one row: B in panels of one vector's columns (pass layout)
]


def variant(i):
    """The quantization variant of case i: activation type, per-channel weights,
    activation zero point 0 or not, weight zero point 0 or not (the grid is
    covered across the cases of each op: 2 x 2 x 2 x 2 over 16 consecutive i)."""
    return {"x": U8 if i % 2 == 0 else S8, "per_channel": (i // 2) % 2 == 0,
            "x_zp0": (i // 4) % 2 == 1, "w_zp0": (i // 8) % 2 == 0 or (i % 3 == 0)}


class Graph:
    """Collects the cases of one group into one model."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.ins, self.outs, self.feed, self.desc = [], [], [], [], {}, {}

    def const(self, name, arr, dt=None):
        t = numpy_helper.from_array(np.asarray(arr), name)
        if dt is not None:
            assert t.data_type == dt
        self.inits.append(t)
        return name

    def input(self, name, arr, dt):
        self.ins.append(helper.make_tensor_value_info(name, dt, list(arr.shape)))
        self.feed[name] = arr
        return name

    def output(self, name, dt, desc):
        self.outs.append(helper.make_tensor_value_info(name, dt, None))
        self.outs[-1].type.tensor_type.ClearField("shape")
        self.desc[name] = desc

    def rand_q(self, dt, shape):
        lo, hi = RANGE[dt]
        return self.rng.integers(lo, hi + 1, size=shape).astype(NP[dt])

    def zp(self, dt, zero, shape=()):
        if zero:
            return np.zeros(shape, NP[dt])
        lo, hi = (100, 160) if dt == U8 else (-30, 30)
        z = self.rng.integers(lo, hi, size=shape).astype(NP[dt])
        if dt == S8 and np.all(z == 0):
            z = z + 3
        return z

    def model(self, group):
        g = helper.make_graph(self.nodes, group, self.ins, self.outs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = 8
        m = onnx.shape_inference.infer_shapes(m, strict_mode=True)  # fills the output shapes; raises on a bad case
        return m


def conv_attrs(c):
    _, _, _, group, k, s, pads, d, _, _ = c
    return {"group": group, "kernel_shape": [k, k], "strides": [s, s], "pads": pads, "dilations": [d, d]}


def qlinearconv_group(rng):
    G = Graph(rng)
    for i, c in enumerate(CONVS):
        name, ci, co, group, k = c[:5]
        v = variant(i)
        xdt, wdt = v["x"], S8
        ydt = xdt  # ORT: y has x's type
        x = G.input(name + "_x", G.rand_q(xdt, [1, ci, c[8], c[9]]), xdt)
        w = G.rand_q(wdt, [co, ci // group, k, k])
        pc = v["per_channel"]
        ws = (rng.uniform(0.002, 0.02, co) if pc else rng.uniform(0.002, 0.02, ())).astype(np.float32)
        # ORT's QLinearConv takes a non-zero weight zero point per tensor only
        wz = G.zp(wdt, v["w_zp0"] or pc, ws.shape)
        ins = [x, G.const(name + "_xs", np.float32(rng.uniform(0.01, 0.05))),
               G.const(name + "_xz", G.zp(xdt, v["x_zp0"])), G.const(name + "_w", w),
               G.const(name + "_ws", ws), G.const(name + "_wz", wz),
               G.const(name + "_ys", np.float32(0.05 * np.sqrt(ci // group * k * k) * 0.01 * 128)),
               G.const(name + "_yz", G.zp(ydt, i % 4 == 0))]
        if i % 2 == 0:
            ins.append(G.const(name + "_b", rng.integers(-2000, 2000, co).astype(np.int32)))
        G.nodes.append(helper.make_node("QLinearConv", ins, [name + "_y"], **conv_attrs(c)))
        G.output(name + "_y", ydt, "QLinearConv %s x %s w s8 %s%s, y %s" % (
            name, "u8" if xdt == U8 else "s8", "per-channel" if pc else "per-tensor",
            "" if v["x_zp0"] else " x_zp!=0", "u8" if ydt == U8 else "s8"))
    return G


def convinteger_group(rng):
    G = Graph(rng)
    for i, c in enumerate(CONVS):
        name, ci, co, group, k = c[:5]
        v = variant(i)
        xdt, wdt = v["x"], S8 if i % 5 else U8
        x = G.input(name + "_x", G.rand_q(xdt, [1, ci, c[8], c[9]]), xdt)
        w = G.rand_q(wdt, [co, ci // group, k, k])
        wz = G.zp(wdt, v["w_zp0"])  # ORT's ConvInteger: per-tensor weight zero point only
        G.nodes.append(helper.make_node(
            "ConvInteger", [x, G.const(name + "_w", w), G.const(name + "_xz", G.zp(xdt, v["x_zp0"])),
                            G.const(name + "_wz", wz)], [name + "_y"], **conv_attrs(c)))
        G.output(name + "_y", TensorProto.INT32, "ConvInteger %s x %s w %s%s%s" % (
            name, "u8" if xdt == U8 else "s8", "u8" if wdt == U8 else "s8",
            "" if v["x_zp0"] else " x_zp!=0", "" if v["w_zp0"] else " w_zp!=0"))
    return G


def matmulinteger_group(rng):
    G = Graph(rng)
    for i, (name, ashape, kk, n) in enumerate(MATMULS):
        v = variant(i)
        adt, bdt = v["x"], S8 if i % 3 else U8
        a = G.input(name + "_x", G.rand_q(adt, ashape), adt)
        b = G.rand_q(bdt, [kk, n])
        bz = G.zp(bdt, v["w_zp0"], [n] if v["per_channel"] else ())
        G.nodes.append(helper.make_node(
            "MatMulInteger", [a, G.const(name + "_w", b), G.const(name + "_az", G.zp(adt, v["x_zp0"])),
                              G.const(name + "_wz", bz)], [name + "_y"]))
        G.output(name + "_y", TensorProto.INT32, "MatMulInteger %s a %s b %s%s%s" % (
            name, "u8" if adt == U8 else "s8", "u8" if bdt == U8 else "s8",
            "" if v["x_zp0"] else " a_zp!=0", "" if v["w_zp0"] else " b_zp!=0 (%s)" % ("per-column" if bz.ndim else "per-tensor")))
    return G


def qlinearmatmul_group(rng):
    G = Graph(rng)
    for i, (name, ashape, kk, n) in enumerate(MATMULS):
        v = variant(i)
        adt = v["x"]
        bdt, ydt = (S8, U8) if adt == U8 else (S8, S8)
        a = G.input(name + "_x", G.rand_q(adt, ashape), adt)
        b = G.rand_q(bdt, [kk, n])
        pc = v["per_channel"]
        bs = (rng.uniform(0.002, 0.02, n) if pc else rng.uniform(0.002, 0.02, ())).astype(np.float32)
        bz = G.zp(bdt, v["w_zp0"] or pc, bs.shape)
        ins = [a, G.const(name + "_as", np.float32(rng.uniform(0.01, 0.05))),
               G.const(name + "_az", G.zp(adt, v["x_zp0"])), G.const(name + "_w", b),
               G.const(name + "_ws", bs), G.const(name + "_wz", bz),
               G.const(name + "_ys", np.float32(0.0006 * 128 * np.sqrt(kk))), G.const(name + "_yz", G.zp(ydt, i % 4 == 0))]
        G.nodes.append(helper.make_node("QLinearMatMul", ins, [name + "_y"]))
        G.output(name + "_y", ydt, "QLinearMatMul %s a %s b s8 %s%s" % (
            name, "u8" if adt == U8 else "s8", "per-column" if pc else "per-tensor", "" if v["x_zp0"] else " a_zp!=0"))
    return G


def float_group(rng):
    """Float32 Conv / MatMul / Gemm cases with constant weights and biases,
    for quantize_static (calibration data: 8 more random inputs)."""
    G = Graph(rng)
    for c in CONVS:
        name, ci, co, group, k = c[:5]
        x = G.input(name + "_x", rng.standard_normal([1, ci, c[8], c[9]]).astype(np.float32), TensorProto.FLOAT)
        w = (rng.standard_normal([co, ci // group, k, k]) / np.sqrt(ci // group * k * k)).astype(np.float32)
        b = rng.standard_normal(co).astype(np.float32) * 0.1
        G.nodes.append(helper.make_node("Conv", [x, G.const(name + "_w", w), G.const(name + "_b", b)],
                                        [name + "_y"], **conv_attrs(c)))
        G.output(name + "_y", TensorProto.FLOAT, "QDQ Conv " + name)
    for i, (name, ashape, kk, n) in enumerate(MATMULS):
        x = G.input(name + "_x", rng.standard_normal(ashape).astype(np.float32), TensorProto.FLOAT)
        w = (rng.standard_normal([kk, n]) / np.sqrt(kk)).astype(np.float32)
        if len(ashape) == 2 and i % 2 == 1:  # Gemm (transB, bias) on the 2-D ones, every other
            b = rng.standard_normal(n).astype(np.float32) * 0.1
            G.nodes.append(helper.make_node("Gemm", [x, G.const(name + "_w", np.ascontiguousarray(w.T)),
                                                     G.const(name + "_b", b)], [name + "_y"], transB=1))
            G.output(name + "_y", TensorProto.FLOAT, "QDQ Gemm " + name)
        else:
            G.nodes.append(helper.make_node("MatMul", [x, G.const(name + "_w", w)], [name + "_y"]))
            G.output(name + "_y", TensorProto.FLOAT, "QDQ MatMul " + name)
    return G


def act_group(rng):
    """Float32 activation chains written out as exporters write them, which
    quantize_static wraps in Q/DQ at every step (pass quant_lut makes each
    a 256-entry table): GELU with erf (x * 0.5 * (1 + erf(x / sqrt 2)), as
    BERT exports), GELU with tanh and x^3, x * sigmoid(x), tanh(x) / 2, and
    (x + 1) / 2 (no transcendental operator: no table); and attention's
    q k^T with both operands computed. Odd
    shapes; a MatMul first so the chain reads a kernel's quantized output."""
    G = Graph(rng)
    consts = {}

    def c(name, v):
        if name not in consts:
            consts[name] = G.const("act_" + name, np.float32(v))
        return consts[name]

    def node(op, ins, name):
        G.nodes.append(helper.make_node(op, ins, [name]))
        return name

    for name, shape, k in [("gelu_erf", [3, 37, 29], 29), ("gelu_tanh", [1, 5, 33], 33),
                           ("swish", [2, 17, 16], 16), ("tanh", [7, 9], 9),
                           ("affine", [5, 11], 11)]:
        x = G.input(name + "_x", rng.standard_normal(shape).astype(np.float32) * 1.5, TensorProto.FLOAT)
        w = (rng.standard_normal([k, k]) / np.sqrt(k)).astype(np.float32)
        h = node("MatMul", [x, G.const(name + "_w", w)], name + "_h")
        y = name + "_y"
        if name == "gelu_erf":
            e = node("Erf", [node("Div", [h, c("sqrt2", np.sqrt(2.0))], name + "_d")], name + "_e")
            m = node("Mul", [h, node("Add", [e, c("one", 1.0)], name + "_a")], name + "_m")
            node("Mul", [m, c("half", 0.5)], y)
        elif name == "gelu_tanh":
            p = node("Pow", [h, c("three", 3.0)], name + "_p")
            inner = node("Add", [h, node("Mul", [p, c("k044", 0.044715)], name + "_pk")], name + "_i")
            t = node("Tanh", [node("Mul", [inner, c("s2pi", np.sqrt(2 / np.pi))], name + "_is")], name + "_t")
            m = node("Mul", [h, node("Add", [t, c("one", 1.0)], name + "_a")], name + "_m")
            node("Mul", [m, c("half", 0.5)], y)
        elif name == "swish":
            node("Mul", [h, node("Sigmoid", [h], name + "_s")], y)
        elif name == "tanh":
            node("Mul", [node("Tanh", [h], name + "_t"), c("half", 0.5)], y)
        else:  # no transcendental operator: left to fuse as an epilogue
            node("Mul", [node("Add", [h, c("one", 1.0)], name + "_a"), c("half", 0.5)], y)
        G.output(y, TensorProto.FLOAT, "QDQ activation chain " + name)
    # attention's scores, both operands computed: an int8 (s8 group) x int8
    # run-time product on the dot-product kernel (pass qmatmul_runtime)
    x = G.input("qk_x", rng.standard_normal([2, 12, 20]).astype(np.float32), TensorProto.FLOAT)
    qv = node("MatMul", [x, G.const("qk_wq", (rng.standard_normal([20, 16]) / 4).astype(np.float32))], "qk_q")
    kv = node("MatMul", [x, G.const("qk_wk", (rng.standard_normal([20, 16]) / 4).astype(np.float32))], "qk_k")
    G.nodes.append(helper.make_node("Transpose", [kv], ["qk_kt"], perm=[0, 2, 1]))
    node("MatMul", [qv, "qk_kt"], "qk_y")
    G.output("qk_y", TensorProto.FLOAT, "QDQ run-time product q k^T")
    return G


# QDQ groups: (name, activation type, per-channel weights, extra options[, float model])
QDQ_GROUPS = [
    ("qdq_u8_perchannel", "u8", True, {}),
    ("qdq_s8_pertensor", "s8", False, {}),
    ("qdq_s8_perchannel_symact", "s8", True, {"ActivationSymmetric": True}),
    ("qdq_u8_pertensor_wzp", "u8", False, {"WeightSymmetric": False}),
    ("qdq_act_u8", "u8", True, {}, act_group),
    ("qdq_act_s8", "s8", True, {}, act_group),
]


class Reader:
    def __init__(self, feeds):
        self.it = iter(feeds)

    def get_next(self):
        return next(self.it, None)


def qdq_group(out, gname, act, per_channel, extra, seed, make=float_group):
    from onnxruntime import quantization as q
    rng = np.random.default_rng(seed)
    G = make(rng)
    fm = G.model(gname)
    d = os.path.join(out, gname)
    os.makedirs(d, exist_ok=True)
    fpath = os.path.join(d, "float.onnx")
    onnx.save(fm, fpath)
    crng = np.random.default_rng(seed + 1)
    calib = [{k: crng.standard_normal(v.shape).astype(np.float32) for k, v in G.feed.items()} for _ in range(8)]
    qt = q.QuantType.QUInt8 if act == "u8" else q.QuantType.QInt8
    q.quantize_static(fpath, os.path.join(d, "model.onnx"), Reader(calib), quant_format=q.QuantFormat.QDQ,
                      activation_type=qt, weight_type=q.QuantType.QInt8, per_channel=per_channel,
                      calibrate_method=q.CalibrationMethod.MinMax, extra_options=dict(extra))
    os.remove(fpath)
    desc = {k: "%s (%s act, %s weights%s)" % (v, act, "per-channel" if per_channel else "per-tensor",
                                              "".join(", %s" % e for e in extra)) for k, v in G.desc.items()}
    return d, G.feed, desc


def ort_run(path, feed, level):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = level
    so.log_severity_level = 3
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, feed)))


def finish(d, feed, desc):
    import onnxruntime as ort
    p = os.path.join(d, "model.onnx")
    np.savez(os.path.join(d, "inputs.npz"), **feed)
    ref = ort_run(p, feed, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    for k, y in ref.items():  # a constant output would test nothing
        if y.size > 1 and y.min() == y.max():
            raise RuntimeError("%s: ORT output %s is constant" % (d, k))
    np.savez(os.path.join(d, "ort.npz"), **ref)
    np.savez(os.path.join(d, "ort_nofuse.npz"), **ort_run(p, feed, ort.GraphOptimizationLevel.ORT_DISABLE_ALL))
    steps = dq_steps(p)
    cases = {}
    for k, y in ref.items():
        if np.issubdtype(y.dtype, np.integer):
            cases[k] = {"case": desc[k], "step": 1.0, "integer": True}
        elif k in steps:
            cases[k] = {"case": desc[k], "step": steps[k], "integer": False}
        else:
            raise RuntimeError("%s: float output %s has no DequantizeLinear (no step to compare in)" % (d, k))
    with open(os.path.join(d, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    logging.getLogger().setLevel(logging.ERROR)  # quantize_static's advice to pre-process
    for seed, (gname, make) in enumerate([("qlinearconv", qlinearconv_group), ("convinteger", convinteger_group),
                                          ("matmulinteger", matmulinteger_group),
                                          ("qlinearmatmul", qlinearmatmul_group)]):
        G = make(np.random.default_rng(2200 + seed))
        d = os.path.join(out, gname)
        os.makedirs(d, exist_ok=True)
        onnx.save(G.model(gname), os.path.join(d, "model.onnx"))
        finish(d, G.feed, G.desc)
        print("gen_cases: %s: %d cases" % (gname, len(G.desc)))
    for i, (gname, act, pc, extra, *make) in enumerate(QDQ_GROUPS):
        d, feed, desc = qdq_group(out, gname, act, pc, extra, 2300 + i, *make)
        finish(d, feed, desc)
        print("gen_cases: %s: %d cases" % (gname, len(desc)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
