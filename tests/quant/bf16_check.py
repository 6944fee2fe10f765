#!/usr/bin/env python3
"""bf16_check.py - bfloat16 products on AVX512-BF16 (issue 22): the models
of tests/quant/bf16_models.py, emitted and run on each target, against
float64 numpy references computed from the bfloat16 operands (ONNX Runtime's
CPU provider has no bfloat16 MatMul or Gemm kernel: "Could not find an
implementation for MatMul(13)", onnxruntime 1.32, so it cannot be the
reference here).

x86 and generic files are built without ISA flags (gcc -O2, as the stamp
says). Per model and target: max|err| <= REL * max|ref| (float32 accumulation of
exact products; one bfloat16 step for a bfloat16 output), and the generated
C calls ctvm_vdot_bf16 in a kernel exactly when the target has vdpbf16ps
and both operands are bfloat16 (mm, gemm, chain, mm_out), never for the
zoo's form (float32 activations, bfloat16 weights), an odd K or a Gemm
alpha that takes B off bfloat16 (gemm_a3).
On the bf16 target, mm, gemm, gemv and gemm_ab must moreover equal bit for
bit the float32 sums vdpbf16ps makes (odd product, then even, per k pair,
bias added after; bf16_models.vdp). "chain" declares its middle value bfloat16: the bf16 target rounds it
(reference "y"), the others compute it in float32 as before (reference
"y_unrounded"). Prints "bf16: N passed, N failed"; exits 1 on a failure.
Usage: bf16_check.py [--emit build/ctvm-emit] [--run build/ctvm-run] [TARGETS...]
(default targets: native generic aarch64; native must be x86_64-avx512-bf16
for the vdpbf16ps assertions, else they expect the fallback)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import bf16_models  # noqa: E402

REL = {"mm": 2e-5, "gemm": 2e-5, "chain": 2e-5, "oddk": 2e-5, "zoo": 2e-5, "mm_out": 2.0 ** -8, "gemv": 2e-5,
       "gemm_ab": 2e-5, "gemm_a3": 2e-5}
BF16_PATH = {"mm", "gemm", "chain", "mm_out", "gemv", "gemm_ab"}


def kernel_dots(c_path):
    """calls of ctvm_vdot_bf16 outside the vector header (its own lines are 'static ...' or in comments)"""
    n = 0
    with open(c_path, errors="replace") as f:
        for line in f:
            if "ctvm_vdot_bf16(acc" in line and "static" not in line:
                n += 1
    return n


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emit", default=os.path.join(ROOT, "build", "ctvm-emit"))
    ap.add_argument("--run", default=os.path.join(ROOT, "build", "ctvm-run"))
    ap.add_argument("targets", nargs="*", default=["native", "generic", "aarch64"])
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ctvm-bf16-")
    bf16_models.main(tmp)
    ok = bad = 0
    for t in a.targets:
        has = t == "x86_64-avx512-bf16"
        if t == "native":  # what native is on this host: the stamp of an emitted file says
            probe = os.path.join(tmp, "probe.c")
            subprocess.run([a.emit, os.path.join(tmp, "mm.onnx"), "-o", probe, "--target", t], check=True)
            with open(probe, errors="replace") as f:
                has = "x86_64-avx512-bf16" in f.read(4000)
        for m in sorted(REL):
            onnx_path = os.path.join(tmp, m + ".onnx")
            c_path = os.path.join(tmp, "%s_%s.c" % (m, t))
            out = os.path.join(tmp, "%s_%s_out.npz" % (m, t))
            msg = []
            r = subprocess.run([a.emit, onnx_path, "-o", c_path, "--target", t], capture_output=True, text=True)
            if r.returncode:
                msg.append("emit failed: " + r.stderr.strip()[-300:])
            else:
                dots = kernel_dots(c_path)
                want = has and m in BF16_PATH
                if (dots > 0) != want:
                    msg.append("ctvm_vdot_bf16 calls %d, expected %s" % (dots, "some" if want else "none"))
                # x86 and generic built as the user builds them: gcc -O2, no ISA flags (the file
                # enables AVX-512 + VNNI + BF16 itself)
                plain = ["--no-isa-flags"] if t in ("native", "generic") or t.startswith("x86_64") else []
                r = subprocess.run([a.run, onnx_path, "--inputs", os.path.join(tmp, m + ".npz"), "--output", out,
                                    "--target", t] + plain, capture_output=True, text=True)
                if r.returncode:
                    msg.append("run failed: " + (r.stdout + r.stderr).strip()[-300:])
            if not msg:
                refs = np.load(os.path.join(tmp, m + "_ref.npz"))
                ref = refs["y" if has or m != "chain" else "y_unrounded"]
                y = np.load(out)["y"]
                if y.dtype.names:  # bfloat16 output: a structured uint16 field
                    y = y[y.dtype.names[0]]
                if y.dtype == np.uint16:
                    y = bf16_value(y)
                err = float(np.abs(y.astype(np.float64) - ref).max()) / float(np.abs(ref).max())
                exact = has and "y_vdp" in refs.files
                if exact and not np.array_equal(y.astype(np.float32).view(np.uint32), refs["y_vdp"].view(np.uint32)):
                    msg.append("not bit-identical to vdpbf16ps's float32 sums (%d elements differ)" %
                               int((y.astype(np.float32) != refs["y_vdp"]).sum()))
                elif not err <= REL[m]:
                    msg.append("max|err|/max|ref| %.3g > %.3g" % (err, REL[m]))
                else:
                    msg.append("max|err|/max|ref| %.3g%s%s" % (err, ", vdpbf16ps" if has and m in BF16_PATH else "",
                                                               ", bit-identical to its float32 sums" if exact else ""))
                    print("ok   %-8s %-20s %s" % (m, t, msg[-1]))
                    ok += 1
                    continue
            bad += 1
            print("FAIL %-8s %-20s %s" % (m, t, "; ".join(msg)))
    shutil.rmtree(tmp, ignore_errors=True)
    print("bf16: %d passed, %d failed" % (ok, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
