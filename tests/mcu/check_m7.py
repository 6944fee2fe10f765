#!/usr/bin/python3
"""check_m7.py - compare what the Cortex-M7 firmware printed under QEMU
(tests/mcu/run_m7.sh, main_m7.c) with the reference (PyTorch, or ORT for int8):

    check_m7.py qemu.log outputs.npz KEY [RTOL ATOL]

The log must hold "ctvm-m7: start", one "out[i] = 0xXXXXXXXX" line (the bits
of a float32) for every element of KEY, and "ctvm-m7: done". Passes when
max|out - ref| <= ATOL + RTOL * max|ref| (defaults 1e-3 and 1e-4, the
project's end-to-end tolerance). Prints the outputs and the max abs error;
exit 1 on a mismatch or a malformed log."""
import re
import struct
import sys
import numpy as np


def main():
    if len(sys.argv) not in (4, 6):
        sys.exit("usage: check_m7.py qemu.log outputs.npz KEY [RTOL ATOL]")
    log, npz, key = sys.argv[1:4]
    rtol, atol = (float(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) == 6 else (1e-3, 1e-4)
    ref = np.load(npz)[key].astype(np.float32).ravel()
    text = open(log, errors="replace").read()
    if "ctvm-m7: start" not in text or "ctvm-m7: done" not in text:
        sys.exit("check_m7: the firmware did not print its start and done lines")
    got = {}
    for m in re.finditer(r"^out\[(\d+)\] = 0x([0-9a-f]{8})$", text, re.M):
        i = int(m.group(1))
        if i in got:
            sys.exit(f"check_m7: out[{i}] printed twice")
        got[i] = struct.unpack("<f", struct.pack("<I", int(m.group(2), 16)))[0]
    if sorted(got) != list(range(ref.size)):
        sys.exit(f"check_m7: expected out[0..{ref.size - 1}], got indices {sorted(got)}")
    out = np.array([got[i] for i in range(ref.size)], dtype=np.float32)
    for i, (o, r) in enumerate(zip(out, ref)):
        print(f"  out[{i}] = {o:.9g}  (reference {r:.9g})")
    if not np.all(np.isfinite(out)):
        print("check_m7: FAIL, non-finite output")
        return 1
    err = float(np.max(np.abs(out.astype(np.float64) - ref)))
    tol = atol + rtol * float(np.max(np.abs(ref)))
    verdict = "ok" if err <= tol else "FAIL"
    print(f"check_m7: {verdict}, max abs error {err:.3g} (tolerance {tol:.3g})")
    return 0 if err <= tol else 1


if __name__ == "__main__":
    sys.exit(main())
