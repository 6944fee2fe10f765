"""odd_shapes.py OUT_DIR [CASE...] - small ONNX models with awkward shapes
(channel counts that are not a multiple of 16/8/4, 1x1 and tiny spatial
sizes, widths that leave tails, strides, asymmetric pads, dilation, groups,
ceil_mode, odd GEMM sizes, broadcasting) and reference outputs computed with
torch.nn.functional, independently of ctvm. They target the edge cases of
blocked-layout / register-tiled / vectorized schedules.

Writes OUT_DIR/<case>/{model.onnx,inputs.npz,outputs.npz} (npz keyed by the
ONNX input/output names, like golden/) and OUT_DIR/cases.txt, one line per
case: "name rtol atol". A case passes when max|err| <= atol + rtol*max|ref|.

Models are opset 13, float32, with seeded weights and N(0,1) inputs; each
case draws from its own generator seeded by the case name, so adding a case
changes no other. The references are computed in float64 from the float32
inputs and weights and rounded to float32, so they measure ctvm's error only.

Run with /usr/bin/python3 (Debian's torch and onnx)."""
import os
import sys
import zlib

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

# tolerance of the single-operator conformance cases
RTOL, ATOL = 1e-4, 1e-5
# for long reductions (thousands of terms summed in float32, in an order
# that a blocked/vectorized schedule is free to change): the rounding error
# of a float32 sum grows with the number of terms
RTOL_LONG, ATOL_LONG = 1e-3, 1e-4

CASES = []


def case(rtol=RTOL, atol=ATOL):
    def reg(fn):
        CASES.append((fn.__name__, fn, rtol, atol))
        return fn
    return reg


class V:
    """A value in the graph: its ONNX name and its float64 torch reference."""
    def __init__(self, name, t):
        self.name, self.t = name, t


class G:
    def __init__(self, name):
        self.name = name
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.feeds, self.refs, self.count = {}, {}, 0
        self.opset = 13  # a case using a newer operator raises it

    def fresh(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def input(self, shape, lo=None):
        """A runtime input, N(0,1) (or U(lo, lo+1) when lo is given)."""
        name = "x%d" % len(self.inputs)
        a = self.rng.standard_normal(shape) if lo is None else lo + self.rng.random(shape)
        a = np.asarray(a, dtype=np.float32)
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        self.feeds[name] = a
        return V(name, torch.from_numpy(a).double())

    def const(self, a, prefix="c"):
        a = np.asarray(a, dtype=np.float32)
        name = self.fresh(prefix)
        self.inits.append(numpy_helper.from_array(a, name))
        return V(name, torch.from_numpy(a).double())

    def rand(self, shape, scale=1.0, prefix="w", lo=None):
        a = self.rng.standard_normal(shape) * scale if lo is None else lo + self.rng.random(shape)
        return self.const(a, prefix)

    def op(self, op_type, ins, t, **attrs):
        name = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, [i.name for i in ins], [name], name=name, **attrs))
        return V(name, t)

    def output(self, *vs):
        for v in vs:
            r = np.ascontiguousarray(v.t.float().numpy())
            self.outputs.append(helper.make_tensor_value_info(v.name, TensorProto.FLOAT, list(r.shape)))
            self.refs[v.name] = r

    def save(self, d):
        g = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="odd_shapes.py")
        if self.opset <= onnx.defs.onnx_opset_version():  # Debian's onnx knows opsets to 17
            onnx.checker.check_model(m)
        os.makedirs(d, exist_ok=True)
        onnx.save(m, os.path.join(d, "model.onnx"))
        np.savez(os.path.join(d, "inputs.npz"), **self.feeds)
        np.savez(os.path.join(d, "outputs.npz"), **self.refs)
        for k, r in self.refs.items():
            if not np.all(np.isfinite(r)):
                raise RuntimeError("%s: output %s is not finite" % (self.name, k))


# --- operators: each adds the ONNX node and computes the reference -------------

def conv(g, x, oc, k=3, stride=1, pads=None, dil=1, group=1, bias=True):
    """pads: ONNX order [top, left, bottom, right]; default 'same-ish' (k//2)."""
    kh, kw = (k, k) if isinstance(k, int) else k
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    if pads is None:
        pads = [dil * (kh // 2), dil * (kw // 2)] * 2
    c = x.t.shape[1]
    fan_in = c // group * kh * kw
    w = g.rand((oc, c // group, kh, kw), 1.0 / np.sqrt(fan_in), "w")
    b = g.rand((oc,), 0.1, "b") if bias else None
    t, l, bt, r = pads
    y = F.conv2d(F.pad(x.t, (l, r, t, bt)), w.t, b.t if bias else None, (sh, sw), 0, dil, group)
    ins = [x, w] + ([b] if bias else [])
    return g.op("Conv", ins, y, kernel_shape=[kh, kw], strides=[sh, sw], pads=list(pads),
                dilations=[dil, dil], group=group)


def convnd(g, x, oc, k, stride=1, pads=None, dil=1, group=1, bias=True):
    """1-D or 3-D Conv (k a tuple, one entry per spatial axis); pads in ONNX
    order (begins, then ends), default k//2 * dil on both sides."""
    ns = len(k)
    st = [stride] * ns if isinstance(stride, int) else list(stride)
    dl = [dil] * ns if isinstance(dil, int) else list(dil)
    if pads is None:
        pads = [dl[i] * (k[i] // 2) for i in range(ns)] * 2
    c = x.t.shape[1]
    w = g.rand((oc, c // group) + tuple(k), 1.0 / np.sqrt(c // group * int(np.prod(k))), "w")
    b = g.rand((oc,), 0.1, "b") if bias else None
    tp = []
    for i in reversed(range(ns)):  # F.pad lists the last axis first
        tp += [pads[i], pads[ns + i]]
    f = F.conv1d if ns == 1 else F.conv3d
    y = f(F.pad(x.t, tp), w.t, b.t if bias else None, st, 0, dl, group)
    ins = [x, w] + ([b] if bias else [])
    return g.op("Conv", ins, y, kernel_shape=list(k), strides=st, pads=list(pads), dilations=dl, group=group)


def convtr(g, x, oc, k, stride=1, pad=0, outpad=0, dil=1, group=1, bias=True, output_shape=None):
    """ConvTranspose in 1-3 D with symmetric pads; when output_shape (spatial)
    is given, the ONNX node states it instead of output_padding (which
    torch still gets, and which must give that shape)."""
    ns = len(k)
    st = [stride] * ns if isinstance(stride, int) else list(stride)
    dl = [dil] * ns if isinstance(dil, int) else list(dil)
    pd = [pad] * ns if isinstance(pad, int) else list(pad)
    op = [outpad] * ns if isinstance(outpad, int) else list(outpad)
    c = x.t.shape[1]
    w = g.rand((c, oc // group) + tuple(k), 1.0 / np.sqrt(c // group * int(np.prod(k))), "w")
    b = g.rand((oc,), 0.1, "b") if bias else None
    f = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[ns]
    y = f(x.t, w.t, b.t if bias else None, st, pd, op, group, dl)
    attrs = dict(kernel_shape=list(k), strides=st, pads=pd + pd, dilations=dl, group=group)
    if output_shape is not None:
        attrs["output_shape"] = list(output_shape)
        assert list(y.shape[2:]) == list(output_shape)
    else:
        attrs["output_padding"] = op
    ins = [x, w] + ([b] if bias else [])
    return g.op("ConvTranspose", ins, y, **attrs)


def relu(g, x):
    return g.op("Relu", [x], torch.relu(x.t))


def clip(g, x, lo, hi):
    return g.op("Clip", [x, g.const(np.float32(lo), "min"), g.const(np.float32(hi), "max")],
                torch.clamp(x.t, lo, hi))


def unary(g, op, x):
    f = {"Relu": torch.relu, "Sigmoid": torch.sigmoid, "Tanh": torch.tanh, "Exp": torch.exp}[op]
    return g.op(op, [x], f(x.t))


def binary(g, op, a, b):
    f = {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div}[op]
    return g.op(op, [a, b], f(a.t, b.t))


def maxpool(g, x, k, stride, pads=(0, 0, 0, 0), ceil=0, dil=1):
    t, l, bt, r = pads
    if t == bt and l == r:
        y = F.max_pool2d(x.t, k, stride, (t, l), dil, bool(ceil))
    else:  # asymmetric: pad with -inf (floor mode only)
        assert not ceil
        y = F.max_pool2d(F.pad(x.t, (l, r, t, bt), value=-np.inf), k, stride, 0, dil)
    return g.op("MaxPool", [x], y, kernel_shape=[k, k], strides=[stride, stride], pads=list(pads),
                ceil_mode=ceil, dilations=[dil, dil])


def avgpool(g, x, k, stride, pad=0, ceil=0, include_pad=0):
    y = F.avg_pool2d(x.t, k, stride, pad, bool(ceil), bool(include_pad))
    return g.op("AveragePool", [x], y, kernel_shape=[k, k], strides=[stride, stride],
                pads=[pad] * 4, ceil_mode=ceil, count_include_pad=include_pad)


def gap(g, x):
    return g.op("GlobalAveragePool", [x], x.t.mean(dim=(2, 3), keepdim=True))


def gmp(g, x):
    return g.op("GlobalMaxPool", [x], x.t.amax(dim=(2, 3), keepdim=True))


def flatten(g, x):
    return g.op("Flatten", [x], torch.flatten(x.t, 1), axis=1)


def gemm(g, a, b, c=None, alpha=1.0, beta=1.0, ta=0, tb=0):
    at = a.t.T if ta else a.t
    bt = b.t.T if tb else b.t
    y = alpha * (at @ bt)
    if c is not None:
        y = y + beta * c.t
    ins = [a, b] + ([c] if c is not None else [])
    return g.op("Gemm", ins, y, alpha=float(alpha), beta=float(beta), transA=ta, transB=tb)


def linear(g, x, n):
    k = x.t.shape[1]
    return gemm(g, x, g.rand((n, k), 1 / np.sqrt(k)), g.rand((n,), 0.1, "b"), tb=1)


def matmul(g, a, b):
    return g.op("MatMul", [a, b], torch.matmul(a.t, b.t))


def einsum(g, eq, *xs):
    return g.op("Einsum", list(xs), torch.einsum(eq, *[x.t for x in xs]), equation=eq)


def softmax(g, x, axis):
    return g.op("Softmax", [x], torch.softmax(x.t, dim=axis), axis=axis)


def concat(g, xs, axis):
    return g.op("Concat", xs, torch.cat([x.t for x in xs], dim=axis), axis=axis)


def ints(g, v, prefix):
    name = g.fresh(prefix)
    g.inits.append(numpy_helper.from_array(np.array(v, np.int64), name))
    return V(name, None)


def slice_(g, x, start, end, axis):
    idx = [slice(None)] * x.t.dim()
    idx[axis] = slice(start, end)
    return g.op("Slice", [x, ints(g, [start], "starts"), ints(g, [end], "ends"), ints(g, [axis], "axes")],
                x.t[tuple(idx)])


def split(g, x, sizes, axis):
    outs = [V(g.fresh("split"), t) for t in torch.split(x.t, sizes, dim=axis)]
    g.nodes.append(helper.make_node("Split", [x.name, ints(g, sizes, "sizes").name], [o.name for o in outs],
                                    name=g.fresh("split"), axis=axis))
    return outs


# --- Conv: odd channel counts ----------------------------------------------------

@case()
def conv_c3_oc5(g):
    g.output(conv(g, g.input([1, 3, 9, 9]), 5))


@case()
def conv_c5_oc13_s2(g):
    g.output(conv(g, g.input([1, 5, 13, 13]), 13, stride=2))


@case()
def conv_c7_oc31_h15w7(g):
    g.output(conv(g, g.input([1, 7, 15, 7]), 31))


@case()
def conv_c17_oc40_k1(g):
    g.output(conv(g, g.input([1, 17, 11, 11]), 40, k=1))


@case()
def conv_c33_oc1(g):
    g.output(conv(g, g.input([1, 33, 9, 9]), 1))


@case()
def conv_c16_oc16_s2_odd(g):  # aligned channels, odd spatial with stride 2 + pad
    g.output(conv(g, g.input([1, 16, 9, 15]), 16, stride=2))


# --- Conv: spatial edge cases ----------------------------------------------------

@case()
def conv_1x1_input_k1(g):  # H=W=1
    g.output(conv(g, g.input([1, 17, 1, 1]), 13, k=1))


@case()
def conv_1x1_input_k3_pad(g):  # H=W=1, a 3x3 kernel of which only the centre sees data
    g.output(conv(g, g.input([1, 5, 1, 1]), 31, k=3))


@case()
def conv_asym_pads(g):
    g.output(conv(g, g.input([1, 7, 7, 7]), 13, pads=[1, 0, 2, 1]))


@case()
def conv_asym_pads_s2(g):  # TF 'SAME' style: pad only at the end
    g.output(conv(g, g.input([1, 5, 13, 9]), 8, stride=2, pads=[0, 0, 1, 1]))


@case()
def conv_dil2(g):
    g.output(conv(g, g.input([1, 17, 13, 13]), 13, dil=2))


@case()
def conv_k5_nobias(g):
    g.output(conv(g, g.input([1, 3, 15, 15]), 16, k=5, bias=False))


@case()
def conv_k7_s2_stem(g):  # resnet-stem-like, odd H/W
    g.output(conv(g, g.input([1, 3, 29, 29]), 40, k=7, stride=2))


@case()
def conv_k1x3(g):
    g.output(conv(g, g.input([1, 5, 7, 17]), 13, k=(1, 3)))


@case()
def conv_k3x1(g):
    g.output(conv(g, g.input([1, 17, 17, 3]), 5, k=(3, 1)))


@case()
def conv_w1(g):
    g.output(conv(g, g.input([1, 8, 5, 1]), 16))


@case()
def conv_w2(g):
    g.output(conv(g, g.input([1, 3, 7, 2]), 13))


@case()
def conv_w3_s2(g):
    g.output(conv(g, g.input([1, 5, 4, 3]), 7, stride=2))


@case()
def conv_w17(g):
    g.output(conv(g, g.input([1, 16, 5, 17]), 31))


@case()
def conv_w29_k1(g):
    g.output(conv(g, g.input([1, 13, 3, 29]), 20, k=1))


@case()
def conv_w57(g):
    g.output(conv(g, g.input([1, 3, 3, 57]), 16))


@case()
def conv_n2(g):
    g.output(conv(g, g.input([2, 5, 9, 9]), 13, stride=2))


# --- Conv: groups ------------------------------------------------------------------

@case()
def conv_group2(g):  # 5 in / 3 out channels per group
    g.output(conv(g, g.input([1, 10, 9, 9]), 6, group=2))


@case()
def conv_group4(g):  # 3 in / 7 out channels per group
    g.output(conv(g, g.input([1, 12, 7, 11]), 28, group=4, bias=False))


@case()
def conv_group4_c32(g):  # 8 per group: aligned to 8 but not to 16
    g.output(conv(g, g.input([1, 32, 7, 7]), 32, group=4))


@case()
def conv_group_merge_blocked(g):  # 4 in / 4 out per group after a blocked conv: groups merged into blocks
    x = conv(g, g.input([1, 16, 9, 9]), 32, k=1)
    g.output(conv(g, x, 32, group=8))


@case()
def conv_group_merge_uneven(g):  # 13 groups of 8 after a blocked conv, + Relu: AVX-512 merges pairs, the last alone
    x = conv(g, g.input([1, 24, 11, 11]), 104, k=1)
    g.output(relu(g, conv(g, x, 104, group=13)))


@case()
def conv_group_merge_uneven4_s2(g):  # 7 groups of 4, stride 2: AVX2 merges pairs, AVX-512 fours, the last partial
    x = conv(g, g.input([1, 8, 10, 10]), 28, k=1)
    g.output(conv(g, x, 28, group=7, stride=2))


@case()
def conv_group_merge_plain(g):  # 2 in / 6 out per group on a graph input, stride 2: merged too
    g.output(conv(g, g.input([1, 16, 7, 7]), 48, group=8, stride=2))


@case()
def conv_dilated_regions(g):  # dilation 8 on 16x16: split into output regions of the real taps
    g.output(conv(g, g.input([1, 128, 16, 16]), 128, pads=(8, 8, 8, 8), dil=8))


@case()
def conv_dilated_regions_s2(g):  # stride 2, dilation 8, asymmetric end pad: regions too
    g.output(conv(g, g.input([1, 128, 20, 20]), 256, stride=2, pads=(8, 8, 7, 8), dil=8))


@case()
def conv_rows_outer(g):  # input over 256 KB, weights within: rows outermost, no chunks (SIMD targets)
    x = conv(g, g.input([1, 3, 190, 150]), 24, k=7, stride=2, pads=[3, 2, 3, 4])
    x = conv(g, relu(g, x), 72, k=1)
    g.output(conv(g, x, 72, k=3, group=18))


@case()
def conv_rows_outer_streamed(g):  # input and weights over 256 KB, no chunks: rows outermost (AVX2)
    g.output(conv(g, g.input([1, 64, 60, 60]), 1040, k=1, stride=2, pads=[0, 0, 0, 0]))


@case()
def conv_small_wide_tiles(g):  # 7x7 and 5x3 outputs, 7 and 5 channel blocks: 2-4 blocks a tile, with tails
    x = conv(g, g.input([1, 40, 7, 7]), 52, k=1)
    y = conv(g, x, 36, k=3)
    g.output(conv(g, conv(g, g.input([1, 24, 5, 3]), 36, k=3), 20, k=1))
    g.output(y)


@case()
def conv_deep_chunked(g):  # 320 blocked input channels, 3x3: the reduction runs in chunks (SIMD targets)
    x = conv(g, g.input([1, 32, 9, 9]), 320, k=1)
    g.output(conv(g, x, 40))


@case()
def conv_deep_chunked_residual_relu(g):  # chunks, then bias + residual Add + Relu on the last one
    x = conv(g, g.input([1, 16, 7, 7]), 640, k=1)
    a = conv(g, x, 24, k=1)
    g.output(relu(g, binary(g, "Add", conv(g, x, 24), a)))


@case()
def conv_dw_c3(g):
    g.output(conv(g, g.input([1, 3, 9, 9]), 3, group=3))


@case()
def conv_dw_c17(g):
    g.output(conv(g, g.input([1, 17, 7, 13]), 17, group=17, bias=False))


@case()
def conv_dw_c32_s2(g):
    g.output(conv(g, g.input([1, 32, 15, 15]), 32, stride=2, group=32))


@case()
def conv_dw_c17_mult2(g):  # depthwise with channel multiplier 2
    g.output(conv(g, g.input([1, 17, 9, 9]), 34, group=17))


@case()
def conv_dw_c5_n2_k5_s2(g):
    g.output(conv(g, g.input([2, 5, 11, 11]), 5, k=5, stride=2, group=5))


# --- Conv with epilogues and chains ----------------------------------------------

@case()
def conv_relu(g):
    g.output(relu(g, conv(g, g.input([1, 7, 9, 9]), 13)))


@case()
def conv_clip06(g):
    g.output(clip(g, conv(g, g.input([1, 5, 11, 11]), 17, stride=2), 0.0, 6.0))


@case()
def conv_add_residual_relu(g):  # Add of two convs (unaligned 13 channels) + Relu
    x = g.input([1, 13, 9, 9])
    a = relu(g, conv(g, x, 13))
    b = conv(g, a, 13)
    c = conv(g, x, 13, k=1)
    g.output(relu(g, binary(g, "Add", b, c)))


@case()
def conv_add_input_residual(g):  # residual from the graph input (plain NCHW)
    x = g.input([1, 17, 7, 7])
    g.output(relu(g, binary(g, "Add", conv(g, relu(g, conv(g, x, 17)), 17), x)))


# --- Winograd F(2x2,3x3) (pass winograd: 3x3 stride 1, >= 64 channels, >= 32
# tiles of 2x2 outputs, fewer than 32 of 4x4, blocked input, SIMD targets): odd output sizes leave
# half tiles. A 1x1 conv first, so the 3x3 ones read blocked inputs.

def wino_block(g, shape):
    x = relu(g, conv(g, g.input(shape), shape[1], k=1))
    y = relu(g, conv(g, x, shape[1]))                        # bias + Relu fused
    return relu(g, binary(g, "Add", conv(g, y, shape[1]), x))  # bias + residual Add + Relu


@case()
def wino_c64_n2_h7w7_res_relu(g):
    g.output(wino_block(g, [2, 64, 7, 7]))


@case()
def wino_c64_n2_h9w11_res_relu(g):
    g.output(wino_block(g, [2, 64, 9, 11]))


@case()
def wino_c72_oc70_h11w13_asym_nobias(g):  # channels off the blocks, asymmetric pads, plain output
    x = relu(g, conv(g, g.input([1, 72, 11, 13]), 72, k=1))
    g.output(conv(g, x, 70, pads=[1, 0, 0, 2], bias=False))


@case()
def wino_c64_h13w15_nopad(g):  # no padding: the last tiles read past the input's end
    x = conv(g, g.input([1, 64, 13, 15]), 64, k=1)
    g.output(conv(g, x, 64, pads=[0, 0, 0, 0]))


# --- Winograd F(4x4,3x3) (>= 64 input channels, >= 32 tiles of 4x4 outputs;
# tests/e2e.sh checks these four get it): outputs off the 4-grid leave tiles
# cut at the edge, on both axes.

@case()
def wino4_c64_h22w26_res_relu(g):
    g.output(wino_block(g, [1, 64, 22, 26]))


@case()
def wino4_c64_n2_h15w17_res_relu(g):
    g.output(wino_block(g, [2, 64, 15, 17]))


@case()
def wino4_c72_oc70_h25w27_asym_nobias(g):  # channels off the blocks, asymmetric pads
    x = relu(g, conv(g, g.input([1, 72, 25, 27]), 72, k=1))
    g.output(conv(g, x, 70, pads=[1, 0, 0, 2], bias=False))


@case()
def wino4_c64_h30w31_nopad(g):  # no padding: the last tiles read past the input's end
    x = conv(g, g.input([1, 64, 30, 31]), 64, k=1)
    g.output(conv(g, x, 64, pads=[0, 0, 0, 0]))


@case()
def conv_maxpool_conv(g):
    x = relu(g, conv(g, g.input([1, 3, 15, 15]), 17))
    x = maxpool(g, x, 3, 2, ceil=1)
    g.output(conv(g, x, 5))


@case()
def conv_avgpool_conv_n2(g):
    x = conv(g, g.input([2, 7, 9, 9]), 20)
    x = avgpool(g, x, 3, 2, pad=1)
    g.output(conv(g, x, 13))


@case()
def concat_aligned_conv(g):
    x = g.input([1, 8, 7, 7])
    c = concat(g, [relu(g, conv(g, x, 16)), relu(g, conv(g, x, 32, k=1))], 1)
    g.output(conv(g, c, 13))


@case()
def concat_unaligned_conv(g):
    x = g.input([1, 5, 9, 9])
    c = concat(g, [relu(g, conv(g, x, 7)), conv(g, x, 13, k=1), conv(g, x, 4)], 1)
    g.output(conv(g, c, 11))


@case()
def concat_conv_input(g):  # a conv output concatenated with the graph input
    x = g.input([1, 3, 8, 8])
    g.output(conv(g, concat(g, [x, relu(g, conv(g, x, 13))], 1), 8))


@case()
def concat_conv_width(g):  # concat on W, not channels
    x = g.input([1, 5, 6, 7])
    g.output(concat(g, [conv(g, x, 13), conv(g, x, 13, k=1)], 3))


@case()
def conv_gap_gemm_head(g):
    x = relu(g, conv(g, g.input([1, 3, 13, 13]), 17, stride=2))
    x = relu(g, conv(g, x, 40))
    g.output(linear(g, flatten(g, gap(g, x)), 10))


@case()
def conv_flatten_gemm(g):  # Flatten of a conv output: the NCHW element order matters
    x = relu(g, conv(g, g.input([1, 3, 5, 5]), 5))
    g.output(linear(g, flatten(g, x), 7))


@case()
def conv_silu(g):
    x = conv(g, g.input([1, 7, 9, 11]), 13)
    g.output(binary(g, "Mul", x, unary(g, "Sigmoid", x)))


@case()
def conv_bcast_add_mul(g):  # Add [C,1,1], Mul [1,1,H,W] on a conv output
    x = conv(g, g.input([1, 5, 7, 9]), 13)
    x = binary(g, "Add", x, g.rand((13, 1, 1), prefix="cb"))
    g.output(binary(g, "Mul", x, g.rand((1, 1, 7, 9), prefix="hw")))


@case()
def conv_softmax_channels(g):
    g.output(softmax(g, conv(g, g.input([1, 5, 7, 9]), 13), 1))


@case()
def conv_slice_channels(g):  # channels 5..18 of a 24-channel conv
    x = conv(g, g.input([1, 7, 7, 7]), 24)
    g.output(conv(g, slice_(g, x, 5, 19, 1), 5))


@case()
def conv_split_channels(g):  # Split 20 channels into 7 + 13, two outputs
    a, b = split(g, conv(g, g.input([1, 5, 9, 9]), 20), [7, 13], 1)
    g.output(conv(g, relu(g, a), 3), relu(g, b))


@case()
def conv_two_consumers(g):  # a conv output is both a graph output and an input
    x = conv(g, g.input([1, 3, 9, 9]), 17)
    g.output(x, maxpool(g, x, 2, 2))


@case()
def conv_transpose_nhwc(g):
    x = conv(g, g.input([1, 5, 7, 9]), 13)
    g.output(g.op("Transpose", [x], x.t.permute(0, 2, 3, 1), perm=[0, 2, 3, 1]))


@case()
def conv_reducemean_hw(g):
    x = conv(g, g.input([1, 7, 9, 11]), 13)
    g.output(g.op("ReduceMean", [x], x.t.mean(dim=(2, 3), keepdim=True), axes=[2, 3], keepdims=1))


# --- Pooling -----------------------------------------------------------------------

@case()
def maxpool_k2s2_odd(g):
    g.output(maxpool(g, g.input([1, 3, 9, 9]), 2, 2))


@case()
def maxpool_k3s2_ceil(g):
    g.output(maxpool(g, g.input([1, 17, 13, 14]), 3, 2, ceil=1))


@case()
def maxpool_k3s1_pad1(g):
    g.output(maxpool(g, g.input([1, 40, 7, 11]), 3, 1, pads=(1, 1, 1, 1)))


@case()
def maxpool_k3s2_pad1_ceil(g):  # the last ceil-mode window would start in the padding
    g.output(maxpool(g, g.input([2, 17, 10, 9]), 3, 2, pads=(1, 1, 1, 1), ceil=1))


@case()
def maxpool_k2s2_asym_pad(g):  # TF 'SAME' style padding at the end only
    g.output(maxpool(g, g.input([1, 5, 7, 9]), 2, 2, pads=(0, 0, 1, 1)))


@case()
def maxpool_all_negative_pad(g):  # U(-2,-1) input: padding must act as -inf, not 0
    x = g.input([1, 17, 7, 9], lo=-2.0)
    g.output(maxpool(g, x, 3, 2, pads=(1, 1, 1, 1), ceil=1), gmp(g, x))


@case()
def maxpool_dil2(g):
    g.output(maxpool(g, g.input([1, 3, 11, 11]), 3, 1, pads=(1, 1, 1, 1), dil=2))


@case()
def maxpool_w1(g):
    g.output(maxpool(g, g.input([1, 17, 9, 1]), 3, 2, pads=(1, 1, 1, 1)))


@case()
def avgpool_k2s2_ceil(g):
    g.output(avgpool(g, g.input([1, 3, 7, 7]), 2, 2, ceil=1))


@case()
def avgpool_k3s2_pad1_incl(g):
    g.output(avgpool(g, g.input([1, 17, 9, 9]), 3, 2, pad=1, include_pad=1))


@case()
def avgpool_k3s2_pad1_excl(g):
    g.output(avgpool(g, g.input([1, 40, 9, 11]), 3, 2, pad=1, include_pad=0))


@case()
def avgpool_k3s2_pad1_ceil_incl(g):  # overhang past the padding is not counted
    g.output(avgpool(g, g.input([1, 17, 8, 10]), 3, 2, pad=1, ceil=1, include_pad=1))


@case()
def avgpool_k3s1_pad1_excl_n2(g):
    g.output(avgpool(g, g.input([2, 3, 5, 13]), 3, 1, pad=1))


@case()
def globalavgpool_c17_n2(g):
    g.output(gap(g, g.input([2, 17, 7, 5])))


@case(RTOL_LONG, ATOL_LONG)
def globalavgpool_large_hw(g):
    # mean of 57*57 = 3249 terms of U(0.5,1.5) per channel (a non-zero mean, so
    # rtol matters): the worst-case relative error of a float32 sum of n
    # positive terms is about n*2^-24 = 1.9e-4, above the default rtol
    g.output(gap(g, g.input([1, 3, 57, 57], lo=0.5)))


@case()
def globalmaxpool_c40(g):
    g.output(gmp(g, g.input([1, 40, 5, 3])))


@case()
def globalpool_1x1(g):
    x = g.input([1, 33, 1, 1])
    g.output(gap(g, x), gmp(g, x))


# --- Gemm / MatMul -----------------------------------------------------------------

@case()
def gemm_m1_k257_n3_bias_n(g):
    g.output(gemm(g, g.input([1, 257]), g.rand((257, 3), 1 / 16), g.rand((3,), prefix="c")))


@case()
def gemm_m17_k33_n100_tb_bias_mn(g):
    g.output(gemm(g, g.input([17, 33]), g.rand((100, 33), 0.2), g.rand((17, 100), prefix="c"), tb=1))


@case()
def gemm_ta_alpha_beta_scalar(g):
    g.output(gemm(g, g.input([17, 33]), g.rand((17, 3), 0.25), g.const(np.float32(0.75), "c"),
                  alpha=0.5, beta=2.0, ta=1))


@case()
def gemm_ta_tb_bias_1n(g):
    g.output(gemm(g, g.input([100, 3]), g.rand((257, 100), 0.1), g.rand((1, 257), prefix="c"),
                  alpha=1.5, beta=-0.5, ta=1, tb=1))


@case()
def gemm_m100_k257_n17_nobias(g):
    g.output(gemm(g, g.input([100, 257]), g.rand((257, 17), 1 / 16)))


@case()
def gemm_bias_m1(g):  # C [M,1] broadcast along N
    g.output(gemm(g, g.input([33, 17]), g.rand((17, 5), 0.25), g.rand((33, 1), prefix="c")))


@case()
def gemm_two_inputs_n1(g):  # both operands at run time, N=1
    g.output(gemm(g, g.input([3, 17]), g.input([17, 1])))


@case()
def matmul_2d(g):
    g.output(matmul(g, g.input([17, 33]), g.rand((33, 100), 0.2)))


@case()
def matmul_matvec(g):  # [M,K] @ [K]
    g.output(matmul(g, g.input([17, 33]), g.rand((33,), 0.2)))


@case()
def matmul_vecmat(g):  # [K] @ [K,N]
    g.output(matmul(g, g.input([33]), g.rand((33, 5), 0.2)))


@case()
def matmul_batched_3d(g):
    g.output(matmul(g, g.input([3, 17, 33]), g.input([3, 33, 5])))


@case()
def matmul_4d_bcast_2d(g):
    g.output(matmul(g, g.input([2, 3, 5, 7]), g.rand((7, 9), 0.4)))


@case()
def matmul_4d_bcast_both(g):
    g.output(matmul(g, g.input([2, 1, 5, 7]), g.input([1, 3, 7, 9])))


@case()
def matmul_3d_m1(g):  # batched row vectors
    g.output(matmul(g, g.input([4, 1, 257]), g.rand((257, 17), 1 / 16)))


# --- Softmax -----------------------------------------------------------------------

@case()
def softmax_len1(g):
    g.output(softmax(g, g.input([5, 1, 3]), 1))


@case()
def softmax_len3_last(g):
    g.output(softmax(g, g.input([7, 3]), -1))


@case()
def softmax_len17_axis1(g):
    g.output(softmax(g, g.input([2, 17, 5]), 1))


@case()
def softmax_len17_axis0(g):
    g.output(softmax(g, g.input([17, 5, 3]), 0))


@case(RTOL_LONG, ATOL_LONG)
def einsum_bmm_odd(g):  # batched matrix product through the GEMM schedule, tails in m and n
    g.output(einsum(g, "bij,bjk->bik", g.input([3, 37, 45]), g.input([3, 45, 29])))


@case(RTOL_LONG, ATOL_LONG)
def einsum_three_operands(g):  # a chain of three, two reductions
    g.output(einsum(g, "ij,jk,kl->il", g.input([17, 23]), g.input([23, 31]), g.input([31, 19])))


@case(RTOL_LONG, ATOL_LONG)
def einsum_qk_transposed(g):  # attention scores: the column axis strided in its operand
    g.output(einsum(g, "bhqd,bhkd->bhqk", g.input([1, 3, 21, 16]), g.input([1, 3, 19, 16])))


@case(RTOL_LONG, ATOL_LONG)
def einsum_out_transposed(g):  # result written transposed
    g.output(einsum(g, "ij,jk->ki", g.input([37, 53]), g.input([53, 29])))


@case(RTOL_LONG, ATOL_LONG)
def conv1d_k5_s2_odd(g):  # 1-D: lowered to a blocked 2-D conv (pass lower_conv)
    g.output(convnd(g, g.input([2, 13, 101]), 19, (5,), stride=2))


@case(RTOL_LONG, ATOL_LONG)
def conv1d_dil3_group_chain(g):  # grouped, dilated, then a 1x1 and a relu
    x = convnd(g, g.input([1, 16, 57]), 24, (3,), dil=3, group=4)
    g.output(convnd(g, relu(g, x), 7, (1,), pads=[0, 2]))


@case(RTOL_LONG, ATOL_LONG)
def conv1d_depthwise_asym(g):  # depthwise, asymmetric pads
    g.output(convnd(g, g.input([1, 24, 40]), 24, (7,), pads=[1, 4], group=24))


@case(RTOL_LONG, ATOL_LONG)
def conv3d_k3_pad(g):  # depth taps become channels of a 2-D conv
    g.output(convnd(g, g.input([2, 5, 7, 9, 11]), 13, (3, 3, 3)))


@case(RTOL_LONG, ATOL_LONG)
def conv3d_stride_dil_group(g):  # depth stride 2, dilation 2 in depth, groups, asymmetric pads
    g.output(convnd(g, g.input([1, 8, 12, 10, 9]), 12, (3, 2, 3), stride=(2, 1, 2), dil=(2, 1, 1),
                    pads=[1, 0, 2, 2, 1, 0], group=4))


@case(RTOL_LONG, ATOL_LONG)
def conv3d_k1_depth(g):  # kernel depth 1: no gather, a transpose only
    g.output(convnd(g, g.input([1, 6, 5, 8, 8]), 10, (1, 3, 3)))


@case(RTOL_LONG, ATOL_LONG)
def convtranspose2d_s2_k4(g):  # the DCGAN upsampler: MatMul + Col2Im (pass lower_conv)
    g.output(convtr(g, g.input([2, 12, 7, 9]), 10, (4, 4), stride=2, pad=1))


@case(RTOL_LONG, ATOL_LONG)
def convtranspose2d_outpad_group_dil(g):
    g.output(convtr(g, g.input([1, 8, 6, 5]), 12, (3, 3), stride=(2, 3), pad=(1, 0), outpad=(1, 2),
                    dil=(1, 2), group=2))


@case(RTOL_LONG, ATOL_LONG)
def convtranspose2d_output_shape(g):  # output_shape instead of output_padding
    g.output(convtr(g, g.input([1, 5, 6, 6]), 7, (3, 3), stride=2, pad=1, outpad=1, output_shape=(12, 12)))


@case(RTOL_LONG, ATOL_LONG)
def convtranspose1d_s3(g):
    g.output(convtr(g, g.input([3, 9, 17]), 5, (5,), stride=3, pad=2, outpad=1))


@case(RTOL_LONG, ATOL_LONG)
def convtranspose3d_s2(g):
    g.output(convtr(g, g.input([1, 6, 3, 4, 5]), 4, (3, 3, 3), stride=2, pad=1, outpad=1, bias=False))


@case(RTOL_LONG, ATOL_LONG)
def matmul_packed_b_batched_a(g):  # constant B stored as column panels (pass pack_matmul), A [3,37,128]
    g.output(matmul(g, g.input([3, 37, 128]), g.rand((128, 64), 1 / np.sqrt(128))))


@case(RTOL_LONG, ATOL_LONG)
def gemm_packed_tb_alpha_beta(g):  # transB, alpha and beta folded into the panels and the bias
    g.output(gemm(g, g.input([50, 96]), g.rand((96, 96), 0.1), g.rand((96,), prefix="c"), alpha=0.5, beta=2.0, tb=1))


@case(RTOL_LONG, ATOL_LONG)
def gemm_packed_runtime_c(g):  # C a runtime input [M, N]
    g.output(gemm(g, g.input([41, 160]), g.rand((160, 48), 0.1), g.input([41, 48])))


@case(RTOL_LONG, ATOL_LONG)
def matmul_packed_gelu_read_major(g):  # panels over 1 MB back into rows in the panels' order, bias + erf Gelu
    x = g.input([2, 150, 64])
    y = binary(g, "Add", matmul(g, x, g.rand((64, 1024), 1 / 8)), g.rand((1024,), 0.1, "b"))
    e = g.op("Erf", [binary(g, "Div", y, g.const(np.float32(np.sqrt(2.0)), "r2"))],
             torch.erf(y.t / np.float32(np.sqrt(2.0))))
    half = binary(g, "Mul", y, g.const(np.float32(0.5), "h"))
    g.output(binary(g, "Mul", half, binary(g, "Add", e, g.const(np.float32(1.0), "one"))))


@case()
def transpose_read_major_tail(g):  # [130, 40, 67] of [40, 130, 67] (1.4 MB): input order, vector tails, + Relu
    x = g.input([40, 130, 67])
    t = g.op("Transpose", [x], x.t.permute(1, 0, 2), perm=[1, 0, 2])
    g.output(relu(g, binary(g, "Add", t, g.rand((67,), 0.5, "b"))))


@case(RTOL_LONG, ATOL_LONG)
def layernorm_vector_tail(g):  # rows of 77: nine vectors and a tail (AVX2), statistics per row
    g.opset = 17
    x, sc, b = g.input([7, 77]), g.rand((77,), prefix="s"), g.rand((77,), 0.1, "b")
    g.output(g.op("LayerNormalization", [x, sc, b], F.layer_norm(x.t, (77,), sc.t, b.t, 1e-5), axis=-1,
                  epsilon=1e-5))


@case(RTOL_LONG, ATOL_LONG)
def layernorm_two_axes(g):  # statistics over the last two axes
    g.opset = 17
    x, sc = g.input([3, 5, 19]), g.rand((5, 19), prefix="s")
    g.output(g.op("LayerNormalization", [x, sc], F.layer_norm(x.t, (5, 19), sc.t, None, 1e-5), axis=1,
                  epsilon=1e-5))


@case(RTOL_LONG, ATOL_LONG)
def instancenorm_odd(g):
    x, sc, b = g.input([2, 5, 9, 13]), g.rand((5,), prefix="s"), g.rand((5,), 0.1, "b")
    g.output(g.op("InstanceNormalization", [x, sc, b], F.instance_norm(x.t, weight=sc.t, bias=b.t, eps=1e-5),
                  epsilon=1e-5))


@case(RTOL_LONG, ATOL_LONG)
def reducesum_rows_tail(g):  # lanes along the reduced row (37 = 4 vectors + 5 on AVX2), keepdims 0
    x = g.input([6, 37])
    g.output(g.op("ReduceSum", [x, ints(g, [-1], "axes")], x.t.sum(dim=-1), keepdims=0))


@case(RTOL_LONG, ATOL_LONG)
def reducemax_spatial(g):  # max over H and W: two reduction axes, the inner one in lanes
    x = g.input([2, 3, 7, 19])
    g.output(g.op("ReduceMax", [x], x.t.amax(dim=(2, 3), keepdim=True), axes=[2, 3], keepdims=1))


@case(RTOL_LONG, ATOL_LONG)
def reducel2_rows(g):
    x = g.input([4, 50])
    g.output(g.op("ReduceL2", [x], x.t.norm(dim=1, keepdim=True), axes=[1], keepdims=1))


def attention(g, q, k, v, mask=None, causal=False, heads=None, scale=None):
    """Attention-23 over 4-D [B,H,S,D] or, with heads, 3-D [B,S,H*D]
    inputs; reference: softmax(q k^T * scale + mask + causal) v in torch."""
    g.opset = 23
    qt, kt, vt = q.t, k.t, v.t
    if heads:
        def split(t):
            b, s, hd = t.shape
            return t.reshape(b, s, heads, hd // heads).transpose(1, 2)
        qt, kt, vt = split(qt), split(kt), split(vt)
    sc = scale if scale is not None else 1.0 / np.sqrt(qt.shape[-1])
    s = qt @ kt.transpose(-1, -2) * sc
    if mask is not None:
        s = s + mask.t
    if causal:
        sq, t = s.shape[-2], s.shape[-1]
        s = s.masked_fill(torch.ones(sq, t, dtype=torch.bool).triu(1), float("-inf"))
    y = torch.softmax(s, dim=-1) @ vt
    if heads:
        y = y.transpose(1, 2).reshape(y.shape[0], y.shape[2], -1)
    attrs = {"is_causal": int(causal)}
    if heads:
        attrs.update(q_num_heads=heads, kv_num_heads=heads)
    if scale is not None:
        attrs["scale"] = float(scale)
    ins = [q, k, v] + ([mask] if mask is not None else [])
    return g.op("Attention", ins, y, **attrs)


@case(RTOL_LONG, ATOL_LONG)
def attention_4d_cross(g):  # Sq != T, Dv != Dk: MatMul, Softmax, MatMul (pass lower_attention)
    g.output(attention(g, g.input([2, 3, 13, 16]), g.input([2, 3, 21, 16]), g.input([2, 3, 21, 24])))


@case(RTOL_LONG, ATOL_LONG)
def attention_3d_causal_scale(g):  # 3-D inputs with heads, causal, explicit scale
    g.output(attention(g, g.input([1, 11, 4 * 8]), g.input([1, 11, 4 * 8]), g.input([1, 11, 4 * 8]), causal=True,
                       heads=4, scale=0.3))


@case(RTOL_LONG, ATOL_LONG)
def attention_4d_const_mask(g):  # a constant additive mask broadcast over batch and heads
    g.output(attention(g, g.input([1, 2, 9, 8]), g.input([1, 2, 17, 8]), g.input([1, 2, 17, 8]),
                       mask=g.rand((9, 17), prefix="mask")))


@case()
def exp_family_activations(g):  # Elu/Selu/Celu (vector expm1) over [-30, 30] and near 0
    g.opset = 12
    x = g.input([3, 5, 41])
    w = binary(g, "Mul", x, g.const(np.float32(8.0), "k"))
    tiny = binary(g, "Mul", x, g.const(np.float32(1e-3), "k"))
    g.output(g.op("Elu", [w], F.elu(w.t, 0.7), alpha=0.7),
             g.op("Selu", [tiny], F.selu(tiny.t)),
             g.op("Celu", [w], F.celu(w.t, 1.3), alpha=1.3))


@case()
def mish_wide(g):  # Mish-18 through its exp form, large and tiny magnitudes
    g.opset = 18
    x = g.input([2, 7, 37])
    w = binary(g, "Mul", x, g.const(np.float32(12.0), "k"))
    g.output(g.op("Mish", [w], w.t * torch.tanh(F.softplus(w.t))))


def resize_nearest(g, x, scales, **attrs):
    """Resize-13 nearest with constant scales (ONNX order, one per dim)."""
    roi = g.const(np.zeros(0, np.float32), "roi")
    sc = g.const(np.array(scales, np.float32), "scales")
    y = F.interpolate(x.t, scale_factor=tuple(scales[2:]), mode="nearest")
    return g.op("Resize", [x, roi, sc], y, mode="nearest", **attrs)


@case()
def resize_nearest_up2_halfpixel(g):  # default half_pixel/round_prefer_floor: source = y / 2
    g.output(resize_nearest(g, g.input([1, 5, 7, 9]), [1, 1, 2, 2]))


@case()
def resize_nearest_up3_asym_floor(g):  # the YOLO/FPN upsample form: source = y / 3
    g.output(resize_nearest(g, g.input([2, 3, 5, 6]), [1, 1, 3, 3], coordinate_transformation_mode="asymmetric",
                            nearest_mode="floor"))


@case()
def resize_nearest_down2_asym(g):  # source = 2y
    g.output(resize_nearest(g, g.input([1, 4, 10, 14]), [1, 1, 0.5, 0.5],
                            coordinate_transformation_mode="asymmetric", nearest_mode="floor"))


@case()
def gelu_tanh_pow3(g):  # GPT-2's gelu_new as exported: Pow(x, 3) becomes x*x*x
    x = g.input([4, 37])
    c = g.const(np.float32(0.044715), "c")
    p3 = g.op("Pow", [x, g.const(np.float32(3.0), "e")], x.t ** 3)
    inner = binary(g, "Mul", binary(g, "Add", x, binary(g, "Mul", p3, c)), g.const(np.float32(0.7978845608), "s"))
    t = unary(g, "Tanh", inner)
    half = binary(g, "Mul", x, g.const(np.float32(0.5), "h"))
    g.output(binary(g, "Mul", half, binary(g, "Add", t, g.const(np.float32(1.0), "one"))))


@case()
def softmax_len1000(g):  # classifier-sized, with large logits
    x = g.input([2, 1000])  # N(0,1) scaled by 8 so the max subtraction matters
    g.output(softmax(g, binary(g, "Mul", x, g.const(np.float32(8.0), "s")), 1))


def softmax_peak_last(g, shape):
    """Softmax over the last axis with a +100 peak on its last element: a
    max taken without the vector tail overflows exp() and gives NaN."""
    peak = np.zeros(shape[-1], np.float32)
    peak[-1] = 100.0
    g.output(softmax(g, binary(g, "Add", g.input(shape), g.const(peak, "peak")), -1))


@case()
def softmax_len17_peak_in_tail(g):
    softmax_peak_last(g, [3, 17])


@case()
def softmax_len1000_peak_in_tail(g):
    softmax_peak_last(g, [2, 1000])


@case()
def softmax_axis2_4d(g):
    g.output(softmax(g, g.input([2, 3, 17, 5]), 2))


# --- Elementwise with broadcasting ---------------------------------------------------

@case()
def add_bcast_c11(g):
    g.output(binary(g, "Add", g.input([2, 17, 7, 5]), g.rand((17, 1, 1), prefix="c")))


@case()
def mul_scalar(g):
    g.output(binary(g, "Mul", g.input([1, 3, 9, 13]), g.const(np.float32(-1.75), "s")))


@case()
def sub_bcast_hw(g):
    g.output(binary(g, "Sub", g.input([1, 5, 7, 9]), g.input([1, 1, 7, 9])))


@case()
def div_bcast_mixed(g):
    g.output(binary(g, "Div", g.input([2, 3, 5, 7]), g.input([1, 3, 1, 7], lo=0.5)))


@case()
def add_bcast_both_sides(g):  # [5,1,17] + [1,3,1] -> [5,3,17]
    g.output(binary(g, "Add", g.input([5, 1, 17]), g.input([1, 3, 1])))


@case()
def sub_scalar_first(g):  # scalar - tensor
    g.output(binary(g, "Sub", g.const(np.float32(0.5), "s"), g.input([3, 17, 5])))


@case()
def unary_chain_odd(g):
    x = g.input([3, 17, 5])
    g.output(unary(g, "Relu", x), unary(g, "Sigmoid", x), unary(g, "Tanh", x), unary(g, "Exp", x))


@case()
def clip_odd(g):
    g.output(clip(g, g.input([1, 13, 3, 7]), -0.5, 0.7))


@case()
def eltwise_size1(g):  # one-element tensors, and a [1] broadcast onto them
    x = g.input([1, 1, 1, 1])
    y = binary(g, "Add", x, g.input([1, 1, 1, 1]))
    g.output(y, unary(g, "Tanh", binary(g, "Mul", y, g.const(np.full([1], 1.5), "s"))))


@case()
def eltwise_chain_bcast(g):  # (x * [C,1,1] + [1,1,H,W]) / 2, then Relu
    x = g.input([1, 17, 3, 29])
    y = binary(g, "Mul", x, g.rand((17, 1, 1), prefix="s"))
    y = binary(g, "Add", y, g.rand((1, 1, 3, 29), prefix="hw"))
    y = binary(g, "Div", y, g.const(np.float32(2.0), "two"))
    g.output(relu(g, y))


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    want = set(sys.argv[2:])
    names = [c[0] for c in CASES]
    unknown = want - set(names)
    if unknown:
        print("odd_shapes.py: unknown case(s): %s" % " ".join(sorted(unknown)), file=sys.stderr)
        return 2
    assert len(names) == len(set(names))
    torch.set_num_threads(1)
    os.makedirs(out, exist_ok=True)
    lines = []
    with torch.no_grad():
        for name, fn, rtol, atol in CASES:
            if want and name not in want:
                continue
            g = G(name)
            fn(g)
            g.save(os.path.join(out, name))
            lines.append("%s %g %g\n" % (name, rtol, atol))
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.writelines(lines)
    print("odd_shapes.py: %d cases in %s" % (len(lines), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
