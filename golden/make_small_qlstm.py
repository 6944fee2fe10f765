#!/usr/bin/env python3
# Makes the committed golden model golden/small_qlstm/: ONNX Runtime's
# dynamically quantized LSTM (com.microsoft DynamicQuantizeLSTM) at sizes
# ctvm runs on integer dot products (ops/rnn.c's int8 form: input and hidden
# sizes multiples of 4, int8 weights or symmetric uint8 ones) but off every
# vector and tile grid. Graph inputs "input" [6,3,12] and "input_b1"
# [5,1,16]; the nodes and their outputs:
#   qlstm:    bidirectional, hidden 20, int8 per-column weights, biases,
#             sequence_lens [5, 3, 4] (X's range over the first 5 of 6 steps, as ORT's), initial_h/c, peepholes
#             -> qlstm_y, qlstm_h, qlstm_c
#   qlstm36:  forward, hidden 36 (panels of 16: two whole, one of 4 columns),
#             int8 per-tensor weights, on "input" -> qlstm36_y, qlstm36_h, qlstm36_c
#   qlstm_b1: reverse, hidden 64, uint8 weights with zero point 128,
#             per-tensor, on "input_b1" -> qlstm_b1_y, qlstm_b1_h, qlstm_b1_c
# The references in outputs.npz are ONNX Runtime's (single thread, the same
# arithmetic as ctvm's int8 form: X and h quantized to uint8, u8 x s8
# products in int32), so ctvm must agree with them to float rounding on every
# target; a float32 LSTM over the dequantized weights would be ~1e-2 away.
#
# Run: ~/.cache/ctvm/quant-venv/bin/python golden/make_small_qlstm.py (onnx and
# onnxruntime). Overwriting the committed files needs UPDATE_GOLDEN=1.
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_qlstm")
MS = "com.microsoft"
rng = np.random.default_rng(2222)
inits, nodes, outputs = [], [], []


def const(name, v):
    inits.append(numpy_helper.from_array(np.asarray(v), name))
    return name


def weights(name, D, rows, H, dt, per_col):
    """float weights quantized as ORT's quantizer does for LSTMs (symmetric)."""
    wf = (rng.standard_normal((D, rows, 4 * H)) * 0.4).astype(np.float32)
    axes = (1,) if per_col else (1, 2)
    s = np.maximum(np.abs(wf.min(axis=axes, keepdims=True)), np.abs(wf.max(axis=axes, keepdims=True))) / 127.0
    z = np.zeros_like(s) if dt == np.int8 else np.full_like(s, 128.0)
    q = np.clip(np.round(wf / s) + z, np.iinfo(dt).min, np.iinfo(dt).max).astype(dt)
    sq, zq = s.reshape(D, -1).astype(np.float32), z.reshape(D, -1).astype(dt)
    if not per_col:
        sq, zq = sq.reshape(D), zq.reshape(D)
    return const(name, q), const(name + "_scale", sq), const(name + "_zero_point", zq)


def layer(name, x, direction, B, I, H, dt, per_col, lens=None, states=False, peep=False):
    D = 2 if direction == "bidirectional" else 1
    w, ws, wz = weights(name + "_w", D, I, H, dt, per_col)
    r, rs, rz = weights(name + "_r", D, H, H, dt, per_col)
    b = const(name + "_b", (rng.standard_normal((D, 8 * H)) * 0.1).astype(np.float32))
    sl = const(name + "_len", np.array(lens, np.int32)) if lens else ""
    h0 = const(name + "_h0", rng.standard_normal((D, B, H)).astype(np.float32)) if states else ""
    c0 = const(name + "_c0", rng.standard_normal((D, B, H)).astype(np.float32)) if states else ""
    p = const(name + "_p", (rng.standard_normal((D, 3 * H)) * 0.3).astype(np.float32)) if peep else ""
    outs = [name + "_y", name + "_h", name + "_c"]
    nodes.append(helper.make_node("DynamicQuantizeLSTM", [x, w, r, b, sl, h0, c0, p, ws, wz, rs, rz], outs,
                                  name=name, domain=MS, hidden_size=H, direction=direction))
    outputs.extend(helper.make_empty_tensor_value_info(o) for o in outs)


xs = {"input": rng.standard_normal((6, 3, 12)).astype(np.float32),
      "input_b1": rng.standard_normal((5, 1, 16)).astype(np.float32)}
layer("qlstm", "input", "bidirectional", 3, 12, 20, np.int8, True, lens=[5, 3, 4], states=True, peep=True)
layer("qlstm36", "input", "forward", 3, 12, 36, np.int8, False)
layer("qlstm_b1", "input_b1", "reverse", 1, 16, 64, np.uint8, False, states=True)
graph = helper.make_graph(nodes, "small_qlstm",
                          [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape)) for k, v in xs.items()],
                          outputs, initializer=inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14), helper.make_opsetid(MS, 1)],
                          producer_name="make_small_qlstm")
model.ir_version = 8

so = ort.SessionOptions()
so.intra_op_num_threads = 1
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
got = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, xs)))

if any(os.path.exists(os.path.join(OUT_DIR, f)) for f in ("model.onnx", "inputs.npz", "outputs.npz")) and \
        os.environ.get("UPDATE_GOLDEN") != "1":
    sys.exit(f"{OUT_DIR} exists; set UPDATE_GOLDEN=1 to overwrite")
os.makedirs(OUT_DIR, exist_ok=True)
onnx.save(model, os.path.join(OUT_DIR, "model.onnx"))
np.savez(os.path.join(OUT_DIR, "inputs.npz"), **xs)
np.savez(os.path.join(OUT_DIR, "outputs.npz"), **got)
print("wrote", OUT_DIR, {k: v.shape for k, v in got.items()})
