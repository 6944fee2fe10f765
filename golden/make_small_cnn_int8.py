#!/usr/bin/env python3
# Makes the committed golden model golden/small_cnn_int8/: golden/small_cnn
# quantized the way a user quantizes it for a microcontroller, by
# onnxruntime.quantization.quantize_static (quant_pre_process first, which
# folds the BatchNormalizations into the convs; then QDQ format, per-channel
# int8 weights, uint8 activations, MinMax calibration on 16 seeded N(0,1)
# inputs, never the test input itself), with
#   model.onnx   the QDQ model,
#   inputs.npz   key "input": golden/small_cnn's own test input (float32),
#   outputs.npz  key "output": ONNX Runtime's output of model.onnx on it
#                (CPU provider, all graph optimizations off, so ORT runs
#                the QDQ graph as written).
# The Cortex-M7 harness (tests/mcu/run_m7.sh --int8) checks ctvm against
# outputs.npz within one quantization step of the output.
#
# Run with the quant venv (pip onnx + onnxruntime 1.32):
#   ~/.cache/ctvm/quant-venv/bin/python golden/make_small_cnn_int8.py
# Overwriting the committed files needs UPDATE_GOLDEN=1 in the environment.
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "small_cnn")
OUT = os.path.join(HERE, "small_cnn_int8")
CALIB_SEED = 2222
N_CALIB = 16


class Reader:
    """CalibrationDataReader: N_CALIB seeded N(0,1) inputs of the model's shape."""

    def __init__(self, shape):
        rng = np.random.default_rng(CALIB_SEED)
        self.feeds = iter([{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(N_CALIB)])

    def get_next(self):
        return next(self.feeds, None)


def main():
    import onnx
    import onnxruntime as ort
    from onnxruntime import quantization as q

    files = [os.path.join(OUT, f) for f in ("model.onnx", "inputs.npz", "outputs.npz")]
    if any(os.path.exists(f) for f in files) and os.environ.get("UPDATE_GOLDEN") != "1":
        sys.exit("make_small_cnn_int8: %s exists; set UPDATE_GOLDEN=1 to overwrite" % OUT)
    os.makedirs(OUT, exist_ok=True)
    x = np.load(os.path.join(SRC, "inputs.npz"))["input"]
    with tempfile.TemporaryDirectory() as t:
        prep = os.path.join(t, "prep.onnx")
        q.quant_pre_process(os.path.join(SRC, "model.onnx"), prep, skip_symbolic_shape=True)
        q.quantize_static(prep, files[0], Reader(x.shape), quant_format=q.QuantFormat.QDQ,
                          activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8,
                          per_channel=True, calibrate_method=q.CalibrationMethod.MinMax)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(files[0], so, providers=["CPUExecutionProvider"])
    y = sess.run(["output"], {"input": x})[0]
    np.savez(files[1], input=x)
    np.savez(files[2], output=y)
    m = onnx.load(files[0])
    ops = sorted({n.op_type for n in m.graph.node})
    print("wrote %s: %d nodes (%s), output %s" % (OUT, len(m.graph.node), " ".join(ops), np.array2string(y.ravel(), precision=4)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
