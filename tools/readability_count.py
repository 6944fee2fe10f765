#!/usr/bin/env python3
"""readability_count.py - what a reader of ctvm's generated C should not meet.

Emits each model with ctvm-emit (native target, --threads 1 and 2) into a
temporary folder and counts, in the kernel code only (not the runtime and
templates pasted between the /**** Begin ... ****/ and /**** End ... ****/
banners, not the weight blob):

  ext1    loops of extent 1: for (int v = 0; v < 1; ...), ctvm_split(1, ...)
  guards  comparisons whose truth the enclosing loops' bounds decide
          (v >= 0, v + k < N with v < N - k, ...), in ifs and ternaries:
          the loose C parse tracks the for headers around each line and
          evaluates comparisons of loop variables, integer constants and
          + - * / % in interval arithmetic with C's truncating division
  void    lines that are only (void)name;
  bnames  identifiers b<number> (buffers printed by id, not by name)

The models: golden/small_cnn, golden/small_rnn, the seed models and the zoo
CI subset under ~/.cache/ctvm/models ($CTVM_CACHE) when they are there, or
the model.onnx files given. Prints a table per model and the totals; exits
1 when a count is not 0 (with --report: only prints).

  python3 tools/readability_count.py [--emit build/ctvm-emit] [--report] [model.onnx...]
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = ["resnet18", "mobilenet_v2", "squeezenet1_1", "shufflenet_v2_x1_0", "resnet50"]
COUNTS = ["ext1", "guards", "void", "bnames"]

FOR_RE = re.compile(r"\bfor \(int (\w+) = (0|ctvm_lo); \1 < (\d+|ctvm_hi);")
SPLIT_RE = re.compile(r"\bctvm_split\((\d+),")
VOID_RE = re.compile(r"^\s*\(void\)\s*[A-Za-z_]\w*\s*;\s*$")
BNAME_RE = re.compile(r"\bb[0-9]+\b")
CMP_RE = re.compile(r"(>=|<=|==|!=|(?<![<>])[<>](?![<>=]))")
ARITH_RE = re.compile(r"^[\w\s+\-*/%()]*$")


def cache_dir():
    return os.environ.get("CTVM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "ctvm", "models")


def default_models():
    """(label, model.onnx, extra ctvm-emit args) of the models present"""
    out = [(n, os.path.join(ROOT, "golden", n, "model.onnx"), []) for n in ("small_cnn", "small_rnn")]
    for n in SEED:
        p = os.path.join(cache_dir(), n, "model.onnx")
        if os.path.exists(p):
            out.append((n, p, []))
    zoo = os.path.join(cache_dir(), "zoo")
    for n in sorted(os.listdir(zoo)) if os.path.isdir(zoo) else []:
        meta_p, p = os.path.join(zoo, n, "meta.json"), os.path.join(zoo, n, "model.onnx")
        if not (os.path.exists(meta_p) and os.path.exists(p)):
            continue
        meta = json.load(open(meta_p))
        if meta.get("ci"):
            extra = ["--input-shapes", meta["input_shapes"]] if meta.get("input_shapes") else []
            out.append(("zoo/" + n, p, extra))
    return out


def kernel_lines(text):
    """the lines of the generated C outside the pasted files and the weight blob"""
    out, pasted, blob = [], 0, False
    for line in text.splitlines():
        if line.startswith("/**** Begin "):
            pasted += 1
        elif line.startswith("/**** End "):
            pasted -= 1
        elif pasted:
            pass
        elif blob:
            blob = not line.startswith("}};")
        elif line.startswith("static const union {"):
            blob = True
        else:
            out.append(line)
    return out


# ---- interval arithmetic over the C of index expressions ----

def _corners(op, a, b):
    vals = []
    for x in a:
        for y in b:
            if op == "*":
                vals.append(x * y)
            else:  # C division truncates toward zero
                q = abs(x) // abs(y)
                vals.append(q if (x >= 0) == (y > 0) else -q)
    return (min(vals), max(vals))


def interval(node, env):
    """(lo, hi) of a C int expression parsed as Python, or None when unknown"""
    if isinstance(node, ast.Expression):
        return interval(node.body, env)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return (node.value, node.value)
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        a = interval(node.operand, env)
        return (-a[1], -a[0]) if a else None
    if isinstance(node, ast.BinOp):
        a, b = interval(node.left, env), interval(node.right, env)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return (a[0] + b[0], a[1] + b[1])
        if isinstance(node.op, ast.Sub):
            return (a[0] - b[1], a[1] - b[0])
        if isinstance(node.op, ast.Mult):
            return _corners("*", a, b)
        if isinstance(node.op, (ast.Div, ast.FloorDiv)):
            return _corners("/", a, b) if b[0] > 0 or b[1] < 0 else None
        if isinstance(node.op, ast.Mod):
            if not (b[0] > 0 or b[1] < 0):
                return None
            m = max(abs(b[0]), abs(b[1])) - 1
            return (0 if a[0] >= 0 else max(a[0], -m), 0 if a[1] <= 0 else min(a[1], m))
    return None


def decided(lhs, op, rhs, env):
    """True when the loop ranges in env fix the comparison's value"""
    try:
        a = interval(ast.parse(lhs.strip(), mode="eval"), env)
        b = interval(ast.parse(rhs.strip(), mode="eval"), env)
    except (SyntaxError, ValueError, ZeroDivisionError):
        return False
    if a is None or b is None:
        return False
    always = {"<": a[1] < b[0], "<=": a[1] <= b[0], ">": a[0] > b[1], ">=": a[0] >= b[1],
              "==": a[0] == a[1] == b[0] == b[1], "!=": a[1] < b[0] or b[1] < a[0]}[op]
    never = {"<": a[0] >= b[1], "<=": a[0] > b[1], ">": a[1] <= b[0], ">=": a[1] < b[0],
             "==": a[1] < b[0] or b[1] < a[0], "!=": a[0] == a[1] == b[0] == b[1]}[op]
    return always or never


def paren_groups(line):
    """the contents of every balanced (...) of the line"""
    stack, out = [], []
    for i, ch in enumerate(line):
        if ch == "(":
            stack.append(i)
        elif ch == ")" and stack:
            out.append(line[stack.pop() + 1:i])
    return out


def top_level(s):
    """s with every nested (...) blanked, so operators found are s's own"""
    out, depth = [], 0
    for ch in s:
        if ch == "(":
            depth += 1
        out.append(ch if depth == 0 else " ")
        if ch == ")":
            depth -= 1
    return "".join(out)


def comparisons(line):
    """(lhs, op, rhs) of the arithmetic comparisons written in a line"""
    for g in paren_groups(line):
        top = top_level(g)
        if "&&" in top or "||" in top or "?" in top or "," in top or ";" in top:
            continue
        ops = list(CMP_RE.finditer(top))
        if len(ops) != 1:
            continue
        m = ops[0]
        lhs, rhs = g[:m.start()], g[m.end():]
        if ARITH_RE.match(lhs) and ARITH_RE.match(rhs):
            yield lhs, m.group(1), rhs


def count(text):
    lines = kernel_lines(text)
    c = dict.fromkeys(COUNTS, 0)
    c["loops"], c["lines"] = 0, len(lines)
    stack, depth, split = [], 0, None  # stack: (depth of the loop's body, var, (lo, hi))
    for line in lines:
        env = {v: r for _, v, r in stack}
        m_split = SPLIT_RE.search(line)
        if m_split:
            split = int(m_split.group(1))
            c["ext1"] += split == 1
        m = FOR_RE.search(line)
        if m:
            c["loops"] += 1
            ext = split if m.group(3) == "ctvm_hi" else int(m.group(3))
            c["ext1"] += m.group(3) != "ctvm_hi" and ext == 1
        else:
            for lhs, op, rhs in comparisons(line):
                c["guards"] += decided(lhs, op, rhs, env)
        c["void"] += bool(VOID_RE.match(line))
        c["bnames"] += len(BNAME_RE.findall(line))
        for ch in line:
            if ch == "{":
                depth += 1
                if m and ext is not None:
                    stack.append((depth, m.group(1), (0, ext - 1)))
                    m = None
            elif ch == "}":
                while stack and stack[-1][0] == depth:
                    stack.pop()
                depth -= 1
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", help="model.onnx files (default: the golden, seed and zoo CI models)")
    ap.add_argument("--emit", default=os.path.join(ROOT, "build", "ctvm-emit"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--target", default="native")
    ap.add_argument("--report", action="store_true", help="only print, exit 0")
    a = ap.parse_args()
    models = [(os.path.relpath(p), p, []) for p in a.models] if a.models else default_models()
    threads = [int(t) for t in a.threads.split(",")]
    total = dict.fromkeys(COUNTS + ["loops", "lines"], 0)
    failed = 0
    cols = ["loops", "lines"] + COUNTS
    print("%-36s %3s " % ("model", "thr") + " ".join("%7s" % k for k in cols))
    with tempfile.TemporaryDirectory(prefix="ctvm_readability_") as tmp:
        for label, path, extra in models:
            for th in threads:
                out = os.path.join(tmp, "model.c")
                cmd = [a.emit, path, "-o", out, "--target", a.target, "--threads", str(th)] + extra
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if r.returncode:
                    print("%-36s %3d ctvm-emit failed: %s" % (label, th, (r.stdout.strip().splitlines() or ["?"])[-1]))
                    failed += 1
                    continue
                with open(out, errors="replace") as f:
                    c = count(f.read())
                for k in total:
                    total[k] += c[k]
                print("%-36s %3d " % (label, th) + " ".join("%7d" % c[k] for k in cols), flush=True)
    print("%-36s %3s " % ("total", "") + " ".join("%7d" % total[k] for k in cols))
    bad = failed or any(total[k] for k in COUNTS)
    return 0 if a.report or not bad else 1


if __name__ == "__main__":
    sys.exit(main())
