"""dyn_shapes.py OUT_DIR - small models whose values have data-dependent
shapes flowing through other operators (issue 10: the post-processing of
torchvision's detectors), with ONNX Runtime references.

Each case is OUT_DIR/<case>/{model.onnx, inputs.npz, outputs.npz} and a line
"<case> rtol atol" in OUT_DIR/cases.txt; tests/e2e.sh runs them through
ctvm-run, which also checks the actual output shapes. Every model runs once
with a count > 0 and once with a count of 0 (suffix _empty). Run with a
Python that has onnx and onnxruntime (the bench venv,
~/.cache/ctvm/bench-venv/bin/python, which tests/e2e.sh makes when missing)."""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort
from onnx import TensorProto as TP
from onnx import helper as h

OPSET = 11


def const(name, arr):
    arr = np.asarray(arr)
    return h.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(arr, name + "_v"))


def filtered(x, thr, prefix):
    """nodes: Greater(x, thr) -> NonZero -> Transpose -> GatherND(x) = x[x > thr]; and the indices [n,1]"""
    return [
        const(prefix + "thr", np.array(thr, np.float32)),
        h.make_node("Greater", [x, prefix + "thr"], [prefix + "m"]),
        h.make_node("NonZero", [prefix + "m"], [prefix + "nz"]),
        h.make_node("Transpose", [prefix + "nz"], [prefix + "idx"], perm=[1, 0]),
        h.make_node("GatherND", [x, prefix + "idx"], [prefix + "sel"]),
    ]


def topk_runtime(vals, cap, prefix):
    """k = min(cap, len(vals)) from Shape at run time, TopK by that k"""
    return [
        h.make_node("Shape", [vals], [prefix + "sh"]),
        const(prefix + "zero", np.array(0, np.int64)),
        h.make_node("Gather", [prefix + "sh", prefix + "zero"], [prefix + "cnt"], axis=0),
        h.make_node("Unsqueeze", [prefix + "cnt"], [prefix + "cnt1"], axes=[0]),
        const(prefix + "cap", np.array([cap], np.int64)),
        h.make_node("Concat", [prefix + "cap", prefix + "cnt1"], [prefix + "kk"], axis=0),
        h.make_node("ReduceMin", [prefix + "kk"], [prefix + "kmin"], keepdims=0),
        const(prefix + "one", np.array([1], np.int64)),
        h.make_node("Reshape", [prefix + "kmin", prefix + "one"], [prefix + "k"]),
        h.make_node("TopK", [vals, prefix + "k"], [prefix + "tv", prefix + "ti"], axis=-1, largest=1, sorted=1),
    ]


def model(nodes, inputs, outputs, name):
    g = h.make_graph(nodes, name, inputs, outputs)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", OPSET)])
    m.ir_version = 6

    return m


def vi(name, t, shape):
    return h.make_tensor_value_info(name, t, shape)


def case_nonzero_gathernd():
    nodes = filtered("x", 0.5, "a_") + [
        h.make_node("Mul", ["a_sel", "a_sel"], ["sq"]),
        h.make_node("Cast", ["a_idx"], ["idxf"], to=TP.FLOAT),
    ]
    return model(nodes, [vi("x", TP.FLOAT, [17])],
                 [vi("sq", TP.FLOAT, None), vi("idxf", TP.FLOAT, None)], "nonzero_gathernd")


def case_topk_k():
    # per row (class) threshold, then the best min(4, count) of them and
    # the boxes they belong to (Gather by the TopK indices)
    nodes = filtered("s", 0.3, "a_") + [
        h.make_node("GatherND", ["b", "a_idx"], ["bsel"]),
    ] + topk_runtime("a_sel", 4, "t_") + [
        h.make_node("Gather", ["bsel", "t_ti"], ["bk"], axis=0),
    ]
    return model(nodes, [vi("s", TP.FLOAT, [13]), vi("b", TP.FLOAT, [13, 4])],
                 [vi("t_tv", TP.FLOAT, None), vi("t_ti", TP.INT64, None), vi("bk", TP.FLOAT, None)], "topk_k")


def case_concat_shape():
    # two classes: dyn pieces concatenated; labels by ConstantOfShape of their Shape
    nodes = []
    for c in range(2):
        p = "c%d_" % c
        nodes += [const(p + "ci", np.array(c, np.int64)),
                  h.make_node("Gather", ["s", p + "ci"], [p + "col"], axis=1)]
        nodes += filtered(p + "col", 0.4, p)
        nodes += [h.make_node("Shape", [p + "sel"], [p + "shp"]),
                  h.make_node("ConstantOfShape", [p + "shp"], [p + "lab"],
                              value=onnx.numpy_helper.from_array(np.array([c + 1], np.int64), "v"))]
    nodes += [h.make_node("Concat", ["c0_sel", "c1_sel"], ["scores"], axis=0),
              h.make_node("Concat", ["c0_lab", "c1_lab"], ["labels"], axis=0),
              h.make_node("Shape", ["scores"], ["nshape"]),
              h.make_node("ReduceMax", ["scores"], ["smax"], keepdims=0)]
    return model(nodes, [vi("s", TP.FLOAT, [11, 2])],
                 [vi("scores", TP.FLOAT, None), vi("labels", TP.INT64, None), vi("nshape", TP.INT64, [1])],
                 "concat_shape")


def case_nms_if():
    # the tail of torchvision's batched NMS: an If on "no boxes" whose else
    # branch offsets the boxes per class and runs NonMaxSuppression, then
    # the first 3 kept, gathered, split into columns and put back together
    nodes = filtered("s", 0.3, "a_") + [
        h.make_node("GatherND", ["b", "a_idx"], ["bs"]),
        h.make_node("Shape", ["bs"], ["bsh"]),
        h.make_node("ReduceProd", ["bsh"], ["numel"], keepdims=0),
        const("z", np.array(0, np.int64)),
        h.make_node("Equal", ["numel", "z"], ["empty"]),
        h.make_node("Cast", ["empty"], ["cond"], to=TP.BOOL),
    ]
    then_g = h.make_graph([const("e", np.zeros([0], np.int64))], "then", [], [vi("e", TP.INT64, [0])])
    else_nodes = [
        h.make_node("ReduceMax", ["bs"], ["mx"], keepdims=0),
        const("onef", np.array(1.0, np.float32)),
        h.make_node("Add", ["mx", "onef"], ["off"]),
        h.make_node("Mul", ["a_sel", "off"], ["offs"]),
        h.make_node("Unsqueeze", ["offs"], ["offs1"], axes=[1]),
        h.make_node("Add", ["bs", "offs1"], ["bn"]),
        h.make_node("Unsqueeze", ["bn"], ["bn3"], axes=[0]),
        h.make_node("Unsqueeze", ["a_sel"], ["sc2"], axes=[0]),
        h.make_node("Unsqueeze", ["sc2"], ["sc3"], axes=[0]),
        const("maxb", np.array([100], np.int64)),
        const("iou", np.array([0.5], np.float32)),
        h.make_node("NonMaxSuppression", ["bn3", "sc3", "maxb", "iou"], ["sel"]),
        const("two", np.array([2], np.int64)),
        h.make_node("Gather", ["sel", "two"], ["col"], axis=1),
        h.make_node("Squeeze", ["col"], ["keep"], axes=[1]),
    ]
    else_g = h.make_graph(else_nodes, "else", [], [vi("keep", TP.INT64, None)])
    nodes += [
        h.make_node("If", ["cond"], ["kept"], then_branch=then_g, else_branch=else_g),
        const("st", np.array([0], np.int64)), const("en", np.array([3], np.int64)),
        const("ax", np.array([0], np.int64)), const("sp", np.array([1], np.int64)),
        h.make_node("Slice", ["kept", "st", "en", "ax", "sp"], ["first"]),
        h.make_node("Gather", ["bs", "first"], ["bk"], axis=0),
        h.make_node("Gather", ["a_sel", "first"], ["sk"], axis=0),
        h.make_node("Split", ["bk"], ["x0", "y0", "x1", "y1"], axis=1, split=[1, 1, 1, 1]),
    ]
    for i, c in enumerate(["x0", "y0", "x1", "y1"]):
        nodes += [h.make_node("Squeeze", [c], [c + "s"], axes=[1]),
                  const(c + "k", np.array(2.0, np.float32)),
                  h.make_node("Mul", [c + "s", c + "k"], [c + "m"]),
                  h.make_node("Unsqueeze", [c + "m"], [c + "u"], axes=[1])]
    nodes += [h.make_node("Concat", ["x0u", "y0u", "x1u", "y1u"], ["boxes"], axis=1)]
    return model(nodes, [vi("s", TP.FLOAT, [12]), vi("b", TP.FLOAT, [12, 4])],
                 [vi("boxes", TP.FLOAT, None), vi("sk", TP.FLOAT, None), vi("kept", TP.INT64, None)], "nms_if")


def boxes(rng, n):
    xy = rng.uniform(0, 20, (n, 2)).astype(np.float32)
    wh = rng.uniform(2, 10, (n, 2)).astype(np.float32)
    return np.concatenate([xy, xy + wh], 1)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(10)
    cases = [
        ("nonzero_gathernd", case_nonzero_gathernd(), lambda lo: {"x": rng.uniform(0, 1, 17).astype(np.float32) - lo}),
        ("topk_k", case_topk_k(), lambda lo: {"s": rng.uniform(0, 1, 13).astype(np.float32) - lo,
                                              "b": boxes(rng, 13)}),
        ("concat_shape", case_concat_shape(), lambda lo: {"s": rng.uniform(0, 1, (11, 2)).astype(np.float32) - lo}),
        ("nms_if", case_nms_if(), lambda lo: {"s": rng.uniform(0, 1, 12).astype(np.float32) - lo,
                                              "b": boxes(rng, 12)}),
    ]
    lines = []
    for name, m, feed in cases:
        for suffix, lo in (("", 0.0), ("_empty", 1.0)):
            d = os.path.join(out, name + suffix)
            os.makedirs(d, exist_ok=True)
            onnx.save(m, os.path.join(d, "model.onnx"))
            feeds = feed(lo)
            sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
            names = [o.name for o in sess.get_outputs()]
            refs = dict(zip(names, sess.run(None, feeds)))
            np.savez(os.path.join(d, "inputs.npz"), **feeds)
            np.savez(os.path.join(d, "outputs.npz"), **refs)
            lines.append("%s%s 1e-5 1e-6" % (name, suffix))
            print(name + suffix, {k: v.shape for k, v in refs.items()})
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
