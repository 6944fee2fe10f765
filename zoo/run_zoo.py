#!/usr/bin/env python3
# run_zoo.py - compiles every exported zoo model with ctvm, checks it against
# ONNX Runtime and times both side by side; writes docs/ZOO.md (issue 10).
#
# Per model directory <cache>/zoo/<name>/ (format: zoo/README.md):
#   1. ONNX Runtime's outputs for inputs.npz (cached in ort.npz): the reference.
#   2. ctvm-emit, timed, at --threads 1 and 2; the default target (native).
#   3. the user's build: `gcc -O2 -DCTVM_MAIN model.c -lm` (+ -fopenmp for 2
#      threads), timed, peak memory from wait4.
#   4. the binary runs once; every output is compared with ORT's:
#      max|err| <= 1e-4 + 1e-3*max|ref| (integer outputs exactly).
#   5. latency, ctvm and ORT interleaved in rounds at 1 and 2 threads (the
#      binary's own median over a burst; ORT's per-run times in the same round).
# Low-precision forms (issue 22; meta.json "precision" qdq_u8|qdq_s8|qop|dyn|
# fp16|bf16 and "source", made by zoo/export_quant.py) are judged by
# lowp_check.py's rule for their precision (one quantization step, ORT's own
# int8/fp16-vs-float32 gap, float16 ulps), and the float32 source model is
# built and timed in the same interleaved rounds (ctvm and ORT), for the
# speed-up over float32 and the weight and arena bytes over float32's.
# Run with a python that has onnxruntime (bench/run.sh --setup-only makes one):
#   ~/.cache/ctvm/bench-venv/bin/python zoo/run_zoo.py [--ci] [--no-time] [names...]
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from bench import cpu_model, stats  # noqa: E402  (bench.py: shared measurement helpers)
import lowp_check  # noqa: E402  (zoo/: the low-precision forms' output rules)

ATOL, RTOL = 1e-4, 1e-3
NP_DTYPE = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
            "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8,
            "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "bool": np.bool_}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def cache_dir():
    d = os.environ.get("CTVM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "ctvm", "models")
    return os.path.join(d, "zoo")


def timed_build(cmd):
    """Run cmd under /usr/bin/time -f %M; returns (rc, stdout+stderr, seconds, peak MB)."""
    tf = "/tmp/ctvm-zoo-time.%d" % os.getpid()
    t0 = time.time()
    r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf] + cmd, capture_output=True, text=True)
    secs = time.time() - t0
    try:
        peak = int(open(tf).read().split()[-1]) / 1024.0
        os.remove(tf)
    except (OSError, ValueError, IndexError):
        peak = 0.0
    return r.returncode, r.stdout + r.stderr, secs, peak


def parse_api(c_path, prefix="model"):
    """Inputs and outputs (name, dtype, shape) from the generated file's API defines."""
    io = {"INPUT": {}, "OUTPUT": {}}
    pat = re.compile(r"#define %s_(INPUT|OUTPUT)(\d+)_(NAME|DTYPE|SHAPE) (.*)" % prefix)
    with open(c_path, errors="replace") as f:
        for i, line in enumerate(f):
            m = pat.match(line)
            if m:
                d = io[m.group(1)].setdefault(int(m.group(2)), {})
                v = m.group(4).strip()
                if m.group(3) == "SHAPE":
                    d["shape"] = [int(s) for s in v.strip("{}").split(",") if s.strip()]
                else:
                    d[m.group(3).lower()] = v.strip('"')
            if "#endif /* %s_CTVM_API */" % prefix in line or i > 2000:
                break
    return [io["INPUT"][k] for k in sorted(io["INPUT"])], [io["OUTPUT"][k] for k in sorted(io["OUTPUT"])]


def compare(got, ref):
    """(ok, max abs err, tolerance) for one output."""
    if got.shape != ref.shape:
        return False, None, "shape %s != ORT %s" % (list(got.shape), list(ref.shape))
    if ref.size == 0:
        return True, 0.0, 0.0
    if not np.issubdtype(ref.dtype, np.floating):
        bad = int(np.count_nonzero(got != ref))
        return bad == 0, float(bad), 0.0
    g, r = got.astype(np.float64), ref.astype(np.float64)
    err = float(np.max(np.abs(g - r)))
    tol = ATOL + RTOL * float(np.max(np.abs(r)))
    return bool(err <= tol), err, tol


class Model:
    def __init__(self, d):
        self.dir = d
        self.name = os.path.basename(d)
        mp = os.path.join(d, "meta.json")  # a seed model (a source) has none
        self.meta = json.load(open(mp)) if os.path.exists(mp) else {"name": self.name}
        self.precision = self.meta.get("precision")  # None: float32
        self.onnx = os.path.join(d, "model.onnx")
        self.inputs = dict(np.load(os.path.join(d, "inputs.npz")))

    def ort_session(self, threads):
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.log_severity_level = 3
        return ort.InferenceSession(self.onnx, sess_options=so, providers=["CPUExecutionProvider"])

    def reference(self):
        """ORT's outputs by output name (cached next to the model, keyed by its mtime)."""
        p = os.path.join(self.dir, "ort.npz")
        if os.path.exists(p) and os.path.getmtime(p) >= os.path.getmtime(self.onnx):
            return dict(np.load(p))
        s = self.ort_session(1)
        names = [o.name for o in s.get_outputs()]
        ys = s.run(None, self.inputs)
        ref = dict(zip(names, ys))
        np.savez(p, **ref)
        return ref

    def reference_with(self, key, level):
        """ORT's outputs at another graph optimization level (cached as ort_<key>.npz)."""
        import onnxruntime as ort
        p = os.path.join(self.dir, "ort_%s.npz" % key)
        if os.path.exists(p) and os.path.getmtime(p) >= os.path.getmtime(self.onnx):
            return dict(np.load(p))
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.graph_optimization_level = level
        so.log_severity_level = 3
        s = ort.InferenceSession(self.onnx, sess_options=so, providers=["CPUExecutionProvider"])
        ref = dict(zip([o.name for o in s.get_outputs()], s.run(None, self.inputs)))
        np.savez(p, **ref)
        return ref

    def node_count(self):
        import onnx
        m = onnx.load(self.onnx, load_external_data=False)
        return len(m.graph.node)


def build(model, work, threads, emit, cc, cflags, verbose_log):
    """Emit and build the harness binary; returns a result dict (and the api)."""
    os.makedirs(work, exist_ok=True)
    c = os.path.join(work, "model.c")
    cmd = [emit, model.onnx, "-o", c, "--threads", str(threads), "--verbose"]
    if model.meta.get("input_shapes"):
        cmd += ["--input-shapes", model.meta["input_shapes"]]
    rc, out, secs, peak = timed_build(cmd)
    r = {"emit_s": round(secs, 2), "emit_mb": round(peak)}
    verbose_log.write(out)
    if rc:
        r["error"] = "ctvm-emit: " + (out.strip().splitlines() or ["?"])[-1]
        return r, None, None
    m = re.search(r"weights (\d+) bytes, arena (\d+) bytes", out)
    if m:
        r["weights_bytes"], r["arena_bytes"] = int(m.group(1)), int(m.group(2))
    binp = os.path.join(work, "model")
    cmd = [cc] + cflags.split() + ["-DCTVM_MAIN", c, "-o", binp, "-lm"] + (["-fopenmp"] if threads > 1 else [])
    rc, out, secs, peak = timed_build(cmd)
    r.update({"gcc_s": round(secs, 1), "gcc_mb": round(peak)})
    if rc:
        r["error"] = "gcc: " + " | ".join([ln for ln in out.splitlines() if "error" in ln][:2] or out.splitlines()[-1:])
        return r, None, None
    r["c_bytes"] = os.path.getsize(c)
    with open(c, errors="replace") as f:
        t = re.search(r"target: ([\w-]+)", f.read(2048))
    r["target"] = t.group(1) if t else "?"
    api = parse_api(c)
    os.remove(c)  # the big ones are ~1 GB of weights as text
    return r, binp, api


def write_inputs(model, api_in, d):
    os.makedirs(d, exist_ok=True)
    for i, spec in enumerate(api_in):
        if spec["name"] not in model.inputs:
            raise RuntimeError("inputs.npz has no input %s" % spec["name"])
        x = np.ascontiguousarray(model.inputs[spec["name"]], dtype=NP_DTYPE[spec["dtype"]])
        if list(x.shape) != spec["shape"]:
            raise RuntimeError("input %s: shape %s, model wants %s" % (spec["name"], list(x.shape), spec["shape"]))
        x.tofile(os.path.join(d, "in%d.bin" % i))


def read_outputs(api_out, d):
    ys = {}
    for i, spec in enumerate(api_out):
        shape = spec["shape"]
        sp = os.path.join(d, "out%d.shape" % i)
        if os.path.exists(sp):
            shape = [int(s) for s in open(sp).read().split()]
        ys[spec["name"]] = np.fromfile(os.path.join(d, "out%d.bin" % i),
                                       dtype=NP_DTYPE[spec["dtype"]]).reshape(shape)
    return ys


def run_binary(binp, io_dir, repeat, threads):
    # the defaults a user gets: libgomp waits actively a while between regions,
    # as ONNX Runtime's pool spins between its kernels
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("OMP_WAIT_POLICY", None)
    r = subprocess.run([binp, io_dir, io_dir, str(repeat)], capture_output=True, text=True, env=env, timeout=3600)
    if r.returncode:
        raise RuntimeError("model binary failed (%d): %s" % (r.returncode, (r.stderr.strip().splitlines() or ["?"])[-1]))
    m = re.search(r"median_ms=([\d.]+) min_ms=([\d.]+)", r.stdout)
    return float(m.group(1)), float(m.group(2))


def check(model, binp, api_in, api_out, ref, io_dir, rule=None):
    write_inputs(model, api_in, io_dir)
    run_binary(binp, io_dir, 1, 1)
    ys = read_outputs(api_out, io_dir)
    res, worst, max_err, ok = [], 0.0, 0.0, True
    for spec in api_out:
        name = spec["name"]
        if name not in ref:
            res.append("%s: ORT has no such output" % name)
            ok = False
            continue
        if rule is not None:  # a low-precision form: lowp_check's rule for its precision
            good, line, rel, err = rule.judge(name, ys[name])
            ok &= good
            res.append(line)
            worst, max_err = max(worst, rel), max(max_err, err)
            continue
        good, err, tol = compare(ys[name], ref[name])
        ok &= good
        if err is None:
            res.append("%s: %s" % (name, tol))
        else:
            rel = err / tol if tol else (0.0 if err == 0 else float("inf"))
            worst = max(worst, rel)
            max_err = max(max_err, err)
            res.append("%s: max|err| %.3g (tol %.3g)%s" % (name, err, tol, "" if good else " MISMATCH"))
    return ok, res, worst, max_err


def time_pair(model, binp, io_dir, threads, rounds, burst, source=None):
    """ctvm (binary, median of a burst) and ORT (per-run) interleaved in rounds;
    with source = (float32 Model, its binary, its io dir): the float32 source's
    ctvm binary and ORT session join the same rounds (the order rotates every
    round). Returns {engine: stats}: ctvm, ort[, ctvm_f32, ort_f32]."""
    engines = [("ctvm", binp, io_dir, None), ("ort", None, None, model)]
    if source is not None:
        engines += [("ctvm_f32", source[1], source[2], None), ("ort_f32", None, None, source[0])]
    sess = {}
    for e, _, _, m in engines:
        if m is not None:
            s = m.ort_session(threads)
            feed = {i.name: m.inputs[i.name] for i in s.get_inputs()}
            s.run(None, feed)
            sess[e] = (s, feed)
    times = {e[0]: [] for e in engines}
    for rnd in range(rounds):
        k = rnd % len(engines)
        for e, b, d, m in engines[k:] + engines[:k]:
            if b is not None:
                times[e].append(run_binary(b, d, burst, threads)[0] / 1e3)
            else:
                s, feed = sess[e]
                s.run(None, feed)
                for _ in range(burst):
                    t0 = time.perf_counter()
                    s.run(None, feed)
                    times[e].append(time.perf_counter() - t0)
    return {e: stats(t) for e, t in times.items()}


def source_model(model):
    """The float32 model a low-precision form was made from (meta.json "source"):
    meta's source_dir, else $CTVM_CACHE/<source> (the seed models), else
    $CTVM_CACHE/zoo/<source> - the order zoo/export_quant.py looks in."""
    src = model.meta.get("source")
    if not src:
        return None
    base = os.path.dirname(cache_dir())
    for d in (model.meta.get("source_dir"), os.path.join(base, src), os.path.join(base, "zoo", src)):
        if d and os.path.isfile(os.path.join(d, "model.onnx")) and os.path.isfile(os.path.join(d, "inputs.npz")):
            return Model(d)
    return None


def source_build(src, a, threads, log_f):
    """The float32 source's binary at this thread count, built once per run
    (several forms share a source). Returns (build dict, binary, io dir)."""
    key = (src.dir, threads)
    if key not in a.src_builds:
        work = os.path.join(a.work, "_source", src.name, "t%d" % threads)
        b, binp, api = build(src, work, threads, a.emit, a.cc, a.cflags, log_f)
        io = os.path.join(work, "io")
        if binp is not None:
            write_inputs(src, api[0], io)
        a.src_builds[key] = (b, binp, io)
    return a.src_builds[key]


def burst_for(ms):
    return max(3, min(20, int(400 / max(ms, 0.5))))


def zoo_one(model, a, log_f):
    res = {"name": model.name, "meta": model.meta}
    t0 = time.time()
    rule, src = None, None
    try:
        res["nodes"] = model.node_count()
        ref = model.reference()
        if model.precision:
            import onnxruntime as ort
            src = source_model(model)
            src_ref = src.reference() if src is not None else None
            nofuse = (model.reference_with("nofuse", ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
                      if model.precision in lowp_check.INT8 else None)
            rule = lowp_check.Rule(model.precision, model.onnx, ref, src_ref, nofuse)
    except Exception as ex:
        res["error"] = "ONNX Runtime: %s" % str(ex).strip().splitlines()[-1][:200]
        return res
    work = os.path.join(a.work, model.name)
    io_dir = os.path.join(work, "io")
    for threads in a.threads:
        b, binp, api = build(model, os.path.join(work, "t%d" % threads), threads, a.emit, a.cc, a.cflags, log_f)
        res["t%d" % threads] = b
        if binp is None:
            res["error"] = b["error"]
            return res
        api_in, api_out = api
        if threads == a.threads[0]:
            try:
                ok, lines, worst, max_err = check(model, binp, api_in, api_out, ref, io_dir, rule)
            except Exception as ex:
                res["error"] = "run: %s" % ex
                return res
            res.update({"ok": ok, "outputs": lines, "err_over_tol": worst, "max_err": max_err})
            if rule is not None:
                res.update({"equal_pct": rule.equal_pct, "worst": list(rule.worst),
                            "rule": "; ".join(sorted(set(rule.kinds)))})
            if not ok:
                res["error"] = "mismatch: " + "; ".join(lines)
                return res
        source = None
        if src is not None and not a.no_time:
            sb, sbin, sio = source_build(src, a, threads, log_f)
            for k in ("weights_bytes", "arena_bytes"):
                if k in b and sb.get(k):
                    b[k.replace("_bytes", "_vs_f32")] = b[k] / sb[k]
            if sbin is not None:
                source = (src, sbin, sio)
            else:
                b["source_error"] = sb.get("error", "?")
        if not a.no_time:
            try:
                ms = run_binary(binp, io_dir, 1, threads)[0]
                burst = burst_for(ms)
                t = time_pair(model, binp, io_dir, threads, a.rounds, burst, source)
            except Exception as ex:  # a crash or a timeout while timing: a failed row, not a dead harness
                res["error"] = "timing: %s" % str(ex)[:200]
                return res
            b["ctvm_ms"], b["ort_ms"] = t["ctvm"]["median_ms"], t["ort"]["median_ms"]
            b["ratio"] = b["ctvm_ms"] / b["ort_ms"]
            if "ctvm_f32" in t:
                b["ctvm_f32_ms"], b["ort_f32_ms"] = t["ctvm_f32"]["median_ms"], t["ort_f32"]["median_ms"]
                b["speedup_vs_f32"] = b["ctvm_f32_ms"] / b["ctvm_ms"]
                b["ort_speedup_vs_f32"] = b["ort_f32_ms"] / b["ort_ms"]
    res["seconds"] = round(time.time() - t0, 1)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--ci", action="store_true", help="only models whose meta.json says ci")
    ap.add_argument("--no-time", action="store_true", help="check only, no latency")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--emit", default=os.path.join(ROOT, "build", "ctvm-emit"))
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--cflags", default="-O2", help="the user's build flags (default -O2)")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "zoo"))
    ap.add_argument("--json", default=None, help="results file (default WORK/results.json)")
    ap.add_argument("--doc", default=None, help="write this markdown table (make zoo: docs/ZOO.md)")
    ap.add_argument("--previous", default=None,
                    help="results.json of an earlier run: its measurements at thread counts this run "
                         "does not take are kept in the table (e.g. --threads 1, then --threads 2), "
                         "and so are its models this run does not take (a re-run of a few names)")
    a = ap.parse_args()
    a.threads = [int(t) for t in a.threads.split(",")]
    zd = cache_dir()
    dirs = sorted(d for d in os.listdir(zd) if os.path.exists(os.path.join(zd, d, "meta.json"))) if os.path.isdir(zd) else []
    if a.names:
        missing = [n for n in a.names if n not in dirs]
        if missing:
            sys.exit("run_zoo: not exported: %s (under %s)" % (" ".join(missing), zd))
        dirs = a.names
    models = [Model(os.path.join(zd, d)) for d in dirs]
    if a.ci:
        models = [m for m in models if m.meta.get("ci")]
    if not models:
        sys.exit("run_zoo: no exported models under %s" % zd)
    os.makedirs(a.work, exist_ok=True)
    a.src_builds = {}
    jpath = a.json or os.path.join(a.work, "results.json")
    # read before this run rewrites it (--previous may name this run's own results.json)
    previous = json.load(open(a.previous))["results"] if a.previous and os.path.exists(a.previous) else None
    results = []
    fails = 0
    with open(os.path.join(a.work, "emit.log"), "w") as log_f:
        for i, m in enumerate(models):
            r = zoo_one(m, a, log_f)
            results.append(r)
            fails += "error" in r
            log("zoo %d/%d %s: %s" % (i + 1, len(models), m.name, summary_line(r)))
            save_results(jpath, results)
    n_run = len(results)
    if previous is not None:
        merge_previous(results, previous)
        save_results(jpath, results)
    if a.doc:
        write_doc(a.doc, results)
    print("zoo: %d passed, %d failed" % (n_run - fails, fails))
    return 1 if fails else 0


def save_results(path, results):
    json.dump({"date": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z",
               "cpu": cpu_model(), "results": results}, open(path, "w"), indent=1)


def merge_previous(results, previous):
    """Adds an earlier run's t<N> measurements this run did not take (same
    model) and the earlier run's models this run did not take; sorted by name."""
    old = {r["name"]: r for r in previous}
    for r in results:
        p = old.get(r["name"])
        if not p or "error" in r or "error" in p:
            continue
        for t in ("t1", "t2"):
            if t not in r and t in p:
                r[t] = p[t]
    taken = {r["name"] for r in results}
    results.extend(p for p in previous if p["name"] not in taken)
    results.sort(key=lambda r: r["name"])


def summary_line(r):
    if "error" in r:
        return "FAIL " + r["error"]
    s = "ok (err/tol %.2g)" % r.get("err_over_tol", 0)
    if "equal_pct" in r:
        s += " %.2f%% equal, max %.2g %s" % (r["equal_pct"], r["worst"][0], r["worst"][1])
    for t in ("t1", "t2"):
        b = r.get(t, {})
        if "ratio" in b:
            s += "  %s ctvm %.2f ms ORT %.2f ms ratio %.2f" % (t, b["ctvm_ms"], b["ort_ms"], b["ratio"])
        if "speedup_vs_f32" in b:
            s += " (ctvm f32 %.2f ms: x%.2f; ORT f32 %.2f ms: x%.2f)" % (
                b["ctvm_f32_ms"], b["speedup_vs_f32"], b["ort_f32_ms"], b["ort_speedup_vs_f32"])
    return s


def fmt_bytes(n):
    return "" if n is None else ("%.1f MB" % (n / 1e6) if n >= 1e5 else "%.0f kB" % (n / 1e3))


def replace_block(text, tag, lines):
    """text with the block between <!-- TAG --> and <!-- end TAG --> replaced
    by lines (appended at the end when text has no such block)."""
    start, end = "<!-- %s -->" % tag, "<!-- end %s -->" % tag
    if start in text and end in text:
        head, rest = text.split(start, 1)
        tail = rest.split(end, 1)[1]
    else:
        head, tail = text.rstrip() + "\n\n", "\n"
    return head + "\n".join([start] + lines) + "\n\n" + end + tail


def measured_line(results):
    return "Measured %s on %s, native target %s (`make zoo`)." % (
        datetime.date.today().isoformat(), cpu_model(),
        ", ".join(sorted({r.get("t1", r.get("t2", {})).get("target") for r in results} - {None}) or ["?"]))


def float_table(results):
    lines = [measured_line(results), "",
             "| model | exporter | opset | nodes | emit s | gcc s (MB) | weights | arena | max err (/tol) | 1 thread ctvm / ORT ms | ratio | 2 threads ctvm / ORT ms | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        m = r["meta"]
        b1, b2 = r.get("t1", {}), r.get("t2", {})
        bb = b1 or b2  # the build columns: the 1-thread build's, else the 2-thread one's
        if "error" in r:
            lines.append("| %s | %s | %s | %s | FAIL: %s |||||||||" % (r["name"], m.get("exporter"), m.get("opset"),
                                                                   r.get("nodes", ""), r["error"].replace("|", "/")[:160]))
            continue

        def t(b):
            return ("%.2f / %.2f" % (b["ctvm_ms"], b["ort_ms"]), "%.2f" % b["ratio"]) if "ratio" in b else ("", "")
        lines.append("| %s | %s | %s | %d | %.1f | %.0f (%d) | %s | %s | %.2g (%.2g) | %s | %s | %s | %s |" % (
            r["name"], m.get("exporter"), m.get("opset"), r["nodes"], bb.get("emit_s", 0), bb.get("gcc_s", 0),
            bb.get("gcc_mb", 0), fmt_bytes(bb.get("weights_bytes")), fmt_bytes(bb.get("arena_bytes")),
            r.get("max_err", 0), r.get("err_over_tol", 0), *t(b1), *t(b2)))
    return lines


def lowp_table(results):
    """The int8 / float16 / bfloat16 forms: lowp_check's verdict, bytes and time
    against ORT on the same file and against ctvm's float32 of the source model."""
    lines = [measured_line(results), "",
             "| model | form | nodes | weights (× f32) | arena (× f32) | equal % | max err | 1 thread ctvm / ORT ms | ratio | ctvm f32 / this | ORT f32 / this | 2 threads ctvm / ORT ms | ratio | ctvm f32 / this |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        m = r["meta"]
        b1, b2 = r.get("t1", {}), r.get("t2", {})
        bb = b1 or b2
        if "error" in r:
            why = re.sub(r"^(ctvm-emit: )+\S*model\.onnx: ", "ctvm-emit: ", r["error"])  # no cache path
            lines.append("| %s | %s | %s | FAIL: %s |||||||||||" % (
                r["name"], m.get("precision"), r.get("nodes", ""), why.replace("|", "/")[:200]))
            continue

        def by(k):
            v, f = bb.get(k + "_bytes"), bb.get(k + "_vs_f32")
            return fmt_bytes(v) + (" (%.2f)" % f if f else "")

        def t(b, ort_too):
            c = ("%.2f / %.2f" % (b["ctvm_ms"], b["ort_ms"]), "%.2f" % b["ratio"]) if "ratio" in b else ("", "")
            f = ("%.2f" % b["speedup_vs_f32"],) if "speedup_vs_f32" in b else ("",)
            o = (("%.2f" % b["ort_speedup_vs_f32"],) if "ort_speedup_vs_f32" in b else ("",)) if ort_too else ()
            return c + f + o
        w = r.get("worst", [r.get("err_over_tol", 0), "tol"])
        lines.append("| %s | %s | %d | %s | %s | %.2f | %.2g %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], m.get("precision"), r["nodes"], by("weights"), by("arena"), r.get("equal_pct", 100.0),
            w[0], w[1], *t(b1, True), *t(b2, False)))
    return lines


def write_doc(path, results):
    """Rewrites the float32 table and the low-precision table (issue 22) of
    docs/ZOO.md; a table this run has no row for is left as it was."""
    text = open(path).read() if os.path.exists(path) else "# Zoo\n\n"
    fl = [r for r in results if not r["meta"].get("precision")]
    lp = [r for r in results if r["meta"].get("precision")]
    if fl:
        text = replace_block(text, "zoo table", float_table(fl))
    if lp:
        text = replace_block(text, "zoo lowp table", lowp_table(lp))
    open(path, "w").write(text)


if __name__ == "__main__":
    sys.exit(main())
