#!/usr/bin/python3
# Cross-checks golden data without ONNX Runtime: a small ONNX interpreter built
# on torch ops (only the op types the golden models use) runs model.onnx on
# inputs.npz and compares with outputs.npz.  This catches an exporter that wrote
# a graph disagreeing with the PyTorch module it came from.
#
# Usage: /usr/bin/python3 golden/check_golden.py DIR [DIR ...]
#        (each DIR holds model.onnx, inputs.npz, outputs.npz; e.g. golden/small_cnn
#         or ~/.cache/ctvm/models/resnet18)
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn.functional as F


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def pad_nchw(x, pads, value):
    # ONNX pads: [top, left, bottom, right]; F.pad wants (left, right, top, bottom)
    t, l, b, r = pads
    return F.pad(x, (l, r, t, b), value=value)


def pool(x, a, kind):
    k = a["kernel_shape"]
    s = a.get("strides", [1] * len(k))
    p = a.get("pads", [0] * 2 * len(k))
    ceil = bool(a.get("ceil_mode", 0))
    if a.get("dilations", [1, 1]) != [1, 1]:
        raise NotImplementedError("pool dilations")
    sym = p[0] == p[2] and p[1] == p[3] and p[0] * 2 <= k[0] and p[1] * 2 <= k[1]
    if kind == "max":
        if not sym:
            return F.max_pool2d(pad_nchw(x, p, float("-inf")), k, s, 0, ceil_mode=ceil)
        return F.max_pool2d(x, k, s, (p[0], p[1]), ceil_mode=ceil)
    cip = bool(a.get("count_include_pad", 0))
    if not sym:
        raise NotImplementedError("asymmetric AveragePool pads")
    return F.avg_pool2d(x, k, s, (p[0], p[1]), ceil_mode=ceil, count_include_pad=cip)


def conv(x, w, b, a):
    p = a.get("pads", [0, 0, 0, 0])
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise NotImplementedError("auto_pad")
    if p[0] != p[2] or p[1] != p[3]:
        x = pad_nchw(x, p, 0.0)
        p = [0, 0, 0, 0]
    return F.conv2d(x, w, b, a.get("strides", [1, 1]), (p[0], p[1]),
                    a.get("dilations", [1, 1]), a.get("group", 1))


def gemm(A, B, C, a):
    if a.get("transA", 0):
        A = A.t()
    if a.get("transB", 0):
        B = B.t()
    y = a.get("alpha", 1.0) * (A @ B)
    if C is not None:
        y = y + a.get("beta", 1.0) * C
    return y


def run(model, feeds):
    env = {k: torch.from_numpy(np.array(v)) for k, v in feeds.items()}
    for init in model.graph.initializer:
        env[init.name] = torch.from_numpy(onnx.numpy_helper.to_array(init).copy())
    for n in model.graph.node:
        a = attrs(n)
        i = [env[name] if name else None for name in n.input]
        t = n.op_type
        if t == "Constant":
            out = [torch.from_numpy(onnx.numpy_helper.to_array(a["value"]).copy())]
        elif t == "Identity":
            out = [i[0]]
        elif t == "Conv":
            out = [conv(i[0], i[1], i[2] if len(i) > 2 else None, a)]
        elif t == "BatchNormalization":
            out = [F.batch_norm(i[0], i[3], i[4], i[1], i[2], False, 0.0, a.get("epsilon", 1e-5))]
        elif t == "Relu":
            out = [torch.relu(i[0])]
        elif t == "Clip":
            lo = i[1] if len(i) > 1 and i[1] is not None else None
            hi = i[2] if len(i) > 2 and i[2] is not None else None
            out = [torch.clamp(i[0], lo.item() if lo is not None else None, hi.item() if hi is not None else None)]
        elif t == "MaxPool":
            out = [pool(i[0], a, "max")]
        elif t == "AveragePool":
            out = [pool(i[0], a, "avg")]
        elif t == "GlobalAveragePool":
            out = [i[0].mean(dim=(2, 3), keepdim=True)]
        elif t == "ReduceMean":
            out = [i[0].mean(dim=tuple(a["axes"]), keepdim=bool(a.get("keepdims", 1)))]
        elif t in ("Add", "Sub", "Mul", "Div"):
            x, y = i
            if t == "Div" and not x.is_floating_point():
                out = [torch.div(x, y, rounding_mode="trunc")]
            else:
                out = [{"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div}[t](x, y)]
        elif t == "Concat":
            out = [torch.cat(i, dim=a["axis"])]
        elif t == "Flatten":
            ax = a.get("axis", 1)
            out = [i[0].reshape(int(np.prod(i[0].shape[:ax])), -1)]
        elif t == "Reshape":
            shape = [int(d) for d in i[1]]
            shape = [i[0].shape[k] if d == 0 else d for k, d in enumerate(shape)]
            out = [i[0].reshape(shape)]
        elif t == "Transpose":
            out = [i[0].permute(*a["perm"])]
        elif t == "Shape":
            out = [torch.tensor(list(i[0].shape), dtype=torch.int64)]
        elif t == "Gather":
            out = [torch.index_select(i[0], a.get("axis", 0), i[1].reshape(-1)).reshape(
                list(i[0].shape[:a.get("axis", 0)]) + list(i[1].shape) + list(i[0].shape[a.get("axis", 0) + 1:]))]
        elif t == "Unsqueeze":
            y = i[0]
            for ax in sorted(int(v) for v in i[1]):
                y = y.unsqueeze(ax)
            out = [y]
        elif t == "Slice":
            x = i[0]
            starts, ends = i[1].tolist(), i[2].tolist()
            axes = i[3].tolist() if len(i) > 3 and i[3] is not None else list(range(len(starts)))
            steps = i[4].tolist() if len(i) > 4 and i[4] is not None else [1] * len(starts)
            idx = [slice(None)] * x.dim()
            for st, en, ax, sp in zip(starts, ends, axes, steps):
                if sp != 1:
                    raise NotImplementedError("Slice step != 1")
                dim = x.shape[ax]
                st = max(0, min(dim, st + dim if st < 0 else st))
                en = max(0, min(dim, en + dim if en < 0 else en))
                idx[ax] = slice(st, en)
            out = [x[tuple(idx)]]
        elif t == "Split":
            ax = a.get("axis", 0)
            if len(i) > 1 and i[1] is not None:
                sizes = i[1].tolist()
            else:
                sizes = [i[0].shape[ax] // len(n.output)] * len(n.output)
            out = list(torch.split(i[0], sizes, dim=ax))
        elif t == "Gemm":
            out = [gemm(i[0], i[1], i[2] if len(i) > 2 else None, a)]
        elif t == "Softmax":
            out = [torch.softmax(i[0], dim=a.get("axis", -1))]
        else:
            raise NotImplementedError("op %s" % t)
        for name, v in zip(n.output, out):
            env[name] = v
    return {o.name: env[o.name].numpy() for o in model.graph.output}


def check(d, rtol=1e-4, atol=1e-4):
    model = onnx.load(d + "/model.onnx")
    feeds = dict(np.load(d + "/inputs.npz"))
    want = dict(np.load(d + "/outputs.npz"))
    with torch.no_grad():
        got = run(model, feeds)
    ok = True
    for k, w in want.items():
        g = got[k]
        err = float(np.abs(g - w).max())
        scale = float(np.abs(w).max())
        good = g.shape == w.shape and np.allclose(g, w, rtol=rtol, atol=atol)
        ok &= good
        print("%s %s: %s shape=%s max|want|=%.4g max|got-want|=%.3g"
              % ("ok  " if good else "FAIL", d, k, w.shape, scale, err))
    return ok


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__ or "usage: check_golden.py DIR [DIR ...]", file=sys.stderr)
        sys.exit(2)
    torch.set_num_threads(2)
    results = [check(d.rstrip("/")) for d in sys.argv[1:]]
    sys.exit(0 if all(results) else 1)
