#!/usr/bin/env python3
"""lstm_m7.py - the int8 LSTM (DynamicQuantizeLSTM, ops/rnn.c's int8 form)
on an emulated Cortex-M7 (tests/mcu/run_m7.sh, qemu-system-arm mps2-an500)
against ONNX Runtime:

  quant-venv/bin/python tests/quant/lstm_m7.py

Builds a bidirectional DynamicQuantizeLSTM with int8 per-column weights,
sequence_lens and odd sizes (I 12, H 20: off the dot product's and every
vector's grid), X the one input "input", Y the one output "output"
(initial states constant), writes ORT's Y as the reference and runs
run_m7.sh on it (max|out - ORT| <= 1e-4 + 1e-3 max|ORT|; the int8 form
agrees with ORT to float rounding, a float32 LSTM over the dequantized
weights is ~1e-2 away). Exit status run_m7.sh's."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msquant_check as mc  # noqa: E402


def main():
    rng = np.random.default_rng(7)
    S, B, I, H, D = 7, 2, 12, 20, 2
    inits, ins = [], ["input"]

    def const(name, v):
        inits.append(numpy_helper.from_array(np.asarray(v), name))
        return name
    params = []
    for k, rows in enumerate((I, H)):
        wf = (rng.standard_normal((D, rows, 4 * H)) * 0.4).astype(np.float32)
        s = np.maximum(np.abs(wf.min(axis=1)), np.abs(wf.max(axis=1))) / 127.0
        q = np.clip(np.round(wf / s[:, None, :]), -127, 127).astype(np.int8)
        ins.append(const("w%d" % k, q))
        params += [const("ws%d" % k, s.astype(np.float32)), const("wz%d" % k, np.zeros((D, 4 * H), np.int8))]
    ins += [const("b", (rng.standard_normal((D, 8 * H)) * 0.1).astype(np.float32)),
            const("len", np.array([7, 4], np.int32)),
            const("h0", rng.standard_normal((D, B, H)).astype(np.float32)),
            const("c0", rng.standard_normal((D, B, H)).astype(np.float32)), "", *params]
    node = helper.make_node("DynamicQuantizeLSTM", ins, ["output"], domain=mc.MS, hidden_size=H,
                            direction="bidirectional")
    g = helper.make_graph([node], "lstm_m7", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [S, B, I])],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(mc.MS, 1)])
    m.ir_version = 8
    d = tempfile.mkdtemp(prefix="lstm_m7_")
    onnx.save(m, os.path.join(d, "model.onnx"))
    x = rng.standard_normal((S, B, I)).astype(np.float32)
    np.savez(os.path.join(d, "inputs.npz"), input=x)
    np.savez(os.path.join(d, "outputs.npz"), output=mc.ort_run(os.path.join(d, "model.onnx"), {"input": x})["output"])
    env = dict(os.environ, CTVM_M7_MODEL=d)
    return subprocess.run(["bash", os.path.join(mc.REPO, "tests", "mcu", "run_m7.sh")], env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
