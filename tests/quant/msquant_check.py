#!/usr/bin/env python3
"""msquant_check.py - ctvm's com.microsoft quantized operators (passes/
lower_msquant.c) against ONNX Runtime on the same files.

  quant-venv/bin/python tests/quant/msquant_check.py [--ctvm-run PATH] [--target T] [--zoo] [--keep DIR] [GROUPS...]

Builds small models with onnx.helper (one model per group, one output per
case, seeded inputs), runs each through ONNX Runtime (1 thread) and through
`ctvm-run --output`, and compares every output:
  - uint8/int8 outputs: within one quantization step on every element and
    equal on at least 99.9% of them;
  - float32 outputs of the integer products: |err| <= 1e-5 * max|ref| (their
    int32 sums are exact; only the scale products round);
  - DynamicQuantizeMatMul: A is quantized at run time, where a tie in the
    rounding of one element may fall the other way: within one step of A
    times |B| in the column;
  - DynamicQuantizeLSTM, int8 form (input and hidden sizes multiples of 4,
    every w - zero point within int8): ctvm quantizes X and h to uint8 as
    ORT does and multiplies in int32, so its error against ORT (over Y, Y_h
    and Y_c) must be below LSTM_Q8_TOL times ORT's own gap between its int8
    LSTM and the float LSTM the weights were quantized from (a float32 LSTM
    over the dequantized weights is of the gap's size, so this fails if the
    integer path is not taken or is wrong);
  - DynamicQuantizeLSTM, float form (other sizes, uint8 weights whose
    w - zero point leaves int8): ctvm runs a float LSTM over the dequantized
    weights; its error must stay within ORT's gap (both printed), with 25%
    slack (LSTM_GAP): the two are of one size when the weights' per-column
    quantization error is small, as ctvm's error is the activations'
    quantization that ORT adds to the weights'.
  - QAttention: the float attention after the exact integer projection,
    |err| <= 1e-4 * max|ref| per mask form, unidirectional, custom scale and
    past/present (inputs scaled so the softmax is not one-hot, so a mask
    off by one key fails); the forms ctvm refuses must fail naming why.
--zoo also runs the ORT-quantized zoo models (resnet18_qop, mobilenet_v2_qop,
bert_mini_qop, lstm_bidir_dyn; zoo/export_quant.py) and prints their figures,
failing when ctvm's largest error against ORT exceeds ORT's own largest gap
between the quantized model and its float32 source. Exit status 1 when any check fails."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZOO = os.path.join(os.environ.get("CTVM_CACHE", os.path.expanduser("~/.cache/ctvm/models")), "zoo")
NP2ONNX = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8, np.float32: TensorProto.FLOAT,
           np.int32: TensorProto.INT32}


class Model:
    """One test model: graph inputs (with their data), initializers, nodes,
    outputs, each output with its check."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.inputs, self.feeds, self.inits, self.nodes, self.outputs, self.checks = [], {}, [], [], [], {}
        self.n = 0

    def uniq(self, base):
        self.n += 1
        return "%s_%d" % (base, self.n)

    def input(self, base, dtype, shape, lo=None, hi=None):
        name = self.uniq(base)
        if dtype == np.float32:
            data = self.rng.standard_normal(shape).astype(np.float32)
        else:
            info = np.iinfo(dtype)
            data = self.rng.integers(info.min if lo is None else lo, (info.max if hi is None else hi) + 1,
                                     shape).astype(dtype)
        self.inputs.append(helper.make_tensor_value_info(name, NP2ONNX[dtype], list(shape)))
        self.feeds[name] = data
        return name

    def const(self, base, value, dtype):
        name = self.uniq(base)
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def node(self, op, ins, attrs=None, domain=MS, n_out=1):
        outs = [self.uniq(op) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, ins, outs, domain=domain, **(attrs or {})))
        return outs[0] if n_out == 1 else outs

    def output(self, name, check, case):
        self.outputs.append(helper.make_empty_tensor_value_info(name))
        self.checks[name] = (check, case)

    def save(self, folder):
        g = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)])
        m.ir_version = 8
        path = os.path.join(folder, self.name + ".onnx")
        onnx.save(m, path)
        np.savez(os.path.join(folder, self.name + "_inputs.npz"), **self.feeds)
        return path


def qparams(m, dtype, scale=None):
    """A scalar scale and zero point of dtype (float32 scale in [0.01, 0.1))."""
    s = scale if scale is not None else float(m.rng.uniform(0.01, 0.1))
    info = np.iinfo(dtype)
    z = int(m.rng.integers(info.min // 2 + (info.max + 1) // 4, info.max // 2 + (info.max + 1) // 4))
    return m.const("s", np.float32(s), np.float32), m.const("z", z, dtype)


def range_params(m, dtype, values):
    """A scale and zero point that cover the float values (a few saturate)."""
    info = np.iinfo(dtype)
    lo, hi = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    s = np.float32(max(hi - lo, 1e-3) / (info.max - info.min) * 0.95)
    z = int(np.clip(np.round(info.min - lo / s), info.min, info.max))
    return m.const("s", s, np.float32), m.const("z", z, dtype)


def dequant(m, x, s, z):
    c = {t.name: numpy_helper.to_array(t) for t in m.inits}
    return (m.feeds[x].astype(np.float32) - c[z].astype(np.float32)) * c[s]


# ---- groups: each builds one model ------------------------------------------------------------

def group_eltwise(m):
    for dt, tag in ((np.uint8, "u8"), (np.int8, "s8")):
        for op in ("QLinearAdd", "QLinearMul"):
            for sa, sb in (((2, 3, 4, 5), (1, 3, 1, 5)), ((3, 7), (7,)), ((4, 1, 6), (5, 1))):
                a, b = m.input("a", dt, sa), m.input("b", dt, sb)
                pa, pb = qparams(m, dt), qparams(m, dt)
                fa, fb = dequant(m, a, *pa), dequant(m, b, *pb)
                ins = [a, *pa, b, *pb, *range_params(m, dt, fa + fb if op == "QLinearAdd" else fa * fb)]
                m.output(m.node(op, ins), "q8", "%s %s %s x %s" % (op, tag, sa, sb))
        for op, attrs in (("QLinearSigmoid", {}), ("QLinearLeakyRelu", {"alpha": 0.1}), ("QLinearLeakyRelu", {})):
            x = m.input("x", dt, (2, 5, 9))
            px = qparams(m, dt)
            fx = dequant(m, x, *px)
            fy = 1 / (1 + np.exp(-fx)) if op == "QLinearSigmoid" else np.where(fx < 0, attrs.get("alpha", 0.01) * fx, fx)
            ins = [x, *px, *range_params(m, dt, fy)]
            m.output(m.node(op, ins, attrs), "q8", "%s %s %s" % (op, tag, attrs))
        # zero points omitted (0 of the type)
        x = m.input("x", dt, (3, 8))
        m.output(m.node("QLinearSigmoid", [x, m.const("s", np.float32(0.05), np.float32), "",
                                            m.const("s", np.float32(1 / 256.0), np.float32), ""]), "q8",
                 "QLinearSigmoid %s without zero points" % tag)


def group_softmax(m):
    for dt, tag in ((np.uint8, "u8"), (np.int8, "s8")):
        yz = 0 if dt == np.uint8 else -128
        for shape, opset, axis in (((2, 3, 10), 13, -1), ((4, 6, 5), 13, 1), ((2, 3, 4), 12, 1),
                                   ((5, 17), 12, -1), ((3, 4, 7), 11, -1)):
            x = m.input("x", dt, shape)
            ins = [x, *qparams(m, dt), m.const("s", np.float32(1 / 256.0), np.float32), m.const("z", yz, dt)]
            m.output(m.node("QLinearSoftmax", ins, {"opset": opset, "axis": axis}), "q8",
                     "QLinearSoftmax %s %s opset %d axis %d" % (tag, shape, opset, axis))


def group_concat(m):
    for dt, tag in ((np.uint8, "u8"), (np.int8, "s8")):
        a, b, c = m.input("a", dt, (2, 3, 4)), m.input("b", dt, (2, 5, 4)), m.input("c", dt, (2, 1, 4))
        ins = [*qparams(m, dt), a, *qparams(m, dt), b, *qparams(m, dt), c, *qparams(m, dt)]
        m.output(m.node("QLinearConcat", ins, {"axis": 1}), "q8", "QLinearConcat %s differing scales" % tag)
        ys, yz = qparams(m, dt)
        a, b = m.input("a", dt, (3, 2)), m.input("b", dt, (3, 4))
        ins = [ys, yz, a, ys, yz, b, ys, yz]
        m.output(m.node("QLinearConcat", ins, {"axis": -1}), "q8", "QLinearConcat %s equal scales (integer)" % tag)


def group_pool(m):
    for dt, tag in ((np.uint8, "u8"), (np.int8, "s8")):
        for attrs in ({"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2], "count_include_pad": 0},
                      {"kernel_shape": [3, 3], "pads": [1, 0, 1, 2], "count_include_pad": 1},
                      {"kernel_shape": [2, 3], "strides": [2, 2], "ceil_mode": 1},
                      {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER"}):
            x = m.input("x", dt, (1, 5, 9, 8))
            m.output(m.node("QLinearAveragePool", [x, *qparams(m, dt), *qparams(m, dt)], attrs), "q8",
                     "QLinearAveragePool %s %s" % (tag, attrs))
        x = m.input("x", dt, (2, 7, 6, 4))  # N H W C
        m.output(m.node("QLinearAveragePool", [x, *qparams(m, dt), *qparams(m, dt)],
                        {"kernel_shape": [3, 2], "pads": [1, 1, 1, 0], "channels_last": 1}), "q8",
                 "QLinearAveragePool %s channels_last" % tag)
        x = m.input("x", dt, (2, 6, 5, 7))
        m.output(m.node("QLinearGlobalAveragePool", [x, *qparams(m, dt), *qparams(m, dt)]), "q8",
                 "QLinearGlobalAveragePool %s" % tag)
        x = m.input("x", dt, (2, 5, 3, 6))
        m.output(m.node("QLinearGlobalAveragePool", [x, *qparams(m, dt), *qparams(m, dt)], {"channels_last": 1}),
                 "q8", "QLinearGlobalAveragePool %s channels_last" % tag)


def weight(m, dt, shape, per_col_axis=None, n=None):
    """A constant quantized weight with its scale and zero point (int8: zero
    point 0, as ORT's quantizer; uint8: a real zero point)."""
    info = np.iinfo(dt)
    w = m.rng.integers(info.min, info.max + 1, shape).astype(dt)
    cnt = () if per_col_axis is None else (n,)
    s = m.rng.uniform(0.002, 0.02, cnt).astype(np.float32)
    z = np.zeros(cnt, dt) if dt == np.int8 else m.rng.integers(100, 156, cnt).astype(dt)
    return m.const("w", w, dt), m.const("ws", s, np.float32), m.const("wz", z, dt)


def group_gemm(m):
    M, K, N = 5, 37, 11
    for adt, bdt, ta, tb, alpha, per_col, with_c, quant_out in (
            (np.uint8, np.int8, 0, 1, 1.0, True, True, True),
            (np.uint8, np.int8, 0, 0, 1.0, False, True, True),
            (np.int8, np.int8, 1, 1, 0.5, True, True, True),
            (np.uint8, np.uint8, 0, 1, 1.0, True, False, True),
            (np.int8, np.int8, 0, 1, 1.0, False, True, False),
            (np.uint8, np.int8, 1, 0, 2.0, True, False, False)):
        a = m.input("a", adt, (K, M) if ta else (M, K))
        w, ws, wz = weight(m, bdt, (N, K) if tb else (K, N), 0 if per_col else None, N)
        ins = [a, *qparams(m, adt), w, ws, wz]
        ins.append(m.const("c", m.rng.integers(-3000, 3000, (N,)).astype(np.int32), np.int32) if with_c else "")
        out_dt = adt if quant_out else np.float32
        if quant_out:
            ins += list(qparams(m, adt, 2.0))
        m.output(m.node("QGemm", ins, {"transA": ta, "transB": tb, "alpha": alpha}),
                 "q8" if quant_out else "float",
                 "QGemm %s x %s transA %d transB %d alpha %g %s%s -> %s" % (
                     np.dtype(adt).name, np.dtype(bdt).name, ta, tb, alpha, "per-column" if per_col else "per-tensor",
                     " with C" if with_c else "", np.dtype(out_dt).name))


def group_matmul(m):
    K, N = 29, 13
    for adt, bdt, shape, per_col, bias in ((np.uint8, np.int8, (2, 3, K), True, True),
                                           (np.int8, np.int8, (4, K), False, False),
                                           (np.uint8, np.uint8, (3, K), True, True)):
        a = m.input("a", adt, shape)
        w, ws, wz = weight(m, bdt, (K, N), 0 if per_col else None, N)
        s, z = qparams(m, adt)
        ins = [a, w, s, ws, z, wz]
        if bias:
            ins.append(m.const("bias", m.rng.standard_normal(N).astype(np.float32), np.float32))
        m.output(m.node("MatMulIntegerToFloat", ins), "float",
                 "MatMulIntegerToFloat %s x %s A %s %s%s" % (np.dtype(adt).name, np.dtype(bdt).name, shape,
                                                            "per-column" if per_col else "per-tensor",
                                                            " bias" if bias else ""))
    for bdt, shape, per_col, bias in ((np.int8, (2, 3, K), True, True), (np.uint8, (5, K), False, True),
                                      (np.int8, (6, K), False, False)):
        a = m.input("a", np.float32, shape)
        w, ws, wz = weight(m, bdt, (K, N), 0 if per_col else None, N)
        ins = [a, w, ws, wz]
        if bias:
            ins.append(m.const("bias", m.rng.standard_normal(N).astype(np.float32), np.float32))
        case = "DynamicQuantizeMatMul %s A %s %s%s" % (np.dtype(bdt).name, shape, "per-column" if per_col else
                                                       "per-tensor", " bias" if bias else "")
        m.output(m.node("DynamicQuantizeMatMul", ins), ("dynmm", a, w, ws, wz), case)


def group_attention(m):
    """QAttention: the quantized projection, then float32 attention, per
    mask form (none, valid lengths [B], 1/0 [B, T] and [B, S, T]),
    unidirectional, a custom scale, past/present."""
    B, S, DIN, NH, D = 2, 6, 16, 3, 4
    H = NH * D
    for wdt, per_col, mask, uni, scale, past in (
            (np.int8, False, None, 0, None, 0), (np.uint8, True, "len", 0, None, 0),
            (np.int8, True, "2d", 1, None, 0), (np.int8, False, "3d", 0, 0.3, 0),
            (np.uint8, False, None, 1, None, 3), (np.int8, True, "len", 1, None, 2)):
        T = S + past
        x = m.input("x", np.uint8, (B, S, DIN))
        w, ws, wz = weight(m, wdt, (DIN, 3 * H), 0 if per_col else None, 3 * H)
        xs, xz = qparams(m, np.uint8, 0.002)  # scores of a few units: the softmax is not one-hot
        bias = m.const("bias", m.rng.standard_normal(3 * H).astype(np.float32), np.float32)
        mi = ""
        if mask == "len":
            mi = m.const("mask", np.array([T, T - 2], np.int32), np.int32)
        elif mask == "2d":
            mi = m.input("mask", np.int32, (B, T), 0, 1)
            m.feeds[mi][:, 0] = 1
        elif mask == "3d":
            mi = m.input("mask", np.int32, (B, S, T), 0, 1)
            m.feeds[mi][:, :, 0] = 1
        pi = m.input("past", np.float32, (2, B, NH, past, D)) if past else ""
        attrs = {"num_heads": NH, "unidirectional": uni}
        if scale is not None:
            attrs["scale"] = scale
        outs = m.node("QAttention", [x, w, bias, xs, ws, mi, xz, wz, pi], attrs, n_out=2 if past else 1)
        case = "QAttention x uint8 w %s %s mask %s unidirectional %d%s%s" % (
            np.dtype(wdt).name, "per-column" if per_col else "per-tensor", mask, uni,
            " scale %g" % scale if scale is not None else "", " past %d" % past if past else "")
        if past:
            m.output(outs[0], "attn", case)
            m.output(outs[1], "attn", case + " present")
        else:
            m.output(outs, "attn", case)


LSTM_GAP = 1.25
LSTM_Q8_TOL = 0.05
# (direction, per-column params, weight type, symmetric uint8 (zero point 128), S, B, I, H,
#  sequence_lens, peepholes); int8 form when I and H are multiples of 4 and w - zp fits int8.
# H 8, 12, 20, 36: off the 16-lane grid (vector and scalar column tails); 36: 3 panels of 16.
# (ORT refuses uint8 weights with per-column zero points: "InputWeight point must be constant")
LSTM_CASES = [("bidirectional", True, np.int8, 0, 6, 2, 12, 8, None, False),
              ("forward", False, np.int8, 0, 5, 1, 16, 12, None, False),
              ("reverse", False, np.uint8, 1, 6, 2, 8, 20, None, False),
              # the float form: sizes off the 4-grid, asymmetric uint8 weights
              ("bidirectional", True, np.int8, 0, 6, 2, 10, 8, None, False),
              ("forward", False, np.int8, 0, 6, 2, 12, 6, None, False),
              ("reverse", False, np.uint8, 0, 6, 2, 12, 8, None, False)]
# with sequence_lens (a group of its own: ctvm-run takes at most 64 outputs)
LSTM_LENS_CASES = [("forward", True, np.int8, 0, 7, 3, 20, 36, [7, 4, 1], False),
                   ("bidirectional", False, np.int8, 0, 5, 2, 8, 16, [5, 3], True),
                   ("reverse", True, np.int8, 0, 6, 3, 4, 4, [2, 6, 5], False),
                   ("forward", False, np.int8, 0, 7, 3, 8, 12, [7, 2, 4], "no Y"),
                   # a sequence of length 0: ORT's Y_h and Y_c are 0 for it (ctvm's float LSTM keeps initial_h/c)
                   ("bidirectional", True, np.int8, 0, 5, 3, 8, 8, [5, 0, 2], False),
                   # max(len) < S: ORT quantizes X over the first max(len) steps only
                   ("forward", True, np.int8, 0, 7, 3, 8, 12, [5, 2, 4], False),
                   ("bidirectional", False, np.int8, 0, 6, 2, 12, 8, [4, 3], False)]


def group_lstm(m, cases=None):
    """DynamicQuantizeLSTM; each case also gets ORT's float LSTM over the
    float weights the int8 ones were quantized from (the reference gap)."""
    for dirn, per_col, dt, sym, S, B, I, H, lens, peep in cases or LSTM_CASES:
        D = 2 if dirn == "bidirectional" else 1
        x = m.input("x", np.float32, (S, B, I))
        h0, c0 = m.input("h0", np.float32, (D, B, H)), m.input("c0", np.float32, (D, B, H))
        ins_q, ins_f = [x], [x]
        int_form = I % 4 == 0 and H % 4 == 0 and (dt == np.int8 or sym)
        params = []
        for rows in (I, H):
            wf = (m.rng.standard_normal((D, rows, 4 * H)) * 0.4).astype(np.float32)
            axes = (1,) if per_col else (1, 2)
            lo, hi = wf.min(axis=axes, keepdims=True), wf.max(axis=axes, keepdims=True)
            if dt == np.int8:
                s = np.maximum(np.abs(lo), np.abs(hi)) / 127.0
                z = np.zeros_like(s)
            elif sym:
                s = np.maximum(np.abs(lo), np.abs(hi)) / 127.0
                z = np.full_like(s, 128.0)
            else:
                s = (hi - lo) / 255.0
                z = np.round(-lo / s)
            q = np.clip(np.round(wf / s) + z, np.iinfo(dt).min, np.iinfo(dt).max).astype(dt)
            sq = s.reshape(D, -1).astype(np.float32)
            zq = z.reshape(D, -1).astype(dt)
            if not per_col:
                sq, zq = sq.reshape(D), zq.reshape(D)
            ins_q += [m.const("w", q, dt)]
            ins_f += [m.const("wf", np.transpose(wf, (0, 2, 1)), np.float32)]
            params += [m.const("ws", sq, np.float32), m.const("wz", zq, dt)]
        bias = m.const("b", (m.rng.standard_normal((D, 8 * H)) * 0.1).astype(np.float32), np.float32)
        sl = m.const("len", np.array(lens, np.int32), np.int32) if lens else ""
        no_y, peep = peep == "no Y", peep is True  # without Y, ORT's h of a finished entry is its last state
        pp = m.const("p", (m.rng.standard_normal((D, 3 * H)) * 0.3).astype(np.float32), np.float32) if peep else ""
        ins_q += [bias, sl, h0, c0, pp, *params]
        ins_f += [bias, sl, h0, c0, pp]
        attrs = {"hidden_size": H, "direction": dirn}
        yq = m.node("DynamicQuantizeLSTM", ins_q, attrs, n_out=3)
        yf = m.node("LSTM", ins_f, attrs, domain="", n_out=3)
        if no_y:
            m.nodes[-2].output[0] = ""
            yq, yf = yq[1:], yf[1:]
        case = "DynamicQuantizeLSTM %s %s%s %s S%d B%d I%d H%d%s%s (%s form)" % (
            dirn, np.dtype(dt).name, " zp 128" if sym else "", "per-column" if per_col else "per-tensor", S, B, I, H,
            " lens %s" % lens if lens else "", " peepholes" if peep else " without Y" if no_y else "",
            "int8" if int_form else "float")
        for k, what in enumerate(("Y_h", "Y_c") if no_y else ("Y", "Y_h", "Y_c")):
            m.output(yq[k], ("lstm8" if int_form else "lstm", yf[k]), "%s %s" % (case, what))
            m.outputs.append(helper.make_empty_tensor_value_info(yf[k]))
            m.checks[yf[k]] = ("ref", case)


GROUPS = {"eltwise": group_eltwise, "softmax": group_softmax, "concat": group_concat, "pool": group_pool,
          "gemm": group_gemm, "matmul": group_matmul, "lstm": group_lstm,
          "lstm_lens": lambda m: group_lstm(m, LSTM_LENS_CASES), "attention": group_attention}


# ---- running and comparing --------------------------------------------------------------------

def ort_run(path, feeds):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds)))


TARGET = []  # --target T: ctvm-run's target (cross targets run under qemu-user)


def ctvm_run(ctvm, path, inputs_npz, out_npz):
    r = subprocess.run([ctvm, path, "--inputs", inputs_npz, "--output", out_npz] + TARGET, capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout).strip()
    return dict(np.load(out_npz)), ""


def check_q8(ref, got):
    d = np.abs(got.astype(np.int64) - ref.astype(np.int64))
    eq = float((d == 0).mean())
    return d.max() <= 1 and eq >= 0.999, "max diff %d steps, equal %.4f%%" % (d.max(), 100 * eq)


def check_float(ref, got):
    d = np.abs(got.astype(np.float64) - ref)
    bound = 1e-5 * np.abs(ref).max()
    return d.max() <= bound, "max |err| %.3g (bound %.3g)" % (d.max(), bound)


def check_attn(ref, got):
    """QAttention: the projection's int32 sums are exact; the float attention
    after it rounds differently (softmax, products summed in another order)."""
    d = np.abs(got.astype(np.float64) - ref)
    bound = 1e-4 * np.abs(ref).max()
    return d.max() <= bound, "max |err| %.3g (bound %.3g)" % (d.max(), bound)


def check_dynmm(ref, got, feeds, consts, a, w, ws, wz):
    """One step of A's run-time quantization, times |B - b_zp| * b_scale summed over K."""
    x = feeds[a]
    step = (max(0.0, x.max()) - min(0.0, x.min())) / 255.0
    wq = consts[w].astype(np.float64) - consts[wz].astype(np.float64)
    bound = step * (np.abs(wq) * consts[ws]).max(axis=0).max() + 1e-5 * np.abs(ref).max()
    d = np.abs(got.astype(np.float64) - ref)
    return d.max() <= bound, "max |err| %.3g (bound: one step of A in one term %.3g)" % (d.max(), bound)


def compare(m, ref, got, consts):
    ok_all, gaps, kinds = True, {}, {}
    for name, (check, case) in m.checks.items():
        if check == "ref":
            continue
        if name not in got:
            print("FAIL %s: no output %s" % (case, name))
            ok_all = False
            continue
        r, g = ref[name], got[name]
        if r.dtype != g.dtype or r.shape != g.shape:
            ok, msg = False, "ctvm %s %s, ORT %s %s" % (g.dtype, g.shape, r.dtype, r.shape)
        elif check == "q8":
            ok, msg = check_q8(r, g)
        elif check == "float":
            ok, msg = check_float(r, g)
        elif check == "attn":
            ok, msg = check_attn(r, g)
        elif check[0] == "dynmm":
            ok, msg = check_dynmm(r, g, m.feeds, consts, *check[1:])
        else:  # lstm, lstm8: gathered per case, judged below
            kinds[case.rsplit(" ", 1)[0]] = check[0]
            gaps.setdefault(case.rsplit(" ", 1)[0], []).append(
                (np.abs(g.astype(np.float64) - r).ravel(), np.abs(ref[check[1]].astype(np.float64) - r).ravel()))
            continue
        print("%s %s: %s" % ("ok  " if ok else "FAIL", case, msg))
        ok_all = ok_all and ok
    for case, pairs in gaps.items():  # Y, Y_h and Y_c together
        err, gap = np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs])
        rms_e, rms_g = np.sqrt((err ** 2).mean()), np.sqrt((gap ** 2).mean())
        if kinds[case] == "lstm8":
            ok = err.max() <= LSTM_Q8_TOL * gap.max()
            bound = "bound %.3g" % (LSTM_Q8_TOL * gap.max())
        else:
            ok = err.max() <= LSTM_GAP * gap.max() and rms_e <= LSTM_GAP * rms_g
            bound = "bound %.3g / rms %.3g" % (LSTM_GAP * gap.max(), LSTM_GAP * rms_g)
        print("%s %s (Y, Y_h, Y_c): |ctvm - ORT| max %.3g rms %.3g (%s); ORT int8 vs float LSTM: max %.3g rms %.3g" % (
            "ok  " if ok else "FAIL", case, err.max(), rms_e, bound, gap.max(), rms_g))
        ok_all = ok_all and ok
    return ok_all


def run_group(name, ctvm, folder):
    m = Model(name, 2200 + sum(map(ord, name)))
    GROUPS[name](m)
    path = m.save(folder)
    ref = ort_run(path, m.feeds)
    got, err = ctvm_run(ctvm, path, os.path.join(folder, name + "_inputs.npz"),
                        os.path.join(folder, name + "_ctvm.npz"))
    if got is None:
        print("FAIL group %s: ctvm-run failed: %s" % (name, err))
        return False
    consts = {t.name: numpy_helper.to_array(t) for t in m.inits}
    return compare(m, ref, got, consts)


def run_refusals(ctvm, folder):
    """Forms ctvm does not import must be refused with the reason named."""
    ok_all = True
    for case, attrs, mask_shape, want in (("QAttention left-padding mask_index [2*batch]", {}, (4,), "mask_index"),
                                          ("QAttention do_rotary=1", {"do_rotary": 1}, None, "do_rotary")):
        m = Model("refuse", 7)
        x = m.input("x", np.uint8, (2, 3, 8))
        w, ws, wz = weight(m, np.int8, (8, 12))
        xs, xz = qparams(m, np.uint8)
        mi = m.const("mask", np.array([3, 2, 0, 1][:mask_shape[0]], np.int32), np.int32) if mask_shape else ""
        b = m.const("bias", np.zeros(12, np.float32), np.float32)
        m.output(m.node("QAttention", [x, w, b, xs, ws, mi, xz, wz], dict(num_heads=2, **attrs)), "attn", case)
        path = m.save(folder)
        got, err = ctvm_run(ctvm, path, os.path.join(folder, "refuse_inputs.npz"), os.path.join(folder, "r.npz"))
        ok = got is None and want in err and "QAttention" in err
        print("%s %s refused: %s" % ("ok  " if ok else "FAIL", case, err.splitlines()[-1] if err else "(ran)"))
        ok_all = ok_all and ok
    return ok_all


# zoo model -> the float32 model it was quantized from (zoo/export_quant.py SOURCES)
CACHE = os.path.dirname(ZOO)
ZOO_MODELS = {"resnet18_qop": os.path.join(CACHE, "resnet18"), "mobilenet_v2_qop": os.path.join(CACHE, "mobilenet_v2"),
              "bert_mini_qop": os.path.join(ZOO, "bert_mini"), "lstm_bidir_dyn": os.path.join(ZOO, "lstm_bidir")}


def run_zoo(name, ctvm, folder):
    """ctvm against ORT on the quantized model; passes when ctvm's largest
    error is within ORT's own largest gap between the quantized model and
    its float32 source on the same input."""
    d = os.path.join(ZOO, name)
    if not os.path.exists(os.path.join(d, "model.onnx")):
        print("skip %s: not exported (zoo/export_quant.py)" % name)
        return True
    feeds = dict(np.load(os.path.join(d, "inputs.npz")))
    ref = ort_run(os.path.join(d, "model.onnx"), feeds)
    src = ort_run(os.path.join(ZOO_MODELS[name], "model.onnx"), feeds)
    got, err = ctvm_run(ctvm, os.path.join(d, "model.onnx"), os.path.join(d, "inputs.npz"),
                        os.path.join(folder, name + "_ctvm.npz"))
    if got is None:
        print("FAIL %s: ctvm-run failed: %s" % (name, err))
        return False
    ok_all = True
    for k, r in ref.items():
        g, f = got[k].astype(np.float64), src[k].astype(np.float64) if k in src else None
        e = np.abs(g - r)
        gap = np.abs(f - r).max() if f is not None else float("nan")
        ok = g.shape == r.shape and (f is None or e.max() <= gap)
        same_top = bool((g.reshape(g.shape[0], -1).argmax(-1) == r.reshape(r.shape[0], -1).argmax(-1)).all())
        print("%s %s %s: |ctvm - ORT| max %.4g mean %.3g, equal %.1f%%, argmax agrees %s; "
              "ORT quantized vs float32 source: max %.4g" % (
                  "ok  " if ok else "FAIL", name, k, e.max(), e.mean(), 100 * (e == 0).mean(), same_top, gap))
        ok_all = ok_all and ok
    return ok_all


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("groups", nargs="*", help="groups to run (default all): " + " ".join(GROUPS))
    ap.add_argument("--ctvm-run", default=os.path.join(REPO, "build", "ctvm-run"))
    ap.add_argument("--zoo", action="store_true", help="also the zoo's ORT-quantized models")
    ap.add_argument("--zoo-only", action="store_true", help="only the zoo's models")
    ap.add_argument("--keep", help="write the models and outputs here")
    ap.add_argument("--target", help="ctvm-run's --target (default: the host's)")
    args = ap.parse_args()
    if args.target:
        TARGET[:] = ["--target", args.target]
    folder = args.keep or tempfile.mkdtemp(prefix="msquant_")
    os.makedirs(folder, exist_ok=True)
    ok = True
    for g in [] if args.zoo_only else args.groups or GROUPS:
        ok = run_group(g, args.ctvm_run, folder) and ok
        if g == "attention":
            ok = run_refusals(args.ctvm_run, folder) and ok
    if args.zoo or args.zoo_only:
        for z in ZOO_MODELS:
            ok = run_zoo(z, args.ctvm_run, folder) and ok
    print("msquant: %s" % ("all passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
