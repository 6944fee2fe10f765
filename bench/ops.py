"""ops.py - ctvm against ONNX Runtime on single operators and transformer-
sized layers beyond the seed CNNs (the "not toys" cases of issue 9): GEMMs
with constant weights, Attention-23, Einsum scores, Softmax, LayerNorm,
Gelu, Mish, Conv1d/Conv3d, ConvTranspose, LSTM, spatial ReduceMean, nearest
Resize.

    ~/.cache/ctvm/bench-venv/bin/python bench/ops.py [--ctvm-run build/ctvm-run]
        [--repeat 20] [--only NAME,...] [--out bench/out/ops]

Each model is built here with onnx.helper and seeded random data, run by
ONNX Runtime (1 intra-op thread, sequential, all graph optimizations) and by
`ctvm-run --print-time` (ctvm-emit --target native, gcc -O2 with the
target's flags, 1 thread), ORT timed before and after ctvm so that the two
share the machine's state; the table gives medians in ms and ctvm/ORT. The
outputs are compared against ORT's (ctvm-run --golden, rtol 1e-3); a
mismatch is printed in the last column. Needs the bench venv (onnx, numpy,
onnxruntime) made by bench/run.sh --setup-only."""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T, helper as h, numpy_helper as nh

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def rnd(shape, scale=1.0, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def model(name, nodes, inputs, inits, opset):
    g = h.make_graph(nodes, name, [h.make_tensor_value_info(n, T.FLOAT, a.shape) for n, a in inputs],
                     [h.make_tensor_value_info("y", T.FLOAT, None)], [nh.from_array(a, n) for n, a in inits])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="bench/ops.py")
    m.ir_version = 8
    return m, dict(inputs)


@case
def matmul_197x768x2304():  # the QKV projection of a ViT-B layer
    return model("matmul_197x768x2304", [h.make_node("MatMul", ["x", "w"], ["y"])], [("x", rnd((1, 197, 768)))],
                 [("w", rnd((768, 2304), 0.03, 1))], 17)


@case
def matmul_197x3072x768():  # the second MLP GEMM: K = 3072
    return model("matmul_197x3072x768", [h.make_node("MatMul", ["x", "w"], ["y"])], [("x", rnd((1, 197, 3072)))],
                 [("w", rnd((3072, 768), 0.02, 1))], 17)


@case
def attention23_12x197x64():
    q, k, v = rnd((1, 12, 197, 64)), rnd((1, 12, 197, 64), seed=1), rnd((1, 12, 197, 64), seed=2)
    return model("attention23_12x197x64", [h.make_node("Attention", ["q", "k", "v"], ["y"])],
                 [("q", q), ("k", k), ("v", v)], [], 23)


@case
def einsum_scores_12x197x64():
    return model("einsum_scores_12x197x64", [h.make_node("Einsum", ["q", "k"], ["y"], equation="bhqd,bhkd->bhqk")],
                 [("q", rnd((1, 12, 197, 64))), ("k", rnd((1, 12, 197, 64), seed=1))], [], 17)


@case
def softmax_12x197x197():
    return model("softmax_12x197x197", [h.make_node("Softmax", ["x"], ["y"], axis=-1)],
                 [("x", rnd((12, 197, 197)))], [], 17)


@case
def layernorm_197x768():
    return model("layernorm_197x768", [h.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=-1)],
                 [("x", rnd((197, 768)))], [("s", rnd((768,), seed=1)), ("b", rnd((768,), seed=2))], 17)


@case
def gelu_erf_197x3072():  # x/2 (1 + erf(x/sqrt 2)), as torch exports it
    nodes = [h.make_node("Div", ["x", "r2"], ["a"]), h.make_node("Erf", ["a"], ["e"]),
             h.make_node("Add", ["e", "one"], ["p"]), h.make_node("Mul", ["x", "p"], ["m"]),
             h.make_node("Mul", ["m", "half"], ["y"])]
    consts = [("r2", np.array(1.4142135, np.float32)), ("one", np.array(1, np.float32)),
              ("half", np.array(0.5, np.float32))]
    return model("gelu_erf_197x3072", nodes, [("x", rnd((197, 3072)))], consts, 17)


@case
def mish_64x56x56():
    return model("mish_64x56x56", [h.make_node("Mish", ["x"], ["y"])], [("x", rnd((1, 64, 56, 56), 3))], [], 18)


@case
def conv1d_256x1000_k3():
    return model("conv1d_256x1000_k3", [h.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1])],
                 [("x", rnd((1, 256, 1000)))], [("w", rnd((256, 256, 3), 0.03, 1))], 17)


@case
def conv3d_64to128_8x28x28():
    return model("conv3d_64to128_8x28x28", [h.make_node("Conv", ["x", "w"], ["y"], pads=[1] * 6)],
                 [("x", rnd((1, 64, 8, 28, 28)))], [("w", rnd((128, 64, 3, 3, 3), 0.02, 1))], 17)


@case
def convtranspose_256to128_k4s2():
    return model("convtranspose_256to128_k4s2",
                 [h.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1])],
                 [("x", rnd((1, 256, 8, 8)))], [("w", rnd((256, 128, 4, 4), 0.03, 1))], 17)


@case
def lstm_bidir_t20_b64_h512():
    H, I = 512, 512
    return model("lstm_bidir_t20_b64_h512",
                 [h.make_node("LSTM", ["x", "w", "r"], ["y"], hidden_size=H, direction="bidirectional")],
                 [("x", rnd((20, 64, I)))], [("w", rnd((2, 4 * H, I), 0.04, 1)), ("r", rnd((2, 4 * H, H), 0.04, 2))],
                 14)


@case
def reducemean_spatial_256x56x56():
    return model("reducemean_spatial_256x56x56", [h.make_node("ReduceMean", ["x"], ["y"], axes=[2, 3])],
                 [("x", rnd((1, 256, 56, 56)))], [], 17)


@case
def resize_nearest2x_64x28x28():
    nodes = [h.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest")]
    return model("resize_nearest2x_64x28x28", nodes, [("x", rnd((1, 64, 28, 28)))],
                 [("s", np.array([1, 1, 2, 2], np.float32))], 17)


def ort_time(sess, feeds, repeat):
    for _ in range(3):
        sess.run(None, feeds)
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        sess.run(None, feeds)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ctvm-run", default="build/ctvm-run")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="bench/out/ops")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    print("| case | ORT ms | ctvm ms | ctvm/ORT | check |")
    print("|---|---|---|---|---|")
    for fn in CASES:
        if only and fn.__name__ not in only:
            continue
        m, feeds = fn()
        d = os.path.join(a.out, fn.__name__)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        onnx.save(m, path)
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        y = sess.run(None, feeds)[0]
        np.savez(os.path.join(d, "inputs.npz"), **feeds)
        np.savez(os.path.join(d, "outputs.npz"), y=y)
        t0 = ort_time(sess, feeds, a.repeat)
        p = subprocess.run([a.ctvm_run, path, "--inputs", os.path.join(d, "inputs.npz"), "--golden",
                            os.path.join(d, "outputs.npz"), "--print-time", "--repeat", str(a.repeat)],
                           capture_output=True, text=True)
        text = p.stdout + p.stderr
        t1 = ort_time(sess, feeds, a.repeat)
        mt = re.search(r"median ([0-9.]+) ms", text)
        ct = float(mt.group(1)) if mt else float("nan")
        tort = (t0 + t1) / 2
        check = "ok" if p.returncode == 0 else "FAIL: " + text.strip().splitlines()[-1][:80]
        print("| %s | %.2f | %.2f | %.2f | %s |" % (fn.__name__, tort, ct, ct / tort, check), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
