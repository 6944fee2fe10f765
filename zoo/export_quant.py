#!/usr/bin/env python3
"""export_quant.py - the low-precision forms of zoo models (issue 22), made
the way a user makes them: onnxruntime.quantization (static QDQ with uint8 or
int8 activations and per-channel int8 weights, QOperator with ORT's
com.microsoft operators, dynamic) and onnxruntime's float16 converter; a
bfloat16 form keeps float32 arithmetic with bfloat16 weights behind Casts.

  quant-venv/bin/python zoo/export_quant.py [--list] [--ci] [--force] [NAMES...]

Sources are zoo-format directories (zoo/README.md) under $CTVM_CACHE: the
seed models resnet18 and mobilenet_v2, and zoo/bert_mini and zoo/lstm_bidir.
Each form is written as a zoo directory $CTVM_CACHE/zoo/<source>_<form>
(model.onnx, inputs.npz, meta.json; run_zoo.py writes ort.npz). Calibration
uses 8 seeded random inputs of the source's input distribution (never the
test input itself). Runs under the quant venv (pip onnx + onnxruntime; Debian's
onnx is too old for onnxruntime.quantization)."""
import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CACHE = os.environ.get("CTVM_CACHE", os.path.expanduser("~/.cache/ctvm/models"))

# source name -> (directory, family, first-class CNN?)
SOURCES = {
    "resnet18": (os.path.join(CACHE, "resnet18"), "classification"),
    "mobilenet_v2": (os.path.join(CACHE, "mobilenet_v2"), "classification"),
    "bert_mini": (os.path.join(CACHE, "zoo", "bert_mini"), "transformer"),
    "lstm_bidir": (os.path.join(CACHE, "zoo", "lstm_bidir"), "sequence"),
}
# form -> applies to which families, and CI membership per source
FORMS = ["qdq_u8", "qdq_s8", "qop", "dyn", "fp16", "bf16"]
# The CI subset (make zoo-ci, 2 cores): one model per form family, the cheap
# ones where the form allows (~1 min in all with export, emit, gcc and one
# run): QDQ u8 on resnet18 (the headline model), QOperator (QLinearConv
# with com.microsoft QLinearAdd/QLinearGlobalAveragePool/QGemm) on mobilenet_v2,
# dynamic MatMulInteger on the encoder, ORT's DynamicQuantizeLSTM, float16.
CI = {("resnet18", "qdq_u8"), ("mobilenet_v2", "qop"), ("bert_mini", "dyn"), ("lstm_bidir", "dyn"),
      ("mobilenet_v2", "fp16")}


def forms_of(src):
    fam = SOURCES[src][1]
    if fam == "sequence":
        return ["dyn", "qdq_u8", "fp16"]
    return FORMS


def calib_inputs(src, n=8):
    base = dict(np.load(os.path.join(SOURCES[src][0], "inputs.npz")))
    rng = np.random.default_rng(2200 + len(src))
    out = []
    for _ in range(n):
        feed = {}
        for k, v in base.items():
            if v.dtype.kind == "f":
                feed[k] = rng.standard_normal(v.shape).astype(v.dtype)
            elif "mask" in k:
                feed[k] = v.copy()
            else:
                feed[k] = rng.integers(0, int(v.max()) + 1, v.shape).astype(v.dtype)
        out.append(feed)
    return out


class Reader:
    def __init__(self, feeds):
        self.it = iter(feeds)

    def get_next(self):
        return next(self.it, None)


def quantize(src, form, path_in, path_out):
    from onnxruntime import quantization as q
    prep = path_out + ".prep.onnx"
    q.quant_pre_process(path_in, prep, skip_symbolic_shape=True)
    try:
        if form == "dyn":
            q.quantize_dynamic(prep, path_out, weight_type=q.QuantType.QInt8, per_channel=False)
            return
        act = q.QuantType.QInt8 if form == "qdq_s8" else q.QuantType.QUInt8
        fmt = q.QuantFormat.QOperator if form == "qop" else q.QuantFormat.QDQ
        q.quantize_static(prep, path_out, Reader(calib_inputs(src)), quant_format=fmt,
                          activation_type=act, weight_type=q.QuantType.QInt8, per_channel=True,
                          calibrate_method=q.CalibrationMethod.MinMax)
    finally:
        os.remove(prep)


def to_fp16(path_in, path_out):
    from onnxruntime.transformers.float16 import convert_float_to_float16
    m = onnx.load(path_in)
    m16 = convert_float_to_float16(m, keep_io_types=False)
    onnx.save(m16, path_out)


def to_bf16_weights(path_in, path_out):
    """Float32 arithmetic on bfloat16-stored weights (how mixed-precision
    exports ship them): each float32 initializer of >= 16 elements becomes a
    bfloat16 initializer read through a Cast to float32."""
    m = onnx.load(path_in)
    g = m.graph
    keep, casts = [], []
    for init in g.initializer:
        a = numpy_helper.to_array(init)
        if init.data_type != TensorProto.FLOAT or a.size < 16:
            keep.append(init)
            continue
        bits = (a.astype(np.float32).view(np.uint32) + 0x7FFF + ((a.view(np.uint32) >> 16) & 1)) >> 16
        t = helper.make_tensor(init.name + "_bf16", TensorProto.BFLOAT16, a.shape,
                               bits.astype(np.uint16).tobytes(), raw=True)
        keep.append(t)
        casts.append(helper.make_node("Cast", [t.name], [init.name], to=TensorProto.FLOAT,
                                      name=init.name + "_to_f32"))
    del g.initializer[:]
    g.initializer.extend(keep)
    nodes = list(g.node)
    del g.node[:]
    g.node.extend(casts + nodes)
    onnx.save(m, path_out)


def export(src, form, force):
    sdir, fam = SOURCES[src]
    name = "%s_%s" % (src, form)
    out = os.path.join(CACHE, "zoo", name)
    model = os.path.join(out, "model.onnx")
    mpath = os.path.join(out, "meta.json")
    if os.path.exists(model) and os.path.exists(mpath) and not force:
        meta = json.load(open(mpath))
        if meta.get("ci") != ((src, form) in CI) or meta.get("source_dir") != sdir:
            meta.update({"ci": (src, form) in CI, "source_dir": sdir})  # the CI set moved: keep the model
            with open(mpath, "w") as f:
                json.dump(meta, f, indent=1)
        return name, "cached"
    os.makedirs(out, exist_ok=True)
    tmp = model + ".tmp.onnx"
    if form == "fp16":
        to_fp16(os.path.join(sdir, "model.onnx"), tmp)
    elif form == "bf16":
        to_bf16_weights(os.path.join(sdir, "model.onnx"), tmp)
    else:
        quantize(src, form, os.path.join(sdir, "model.onnx"), tmp)
    os.replace(tmp, model)
    inputs = dict(np.load(os.path.join(sdir, "inputs.npz")))
    if form == "fp16":
        inputs = {k: v.astype(np.float16) if v.dtype == np.float32 else v for k, v in inputs.items()}
    np.savez(os.path.join(out, "inputs.npz"), **inputs)
    meta = {"name": name, "family": fam, "exporter": "onnxruntime.quantization / float16 %s" % form,
            "opset": [o.version for o in onnx.load(model, load_external_data=False).opset_import
                      if o.domain in ("", "ai.onnx")][0],
            "input_shapes": "", "ci": (src, form) in CI, "seed": 2200,
            "precision": form, "source": src, "source_dir": sdir,
            "note": "%s of %s" % (form, src)}
    with open(mpath, "w") as f:
        json.dump(meta, f, indent=1)
    return name, "exported"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--ci", action="store_true")
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    todo = [(s, f) for s in SOURCES for f in forms_of(s)]
    if a.ci:
        todo = [t for t in todo if t in CI]
    if a.names:
        todo = [t for t in todo if "%s_%s" % t in a.names]
    if a.list:
        print("\n".join("%s_%s" % t for t in todo))
        return 0
    bad = 0
    for s, f in todo:
        try:
            name, how = export(s, f, a.force)
            print("%s: %s" % (name, how))
        except Exception as e:  # name the model, keep going, fail at the end
            print("%s_%s: FAILED %s: %s" % (s, f, type(e).__name__, e), file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
