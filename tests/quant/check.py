#!/usr/bin/env python3
"""check.py - runs the odd-shape int8 cases (tests/quant/gen_cases.py) through
ctvm for each target and compares every case's output with ONNX Runtime's.

  python3 tests/quant/check.py CASES_DIR WORK_DIR TARGET... [-j N]

Per target and group: build/ctvm-run model.onnx --inputs inputs.npz --output
WORK/<target>/<group>.npz --target T (cross targets are built -static with
their gcc and run under qemu-user by ctvm-run). Per case (one output):
- integer outputs (QLinearConv, QLinearMatMul u8/s8; ConvInteger,
  MatMulInteger int32): equal to ORT's on >= 99.9% of the elements and
  within one step (1) everywhere;
- QDQ outputs (float, behind a DequantizeLinear of scale `step`): every
  element within one step of ORT's (its integer kernels) or of ORT's run
  without fusion (the literal DQ -> float op -> Q graph), whichever is
  closer; the % within half a step is printed.
Prints one line per case and target, then "quant: N passed, N failed".
Needs only numpy."""
import concurrent.futures
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIN_EQUAL_PCT = 99.9


def run_group(cases, work, target, group):
    d = os.path.join(cases, group)
    out = os.path.join(work, target, group + ".npz")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if os.path.exists(out):
        os.remove(out)
    cmd = [os.path.join(ROOT, "build", "ctvm-run"), os.path.join(d, "model.onnx"),
           "--inputs", os.path.join(d, "inputs.npz"), "--output", out, "--target", target]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "timeout (600 s)"
    if r.returncode or not os.path.exists(out):
        lines = (r.stderr + r.stdout).strip().splitlines() or ["exit %d" % r.returncode]
        return None, lines[-1][:300]
    return dict(np.load(out)), None


def judge(info, got, ref, nofuse):
    """(ok, text) for one case."""
    if got is None:
        return False, "no output"
    if got.shape != ref.shape:
        return False, "shape %s != ORT %s" % (list(got.shape), list(ref.shape))
    g = got.astype(np.float64)
    step = info["step"]
    d = np.abs(g - ref.astype(np.float64)) / step
    which = "ORT"
    if not info["integer"] and nofuse is not None and nofuse.shape == ref.shape:
        d2 = np.abs(g - nofuse.astype(np.float64)) / step
        if d2.max() < d.max():
            d, which = d2, "ORT unfused"
    worst = float(d.max()) if d.size else 0.0
    if info["integer"]:
        eq = 100.0 * float(np.mean(d == 0)) if d.size else 100.0
        ok = eq >= MIN_EQUAL_PCT and worst <= 1
    else:
        eq = 100.0 * float(np.mean(d <= 0.5)) if d.size else 100.0
        ok = worst <= 1 + 1e-4
    return ok, "%6.2f%% equal, max %.2g step vs %s (%d elements)" % (eq, worst, which, ref.size)


def main():
    args = sys.argv[1:]
    jobs = 2
    if "-j" in args:
        i = args.index("-j")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 3:
        sys.exit(__doc__)
    cases, work, targets = args[0], args[1], args[2:]
    groups = sorted(g for g in os.listdir(cases) if os.path.isfile(os.path.join(cases, g, "cases.json")))
    if not groups:
        sys.exit("check.py: no cases under %s" % cases)
    todo = [(t, g) for t in targets for g in groups]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        results = dict(zip(todo, ex.map(lambda tg: run_group(cases, work, *tg), todo)))
    passed = failed = 0
    for t in targets:
        for g in groups:
            d = os.path.join(cases, g)
            info = json.load(open(os.path.join(d, "cases.json")))
            ref = dict(np.load(os.path.join(d, "ort.npz")))
            nofuse = dict(np.load(os.path.join(d, "ort_nofuse.npz")))
            got, err = results[(t, g)]
            for k in sorted(info):
                if err is not None:
                    ok, text = False, "FAILED to build/run: " + err
                else:
                    ok, text = judge(info[k], got.get(k), ref[k], nofuse.get(k))
                passed += ok
                failed += not ok
                print("%s %-12s %-58s %s" % ("ok  " if ok else "FAIL", t, info[k]["case"][:58], text))
    print("quant: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
