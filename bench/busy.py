#!/usr/bin/env python3
# busy.py - ctvm's threads beside other busy processes (issue 23), run by
# bench/busy.sh (which starts and kills the busy processes; with --busy 0 it
# measures the quiet machine the same way). Per model: ctvm at --threads 2
# and 1, built as zoo/run_zoo.py builds them (`gcc -O2 -DCTVM_MAIN`, plus
# -fopenmp for 2 threads) and on 2 application threads (NAME_run_thread on
# the harness's pthreads), outputs checked against ONNX Runtime once, then
# timed side by side with ONNX Runtime at 2 threads in interleaved rounds
# (the order rotates every round; each engine does a burst of runs per
# round: the binary's median of the burst, ORT's per-run times). Optionally
# --base-emit OTHER_CTVM_EMIT adds the same two builds from another ctvm
# (before/after a change, in the same rounds). Prints medians and the
# ratios ctvm2T/ORT2T (target <= 1.0) and ctvm2T/ctvm1T (target <= 1.2).
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "zoo"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import run_zoo  # noqa: E402  (zoo/: Model, build, check, run_binary)
from bench import cpu_model  # noqa: E402

CACHE = os.environ.get("CTVM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "ctvm", "models")
MODELS = {"mobilenet_v2": "mobilenet_v2", "resnet18": "resnet18", "bert_mini": "zoo/bert_mini"}


def log(*a):
    print("[busy %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def prepare(model, work, label, emit, threads, flags, vlog):
    """Emit, build and check the harness binary (cached by emitter, model and flags)."""
    d = os.path.join(work, model.name, label)
    os.makedirs(os.path.join(d, "io"), exist_ok=True)
    st = os.stat(emit)
    key = json.dumps([os.path.abspath(emit), st.st_size, st.st_mtime, model.onnx, threads, flags])
    binp, io, kp = os.path.join(d, "model"), os.path.join(d, "io"), os.path.join(d, "key.json")
    if os.path.exists(binp) and os.path.exists(kp) and open(kp).read() == key:
        return binp, io
    c = os.path.join(d, "model.c")
    for cmd in ([emit, model.onnx, "-o", c, "--threads", str(threads)],
                ["gcc"] + flags.split() + ["-DCTVM_MAIN", c, "-o", binp, "-lm"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        vlog.write(r.stdout + r.stderr)
        if r.returncode:
            raise RuntimeError("%s: %s failed: %s" % (label, cmd[0], (r.stderr.strip().splitlines() or ["?"])[-1]))
    api = run_zoo.parse_api(c)
    os.remove(c)
    ok, res, _, _ = run_zoo.check(model, binp, api[0], api[1], model.reference(), io)
    if not ok:
        raise RuntimeError("%s: output differs from ORT: %s" % (label, "; ".join(res)))
    open(kp, "w").write(key)
    return binp, io


def run_binary(binp, io, repeat, threads, env_add):
    """The harness's median over `repeat` runs, in ms; libgomp's defaults unless env_add."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("OMP_WAIT_POLICY", None)
    env.update(env_add)
    r = subprocess.run([binp, io, io, str(repeat)], capture_output=True, text=True, env=env, timeout=3600)
    m = re.search(r"median_ms=([\d.]+)", r.stdout)
    if r.returncode or not m:
        raise RuntimeError("%s failed: %s" % (binp, r.stderr.strip()[-200:]))
    return float(m.group(1))


# label suffix, --threads, gcc flags, environment: 2 threads on OpenMP's team
# (libgomp's defaults, as a user gets them), 1 thread, 2 application threads
# (NAME_run_thread on the harness's pthreads, templates/main_team.c)
BUILDS = [("2T", 2, "-fopenmp", {}), ("1T", 1, "", {}), ("2T-app", 2, "-pthread -DCTVM_MAIN_TEAM=2", {})]


def one_model(name, a, vlog):
    model = run_zoo.Model(os.path.join(CACHE, MODELS[name]))
    engines = []  # (label, binary, io dir, threads, env) or ("ort2T", None, (session, feed), 2, None)
    emits = [("ctvm", a.emit)] + ([("base", a.base_emit)] if a.base_emit else [])
    for label, emit in emits:
        for suffix, th, flags, env in BUILDS:
            binp, io = prepare(model, a.work, label + suffix, emit, th, a.cflags + " " + flags, vlog)
            engines.append((label + suffix, binp, io, th, env))
            if a.omp_passive and suffix == "2T":
                engines.append((label + "2T-passive", binp, io, th, {"OMP_WAIT_POLICY": "passive"}))
    if a.build_only:
        return None
    s = model.ort_session(2)
    feed = {i.name: model.inputs[i.name] for i in s.get_inputs()}
    s.run(None, feed)
    engines.append(("ort2T", None, (s, feed), 2, None))
    per_round = {e[0]: [] for e in engines}
    load = []
    for rnd in range(a.rounds):
        k = rnd % len(engines)
        for label, binp, io, th, env in engines[k:] + engines[:k]:
            if binp is not None:
                per_round[label].append(run_binary(binp, io, a.burst, th, env))
            else:
                sess, fd = io
                sess.run(None, fd)
                ts = []
                for _ in range(a.burst):
                    t0 = time.perf_counter()
                    sess.run(None, fd)
                    ts.append((time.perf_counter() - t0) * 1e3)
                per_round[label].append(statistics.median(ts))
        load.append(float(open("/proc/loadavg").read().split()[0]))
        log("%s round %d/%d: %s" % (name, rnd + 1, a.rounds,
                                    " ".join("%s %.2f" % (e, v[-1]) for e, v in per_round.items())))
    med = {e: statistics.median(v) for e, v in per_round.items()}
    return {"model": name, "median_ms": med, "rounds_ms": per_round, "loadavg": load}


def report(results, a):
    lines = ["host: %s, %d CPUs; %d busy processes; %d rounds x %d runs; gcc %s" %
             (cpu_model(), os.cpu_count(), a.busy, a.rounds, a.burst, a.cflags),
             "medians of the rounds' medians, ms; ratios: 2T/ORT2T (target <= 1.0), 2T/1T (target <= 1.2)"]
    labels = list(results[0]["median_ms"])
    twos = [e for e in labels if "2T" in e and e != "ort2T"]
    lines.append("| model | " + " | ".join(labels) + " | " +
                 " | ".join("%s/ORT2T | %s/%s1T" % (e, e, e.split("2T")[0]) for e in twos) + " |")
    lines.append("|---" * (1 + len(labels) + 2 * len(twos)) + "|")
    for r in results:
        m = r["median_ms"]
        row = "| %s | " % r["model"] + " | ".join("%.2f" % m[e] for e in labels)
        for e in twos:
            row += " | %.2f | %.2f" % (m[e] / m["ort2T"], m[e] / m[e.split("2T")[0] + "1T"])
        lines.append(row + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", default="mobilenet_v2,resnet18,bert_mini")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--burst", type=int, default=5, help="runs per engine per round")
    ap.add_argument("--emit", default=os.path.join(ROOT, "build", "ctvm-emit"))
    ap.add_argument("--base-emit", help="another ctvm-emit to time in the same rounds")
    ap.add_argument("--cflags", default="-O2")
    ap.add_argument("--busy", type=int, default=0, help="busy processes running (busy.sh says)")
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "out", "busy"))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--build-only", action="store_true", help="build and check the binaries, time nothing")
    ap.add_argument("--omp-passive", action="store_true",
                    help="also time the OpenMP build with OMP_WAIT_POLICY=passive")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    results = []
    with open(os.path.join(a.work, "build.log"), "w") as vlog:
        for name in a.models.split(","):
            results.append(one_model(name, a, vlog))
    if a.build_only:
        return
    text = report(results, a)
    print(text)
    if a.json:
        json.dump({"busy": a.busy, "cflags": a.cflags, "host": cpu_model(), "results": results},
                  open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
