#!/usr/bin/python3
"""conformance.py - runs ONNX backend test cases through ctvm-run and
classifies every case (docs/CONFORMANCE.md describes the suites, the
classification and the options; `make conformance` is the usual entry).

A case is a folder with model.onnx and test_data_set_<i>/{input,output}_<j>.pb.
Each data set runs as
    ctvm-run model.onnx --inputs input_*.pb --golden output_*.pb --elementwise
             --rtol 1e-3 --atol 1e-7 --target T --cflags F
(rtol 2**-6 when every output is bfloat16, as onnx's own runner does), and
ctvm-run's exit status gives the class: 0 pass, 1 wrong, 3 refused,
4 build, 5 crash (the generated program failed), killed by a signal: crash
(of ctvm itself), over --timeout seconds: timeout, anything else: error.
When ctvm refuses because a shape-deciding input is a graph input (its
message says `--bind NAME=FILE`), the case is retried with --bind NAME=
that input's .pb file (repeatedly, while new names come up) and the bound
inputs are no longer passed with --inputs.

Out-of-scope cases are decided from the model file (types, operators,
domains, recursively through subgraphs; see scope_reason()), except If/Loop/
Scan whose condition or trip count ctvm refuses as data-dependent after
every shape-deciding input is bound (CONTROL_FLOW_RE).

Runs with Debian's python3 (numpy + onnx 1.12 for reading models). The pip
onnx node suite is generated once into ~/.cache/ctvm/onnx-node-<version>
with a venv this script creates (~/.cache/ctvm/venv, pip install
onnx==<version> numpy ml_dtypes)."""
import argparse
import concurrent.futures
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEBIAN = "/usr/share/libonnx-testdata/data"
ONNX_VERSION = "1.23.2"
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "ctvm")
VENV = os.path.join(CACHE, "venv")

DEBIAN_SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
PIP_SUITE = "onnx-node-" + ONNX_VERSION
ALL_SUITES = ["debian-" + s for s in DEBIAN_SUITES] + [PIP_SUITE]

STATUSES = ["pass", "wrong", "refused", "build", "crash", "timeout", "error", "out-of-scope"]

# --- the pip suite ----------------------------------------------------------


def venv_python():
    """The venv's python with onnx==ONNX_VERSION, creating the venv if needed."""
    py = os.path.join(VENV, "bin", "python")
    probe = [py, "-c", "import onnx, ml_dtypes, numpy; print(onnx.__version__)"]
    if os.path.exists(py):
        r = subprocess.run(probe, capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() == ONNX_VERSION:
            return py
    print("conformance: creating %s (onnx==%s)" % (VENV, ONNX_VERSION), flush=True)
    subprocess.run(["/usr/bin/python3", "-m", "venv", VENV], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "onnx==" + ONNX_VERSION, "numpy", "ml_dtypes"],
                   check=True)
    return py


def pip_suite_dir():
    """~/.cache/ctvm/onnx-node-<version>, generated on first use."""
    d = os.path.join(CACHE, PIP_SUITE)
    if not os.path.isdir(d):
        py = venv_python()
        print("conformance: generating %s" % d, flush=True)
        subprocess.run([py, os.path.join(ROOT, "tests", "conformance", "gen_node_suite.py"), d],
                       check=True)
    return d


def suite_dir(name):
    if name == PIP_SUITE:
        return pip_suite_dir()
    return os.path.join(DEBIAN, name[len("debian-"):])


# --- scope: decided from the model file --------------------------------------

STRING = onnx.TensorProto.STRING
COMPLEX = {onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128}
RANDOM_OPS = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
              "Bernoulli", "Multinomial"}
SEQUENCE_OPS = {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase",
                "SequenceInsert", "SequenceLength", "SequenceMap", "SplitToSequence",
                "ConcatFromSequence", "Optional", "OptionalGetElement", "OptionalHasElement"}

SCOPE_TEXT = {
    "string tensors": "a tensor of element type string (ctvm compiles numeric tensors only)",
    "complex tensors": "a tensor of element type complex64/complex128",
    "sequence/optional/map types": "a graph value that is a sequence, optional, map or sparse "
                                   "tensor, or an operator producing one",
    "random operators": "Random*/Bernoulli/Multinomial: the reference output is one draw of a "
                        "random generator",
    "training-mode Dropout": "Dropout with a training_mode input: a random mask",
    "ai.onnx.ml domain": "operators of the ai.onnx.ml domain (traditional ML)",
    "preview.training domain": "operators of ai.onnx.preview.training (gradients, optimizers)",
    "other domains": "operators of another domain (ai.onnx.preview: FlexAttention) that no "
                     "function of the model defines",
    "data-dependent control flow": "If/Loop/Scan whose condition or trip count is not a "
                                   "compile-time constant (ctvm compiles straight-line code; "
                                   "the only class decided by ctvm's own refusal)",
}

# ctvm's refusal of an If/Loop/Scan whose condition or trip count stays a
# run-time value after every shape-deciding input has been bound
CONTROL_FLOW_RE = re.compile(r"\((If|Loop|Scan)\): .*\(data-dependent control flow\)")


def _type_reason(tp):
    kind = tp.WhichOneof("value")
    if kind in ("sequence_type", "optional_type", "map_type", "sparse_tensor_type"):
        return "sequence/optional/map types"
    if kind == "tensor_type":
        if tp.tensor_type.elem_type == STRING:
            return "string tensors"
        if tp.tensor_type.elem_type in COMPLEX:
            return "complex tensors"
    return None


def _tensor_reason(t):
    if t.data_type == STRING:
        return "string tensors"
    if t.data_type in COMPLEX:
        return "complex tensors"
    return None


def _graph_reason(g, local_domains):
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        r = _type_reason(vi.type)
        if r:
            return r
    for t in g.initializer:
        r = _tensor_reason(t)
        if r:
            return r
    for n in g.node:
        dom = n.domain or "ai.onnx"
        if dom == "ai.onnx.ml":
            return "ai.onnx.ml domain"
        if dom.startswith("ai.onnx.preview.training"):
            return "preview.training domain"
        if dom != "ai.onnx" and dom not in local_domains:
            return "other domains"
        if n.op_type in RANDOM_OPS:
            return "random operators"
        if n.op_type in SEQUENCE_OPS:
            return "sequence/optional/map types"
        if n.op_type == "Dropout" and len(n.input) >= 3 and n.input[2]:
            return "training-mode Dropout"
        for a in n.attribute:
            if a.HasField("t"):
                r = _tensor_reason(a.t)
                if r:
                    return r
            if a.type == onnx.AttributeProto.TYPE_PROTO and a.HasField("tp"):
                r = _type_reason(a.tp)
                if r:
                    return r
            for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                r = _graph_reason(sub, local_domains)
                if r:
                    return r
    return None


def scope_reason(model):
    """None for an in-scope model, else its out-of-scope category."""
    for fn in model.functions:
        if fn.domain.startswith("ai.onnx.preview.training"):
            return "preview.training domain"
    # a model-local function's domain is in scope: its body is ONNX
    return _graph_reason(model.graph, {fn.domain for fn in model.functions})


# --- the case's operator (for the per-operator table) ------------------------

def _squash(s):
    return s.lower().replace("_", "")


def case_operator(case_name, model, known_ops):
    """The operator a case tests: the longest known operator name (its nodes'
    types and every ONNX operator) that starts the case name, else the first
    node's type."""
    name = case_name[len("test_"):] if case_name.startswith("test_") else case_name
    for pre in ("operator_", "training_"):
        if name.startswith(pre):
            name = name[len(pre):]
    sq = _squash(name)
    ops = set(known_ops) | {n.op_type for n in model.graph.node}
    best = ""
    for op in ops:
        if sq.startswith(op.lower()) and len(op) > len(best):
            best = op
    if best:
        return best
    nodes = [n.op_type for n in model.graph.node if n.op_type != "Constant"]
    return nodes[0] if nodes else (model.graph.node[0].op_type if model.graph.node else "?")


def all_onnx_ops():
    try:
        return {s.name for s in onnx.defs.get_all_schemas_with_history()}
    except Exception:  # pragma: no cover - very old onnx
        return set()


# --- running ------------------------------------------------------------------

BIND_RE = re.compile(r"--bind ([^=\s]+)=FILE")
NODE_RE = re.compile(r"node '[^']*' \(([^)]+)\): (.*)")


def runtime_input_names(model):
    inits = {t.name for t in model.graph.initializer}
    return [vi.name for vi in model.graph.input if vi.name not in inits]


def refusal_reason(text):
    """A short reason from ctvm's message: '<Op>: <reason>' without names."""
    lines = [l for l in text.strip().splitlines() if l.strip()]
    line = lines[-1] if lines else "(no message)"
    for l in lines:
        if "ctvm-run:" in l:
            line = l
            break
    m = NODE_RE.search(line)
    if m:
        op, why = m.group(1), m.group(2)
    else:
        op, why = "-", line.split(": ", 2)[-1] if ": " in line else line
    why = re.sub(r"'[^']*'", "'…'", why)
    why = re.sub(r"\d+", "N", why)
    return op, why[:160]


def case_rtol(model):
    """onnx's backend runner compares with rtol 1e-3, atol 1e-7, and a bfloat16
    output with rtol max(1e-3, 2**-6) (two bfloat16 ulps): used when every
    output of the model is bfloat16 (ctvm-run takes one rtol per run)."""
    outs = [o.type.tensor_type.elem_type for o in model.graph.output]
    if outs and all(t == onnx.TensorProto.BFLOAT16 for t in outs):
        return 2.0 ** -6
    return 1e-3


def run_dataset(args, model_path, ds_dir, names, binds, rtol=1e-3):
    ins = sorted([f for f in os.listdir(ds_dir) if re.match(r"input_\d+\.pb$", f)],
                 key=lambda f: int(f[6:-3]))
    outs = sorted([f for f in os.listdir(ds_dir) if re.match(r"output_\d+\.pb$", f)],
                  key=lambda f: int(f[7:-3]))
    cmd = [args.ctvm_run, model_path, "--elementwise", "--rtol", repr(rtol), "--atol", "1e-7",
           "--target", args.target, "--cflags", args.cflags]
    inputs = []
    for f in ins:
        j = int(f[6:-3])
        nm = names[j] if j < len(names) else None
        if nm in binds:
            cmd += ["--bind", "%s=%s" % (nm, os.path.join(ds_dir, f))]
        else:
            inputs.append(os.path.join(ds_dir, f))
    if inputs:
        cmd += ["--inputs"] + inputs
    cmd += ["--golden"] + [os.path.join(ds_dir, f) for f in outs]
    tmp = tempfile.mkdtemp(prefix="ctvm-conf-")
    env = dict(os.environ, TMPDIR=tmp)
    # its own process group, so a timeout also ends the gcc or model it started
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", env=env, start_new_session=True)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        return 127, "cannot start ctvm-run: %s" % e
    try:
        text, _ = p.communicate(timeout=args.timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        rc, text = None, "timeout after %ds" % args.timeout
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rc, text


def classify(rc):
    if rc is None:
        return "timeout"
    if rc < 0 or rc >= 128:
        return "crash"  # ctvm-run itself died of a signal
    return {0: "pass", 1: "wrong", 3: "refused", 4: "build", 5: "crash"}.get(rc, "error")


def run_case(args, suite, case_dir, known_ops):
    name = os.path.basename(case_dir)
    model_path = os.path.join(case_dir, "model.onnx")
    res = {"suite": suite, "case": name}
    try:
        model = onnx.load(model_path, load_external_data=False)
    except Exception as e:  # a model Debian's onnx cannot read
        model = None
        res.update(operator="?", status="error", detail="cannot read the model: %s" % e)
        return res
    res["operator"] = case_operator(name, model, known_ops)
    why = scope_reason(model)
    if why:
        res.update(status="out-of-scope", detail=why)
        return res
    names = runtime_input_names(model)
    sets = sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))
    binds = set()
    status, text = "error", "no test data set"
    t0 = time.time()
    for ds in sets:
        ds_dir = os.path.join(case_dir, ds)
        while True:
            rc, text = run_dataset(args, model_path, ds_dir, names, binds, case_rtol(model))
            status = classify(rc)
            new = set(BIND_RE.findall(text)) - binds if status == "refused" else set()
            new &= set(names)
            if not new:
                break
            binds |= new
        if status != "pass":
            break
    if status == "refused" and CONTROL_FLOW_RE.search(text):
        status = "out-of-scope"
        res["detail"] = "data-dependent control flow"
    res["status"] = status
    res["seconds"] = round(time.time() - t0, 2)
    if binds:
        res["bound"] = sorted(binds)
    if status == "refused":
        res["refused_op"], res["detail"] = refusal_reason(text)
    elif status not in ("pass", "out-of-scope"):
        res["detail"] = " ".join(text.strip().splitlines()[-3:])[:300]
    return res


# --- reporting ------------------------------------------------------------------

def suite_totals(results):
    t = {s: 0 for s in STATUSES}
    for r in results:
        t[r["status"]] += 1
    in_scope = len(results) - t["out-of-scope"]
    t["cases"] = len(results)
    t["in_scope"] = in_scope
    t["pass_rate"] = round(100.0 * t["pass"] / in_scope, 2) if in_scope else 100.0
    return t


def print_suite(suite, results, t, verbose):
    print("\n== %s: %d cases, %d in scope, pass rate %.2f%%" % (suite, t["cases"], t["in_scope"],
                                                                 t["pass_rate"]))
    print("   " + "  ".join("%s %d" % (s, t[s]) for s in STATUSES))
    oos = {}
    for r in results:
        if r["status"] == "out-of-scope":
            oos[r["detail"]] = oos.get(r["detail"], 0) + 1
    for k, n in sorted(oos.items()):
        print("   out of scope: %-28s %4d  (%s)" % (k, n, SCOPE_TEXT.get(k, k)))
    ref = {}
    for r in results:
        if r["status"] == "refused":
            ref.setdefault(r["refused_op"], {}).setdefault(r["detail"], []).append(r["case"])
    for op in sorted(ref):
        for why, cases in sorted(ref[op].items()):
            print("   refused %-20s %3d  %s" % (op, len(cases), why))
    for r in results:
        if r["status"] in ("wrong", "build", "crash", "timeout", "error"):
            print("   %-7s %s :: %s" % (r["status"].upper(), r["case"], r.get("detail", "")[:200]))
        elif verbose and r["status"] == "pass":
            print("   PASS    %s" % r["case"])


def operator_table(all_results, suites):
    """Markdown: per operator and suite, pass/in-scope and the failure classes."""
    rows = {}
    for r in all_results:
        key = r["operator"]
        row = rows.setdefault(key, {s: {st: 0 for st in STATUSES} for s in suites})
        row[r["suite"]][r["status"]] += 1
    head = "| operator | " + " | ".join(suites) + " | not passing (all suites) |"
    lines = [head, "|" + "---|" * (len(suites) + 2)]
    for op in sorted(rows, key=str.lower):
        cells = []
        fails = {}
        for s in suites:
            c = rows[op][s]
            ins = sum(c[st] for st in STATUSES if st != "out-of-scope")
            oos = c["out-of-scope"]
            if ins == 0 and oos == 0:
                cells.append("")
            else:
                cells.append("%d/%d%s" % (c["pass"], ins, " (+%d oos)" % oos if oos else ""))
            for st in STATUSES[1:-1]:
                fails[st] = fails.get(st, 0) + c[st]
        nf = ", ".join("%s %d" % (k, v) for k, v in fails.items() if v)
        lines.append("| %s | %s | %s |" % (op, " | ".join(cells), nf))
    return "\n".join(lines)


BEGIN = "<!-- BEGIN GENERATED by tests/conformance/conformance.py --write-doc -->"
END = "<!-- END GENERATED -->"


def write_doc(path, summary, all_results, suites):
    text = open(path).read() if os.path.exists(path) else "# Conformance\n\n%s\n%s\n" % (BEGIN, END)
    if BEGIN not in text or END not in text:
        text += "\n%s\n%s\n" % (BEGIN, END)
    gen = ["", "Measured %s, target `%s`, cflags `%s`, %s (ctvm %s)." % (
        summary["date"], summary["target"], summary["cflags"],
        "%d jobs, %.0f s wall, %.0f s CPU" % (summary["jobs"], summary["seconds"],
                                               summary.get("cpu_seconds", 0)), summary["commit"]), "",
        "| suite | cases | in scope | pass | wrong | refused | build | crash | timeout | error | out of scope | pass rate (in scope) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in suites:
        t = summary["suites"][s]["totals"]
        gen.append("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.2f%% |" % (
            s, t["cases"], t["in_scope"], t["pass"], t["wrong"], t["refused"], t["build"],
            t["crash"], t["timeout"], t["error"], t["out-of-scope"], t["pass_rate"]))
    gen += ["", "Out-of-scope cases per category:", ""]
    for s in suites:
        oos = summary["suites"][s]["out_of_scope"]
        if oos:
            gen.append("- %s: " % s + ", ".join("%s %d" % kv for kv in sorted(oos.items())))
    gen += ["", "Per operator: passing / in-scope cases per suite (`+N oos`: out-of-scope cases).",
            "", operator_table(all_results, suites), ""]
    ref = {}
    for r in all_results:
        if r["status"] == "refused":
            ref.setdefault((r["refused_op"], r["detail"]), []).append(r["suite"])
    if ref:
        gen += ["Refusals, by the refused node's operator and ctvm's reason (names and numbers "
                "elided):", "", "| operator | reason | cases |", "|---|---|---|"]
        for (op, why), ss in sorted(ref.items(), key=lambda kv: (kv[0][0].lower(), -len(kv[1]))):
            gen.append("| %s | %s | %d |" % (op, why.replace("|", "\\|"), len(ss)))
        gen.append("")
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    text = text[:a] + "\n" + "\n".join(gen) + "\n" + text[b:]
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def git_commit():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                       text=True)
    return r.stdout.strip() or "?"


def main():
    ap = argparse.ArgumentParser(description="ONNX backend conformance of ctvm (docs/CONFORMANCE.md)")
    ap.add_argument("--suite", action="append", choices=ALL_SUITES + ["all"],
                    help="suite to run (repeatable; default all)")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--target", default="native")
    ap.add_argument("--cflags", default="-O1")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per ctvm-run")
    ap.add_argument("--threshold", type=float, default=97.0,
                    help="minimum in-scope pass rate per suite, in percent (default 97)")
    ap.add_argument("--min", action="append", default=[], metavar="SUITE=PCT",
                    help="a suite's own minimum pass rate (repeatable; overrides --threshold)")
    ap.add_argument("--filter", help="regex of case names to run")
    ap.add_argument("--from-json", metavar="SUMMARY", nargs="+",
                    help="run nothing: print and --write-doc the results of earlier summaries "
                         "(several: their suites together)")
    ap.add_argument("--ctvm-run", default=os.path.join(ROOT, "build", "ctvm-run"))
    ap.add_argument("--json", default=os.path.join(ROOT, "build", "conformance", "summary.json"))
    ap.add_argument("--write-doc", nargs="?", const=os.path.join(ROOT, "docs", "CONFORMANCE.md"),
                    help="update the generated section of docs/CONFORMANCE.md (or the file given)")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()
    suites = ALL_SUITES if not args.suite or "all" in args.suite else list(dict.fromkeys(args.suite))
    mins = {}
    for m in args.min:
        k, _, v = m.partition("=")
        if k not in ALL_SUITES or not re.match(r"^\d+(\.\d*)?$", v):
            sys.exit("conformance: --min takes SUITE=PCT with SUITE one of %s" % ", ".join(ALL_SUITES))
        mins[k] = float(v)
    if args.from_json:
        summary = None
        for path in args.from_json:
            one = json.load(open(path))
            if summary is None:
                summary = one
            else:
                summary["suites"].update(one["suites"])
                summary["seconds"] += one["seconds"]
                summary["cpu_seconds"] = summary.get("cpu_seconds", 0) + one.get("cpu_seconds", 0)
        return report(args, summary, mins, None)
    if not os.access(args.ctvm_run, os.X_OK):
        sys.exit("conformance: %s not found (run make)" % args.ctvm_run)
    known = all_onnx_ops()
    work = []
    for s in suites:
        d = suite_dir(s)
        if not os.path.isdir(d):
            sys.exit("conformance: suite %s: no folder %s" % (s, d))
        for c in sorted(os.listdir(d)):
            if os.path.isfile(os.path.join(d, c, "model.onnx")) and (
                    not args.filter or re.search(args.filter, c)):
                work.append((s, os.path.join(d, c)))
    t0 = time.time()
    results = {s: [] for s in suites}
    done = 0
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    log = open(args.json + ".cases.jsonl", "w")  # one line per finished case, as they come
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(run_case, args, s, c, known) for s, c in work]
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results[r["suite"]].append(r)
            log.write(json.dumps(r) + "\n")
            log.flush()
            done += 1
            if sys.stdout.isatty() or args.verbose:
                print("\r[%d/%d] %s" % (done, len(work), r["case"][:60].ljust(60)), end="",
                      file=sys.stderr, flush=True)
    log.close()
    elapsed = time.time() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(file=sys.stderr)
    summary = {"date": time.strftime("%Y-%m-%d"), "commit": git_commit(), "target": args.target,
               "cflags": args.cflags, "jobs": args.jobs, "seconds": round(elapsed, 1),
               "cpu_seconds": round(ru.ru_utime + ru.ru_stime, 1),
               "threshold": args.threshold, "suites": {}}
    for s in suites:
        rs = sorted(results[s], key=lambda r: r["case"])
        oos = {}
        for r in rs:
            if r["status"] == "out-of-scope":
                oos[r["detail"]] = oos.get(r["detail"], 0) + 1
        summary["suites"][s] = {"totals": suite_totals(rs), "out_of_scope": oos, "cases": rs}
    return report(args, summary, mins, args.json)


def report(args, summary, mins, json_path):
    """Prints the per-suite results, writes the JSON and the doc; the exit status."""
    failed = []
    all_results = []
    suites = list(summary["suites"])
    for s in suites:
        rs = summary["suites"][s]["cases"]
        t = summary["suites"][s]["totals"]
        all_results += rs
        print_suite(s, rs, t, args.verbose)
        need = mins.get(s, args.threshold)
        if t["in_scope"] and t["pass_rate"] < need:
            failed.append("%s: in-scope pass rate %.2f%% < %.2f%%" % (s, t["pass_rate"], need))
        if t["crash"]:
            failed.append("%s: %d crash(es)" % (s, t["crash"]))
    if json_path:
        os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
        with open(json_path, "w") as f:
            json.dump(summary, f, indent=1)
    if args.write_doc:
        write_doc(args.write_doc, summary, all_results, suites)
    print("\nconformance: %d cases in %.0f s (%d jobs, %.0f s CPU of ctvm-run, gcc and the models)%s" % (
        len(all_results), summary["seconds"], summary["jobs"], summary.get("cpu_seconds", 0),
        "; summary in %s" % json_path if json_path else ""))
    for m in failed:
        print("conformance: FAIL " + m)
    if not failed:
        print("conformance: OK (minimum pass rates met, no crashes)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
