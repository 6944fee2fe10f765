#!/usr/bin/env python3
# Makes the committed golden model golden/small_dyn/: the dynamic-quantization
# shapes ctvm rewrites, at sizes that take the rewritten paths:
#   - DynamicQuantizeLinear of tensors large enough to run in chunks that
#     threads share (ops/quant.c, dynquant_chunks: 38400 elements, 4 chunks),
#     on a graph input and on a ConvInteger -> Cast -> Mul -> Add -> Relu
#     result (as onnxruntime.quantization's dynamic mode writes a conv);
#   - onnxruntime's MatMulAddFusion shape, MatMul -> Reshape [1,T,N] -> Add
#     (bias) -> GELU written out (erf) -> Add (residual), which pass
#     sink_reshape moves before the Reshape so it joins the MatMul's
#     epilogue; its result then quantized the same way.
# Graph inputs "x" [1,24,40,40] and "t" [64,48]; outputs are the uint8 tensors
# and the int32 convolution (q_x, conv_i32, q_conv, q_ffn), compared with
# ONNX Runtime's within one step. The scales are not outputs: a wrong scale
# moves every byte.
#
# Run: ~/.cache/ctvm/quant-venv/bin/python golden/make_small_dyn.py (onnx and
# onnxruntime). Overwriting the committed files needs UPDATE_GOLDEN=1.
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_dyn")
rng = np.random.default_rng(2224)
inits, nodes = [], []


def const(name, v):
    inits.append(numpy_helper.from_array(np.asarray(v), name))
    return name


def node(op, ins, outs, **kw):
    nodes.append(helper.make_node(op, ins, outs, name=outs[0] + "_node", **kw))


C, H, W, T, K, N = 24, 40, 40, 64, 48, 96
# the input and its dynamic quantization (4 chunks of 9600)
node("DynamicQuantizeLinear", ["x"], ["q_x", "x_scale", "x_zp"])
# a 3x3 conv on it as the dynamic quantizer writes one, then quantized again
w = rng.integers(-127, 128, (C, C, 3, 3)).astype(np.int8)
node("ConvInteger", ["q_x", const("w", w), "x_zp", const("w_zp", np.int8(0))], ["conv_i32"], pads=[1, 1, 1, 1])
node("Cast", ["conv_i32"], ["conv_f"], to=TensorProto.FLOAT)
node("Mul", ["x_scale", const("w_scale", np.float32(0.004))], ["conv_scale"])
node("Mul", ["conv_f", "conv_scale"], ["conv_m"])
node("Add", ["conv_m", const("bias", (rng.standard_normal((C, 1, 1)) * 0.3).astype(np.float32))], ["conv_b"])
node("Relu", ["conv_b"], ["conv_r"])
node("DynamicQuantizeLinear", ["conv_r"], ["q_conv", "conv_scale_q", "conv_zp_q"])
# MatMulAddFusion's shape: MatMul -> Reshape -> bias -> GELU (erf) -> residual
node("MatMul", ["t", const("fc", (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32))], ["fc_y"])
node("Reshape", ["fc_y", const("shape3", np.array([1, T, N], np.int64))], ["fc_3d"])
node("Add", ["fc_3d", const("fc_b", (rng.standard_normal(N) * 0.1).astype(np.float32))], ["fc_b_y"])
node("Div", ["fc_b_y", const("sqrt2", np.float32(np.sqrt(2.0)))], ["g_div"])
node("Erf", ["g_div"], ["g_erf"])
node("Add", ["g_erf", const("one", np.float32(1.0))], ["g_1"])
node("Mul", ["fc_b_y", "g_1"], ["g_m"])
node("Mul", ["g_m", const("half", np.float32(0.5))], ["g"])
node("Add", ["g", const("resid", rng.standard_normal((1, T, N)).astype(np.float32))], ["ffn"])
node("DynamicQuantizeLinear", ["ffn"], ["q_ffn", "ffn_scale", "ffn_zp"])

feeds = {"x": (rng.standard_normal((1, C, H, W)) * 2.0).astype(np.float32),
         "t": rng.standard_normal((T, K)).astype(np.float32)}
outs = [("q_x", TensorProto.UINT8, [1, C, H, W]), ("conv_i32", TensorProto.INT32, [1, C, H, W]),
        ("q_conv", TensorProto.UINT8, [1, C, H, W]), ("q_ffn", TensorProto.UINT8, [1, T, N])]
graph = helper.make_graph(nodes, "small_dyn",
                          [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape)) for k, v in feeds.items()],
                          [helper.make_tensor_value_info(k, t, d) for k, t, d in outs], initializer=inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_small_dyn")
model.ir_version = 8
onnx.checker.check_model(model)

so = ort.SessionOptions()
so.intra_op_num_threads = 1
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
ref = dict(zip([o for o, _, _ in outs], sess.run([o for o, _, _ in outs], feeds)))
for k, v in ref.items():
    if v.min() == v.max():
        sys.exit("make_small_dyn: output %s is constant" % k)

if os.path.exists(os.path.join(OUT_DIR, "model.onnx")) and os.environ.get("UPDATE_GOLDEN") != "1":
    sys.exit("make_small_dyn: %s exists; UPDATE_GOLDEN=1 to overwrite" % OUT_DIR)
os.makedirs(OUT_DIR, exist_ok=True)
onnx.save(model, os.path.join(OUT_DIR, "model.onnx"))
np.savez(os.path.join(OUT_DIR, "inputs.npz"), **feeds)
np.savez(os.path.join(OUT_DIR, "outputs.npz"), **ref)
print("make_small_dyn: wrote %s (%s)" % (OUT_DIR, ", ".join("%s %s" % (k, list(v.shape)) for k, v in ref.items())))
