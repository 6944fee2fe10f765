#!/usr/bin/env python3
"""half_check.py - float16 and bfloat16 models against ONNX Runtime (issue 22).

For each zoo model named (default: the fp16 and bf16 forms present under
$CTVM_CACHE/zoo, and mobilenet_v2_fp16io: ORT's float16 converter with
keep_io_types=True, made here): ctvm-emit, the user's `gcc -O2` build, one
run on the model's inputs.npz, and every output compared
  - float16 models (float16 arithmetic): with ONNX Runtime on the same
    file; max|err| <= HALF_REL * max|ref|;
  - bfloat16-weight models (float32 arithmetic): with ONNX Runtime on the
    same file at the zoo's float32 tolerance (1e-4 + 1e-3 max|ref|), and with
    ONNX Runtime on the float32 original (meta.json "source") within
    BF16_REL * max|ref| (the weights' rounding).
Prints one line per model with max|err| / max|ref|; exits 1 on a mismatch.
Run with a python that has onnxruntime (the quant venv):
  ~/.cache/ctvm/quant-venv/bin/python tests/quant/half_check.py [--emit build/ctvm-emit] [NAMES...]"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HALF_REL = 3e-3  # a few float16 ulps (2^-11 relative) of the largest output; ctvm 6e-4 at most
BF16_REL = 1e-1  # bfloat16 weights (2^-9 relative each) through ~50 layers: 4e-2 at most
ATOL, RTOL = 1e-4, 1e-3
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("CTVM_CACHE") or os.path.expanduser("~/.cache/ctvm/models")
NP = {"float32": np.float32, "float16": np.float16, "int64": np.int64, "int32": np.int32,
      "bfloat16": np.uint16, "float64": np.float64, "uint8": np.uint8, "int8": np.int8, "bool": np.bool_}
SOURCES = {"resnet18": os.path.join(CACHE, "resnet18"), "mobilenet_v2": os.path.join(CACHE, "mobilenet_v2"),
           "bert_mini": os.path.join(CACHE, "zoo", "bert_mini"), "lstm_bidir": os.path.join(CACHE, "zoo", "lstm_bidir")}


TMP = tempfile.mkdtemp(prefix="ctvm-half-models-")


def api(c_path):
    io = {"INPUT": {}, "OUTPUT": {}}
    pat = re.compile(r"#define model_(INPUT|OUTPUT)(\d+)_(NAME|DTYPE|SHAPE) (.*)")
    with open(c_path, errors="replace") as f:
        for i, line in enumerate(f):
            m = pat.match(line)
            if m:
                d = io[m.group(1)].setdefault(int(m.group(2)), {})
                v = m.group(4).strip()
                d[m.group(3).lower()] = [int(s) for s in v.strip("{}").split(",") if s.strip()] \
                    if m.group(3) == "SHAPE" else v.strip('"')
            if i > 3000:
                break
    return [io["INPUT"][k] for k in sorted(io["INPUT"])], [io["OUTPUT"][k] for k in sorted(io["OUTPUT"])]


def ort_run(path, feed):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    return dict(zip(names, s.run(None, {i.name: feed[i.name] for i in s.get_inputs()})))


def ctvm_run(emit, d, work):
    c = os.path.join(work, "model.c")
    binp = os.path.join(work, "model")
    subprocess.run([emit, os.path.join(d, "model.onnx"), "-o", c], check=True, capture_output=True)
    subprocess.run(["gcc", "-O2", "-DCTVM_MAIN", c, "-o", binp, "-lm"], check=True, capture_output=True)
    ins, outs = api(c)
    feed = dict(np.load(os.path.join(d, "inputs.npz")))
    for i, spec in enumerate(ins):
        np.ascontiguousarray(feed[spec["name"]], dtype=NP[spec["dtype"]]).tofile(os.path.join(work, "in%d.bin" % i))
    subprocess.run([binp, work, work, "1"], check=True, capture_output=True)
    return {s["name"]: np.fromfile(os.path.join(work, "out%d.bin" % i), dtype=NP[s["dtype"]]).reshape(s["shape"])
            for i, s in enumerate(outs)}, feed


def rel_err(got, ref):
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if g.shape != r.shape or not np.all(np.isfinite(g)):
        return float("inf"), 0.0
    scale = float(np.max(np.abs(r)))
    return float(np.max(np.abs(g - r))) / scale, scale


def make_keep_io(src, d):
    """ORT's float16 converter with keep_io_types=True (float32 input and
    output, Casts inside) on zoo source `src`, written to directory d; the
    converter appends its input Casts after the nodes that read them, so
    the nodes are put back in topological order."""
    import onnx
    from onnxruntime.transformers.float16 import convert_float_to_float16
    m = convert_float_to_float16(onnx.load(os.path.join(SOURCES[src], "model.onnx")), keep_io_types=True)
    made, order, nodes = {i.name for i in m.graph.input} | {t.name for t in m.graph.initializer}, [], list(m.graph.node)
    while nodes:
        ready = [n for n in nodes if all(x in made or not x for x in n.input)]
        if not ready:
            raise RuntimeError("%s: keep_io_types graph has a cycle" % src)
        for n in ready:
            order.append(n)
            made.update(n.output)
        nodes = [n for n in nodes if n not in ready]
    del m.graph.node[:]
    m.graph.node.extend(order)
    os.makedirs(d, exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    shutil.copy(os.path.join(SOURCES[src], "inputs.npz"), os.path.join(d, "inputs.npz"))
    json.dump({"precision": "fp16", "source": src}, open(os.path.join(d, "meta.json"), "w"))


def check(emit, name):
    """(ok, report line) for zoo model `name` (<source>_fp16io: made here)."""
    d = os.path.join(CACHE, "zoo", name)
    if name.endswith("_fp16io"):
        d = os.path.join(TMP, name)
        make_keep_io(name[:-len("_fp16io")], d)
    meta = json.load(open(os.path.join(d, "meta.json")))
    try:
        with tempfile.TemporaryDirectory(prefix="ctvm-half-") as work:
            got, feed = ctvm_run(emit, d, work)
    except subprocess.CalledProcessError as ex:  # a failed emit, build or run is a failure too
        err = (ex.stderr or b"").decode(errors="replace").strip().splitlines()
        return False, "%-18s FAIL  %s: %s" % (name, os.path.basename(ex.cmd[0]), err[-1] if err else ex.returncode)
    ok, parts = True, []
    ref = ort_run(os.path.join(d, "model.onnx"), feed)
    for k, y in got.items():
        rel, scale = rel_err(y, ref[k])
        if meta.get("precision") == "fp16":
            good = rel <= HALF_REL
            parts.append("%s vs ORT fp16 %.2e%s" % (k, rel, "" if good else " MISMATCH (> %g)" % HALF_REL))
        else:
            good = rel * scale <= ATOL + RTOL * scale
            parts.append("%s vs ORT same file %.2e%s" % (k, rel, "" if good else " MISMATCH"))
        ok &= good
    if meta.get("precision") == "bf16" and meta.get("source") in SOURCES:
        src = SOURCES[meta["source"]]
        ref32 = ort_run(os.path.join(src, "model.onnx"), dict(np.load(os.path.join(src, "inputs.npz"))))
        for k, y in got.items():
            rel, _ = rel_err(y, ref32[k])
            good = rel <= BF16_REL
            ok &= good
            parts.append("%s vs ORT float32 original %.2e%s" % (k, rel, "" if good else " MISMATCH (> %g)" % BF16_REL))
    return ok, "%-18s %s  %s" % (name, "ok  " if ok else "FAIL", "; ".join(parts))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--emit", default=os.path.join(ROOT, "build", "ctvm-emit"))
    ap.add_argument("--jobs", "-j", type=int, default=2, help="models built at once (gcc dominates)")
    a = ap.parse_args()
    zd = os.path.join(CACHE, "zoo")
    names = a.names or sorted(n for n in os.listdir(zd) if n.endswith(("_fp16", "_bf16")))
    if not a.names and os.path.isdir(SOURCES["mobilenet_v2"]):
        names.append("mobilenet_v2_fp16io")
    if not names:
        print("half: no float16 / bfloat16 zoo models under %s (zoo/export_quant.py makes them)" % zd)
        return 1
    fails = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for ok, line in ex.map(lambda n: check(a.emit, n), names):
            print(line, flush=True)
            fails += not ok
    shutil.rmtree(TMP, ignore_errors=True)
    print("half: %d passed, %d failed" % (len(names) - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
