"""zoo_common.py - what every zoo exporter shares (/work/ZOO_FORMAT.md): the cache
directory, the command line, the output checks, the ONNX Runtime check and the
files of one model directory. Needs only numpy, onnx and onnxruntime, so both
zoo venvs (zoo-dynamo, zoo-tf) import it."""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import onnx


def zoo_dir():
    d = os.environ.get("CTVM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "ctvm", "models")
    return os.path.join(d, "zoo")


def parse_args(prog, models):
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("--list", action="store_true", help="print the model names and exit")
    ap.add_argument("--ci", action="store_true", help="export only the ci subset")
    ap.add_argument("--force", action="store_true", help="re-export models already in the cache")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    for n in a.names:
        if n not in models:
            sys.exit("%s: unknown model %s (--list names them)" % (prog, n))
    names = a.names or [n for n in models if models[n]["ci"] or not a.ci]
    return a, names


def check_output(name, outs):
    """The framework's outputs must be finite and not constant."""
    for k, y in outs.items():
        if not np.all(np.isfinite(y)):
            raise RuntimeError("%s: framework output %s is not finite" % (name, k))
        if y.size > 1 and float(y.max() - y.min()) == 0.0:
            raise RuntimeError("%s: framework output %s is constant (%g): it would test nothing"
                               % (name, k, float(y.flat[0])))


def check_fixed_shapes(name, m):
    for vi in m.graph.input:
        dims = vi.type.tensor_type.shape.dim
        if any(not d.HasField("dim_value") or d.dim_value <= 0 for d in dims):
            raise RuntimeError("%s: graph input %s has a symbolic dim" % (name, vi.name))


def opset_of(m):
    return [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0]


def ort_max_err(name, path, inputs, ref):
    """Runs path with ONNX Runtime on inputs, compares with the framework's outputs
    ref (keyed by graph output names): floats within 1e-4 + 1e-3*max|ref|, ints
    exactly. Returns the largest absolute error; raises on a mismatch."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    got = dict(zip(names, sess.run(names, inputs)))
    worst = 0.0
    for k, r in ref.items():
        g = got[k]
        if g.shape != r.shape:
            raise RuntimeError("%s: ORT output %s shape %s != framework %s" % (name, k, g.shape, r.shape))
        err = float(np.abs(g.astype(np.float64) - r.astype(np.float64)).max()) if r.size else 0.0
        tol = 0.0 if np.issubdtype(r.dtype, np.integer) else 1e-4 + 1e-3 * float(np.abs(r).max())
        if not err <= tol:
            raise RuntimeError("%s: ORT vs framework on %s: max err %.3g > tol %.3g" % (name, k, err, tol))
        worst = max(worst, err)
    return worst


def input_dtypes_match(name, m, inputs):
    """inputs.npz: one array per graph input, dtype exactly the graph input's."""
    want = {vi.name: onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
            for vi in m.graph.input}
    if set(want) != set(inputs):
        raise RuntimeError("%s: graph inputs %s != input arrays %s" % (name, sorted(want), sorted(inputs)))
    for k, a in inputs.items():
        if a.dtype != want[k]:
            raise RuntimeError("%s: input %s is %s, the graph wants %s" % (name, k, a.dtype, want[k]))


def write_model_dir(name, tmp, inputs, ref, meta):
    """Saves inputs/framework/meta beside tmp/model.onnx and renames tmp into place."""
    np.savez(os.path.join(tmp, "inputs.npz"), **inputs)
    np.savez(os.path.join(tmp, "framework.npz"), **ref)
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    d = os.path.join(zoo_dir(), name)
    if os.path.exists(d):
        shutil.rmtree(d)
    os.replace(tmp, d)
    return d


def tmp_dir(name):
    t = os.path.join(zoo_dir(), ".%s.tmp-%d" % (name, os.getpid()))
    shutil.rmtree(t, ignore_errors=True)
    os.makedirs(t)
    return t


def run_all(prog, models, export_one):
    """The common main: --list, the cache, one line per model, non-zero exit
    naming the model that failed."""
    a, names = parse_args(prog, models)
    if a.list:
        for n in models:
            print(n + ("  (ci)" if models[n]["ci"] else ""))
        return
    failed = []
    for n in names:
        d = os.path.join(zoo_dir(), n)
        if os.path.isfile(os.path.join(d, "meta.json")) and not a.force:
            print("%s: %-26s cached (%s)" % (prog, n, d))
            continue
        try:
            print("%s: %-26s %s" % (prog, n, export_one(n)), flush=True)
        except Exception as e:  # noqa: BLE001 - report and go on with the others
            print("%s: %-26s FAILED: %s: %s" % (prog, n, type(e).__name__, e), file=sys.stderr, flush=True)
            failed.append(n)
    if failed:
        sys.exit("%s: failed: %s" % (prog, " ".join(failed)))
