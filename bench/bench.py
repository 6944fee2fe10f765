#!/usr/bin/env python3
# bench.py - ctvm vs ONNX Runtime, PyTorch and Apache TVM, interleaved in one
# process. Run by bench/run.sh with the bench venv's python (Debian's python
# with system site-packages: torch, torchvision, onnx, numpy; plus pip
# onnxruntime and, where it installs, apache-tvm). Writes results.json into
# the output directory; bench/report.py turns it into RESULTS.md and a chart.
#
# Method (bench/README.md): per thread count and model, every engine is
# prepared (ctvm: emit + gcc to a shared object loaded with ctypes), its
# output checked once against the golden outputs.npz, warmed up, then timed
# in rounds: in each round every engine, in a rotating order, does one
# untimed run and a burst of timed runs, so machine noise hits all engines
# alike. Per engine: median and min of all timed runs.
import argparse
import ctypes
import datetime
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
import traceback

import numpy as np
import onnx
import onnx.helper
import onnx.mapping
import onnx.numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "golden"))

MODELS = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "shufflenet_v2_x1_0"]
ENGINES = ["ctvm", "ctvm_tuned", "ort", "torch", "tvm"]
ATOL, RTOL = 1e-4, 1e-3          # the end-to-end tests' tolerance (tests/e2e.sh)

# The bench's conv layers: name, models it occurs in, Cin, Cout, k, stride, pad, H(=W) of input.
CONV_LAYERS = [
    ("conv3x3_256_14",  "resnet18, resnet50", 256, 256, 3, 1, 1, 14),
    ("conv3x3_512_7",   "resnet18, resnet50", 512, 512, 3, 1, 1, 7),
    ("conv1x1_1024_256_14", "resnet50",       1024, 256, 1, 1, 0, 14),
    ("conv1x1_256_1024_14", "resnet50",       256, 1024, 1, 1, 0, 14),
    ("conv3x3_64_56",   "resnet18, resnet50", 64, 64, 3, 1, 1, 56),
    ("conv3x3_128_28",  "resnet18, resnet50", 128, 128, 3, 1, 1, 28),
    ("conv7x7s2_3_64_224", "resnet18, resnet50 (stem)", 3, 64, 7, 2, 3, 224),
]


ALL_CPUS = frozenset(os.sched_getaffinity(0))   # the CPU mask the bench started with
AFFINITY_RESETS = []


def keep_affinity(who):
    """Engines must not narrow the main thread's CPU mask: threads created
    later (OpenMP, ORT pools) inherit it. Restore it if one did, and note it."""
    if os.sched_getaffinity(0) != ALL_CPUS:
        AFFINITY_RESETS.append(who)
        log("%s narrowed the main thread's CPU affinity to %s; restored %s"
            % (who, sorted(os.sched_getaffinity(0)), sorted(ALL_CPUS)))
        os.sched_setaffinity(0, ALL_CPUS)


def log(*a):
    print("[bench %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 22), b""):
            h.update(b)
    return h.hexdigest()[:16]


# --------------------------------------------------------------------------
# FLOP counting: 2 * MACs of Conv, Gemm and MatMul, shapes from onnx shape
# inference. Bias adds, activations, pooling, BN, elementwise ops: not counted.

def count_flops(model_path):
    m = onnx.shape_inference.infer_shapes(onnx.load(model_path))
    g = m.graph
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        dims = [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]
        shapes[vi.name] = dims
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    total = 0
    per_op = {}
    for n in g.node:
        f = 0
        if n.op_type == "Conv":
            w, y = shapes[n.input[1]], shapes[n.output[0]]
            f = 2 * int(np.prod(y)) * int(np.prod(w[1:]))          # out elems * Cin/g*kh*kw
        elif n.op_type == "Gemm":
            a = shapes[n.input[0]]
            b = shapes[n.input[1]]
            ta = any(x.name == "transA" and x.i for x in n.attribute)
            tb = any(x.name == "transB" and x.i for x in n.attribute)
            M, K = (a[1], a[0]) if ta else (a[0], a[1])
            N = b[0] if tb else b[1]
            f = 2 * M * N * K
        elif n.op_type == "MatMul":
            a, y = shapes[n.input[0]], shapes[n.output[0]]
            f = 2 * int(np.prod(y)) * a[-1]
        if f:
            total += f
            per_op[n.op_type] = per_op.get(n.op_type, 0) + f
    return total, per_op


# --------------------------------------------------------------------------
# Engines. prepare() returns (run, set_threads): run(x) -> output array.

class Ctvm:
    name = "ctvm"

    def __init__(self, emit, out_dir, cc="gcc"):
        self.emit = emit
        self.out_dir = os.path.join(out_dir, "ctvm")
        self.cc = cc
        self.help = subprocess.run([emit, "--help"], capture_output=True, text=True).stdout
        self.has_threads = "--threads" in self.help
        self.emit_hash = file_hash(emit)
        try:
            self.gomp = ctypes.CDLL("libgomp.so.1")
        except OSError:
            self.gomp = None

    def emit_args(self, threads):
        a = ["--prefix", "model"]
        if self.has_threads:
            a += ["--target", "native", "--threads", str(threads)]
        return a

    def cflags(self, threads):
        return ["-O3", "-march=native", "-fPIC", "-shared"] + (["-fopenmp"] if threads > 1 else [])

    def build(self, tag, onnx_path, threads, keep_c=False):
        d = os.path.join(self.out_dir, "%s-t%d" % (tag, threads))
        os.makedirs(d, exist_ok=True)
        so, meta_p = os.path.join(d, "model.so"), os.path.join(d, "meta.json")
        key = sha(self.emit_hash, file_hash(onnx_path), self.emit_args(threads), self.cc, self.cflags(threads))
        if os.path.isfile(so) and os.path.isfile(meta_p):
            meta = json.load(open(meta_p))
            if meta.get("key") == key:
                return so, meta
        c = os.path.join(d, "model.c")
        cmd_e = [self.emit, onnx_path, "-o", c] + self.emit_args(threads)
        t0 = time.time()
        r = subprocess.run(cmd_e, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("ctvm-emit failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
        t_emit = time.time() - t0
        api = {}
        with open(c, "r", errors="replace") as f:
            for i, line in enumerate(f):
                mm = re.match(r"#define model_(INPUT0_SIZE|OUTPUT0_SIZE|NUM_INPUTS|NUM_OUTPUTS|WORKSPACE_SIZE) (\d+)", line)
                if mm:
                    api[mm.group(1)] = int(mm.group(2))
                mm = re.match(r" \* target: ([^;]*);", line)
                if mm:
                    api["target"] = mm.group(1)
                if "#endif /* model_CTVM_API */" in line or i > 400:
                    break
        cmd_c = [self.cc] + self.cflags(threads) + [c, "-o", so + ".tmp", "-lm"]
        t0 = time.time()
        r = subprocess.run(cmd_c, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("gcc failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
        os.replace(so + ".tmp", so)
        t_cc = time.time() - t0
        if not keep_c:
            os.remove(c)
        meta = {"key": key, "api": api, "emit_cmd": " ".join(cmd_e), "cc_cmd": " ".join(cmd_c),
                "emit_s": round(t_emit, 2), "cc_s": round(t_cc, 2)}
        json.dump(meta, open(meta_p, "w"), indent=1)
        log("ctvm %s t%d: emit %.1f s, gcc %.1f s" % (tag, threads, t_emit, t_cc))
        return so, meta

    def prepare(self, tag, onnx_path, threads, ref_shape):
        so, meta = self.build(tag, onnx_path, threads)
        api = meta["api"]
        if api.get("NUM_INPUTS") != 1 or api.get("NUM_OUTPUTS") != 1:
            raise RuntimeError("bench expects one input and one output, API says %s" % api)
        lib = ctypes.CDLL(so)  # RTLD_LOCAL: every model.so keeps its own model_run
        fn = lib.model_run
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        out = np.empty(api["OUTPUT0_SIZE"], dtype=np.float32)
        n_in = api["INPUT0_SIZE"]

        def run(x):
            if x.size != n_in:
                raise RuntimeError("input size %d, model wants %d" % (x.size, n_in))
            rc = fn(x.ctypes.data, out.ctypes.data)
            if rc:
                raise RuntimeError("model_run returned %d" % rc)
            return out

        def set_threads(n=threads):
            if self.gomp is not None:
                self.gomp.omp_set_num_threads(n)

        run.lib = lib  # keep the library loaded as long as run lives
        return run, set_threads, {"emit": meta["emit_cmd"], "cc": meta["cc_cmd"]}

    def version(self):
        try:
            rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                 capture_output=True, text=True).stdout.strip()
        except OSError:
            rev = "?"
        return "git %s%s" % (rev, "" if self.has_threads else " (ctvm-emit without --threads: scalar, 1 thread)")


class CtvmTuned(Ctvm):
    """ctvm with ctvm-tune's records (bench/records/<target>-t<threads>.json,
    made by bench/tune.sh): ctvm-emit --tuning-records."""
    name = "ctvm_tuned"

    def __init__(self, emit, out_dir, records_dir):
        Ctvm.__init__(self, emit, out_dir)
        self.out_dir = os.path.join(out_dir, "ctvm_tuned")
        self.records_dir = records_dir

    def records(self, threads):
        t = subprocess.run([self.emit, "--list-targets"], capture_output=True, text=True).stdout.split("\n")
        for n in [l.split()[0] for l in t if l]:  # widest x86 ISA first, as listed
            p = os.path.join(self.records_dir, "%s-t%d.json" % (n, threads))
            if os.path.isfile(p):
                return p
        return None

    def emit_args(self, threads):
        r = self.records(threads)
        if not r:
            raise RuntimeError("no tuning records for %d thread(s) in %s (bash bench/tune.sh)" % (threads, self.records_dir))
        return Ctvm.emit_args(self, threads) + ["--tuning-records", r]

    def build(self, tag, onnx_path, threads, keep_c=False):
        self.emit_hash = file_hash(self.emit) + file_hash(self.records(threads) or self.emit)
        return Ctvm.build(self, tag, onnx_path, threads, keep_c)


class Ort:
    name = "ort"

    def __init__(self):
        import onnxruntime
        self.ort = onnxruntime

    def prepare(self, tag, onnx_path, threads, ref_shape):
        so = self.ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = self.ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = self.ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        sess = self.ort.InferenceSession(onnx_path, sess_options=so, providers=["CPUExecutionProvider"])
        iname = sess.get_inputs()[0].name

        def run(x):
            return sess.run(None, {iname: x})[0]
        return run, lambda: None, {"options": "intra_op_num_threads=%d inter_op_num_threads=1 "
                                   "ORT_SEQUENTIAL ORT_ENABLE_ALL CPUExecutionProvider" % threads}

    def version(self):
        return self.ort.__version__


class Torch:
    name = "torch"

    def __init__(self):
        import torch
        import export_models  # golden/export_models.py: the exact seeded construction
        self.torch = torch
        self.em = export_models

    def prepare(self, tag, onnx_path, threads, ref_shape):
        torch = self.torch
        if tag in self.em.MODELS:
            model, _, _ = self.em.build_model(tag)
        elif tag.startswith("conv"):
            model = conv_torch_module(onnx_path)
        else:
            raise RuntimeError("no PyTorch model for %s" % tag)
        model.eval()

        def run(x):
            with torch.inference_mode():
                return model(torch.from_numpy(x)).numpy()

        def set_threads(n=threads):
            if torch.get_num_threads() != n:
                torch.set_num_threads(n)
        return run, set_threads, {"options": "eager, torch.inference_mode, set_num_threads(%d)" % threads}

    def version(self):
        return self.torch.__version__


class Tvm:
    name = "tvm"

    def __init__(self, out_dir):
        # Debian's onnx 1.12 predates onnx.helper.tensor_dtype_to_np_dtype (1.13),
        # which TVM's ONNX frontend calls; same mapping, older spelling.
        if not hasattr(onnx.helper, "tensor_dtype_to_np_dtype"):
            onnx.helper.tensor_dtype_to_np_dtype = lambda t: onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t]
        # tvm_ffi and tvm.relax would otherwise try (and, for torch 1.13, fail)
        # to JIT-compile a torch DLPack add-on at every import: ~30 s of CPU
        # for an add-on the bench does not use (it passes numpy arrays).
        os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
        try:
            import tvm_ffi._optional_torch_c_dlpack as tcd
            tcd.load_torch_c_dlpack_extension = lambda: None
        except ImportError:
            pass
        import tvm
        from tvm import relax
        self.tvm, self.relax = tvm, relax
        self.out_dir = os.path.join(out_dir, "tvm")
        try:  # LLVM's name for this CPU, e.g. skylake-avx512
            from tvm.target import codegen
            cpu = str(codegen.llvm_get_system_cpu())
        except Exception:
            cpu = None
        # "-mcpu=native" is refused by the wheel's LLVM (conda triple); use the CPU's name.
        self.mcpu = cpu or "native"
        self.target = {"kind": "llvm", "mcpu": self.mcpu}
        self.config_threadpool = tvm.get_global_func("runtime.config_threadpool", allow_missing=True)
        self.cur_threads = None

    def build(self, tag, onnx_path):
        tvm, relax = self.tvm, self.relax
        os.makedirs(self.out_dir, exist_ok=True)
        key = sha(tvm.__version__, file_hash(onnx_path), json.dumps(self.target))
        so = os.path.join(self.out_dir, "%s-%s.so" % (tag, key))
        if os.path.isfile(so):
            return so
        t0 = time.time()
        try:
            ex = self.compile(onnx_path)
        except Exception as first:
            # The Relax frontend keeps Slice bounds computed from Shape->Gather->Div
            # chains (torch.chunk in shufflenet) dynamic and cannot lower them.
            # Retry on the same graph with those constant chains folded by ONNX
            # Runtime's BASIC level (standard ONNX ops only: constant folding,
            # redundant-node elimination).
            log("tvm %s: %s; retrying on the ONNX constant-folded by ORT (BASIC)"
                % (tag, str(first).strip().splitlines()[0][:120]))
            import onnxruntime
            so_opt = onnxruntime.SessionOptions()
            so_opt.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
            folded = os.path.join(self.out_dir, "%s-%s-folded.onnx" % (tag, key))
            so_opt.optimized_model_filepath = folded
            onnxruntime.InferenceSession(onnx_path, sess_options=so_opt, providers=["CPUExecutionProvider"])
            ex = self.compile(folded)
            open(so + ".folded", "w").close()
        ex.export_library(so + ".tmp.so")
        os.replace(so + ".tmp.so", so)
        log("tvm %s: compile %.1f s" % (tag, time.time() - t0))
        return so

    def compile(self, onnx_path):
        tvm, relax = self.tvm, self.relax
        from tvm.relax.frontend.onnx import from_onnx
        m = onnx.load(onnx_path)
        iname = m.graph.input[0].name
        ishape = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
        mod = from_onnx(m, shape_dict={iname: ishape}, keep_params_in_input=False)
        mod = relax.transform.DecomposeOpsForInference()(mod)
        with tvm.transform.PassContext(opt_level=3):
            return tvm.compile(mod, target=tvm.target.Target(self.target))

    def prepare(self, tag, onnx_path, threads, ref_shape):
        tvm, relax = self.tvm, self.relax
        so = self.build(tag, onnx_path)
        dev = tvm.cpu()
        vm = relax.VirtualMachine(tvm.runtime.load_module(so), dev)
        fn = vm["main"]
        mk = tvm.runtime.tensor if hasattr(tvm.runtime, "tensor") else tvm.nd.array
        state = {}

        def run(x):
            if state.get("x") is None or state["src"] is not x:
                state["x"], state["src"] = mk(x, dev), x
            y = fn(state["x"])
            if not hasattr(y, "numpy"):
                y = y[0]
            return y

        def set_threads(n=threads):
            if self.config_threadpool is not None and self.cur_threads != n:
                # -3 = kSpecifyThreadShareAllCore over all allowed CPUs. The default
                # mode (kBig) pins the *calling* (main) thread to one core, and every
                # thread another engine starts later would inherit that mask.
                self.config_threadpool(-3, n, [str(c) for c in sorted(ALL_CPUS)])
                self.cur_threads = n

        def run_np(x):
            return run(x).numpy()
        run_np.timed = run   # timed runs skip the device-to-numpy copy (CPU: it is a memcpy)
        folded = os.path.isfile(so + ".folded")
        return run_np, set_threads, {"options": ("ONNX constant-folded by ORT BASIC first (the Relax "
                                                 "frontend cannot lower its Shape-computed Slices), " if folded else "") +
                                     "relax.frontend.onnx.from_onnx, "
                                     "DecomposeOpsForInference, tvm.compile(target=%s) "
                                     "opt_level=3, default (untuned) pipeline, relax VM, "
                                     "config_threadpool(kSpecifyThreadShareAllCore, %d)" % (json.dumps(self.target), threads)}

    def version(self):
        relay = "has Relay" if hasattr(self.tvm, "relay") else \
            "no Relay in this version (removed upstream), so the Relax ONNX frontend"
        return "%s (LLVM mcpu=%s; %s; untuned default pipeline: its generic TIR kernels are " \
               "not parallelised, so 2 threads run 1-thread code)" % (self.tvm.__version__, self.mcpu, relay)


# --------------------------------------------------------------------------
# Single-Conv(+Relu) models.

def make_conv_model(out_dir, layer, seed=4242):
    name, _, cin, cout, k, s, p, hw = layer
    d = os.path.join(out_dir, "conv", name)
    path = os.path.join(d, "model.onnx")
    if os.path.isfile(path) and os.path.isfile(os.path.join(d, "outputs.npz")):
        return path
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(seed + cin * 7 + cout * 13 + k)
    w = (rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))).astype(np.float32)
    b = (rng.standard_normal(cout) * 0.05).astype(np.float32)
    x = rng.standard_normal((1, cin, hw, hw)).astype(np.float32)
    ho = (hw + 2 * p - k) // s + 1
    h = onnx.helper
    g = h.make_graph(
        [h.make_node("Conv", ["input", "w", "b"], ["c"], kernel_shape=[k, k], strides=[s, s],
                     pads=[p, p, p, p], name="conv"),
         h.make_node("Relu", ["c"], ["output"], name="relu")],
        name, [h.make_tensor_value_info("input", onnx.TensorProto.FLOAT, [1, cin, hw, hw])],
        [h.make_tensor_value_info("output", onnx.TensorProto.FLOAT, [1, cout, ho, ho])],
        [onnx.numpy_helper.from_array(w, "w"), onnx.numpy_helper.from_array(b, "b")])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)], producer_name="ctvm-bench")
    m.ir_version = 8
    onnx.checker.check_model(m)
    # Reference in float64 (torch), then float32.
    import torch
    y = torch.nn.functional.conv2d(torch.from_numpy(x).double(), torch.from_numpy(w).double(),
                                   torch.from_numpy(b).double(), stride=s, padding=p).relu()
    np.savez(os.path.join(d, "inputs.npz"), input=x)
    np.savez(os.path.join(d, "outputs.npz"), output=y.numpy().astype(np.float32))
    onnx.save(m, path + ".tmp")
    os.replace(path + ".tmp", path)
    return path


def conv_torch_module(onnx_path):
    import torch
    m = onnx.load(onnx_path)
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    conv = [n for n in m.graph.node if n.op_type == "Conv"][0]
    at = {a.name: onnx.helper.get_attribute_value(a) for a in conv.attribute}
    w, b = inits[conv.input[1]], inits[conv.input[2]]
    c = torch.nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], stride=at["strides"][0],
                        padding=at["pads"][0], bias=True)
    with torch.no_grad():
        c.weight.copy_(torch.from_numpy(w))
        c.bias.copy_(torch.from_numpy(b))
    return torch.nn.Sequential(c, torch.nn.ReLU())


# --------------------------------------------------------------------------
# Timing.

def check(y, ref):
    y = np.asarray(y, dtype=np.float32).reshape(-1)
    ref = ref.reshape(-1)
    if y.size != ref.size:
        return {"ok": False, "max_abs_err": None, "note": "size %d != %d" % (y.size, ref.size)}
    err = float(np.max(np.abs(y - ref)))
    tol = ATOL + RTOL * float(np.max(np.abs(ref)))
    return {"ok": bool(err <= tol), "max_abs_err": err, "tol": tol}


def stats(ts):
    a = np.array(ts)
    med = float(np.median(a))
    return {"n": len(ts), "median_ms": med * 1e3, "min_ms": float(a.min()) * 1e3,
            "mean_ms": float(a.mean()) * 1e3, "mad_ms": float(np.median(np.abs(a - med))) * 1e3,
            "p90_ms": float(np.percentile(a, 90)) * 1e3}


def bench_case(tag, onnx_path, threads, engines, args, flops, kind):
    """Prepare, verify and time every engine on one model at one thread count."""
    d = os.path.dirname(onnx_path)
    x = np.ascontiguousarray(np.load(os.path.join(d, "inputs.npz"))["input"], dtype=np.float32)
    ref = np.load(os.path.join(d, "outputs.npz"))["output"]
    res = {"model": tag, "threads": threads, "kind": kind, "flops": flops, "engines": {},
           "loadavg_before": open("/proc/loadavg").read().split()[0]}
    ready = []
    for e in engines:
        r = res["engines"][e.name] = {}
        try:
            t0 = time.time()
            run, set_threads, info = e.prepare(tag, onnx_path, threads, ref.shape)
            r.update(info)
            set_threads()
            r["check"] = check(run(x), ref)
            keep_affinity(e.name)
            r["prepare_s"] = round(time.time() - t0, 2)
            ready.append((e, getattr(run, "timed", run), set_threads))
        except Exception as ex:  # one engine failing must not stop the others
            r["error"] = "%s: %s" % (type(ex).__name__, str(ex).strip().splitlines()[-1] if str(ex).strip() else "")
            log("%s %s t%d: %s" % (e.name, tag, threads, r["error"]))
            if args.verbose:
                traceback.print_exc()
    # Warm-up.
    for e, run, set_threads in ready:
        set_threads()
        for _ in range(args.warmup):
            run(x)
        keep_affinity(e.name)
    times = {e.name: [] for e, _, _ in ready}
    n_rounds = -(-args.runs // args.burst)
    clock = time.perf_counter
    for rnd in range(n_rounds):
        k = rnd % max(1, len(ready))
        for e, run, set_threads in ready[k:] + ready[:k]:
            set_threads()
            time.sleep(0.05)              # the previous engine's pool threads stop spinning (ORT's
                                          # otherwise take a core from a 2-thread ctvm run: medians 2x)
            run(x)                        # untimed: absorbs the previous engine's idle spinning threads
            keep_affinity(e.name)
            ts = times[e.name]
            for _ in range(min(args.burst, args.runs - len(ts))):
                t0 = clock()
                run(x)
                ts.append(clock() - t0)
    res["loadavg_after"] = open("/proc/loadavg").read().split()[0]
    for name, ts in times.items():
        res["engines"][name]["time"] = stats(ts)
    summary = "  ".join("%s %.2f/%.2f ms" % (n, res["engines"][n]["time"]["median_ms"],
                                             res["engines"][n]["time"]["min_ms"]) for n in times)
    log("%s t%d: %s" % (tag, threads, summary))
    return res


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def gcc_native():
    try:
        out = subprocess.run(["gcc", "-march=native", "-Q", "--help=target"], capture_output=True, text=True).stdout
        mm = re.search(r"^\s+-march=\s+(\S+)", out, re.M)
        return mm.group(1) if mm else "?"
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description="ctvm vs ONNX Runtime / PyTorch / TVM, interleaved")
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--threads", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--engines", nargs="*", default=ENGINES, help="subset of " + " ".join(ENGINES))
    ap.add_argument("--runs", type=int, default=50, help="timed runs per engine/model/threads")
    ap.add_argument("--burst", type=int, default=1, help="timed runs per engine per round (1: engines alternate "
                    "run by run, so a host whose throughput changes every few seconds hits them alike)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--conv", dest="conv", action="store_true", default=True)
    ap.add_argument("--no-conv", dest="conv", action="store_false", help="skip the conv-layer benchmark")
    ap.add_argument("--no-models", dest="whole", action="store_false", default=True,
                    help="skip the whole-model benchmark")
    ap.add_argument("--cache", default=os.environ.get("CTVM_CACHE") or os.path.expanduser("~/.cache/ctvm/models"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out"))
    ap.add_argument("--emit", default=os.path.join(ROOT, "build", "ctvm-emit"))
    ap.add_argument("--records", default=os.path.join(ROOT, "bench", "records"),
                    help="ctvm-tune records for engine ctvm_tuned: <target>-t<threads>.json")
    ap.add_argument("--sgemm-bin", help="bench/sgemm_ceiling binary: run before and after each "
                    "thread count's conv layers (best of both per shape)")
    ap.add_argument("--sgemm-reps", type=int, default=30)
    ap.add_argument("--tvm-install-log", help="file with the pip error when apache-tvm did not install")
    ap.add_argument("--quick", action="store_true", help="few runs, for development (not for reporting)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.runs, args.burst, args.warmup = min(args.runs, 6), min(args.burst, 2), 1
    os.makedirs(args.out, exist_ok=True)
    loadavg0 = open("/proc/loadavg").read().split()[:3]
    t_start = time.time()

    engines, versions, missing = [], {}, {}
    for name in args.engines:
        try:
            if name == "ctvm":
                e = Ctvm(args.emit, args.out)
            elif name == "ctvm_tuned":
                e = CtvmTuned(args.emit, args.out, args.records)
            elif name == "ort":
                e = Ort()
            elif name == "torch":
                e = Torch()
            elif name == "tvm":
                e = Tvm(args.out)
            else:
                raise SystemExit("unknown engine " + name)
            engines.append(e)
            versions[name] = e.version()
        except Exception as ex:  # ImportError, or a broken install (OSError, ...)
            note = "%s: %s" % (type(ex).__name__, ex)
            if name == "tvm" and args.tvm_install_log and os.path.isfile(args.tvm_install_log):
                note = open(args.tvm_install_log).read().strip() or note
            missing[name] = note
            log("engine %s unavailable: %s" % (name, note))
    ctvm = next((e for e in engines if e.name == "ctvm"), None)

    results = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
               "cpu": cpu_model(), "gcc_march_native": gcc_native(), "nproc": os.cpu_count(),
               "versions": versions, "missing": missing, "quick": args.quick,
               "method": {"runs": args.runs, "burst": args.burst, "warmup": args.warmup,
                          "tolerance": "max|err| <= %g + %g*max|ref|" % (ATOL, RTOL)},
               "ctvm_emit_has_threads": bool(ctvm and ctvm.has_threads),
               "ctvm_cflags": {t: " ".join(ctvm.cflags(t)) for t in args.threads} if ctvm else {},
               "ctvm_emit_args": {t: " ".join(ctvm.emit_args(t)) for t in args.threads} if ctvm else {},
               "models": [], "conv": []}
    results["versions"]["gcc"] = subprocess.run(["gcc", "--version"], capture_output=True,
                                                text=True).stdout.splitlines()[0]
    results["versions"]["python"] = sys.version.split()[0]
    results["versions"]["numpy"] = np.__version__
    results["versions"]["onnx"] = onnx.__version__
    results["versions"]["openblas"] = openblas_version()

    out_json = os.path.join(args.out, "results.json")

    def save():
        results["elapsed_s"] = round(time.time() - t_start, 1)
        results["affinity_resets"] = AFFINITY_RESETS
        results["loadavg_start"], results["loadavg_end"] = loadavg0, open("/proc/loadavg").read().split()[:3]
        with open(out_json + ".tmp", "w") as f:
            json.dump(results, f, indent=1)
        os.replace(out_json + ".tmp", out_json)

    # Thread count outermost: each engine switches its thread count once per phase.
    for threads in args.threads:
        if args.whole:
            for model in args.models:
                path = os.path.join(args.cache, model, "model.onnx")
                if not os.path.isfile(path):
                    log("missing %s (run golden/export_models.py)" % path)
                    continue
                flops, per_op = count_flops(path)
                r = bench_case(model, path, threads, engines, args, flops, "model")
                r["flops_by_op"] = per_op
                results["models"].append(r)
                save()
        if args.conv:
            sgemm(args, threads, results)
            conv_engines = [e for e in engines if e.name in ("ctvm", "ort")]
            for layer in CONV_LAYERS:
                path = make_conv_model(args.out, layer)
                flops, _ = count_flops(path)
                r = bench_case(layer[0], path, threads, conv_engines, args, flops, "conv")
                r["layer"] = {"name": layer[0], "in_models": layer[1], "cin": layer[2], "cout": layer[3],
                              "k": layer[4], "stride": layer[5], "pad": layer[6], "hw": layer[7]}
                results["conv"].append(r)
                save()
            sgemm(args, threads, results)
            save()
    save()
    log("wrote %s (%.0f s)" % (out_json, time.time() - t_start))


def sgemm(args, threads, results):
    """Run the OpenBLAS sgemm ceiling at this thread count; keep the best
    GFLOP/s per shape over all calls (results["sgemm_<threads>t"])."""
    if not args.sgemm_bin:
        return
    env = dict(os.environ, OPENBLAS_CORETYPE="SkylakeX", OPENBLAS_NUM_THREADS=str(threads))
    reps = 10 if args.quick else args.sgemm_reps
    r = subprocess.run([args.sgemm_bin, str(reps), "3"], env=env, capture_output=True, text=True)
    if r.returncode:
        log("sgemm_ceiling failed: %s" % r.stderr.strip())
        return
    key = "sgemm_%dt" % threads
    best = {(x["M"], x["N"], x["K"]): x for x in results.get(key, [])}
    for line in r.stdout.splitlines():
        if line.startswith("sgemm "):
            x = dict(zip(("M", "N", "K", "best_s", "gflops"), map(float, line.split()[1:])))
            k = (x["M"], x["N"], x["K"])
            if k not in best or x["gflops"] > best[k]["gflops"]:
                best[k] = x
    results[key] = list(best.values())
    log("sgemm %d thread(s): %s" % (threads, "  ".join("%dx%dx%d %.0f GFLOP/s" % (k + (v["gflops"],))
                                                      for k, v in best.items())))


def openblas_version():
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_config.restype = ctypes.c_char_p
        return lib.openblas_get_config().decode()
    except (OSError, AttributeError):
        return "?"


if __name__ == "__main__":
    main()
