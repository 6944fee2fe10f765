"""qdq_check.py - end-to-end check of ctvm's quantized graph passes
(quant_canon, quant_moves) against ONNX Runtime.

Makes small float models (Conv with pads / strides / groups / depthwise,
MatMul, Gemm with bias, a MaxPool / Reshape / Concat chain), quantizes
them with onnxruntime.quantization.quantize_static (QDQ with uint8 and
int8 activations, per-channel int8 weights; QOperator for QLinearConv /
QLinearMatMul), runs each with ORT and with ctvm-run on the same inputs,
and checks that ctvm's outputs are within one output quantization step of
ORT's on >= 99.9% of the elements and within two everywhere. The step of
an output is the scale of the DequantizeLinear that makes it (or the one
before a float op after it, e.g. Tanh); float outputs of QOperator models
(DequantizeLinear of a QLinear op) likewise. It also checks the canonical
form: after the passes no float Conv / MatMul / Gemm is left and the
weights in the emitted C are int8 (weight bytes <= 0.3 x the float32
model's parameter bytes).

With QDQ_CHECK_ZOO=1 the zoo models (resnet18, mobilenet_v2, bert_mini;
qdq_u8 / qdq_s8) are checked too (several minutes). Prints one line per
model: max error in steps, share of elements within one step, weight
bytes. Exit status 1 on any failure.

usage: qdq_check.py CTVM_BUILD_DIR WORK_DIR
"""
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType, quantize_static)

RNG = np.random.default_rng(22)


def conv_model(cin, cout, k, stride, pad, group, hw, relu):
    w = RNG.normal(0, 0.3, (cout, cin // group, k, k)).astype(np.float32)
    b = RNG.normal(0, 0.2, (cout,)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[k, k], strides=[stride, stride],
                              pads=[pad] * 4, group=group)]
    last = "c"
    if relu:
        nodes.append(helper.make_node("Relu", ["c"], ["r"]))
        last = "r"
    nodes.append(helper.make_node("Identity", [last], ["y"]))
    g = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, hw, hw])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    return g, {"x": (1, cin, hw, hw)}


def matmul_model(m, k, n):
    w = RNG.normal(0, 0.3, (k, n)).astype(np.float32)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "matmul",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(w, "w")])
    return g, {"x": (2, m, k)}


def gemm_model(m, k, n, trans_b):
    w = RNG.normal(0, 0.3, (n, k) if trans_b else (k, n)).astype(np.float32)
    b = RNG.normal(0, 0.5, (n,)).astype(np.float32)
    g = helper.make_graph([helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=trans_b, alpha=1.0, beta=1.0)],
                          "gemm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    return g, {"x": (m, k)}


def moves_model():
    """Conv -> MaxPool -> Reshape -> Transpose, Concat of two branches, Flatten -> Gemm"""
    w1 = RNG.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32)
    w2 = RNG.normal(0, 0.3, (8, 3, 1, 1)).astype(np.float32)
    wf = RNG.normal(0, 0.1, (10, 16 * 4 * 4)).astype(np.float32)
    bf = RNG.normal(0, 0.1, (10,)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["x", "w2"], ["c2"], kernel_shape=[1, 1]),
        helper.make_node("Concat", ["r1", "c2"], ["cat"], axis=1),
        helper.make_node("MaxPool", ["cat"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["p", "shape"], ["rs"]),
        helper.make_node("Transpose", ["rs"], ["t"], perm=[0, 1, 2]),
        helper.make_node("Flatten", ["t"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1),
    ]
    g = helper.make_graph(nodes, "moves", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
                           numpy_helper.from_array(wf, "wf"), numpy_helper.from_array(bf, "bf"),
                           numpy_helper.from_array(np.array([1, 16, 16], np.int64), "shape")])
    return g, {"x": (1, 3, 8, 8)}


def residual_model():
    """A ResNet basic block: Conv -> Relu -> Conv -> Add(identity) -> Relu.
    Quantized, the second conv's chain Q -> DQ -> Add -> Relu -> Q fuses
    into the conv's kernel (pass fuse): the check also counts the kernels."""
    c = 16
    w1 = RNG.normal(0, 0.2, (c, c, 3, 3)).astype(np.float32)
    w2 = RNG.normal(0, 0.2, (c, c, 3, 3)).astype(np.float32)
    b1 = RNG.normal(0, 0.1, (c,)).astype(np.float32)
    b2 = RNG.normal(0, 0.1, (c,)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "x"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    g = helper.make_graph(nodes, "residual", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 9, 9])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
                           numpy_helper.from_array(b1, "b1"), numpy_helper.from_array(b2, "b2")])
    return g, {"x": (1, c, 9, 9)}


SMALL = [
    ("conv_pad_stride", lambda: conv_model(5, 7, 3, 2, 1, 1, 11, True)),
    ("conv_groups", lambda: conv_model(6, 9, 3, 1, 1, 3, 9, False)),
    ("conv_depthwise", lambda: conv_model(8, 8, 3, 1, 1, 8, 10, True)),
    ("conv_5x5_nopad", lambda: conv_model(3, 17, 5, 1, 0, 1, 12, False)),
    ("matmul", lambda: matmul_model(5, 24, 13)),
    ("gemm_transb", lambda: gemm_model(4, 20, 11, 1)),
    ("gemm", lambda: gemm_model(3, 16, 9, 0)),
    ("moves", moves_model),
    ("residual", residual_model),
]

# most kernels each form of a model may take (the QDQ residual block: the
# input's QuantizeLinear, its uint8 pack and pad, its float32 DequantizeLinear
# and pack for the Add, conv1 + Q, a pad, conv2 with Q -> DQ -> Add -> Relu ->
# Q -> DQ fused, the unpack of y: 9; 12 when the chain stopped at conv2's Q)
MAX_KERNELS = {"residual_qdq_u8": 9, "residual_qdq_s8": 9}


class Reader(CalibrationDataReader):
    def __init__(self, shapes, n=8):
        self.data = iter([{k: RNG.normal(0, 1, s).astype(np.float32) for k, s in shapes.items()} for _ in range(n)])

    def get_next(self):
        return next(self.data, None)


def quantize(graph, shapes, path, fmt, act):
    fp = path + ".f32.onnx"
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, fp)
    quantize_static(fp, path, Reader(shapes), quant_format=fmt, per_channel=True, activation_type=act,
                    weight_type=QuantType.QInt8, extra_options={"ActivationSymmetric": False})
    return fp


def output_steps(path):
    """Scale of the DequantizeLinear making each output (through one float op)."""
    m = onnx.load(path)
    g = m.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    prod = {o: n for n in g.node for o in n.output}
    steps = {}
    for o in g.output:
        v = o.name
        for _ in range(3):
            n = prod.get(v)
            if n is None:
                break
            if n.op_type == "DequantizeLinear":
                steps[o.name] = float(np.max(inits[n.input[1]]))
                break
            v = n.input[0]
    return steps


def weight_bytes(c_file):
    total = 0
    with open(c_file, errors="replace") as f:
        for line in f:
            m = re.match(r"/\* weights: (\d+) bytes", line)
            if m:
                total += int(m.group(1))
    return total


def float_ops_left(build, path, work):
    dump = subprocess.run([os.path.join(build, "ctvm-emit"), path, "-o", os.path.join(work, "dump.c"),
                           "--dump-after", "quant_moves"], capture_output=True, text=True, check=True).stdout
    return len(re.findall(r"= (Conv|MatMul|Gemm)\(", dump))


def ort_run(path, inputs, level):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, inputs)))


def steps_off(have, want, step):
    err = np.abs(have.astype(np.float64) - want.astype(np.float64)) / step
    return float(err.max()), float(np.mean(err <= 1.0 + 1e-3))


def check(name, path, inputs, build, work, want_no_float=True, param_bytes=None):
    """ctvm against ORT (its QDQ fusion on). A deep model's outputs may be
    more than one step off, as ORT's own fused and unfused runs are (one
    step flips in an early layer grow): then ctvm passes when it is no
    further from ORT than ORT's unfused run (ORT_DISABLE_ALL) is."""
    ref = ort_run(path, inputs, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    plain = ort_run(path, inputs, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    npz = os.path.join(work, name + "_in.npz")
    np.savez(npz, **inputs)
    out = os.path.join(work, name + "_out.npz")
    c_file = os.path.join(work, name + ".c")
    subprocess.run([os.path.join(build, "ctvm-emit"), path, "-o", c_file], check=True)
    r = subprocess.run([os.path.join(build, "ctvm-run"), path, "--inputs", npz, "--output", out],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1) or not os.path.exists(out):
        print(f"FAIL {name}: ctvm-run: {r.stdout}{r.stderr}")
        return False
    got = np.load(out)
    steps = output_steps(path)
    ok = True
    msgs = []
    for k, want in ref.items():
        step = steps.get(k)
        if step is None:  # a float output: the largest step of the model's outputs, else 1e-3 * max|ref|
            step = max(steps.values()) if steps else 1e-3 * max(1e-6, float(np.max(np.abs(want))))
        mx, within = steps_off(got[k], want, step)
        own_mx, own_within = steps_off(plain[k], want, step)
        msgs.append(f"{k}: max {mx:.3f} steps, {100 * within:.2f}% within one step "
                    f"(ORT unfused: max {own_mx:.3f}, {100 * own_within:.2f}%)")
        close = within >= 0.999 and mx <= 2.0 + 1e-3
        as_ort = mx <= own_mx + 1.0 + 1e-3 and within >= own_within - 0.01
        if not (close or as_ort):
            ok = False
    floats = float_ops_left(build, path, work)
    wb = weight_bytes(c_file)
    size = f"weights {wb} bytes"
    if param_bytes:
        size += f" ({wb / param_bytes:.3f} x float32's {param_bytes})"
        if wb > 0.3 * param_bytes:
            ok = False
    if want_no_float and floats:
        ok = False
        msgs.append(f"{floats} float Conv/MatMul/Gemm left")
    kernels = len(re.findall(r"^static void k[0-9]+_", open(c_file).read(), re.M))
    if name in MAX_KERNELS and kernels > MAX_KERNELS[name]:
        ok = False
        msgs.append(f"{kernels} kernels, more than {MAX_KERNELS[name]}: an epilogue not fused")
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {'; '.join(msgs)}; {size}; {kernels} kernels", flush=True)
    return ok


def f32_param_bytes(path):
    m = onnx.load(path)
    return sum(4 * int(np.prod(i.dims)) for i in m.graph.initializer)


def main():
    build, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ok = True
    for name, make in SMALL:
        for tag, fmt, act in (("qdq_u8", QuantFormat.QDQ, QuantType.QUInt8),
                              ("qdq_s8", QuantFormat.QDQ, QuantType.QInt8),
                              ("qop_u8", QuantFormat.QOperator, QuantType.QUInt8)):
            if tag == "qop_u8" and (name.startswith("gemm") or name == "moves"):
                continue  # QGemm, QLinearConcat are com.microsoft (part msquant)
            graph, shapes = make()
            path = os.path.join(work, f"{name}_{tag}.onnx")
            quantize(graph, shapes, path, fmt, act)
            inputs = {k: RNG.normal(0, 1, s).astype(np.float32) for k, s in shapes.items()}
            ok &= check(f"{name}_{tag}", path, inputs, build, work, want_no_float=True)
    if os.environ.get("QDQ_CHECK_ZOO"):
        zoo = os.path.expanduser("~/.cache/ctvm/models/zoo")
        models = os.path.expanduser("~/.cache/ctvm/models")
        for name, f32 in (("resnet18", f"{models}/resnet18/model.onnx"),
                          ("mobilenet_v2", f"{models}/mobilenet_v2/model.onnx"),
                          ("bert_mini", f"{zoo}/bert_mini/model.onnx")):
            for tag in ("qdq_u8", "qdq_s8"):
                d = f"{zoo}/{name}_{tag}"
                if not os.path.exists(d):
                    continue
                inputs = dict(np.load(f"{d}/inputs.npz"))
                ok &= check(f"{name}_{tag}", f"{d}/model.onnx", inputs, build, work, want_no_float=True,
                            param_bytes=f32_param_bytes(f32))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
