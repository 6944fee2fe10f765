"""qkern_models.py - small ConvInteger models on odd shapes and their ONNX
Runtime outputs, for tests/quant/qkern_check.sh.

Usage: qkern_models.py OUTDIR. For each case writes OUTDIR/<case>/model.onnx,
inputs.npz and ref.npz (ORT's outputs on the same file). Cases: int32
output (ConvInteger alone: must equal ORT exactly), and the contract's chain
ConvInteger -> Cast -> Mul -> Add [-> Relu] -> QuantizeLinear (uint8: within
one step of ORT). Channels off the 4 and 16 grids, pads, strides 2,
dilation, 1x1, 7x7 on 3 channels, groups (merged into whole blocks, or
native when a group fills blocks) and depthwise. "two_layers": two such convs, the
first's uint8 output (its QuantizeLinear fused) read by the second.
"mm_*": MatMulInteger with a constant int8 B on a 3-D uint8 A (int32
output, or the chain with per-column scale and bias). "s8_*": int8
activations quantized in the graph (make_s8); "pc_*": per-channel output
QuantizeLinear (make_pc); "wz_*": weights with zero points (make_wz). "rt_*": MatMulInteger
with a run-time B (attention's products: batched uint8 x uint8 or int8,
both zero points set; int32 output, or Cast -> Mul -> QuantizeLinear);
rt_k18 has K off the 4-grid (the generic path)."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

CASES = [
    # name, N, C, H, W, OC, k, stride, pad, dil, group, chain, xz
    ("c3_k7_s2", 1, 3, 23, 21, 20, 7, 2, 3, 1, 1, True, 7),
    ("c13_k3_p1", 1, 13, 9, 11, 19, 3, 1, 1, 1, 1, False, 130),
    ("c16_k3_p1_relu", 1, 16, 10, 10, 16, 3, 1, 1, 1, 1, True, 0),
    ("c40_k1", 2, 40, 7, 6, 33, 1, 1, 0, 1, 1, True, 255),
    ("c24_k1_s2", 1, 24, 9, 9, 40, 1, 2, 0, 1, 1, False, 3),
    ("c32_k3_s2_p1", 1, 32, 15, 13, 64, 3, 2, 1, 1, 1, True, 128),
    ("c20_k3_d2_p2", 1, 20, 12, 12, 17, 3, 1, 2, 2, 1, False, 77),
    ("c17_k5_p0_asym", 1, 17, 8, 14, 5, 5, 1, 0, 1, 1, True, 201),
    ("grp4", 1, 16, 8, 8, 32, 3, 1, 1, 1, 4, True, 9),
    ("depthwise", 1, 24, 9, 9, 24, 3, 1, 1, 1, 24, True, 100),
    ("dw37_k3_s2", 1, 37, 13, 11, 37, 3, 2, 1, 1, 37, False, 201),
    ("dw20_k5_d2_p2", 1, 20, 12, 10, 20, 5, 1, 2, 2, 20, True, 55),
    ("dw16_k3_s2_p0", 2, 16, 9, 8, 16, 3, 2, 0, 1, 16, True, 255),
    ("grp2_c64", 1, 64, 7, 9, 64, 3, 1, 1, 1, 2, True, 140),
    ("grp2_c8", 1, 8, 8, 8, 8, 3, 1, 1, 1, 2, True, 110),
    ("grp8_c64_s2", 1, 64, 11, 10, 64, 3, 2, 1, 1, 8, False, 33),
]


def make(case, rng):
    name, N, C, H, W, OC, k, s, p, d, g, chain, xz = case
    x = rng.integers(0, 256, size=(N, C, H, W), dtype=np.uint8)
    w = rng.integers(-128, 128, size=(OC, C // g, k, k), dtype=np.int8)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(xz, np.uint8), "xz"),
             numpy_helper.from_array(np.array(0, np.int8), "wz")]
    conv = helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["acc"], kernel_shape=[k, k], strides=[s, s],
                            pads=[p, p, p, p], dilations=[d, d], group=g)
    nodes = [conv]
    out_name, out_type = "acc", TensorProto.INT32
    if chain:
        scale = (rng.random(OC).astype(np.float32) * 2e-4 + 1e-5).reshape(1, OC, 1, 1)
        bias = (rng.standard_normal(OC).astype(np.float32) * 0.5).reshape(1, OC, 1, 1)
        inits += [numpy_helper.from_array(scale, "scale"), numpy_helper.from_array(bias, "bias"),
                  numpy_helper.from_array(np.array(0.02, np.float32), "ys"),
                  numpy_helper.from_array(np.array(60, np.uint8), "yz")]
        nodes += [helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", ["accf", "scale"], ["scaled"]),
                  helper.make_node("Add", ["scaled", "bias"], ["biased"])]
        last = "biased"
        if "relu" in name:
            nodes.append(helper.make_node("Relu", ["biased"], ["act"]))
            last = "act"
        nodes.append(helper.make_node("QuantizeLinear", [last, "ys", "yz"], ["y"]))
        out_name, out_type = "y", TensorProto.UINT8
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.UINT8, [N, C, H, W])],
                              [helper.make_tensor_value_info(out_name, out_type, [None, None, None, None])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, x, out_name


def make_two(rng):
    """conv(24->40, 3x3 pad 1) -> Relu -> Q -> conv(40->19, 3x3 stride 2 pad 1) -> Q."""
    x = rng.integers(0, 256, size=(1, 24, 11, 13), dtype=np.uint8)
    inits, nodes, cur, zp = [], [], "x", 90
    for i, (ic, oc, s) in enumerate(((24, 40, 1), (40, 19, 2))):
        w = rng.integers(-128, 128, size=(oc, ic, 3, 3), dtype=np.int8)
        scale = (rng.random(oc).astype(np.float32) * 2e-4 + 1e-5).reshape(1, oc, 1, 1)
        bias = (rng.standard_normal(oc).astype(np.float32) * 0.5).reshape(1, oc, 1, 1)
        yz = 0 if i == 0 else 128
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(np.array(zp, np.uint8), f"xz{i}"),
                  numpy_helper.from_array(np.array(0, np.int8), f"wz{i}"),
                  numpy_helper.from_array(scale, f"scale{i}"), numpy_helper.from_array(bias, f"bias{i}"),
                  numpy_helper.from_array(np.array(0.015, np.float32), f"ys{i}"),
                  numpy_helper.from_array(np.array(yz, np.uint8), f"yz{i}")]
        nodes += [helper.make_node("ConvInteger", [cur, f"w{i}", f"xz{i}", f"wz{i}"], [f"acc{i}"], kernel_shape=[3, 3],
                                   strides=[s, s], pads=[1, 1, 1, 1]),
                  helper.make_node("Cast", [f"acc{i}"], [f"accf{i}"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", [f"accf{i}", f"scale{i}"], [f"scaled{i}"]),
                  helper.make_node("Add", [f"scaled{i}", f"bias{i}"], [f"biased{i}"])]
        last = f"biased{i}"
        if i == 0:
            nodes.append(helper.make_node("Relu", [last], ["act0"]))
            last = "act0"
        cur = "y" if i == 1 else "q0"
        nodes.append(helper.make_node("QuantizeLinear", [last, f"ys{i}", f"yz{i}"], [cur]))
        zp = yz
    graph = helper.make_graph(nodes, "two_layers", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 24, 11, 13])],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, [None, None, None, None])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, x, "y"


def make_matmul(name, B_, M, K, N, chain, az, rng):
    a = rng.integers(0, 256, size=(B_, M, K), dtype=np.uint8)
    b = rng.integers(-128, 128, size=(K, N), dtype=np.int8)
    inits = [numpy_helper.from_array(b, "b"), numpy_helper.from_array(np.array(az, np.uint8), "az"),
             numpy_helper.from_array(np.array(0, np.int8), "bz")]
    nodes = [helper.make_node("MatMulInteger", ["x", "b", "az", "bz"], ["acc"])]
    out_name, out_type = "acc", TensorProto.INT32
    if chain:
        inits += [numpy_helper.from_array(rng.random(N).astype(np.float32) * 2e-4 + 1e-5, "scale"),
                  numpy_helper.from_array(rng.standard_normal(N).astype(np.float32) * 0.5, "bias"),
                  numpy_helper.from_array(np.array(0.02, np.float32), "ys"),
                  numpy_helper.from_array(np.array(100, np.uint8), "yz")]
        nodes += [helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", ["accf", "scale"], ["scaled"]),
                  helper.make_node("Add", ["scaled", "bias"], ["biased"]),
                  helper.make_node("QuantizeLinear", ["biased", "ys", "yz"], ["y"])]
        out_name, out_type = "y", TensorProto.UINT8
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.UINT8, [B_, M, K])],
                              [helper.make_tensor_value_info(out_name, out_type, [None, None, None])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, a, out_name


def make_s8(name, rng):
    """int8 activations (as ORT's QDQ models with activation_type=QInt8 hold
    them): a float32 input quantized to int8 in the graph (scale 0.5, so the
    quotients are exact), then int8 ConvIntegers / MatMulIntegers whose
    chains end in int8 QuantizeLinears; pass quant_u8_acts makes them uint8
    (+128) for the u8 x s8 dot product. s8_two_layers: conv 3x3 -> Relu ->
    Q -> MaxPool -> conv 3x3 stride 2 -> Q (int8 output); s8_depthwise; s8_mm:
    MatMulInteger with a constant B; s8_mm_rt: int8 x int8 with a run-time B
    (int32 output, exact)."""
    inits, nodes = [numpy_helper.from_array(np.array(0.5, np.float32), "xs"),
                    numpy_helper.from_array(np.array(-5, np.int8), "xz")], []

    def chain(i, acc, oc, yz, relu, out, bshape):
        inits.extend([numpy_helper.from_array((rng.random(oc).astype(np.float32) * 2e-4 + 1e-5).reshape(bshape), f"scale{i}"),
                      numpy_helper.from_array((rng.standard_normal(oc).astype(np.float32) * 0.5).reshape(bshape), f"bias{i}"),
                      numpy_helper.from_array(np.array(0.015, np.float32), f"ys{i}"),
                      numpy_helper.from_array(np.array(yz, np.int8), f"yz{i}")])
        nodes.extend([helper.make_node("Cast", [acc], [f"accf{i}"], to=TensorProto.FLOAT),
                      helper.make_node("Mul", [f"accf{i}", f"scale{i}"], [f"scaled{i}"]),
                      helper.make_node("Add", [f"scaled{i}", f"bias{i}"], [f"biased{i}"])])
        last = f"biased{i}"
        if relu:
            nodes.append(helper.make_node("Relu", [last], [f"act{i}"]))
            last = f"act{i}"
        nodes.append(helper.make_node("QuantizeLinear", [last, f"ys{i}", f"yz{i}"], [out]))

    def conv(i, x, ic, oc, k, s, p, group, xz):
        w = rng.integers(-128, 128, size=(oc, ic // group, k, k), dtype=np.int8)
        inits.extend([numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(np.array(0, np.int8), f"wz{i}")])
        nodes.append(helper.make_node("ConvInteger", [x, f"w{i}", xz, f"wz{i}"], [f"acc{i}"], kernel_shape=[k, k],
                                      strides=[s, s], pads=[p] * 4, group=group))
        return f"acc{i}"

    ins = {}
    if name == "s8_two_layers":
        shape = [1, 20, 12, 13]
        nodes.append(helper.make_node("QuantizeLinear", ["xf", "xs", "xz"], ["x"]))
        chain(0, conv(0, "x", 20, 36, 3, 1, 1, 1, "xz"), 36, -128, True, "q0", (1, 36, 1, 1))
        nodes.append(helper.make_node("MaxPool", ["q0"], ["p0"], kernel_shape=[2, 2], strides=[2, 2]))
        chain(1, conv(1, "p0", 36, 19, 3, 2, 1, 1, "yz0"), 19, 3, False, "y", (1, 19, 1, 1))
        outs = [("y", TensorProto.INT8, 4)]
    elif name == "s8_depthwise":
        shape = [1, 32, 10, 9]
        nodes.append(helper.make_node("QuantizeLinear", ["xf", "xs", "xz"], ["x"]))
        chain(0, conv(0, "x", 32, 32, 3, 1, 1, 32, "xz"), 32, -20, False, "y", (1, 32, 1, 1))
        outs = [("y", TensorProto.INT8, 4)]
    elif name == "s8_mm":
        shape = [2, 5, 48]
        b = rng.integers(-128, 128, size=(48, 37), dtype=np.int8)
        inits += [numpy_helper.from_array(b, "b"), numpy_helper.from_array(np.array(0, np.int8), "bz")]
        nodes += [helper.make_node("QuantizeLinear", ["xf", "xs", "xz"], ["x"]),
                  helper.make_node("MatMulInteger", ["x", "b", "xz", "bz"], ["acc0"])]
        chain(0, "acc0", 37, 9, False, "y", (37,))
        outs = [("y", TensorProto.INT8, 3)]
    else:  # s8_mm_rt
        shape = [2, 6, 20]
        inits.append(numpy_helper.from_array(np.array(7, np.int8), "bz"))
        ins["bf"] = (rng.integers(-128, 128, size=(2, 20, 11)) * 0.5).astype(np.float32)
        nodes += [helper.make_node("QuantizeLinear", ["xf", "xs", "xz"], ["x"]),
                  helper.make_node("QuantizeLinear", ["bf", "xs", "bz"], ["bq"]),
                  helper.make_node("MatMulInteger", ["x", "bq", "xz", "bz"], ["y"])]
        outs = [("y", TensorProto.INT32, 3)]
    ins = {"xf": (rng.integers(-128, 128, size=shape) * 0.5).astype(np.float32), **ins}
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape))
                                            for k, v in ins.items()],
                              [helper.make_tensor_value_info(o, t, [None] * r) for o, t, r in outs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, ins, outs[0][0]


def make_pc(name, rng):
    """The chain's QuantizeLinear per output channel (axis 1 of a conv's
    output, 19 channels: off the block grid; axis 2 of a MatMulInteger's
    [2, 5, 37]), fused into the dot-product kernel."""
    mm = name == "pc_mm"
    oc = 37 if mm else 19
    if mm:
        x = rng.integers(0, 256, size=(2, 5, 48), dtype=np.uint8)
        w = rng.integers(-128, 128, size=(48, oc), dtype=np.int8)
        core = helper.make_node("MatMulInteger", ["x", "w", "xz", "wz"], ["acc"])
        pshape, axis = (oc,), 2
    else:
        x = rng.integers(0, 256, size=(1, 24, 9, 10), dtype=np.uint8)
        w = rng.integers(-128, 128, size=(oc, 24, 3, 3), dtype=np.int8)
        core = helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["acc"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        pshape, axis = (1, oc, 1, 1), 1
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(61, np.uint8), "xz"),
             numpy_helper.from_array(np.array(0, np.int8), "wz"),
             numpy_helper.from_array((rng.random(oc).astype(np.float32) * 2e-4 + 1e-5).reshape(pshape), "scale"),
             numpy_helper.from_array((rng.standard_normal(oc).astype(np.float32) * 0.5).reshape(pshape), "bias"),
             numpy_helper.from_array((rng.random(oc).astype(np.float32) * 0.03 + 0.005), "ys"),
             numpy_helper.from_array(rng.integers(0, 256, size=oc, dtype=np.uint8), "yz")]
    nodes = [core, helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["accf", "scale"], ["scaled"]),
             helper.make_node("Add", ["scaled", "bias"], ["biased"]),
             helper.make_node("QuantizeLinear", ["biased", "ys", "yz"], ["y"], axis=axis)]
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.UINT8, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, [None] * x.ndim)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, x, "y"


def make_wz(name, rng):
    """Weights with a zero point: uint8 ones (ORT's weight_type=QUInt8) or
    asymmetric int8 ones, per tensor or per output channel. When every
    w - wz fits in int8 (wz_u8_conv, wz_s8_conv, wz_u8_mm, wz_s8_pc_mm) pass layout
    makes them int8 with zero point 0 for the dot-product kernels; when not
    (wz_wide_conv) the generic loops must still be right. int32 outputs."""
    mm = name.endswith("_mm")
    if mm:  # per-column zero points (ORT's ConvInteger takes only one)
        x = rng.integers(0, 256, size=(3, 7, 40), dtype=np.uint8)
        if name == "wz_u8_mm":
            wz = rng.integers(100, 156, size=29).astype(np.uint8)
        else:
            wz = rng.integers(-30, 30, size=29).astype(np.int8)
        w = np.clip(wz.astype(int) + rng.integers(-98, 98, size=(40, 29)), -128 if wz.dtype == np.int8 else 0,
                    127 if wz.dtype == np.int8 else 255).astype(wz.dtype)
        core = helper.make_node("MatMulInteger", ["x", "w", "xz", "wz"], ["acc"])
    else:
        x = rng.integers(0, 256, size=(1, 20, 8, 9), dtype=np.uint8)
        shape = (24, 20, 3, 3)
        if name == "wz_u8_conv":
            wz = np.array(128, np.uint8)
            w = rng.integers(1, 256, size=shape).astype(np.uint8)
        elif name == "wz_s8_conv":
            wz = np.array(-17, np.int8)
            w = rng.integers(-128, 111, size=shape).astype(np.int8)
        else:  # wz_wide_conv: w - wz up to 255
            wz = np.array(3, np.uint8)
            w = rng.integers(0, 256, size=shape).astype(np.uint8)
        core = helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["acc"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(93, np.uint8), "xz"),
             numpy_helper.from_array(wz, "wz")]
    graph = helper.make_graph([core], name, [helper.make_tensor_value_info("x", TensorProto.UINT8, list(x.shape))],
                              [helper.make_tensor_value_info("acc", TensorProto.INT32, [None] * x.ndim)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, x, "acc"


WZ_CASES = ["wz_u8_conv", "wz_s8_conv", "wz_u8_mm", "wz_s8_pc_mm", "wz_wide_conv"]

PC_CASES = ["pc_conv", "pc_mm"]

S8_CASES = ["s8_two_layers", "s8_depthwise", "s8_mm", "s8_mm_rt"]
def make_runtime(name, shape_a, N, bdt, az, bz, chain, rng, perm=None):
    """B [.., K, N] an input, or (perm) Transpose(input, perm) as attention's K^T / V."""
    K = shape_a[-1]
    shape_b = tuple(shape_a[:-2]) + (K, N)
    shape_in = shape_b if perm is None else tuple(shape_b[perm.index(i)] for i in range(len(perm)))
    info = np.iinfo(bdt)
    a = rng.integers(0, 256, size=shape_a, dtype=np.uint8)
    b = rng.integers(info.min, info.max + 1, size=shape_in).astype(bdt)
    bt = TensorProto.UINT8 if bdt == np.uint8 else TensorProto.INT8
    inits = [numpy_helper.from_array(np.array(az, np.uint8), "az"), numpy_helper.from_array(np.array(bz, bdt), "bz")]
    nodes = [helper.make_node("MatMulInteger", ["x", "b" if perm is None else "bt", "az", "bz"], ["acc"])]
    if perm is not None:
        nodes.insert(0, helper.make_node("Transpose", ["b"], ["bt"], perm=list(perm)))
    out_name, out_type = "acc", TensorProto.INT32
    if chain:
        inits += [numpy_helper.from_array(np.array(4e-4, np.float32), "scale"),
                  numpy_helper.from_array(np.array(0.05, np.float32), "ys"),
                  numpy_helper.from_array(np.array(128, np.uint8), "yz")]
        nodes += [helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", ["accf", "scale"], ["scaled"]),
                  helper.make_node("QuantizeLinear", ["scaled", "ys", "yz"], ["y"])]
        out_name, out_type = "y", TensorProto.UINT8
    rank = len(shape_a)
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.UINT8, list(shape_a)),
                                            helper.make_tensor_value_info("b", bt, list(shape_in))],
                              [helper.make_tensor_value_info(out_name, out_type, [None] * rank)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, {"x": a, "b": b}, out_name


RT_CASES = [("rt_u8_heads", (1, 4, 33, 64), 40, np.uint8, 125, 130, False),
            ("rt_s8_k20", (2, 9, 20), 24, np.int8, 7, -3, False),
            ("rt_u8_bz128_chain", (1, 2, 17, 128), 64, np.uint8, 0, 128, True),
            ("rt_u8_chain", (1, 3, 16, 32), 16, np.uint8, 131, 90, True),
            ("rt_k18", (2, 5, 18), 12, np.uint8, 3, 200, False),
            ("rt_kt_u8", (1, 4, 33, 64), 40, np.uint8, 125, 130, False, (0, 2, 3, 1)),  # Q.K^T, K [1,S,H,D]
            ("rt_v_u8_chain", (1, 2, 7, 24), 16, np.uint8, 0, 131, True, (0, 2, 1, 3))]  # P.V, V [1,S,H,D]

MM_CASES = [("mm_k36_n23", 2, 7, 36, 23, False, 131), ("mm_k64_n40_chain", 1, 19, 64, 40, True, 0),
            ("mm_k256_n1000_chain", 1, 3, 256, 1000, True, 77),
            # one row (B in panels of one vector's columns, the last one padded)
            ("mm_row1_k256_n1000_chain", 1, 1, 256, 1000, True, 77), ("mm_row1_k36_n23", 1, 1, 36, 23, False, 131),
            ("mm_row1_k64_n16", 1, 1, 64, 16, False, 5)]


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(22)
    for case in CASES + [("two_layers",)] + MM_CASES + [(c,) for c in S8_CASES + PC_CASES + WZ_CASES] + RT_CASES:
        if case[0].startswith("rt_"):
            model, x, out_name = make_runtime(*case[:7], rng, *case[7:])
        elif case[0].startswith("wz_"):
            model, x, out_name = make_wz(case[0], rng)
        elif case[0].startswith("pc_"):
            model, x, out_name = make_pc(case[0], rng)
        elif case[0].startswith("s8_"):
            model, x, out_name = make_s8(case[0], rng)
        elif case[0].startswith("mm_"):
            model, x, out_name = make_matmul(*case, rng)
        else:
            model, x, out_name = make(case, rng) if len(case) > 1 else make_two(rng)
        d = os.path.join(out, case[0])
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        onnx.save(model, path)
        feeds = x if isinstance(x, dict) else {"x": x}
        np.savez(os.path.join(d, "inputs.npz"), **feeds)
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        ref = sess.run(None, feeds)[0]
        np.savez(os.path.join(d, "ref.npz"), **{out_name: ref})
        print(case[0], ref.dtype)


if __name__ == "__main__":
    main()
