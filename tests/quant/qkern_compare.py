"""qkern_compare.py OUT.npz REF.npz - exit 1 unless ctvm's output matches
ONNX Runtime's: int32 exactly; uint8/int8 within one step everywhere and
equal on >= 99.9% of the elements. Prints the figures."""
import sys

import numpy as np

out, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
ok = True
for k in ref.files:
    a, b = out[k], ref[k]
    if a.shape != b.shape or a.dtype != b.dtype:
        print(f"{k}: {a.dtype}{a.shape} vs ORT {b.dtype}{b.shape}")
        ok = False
        continue
    diff = np.abs(a.astype(np.int64) - b.astype(np.int64))
    eq = float((diff == 0).mean())
    good = diff.max() == 0 if b.dtype == np.int32 else (diff.max() <= 1 and eq >= 0.999)
    print(f"{k}: {b.dtype} max|diff|={diff.max()} equal={100 * eq:.3f}% {'ok' if good else 'WRONG'}")
    ok = ok and good
sys.exit(0 if ok else 1)
