#!/usr/bin/env python3
# Makes the committed golden model golden/small_rnn/: recurrent layers with
# constant (initializer) weights, so ctvm takes its float32 fast path (W and R
# stored transposed, register-tiled vectorized products, ops/rnn.c), at sizes
# that exercise every tail: hidden size 13 (not a multiple of any vector
# width; G*H = 52, 39, 26, 13 leave whole-vector and single-column tails),
# batch 11 (not a multiple of the row tile), 5 steps, input size 19. Graph
# input "input" [5,11,19]; the nodes and their outputs:
#   lstm: bidirectional, peepholes, biases, sequence_lens, initial_h/c
#         -> lstm_y, lstm_h, lstm_c
#   gru0: bidirectional, linear_before_reset=0, sequence_lens -> gru0_y, gru0_h
#   gru1: reverse, linear_before_reset=1, initial_h -> gru1_y, gru1_h
#   rnn:  forward, tanh -> rnn_y, rnn_h
# and, for tiles of one and two batch entries (G*H = 148 and 111: whole
# blocks of 8 vectors, then vector and column tails), graph inputs
# "input_b1" [4,1,9] and "input_b2" [4,2,9]:
#   lstm_b1: bidirectional, hidden size 37 -> lstm_b1_y, lstm_b1_h, lstm_b1_c
#   gru_b2:  forward, linear_before_reset=0, hidden size 37 -> gru_b2_y, gru_b2_h
# and with hidden size 16 (G*H = 64 and 48, multiples of two vectors: W
# stored in panels):
#   lstm16:   reverse, sequence_lens, on "input" -> lstm16_y, lstm16_h, lstm16_c
#   gru16_b2: bidirectional, linear_before_reset=1, on "input_b2" -> gru16_b2_y, gru16_b2_h
# and with hidden size 128 in one direction (with threads, the gates'
# products of a step are shared among the threads), on "input_b2":
#   lstm128_b2: forward; gru128_b2: reverse, linear_before_reset=0;
#   gru128l_b2: forward, linear_before_reset=1
# The references in outputs.npz are ONNX Runtime's (single thread), checked
# against onnx's reference implementation before they are written (which
# ignores sequence_lens: there on the batch entries that run every step).
#
# Run: ~/.cache/ctvm/zoo-dynamo/bin/python golden/make_small_rnn.py (pip onnx with its
# reference evaluator + onnxruntime; zoo/setup_venvs.sh makes that venv)
# Overwriting the committed files needs UPDATE_GOLDEN=1 in the environment.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
import onnxruntime as ort

T, B, I, H = 5, 11, 19, 13
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_rnn")
rng = np.random.default_rng(2026)


def rnd(*shape, scale=0.4):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


inits, nodes, outputs = [], [], []
seq = np.array([5, 3, 2, 1, 5, 4, 2, 5, 1, 3, 4], dtype=np.int32)
inits.append(numpy_helper.from_array(seq, "seq"))


def layer(op, name, D, G, attrs, seq_lens=False, init_h=False, init_c=False, peep=False, x="input", T=T, B=B, H=H, I=I,
          rscale=0.4):
    ins = [x]
    for suffix, arr in (("W", rnd(D, G * H, I)), ("R", rnd(D, G * H, H, scale=rscale)), ("B", rnd(D, 2 * G * H, scale=0.2))):
        inits.append(numpy_helper.from_array(arr, f"{name}_{suffix}"))
        ins.append(f"{name}_{suffix}")
    ins.append("seq" if seq_lens else "")
    if init_h:
        inits.append(numpy_helper.from_array(rnd(D, B, H), f"{name}_h0"))
    ins.append(f"{name}_h0" if init_h else "")
    if op == "LSTM":
        if init_c:
            inits.append(numpy_helper.from_array(rnd(D, B, H), f"{name}_c0"))
        ins.append(f"{name}_c0" if init_c else "")
        if peep:
            inits.append(numpy_helper.from_array(rnd(D, 3 * H), f"{name}_P"))
        ins.append(f"{name}_P" if peep else "")
    while ins[-1] == "":
        ins.pop()
    outs = [f"{name}_y", f"{name}_h"] + ([f"{name}_c"] if op == "LSTM" else [])
    nodes.append(helper.make_node(op, ins, outs, name=name, hidden_size=H, **attrs))
    for o, shape in zip(outs, [[T, D, B, H], [D, B, H], [D, B, H]]):
        outputs.append(helper.make_tensor_value_info(o, TensorProto.FLOAT, shape))


layer("LSTM", "lstm", 2, 4, {"direction": "bidirectional"}, seq_lens=True, init_h=True, init_c=True, peep=True)
layer("GRU", "gru0", 2, 3, {"direction": "bidirectional", "linear_before_reset": 0}, seq_lens=True)
layer("GRU", "gru1", 1, 3, {"direction": "reverse", "linear_before_reset": 1}, init_h=True)
layer("RNN", "rnn", 1, 1, {"direction": "forward"})
# one and two batch entries (more vectors per row in a tile), hidden size 37
layer("LSTM", "lstm_b1", 2, 4, {"direction": "bidirectional"}, x="input_b1", T=4, B=1, H=37, I=9)
layer("GRU", "gru_b2", 1, 3, {"linear_before_reset": 0}, x="input_b2", T=4, B=2, H=37, I=9)
# G*H a multiple of two vectors: W stored in panels for the input projection
layer("LSTM", "lstm16", 1, 4, {"direction": "reverse"}, seq_lens=True, H=16)
layer("GRU", "gru16_b2", 2, 3, {"direction": "bidirectional", "linear_before_reset": 1}, x="input_b2", T=4, B=2, H=16, I=9)
# one direction, hidden size 128: with threads, the gates' products of a step are shared among them
layer("LSTM", "lstm128_b2", 1, 4, {"direction": "forward"}, x="input_b2", T=4, B=2, H=128, I=9, rscale=0.1)
layer("GRU", "gru128_b2", 1, 3, {"direction": "reverse", "linear_before_reset": 0}, x="input_b2", T=4, B=2, H=128, I=9,
      rscale=0.1)
layer("GRU", "gru128l_b2", 1, 3, {"linear_before_reset": 1}, x="input_b2", T=4, B=2, H=128, I=9, rscale=0.1)

xs = {"input": rnd(T, B, I, scale=1.0), "input_b1": rnd(4, 1, 9, scale=1.0), "input_b2": rnd(4, 2, 9, scale=1.0)}
graph = helper.make_graph(nodes, "small_rnn",
                          [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape)) for k, v in xs.items()],
                          outputs, initializer=inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], producer_name="make_small_rnn")
model.ir_version = 8
onnx.checker.check_model(model)

so = ort.SessionOptions()
so.intra_op_num_threads = 1
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
names = [o.name for o in sess.get_outputs()]
got = dict(zip(names, sess.run(None, xs)))
ref = dict(zip([o.name for o in model.graph.output], ReferenceEvaluator(model).run(None, xs)))
full = seq == T  # onnx's reference ignores sequence_lens: compare the entries that run every step
for k in names:
    a, b = got[k], ref[k]
    if k.rsplit("_", 1)[0] in ("lstm", "gru0", "lstm16"):
        a, b = (a[:, :, full], b[:, :, full]) if k.endswith("_y") else (a[:, full], b[:, full])
    if not np.allclose(a, b, rtol=1e-4, atol=1e-5):
        sys.exit(f"onnxruntime and onnx's reference disagree on {k}: max err {np.abs(a - b).max()}")

if any(os.path.exists(os.path.join(OUT_DIR, f)) for f in ("model.onnx", "inputs.npz", "outputs.npz")) and \
        os.environ.get("UPDATE_GOLDEN") != "1":
    sys.exit(f"{OUT_DIR} exists; set UPDATE_GOLDEN=1 to overwrite")
os.makedirs(OUT_DIR, exist_ok=True)
onnx.save(model, os.path.join(OUT_DIR, "model.onnx"))
np.savez(os.path.join(OUT_DIR, "inputs.npz"), **xs)
np.savez(os.path.join(OUT_DIR, "outputs.npz"), **got)
print("wrote", OUT_DIR, {k: v.shape for k, v in got.items()})
