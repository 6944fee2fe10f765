#!/usr/bin/python3
# The torch.onnx part of the model zoo (issue 10): seeded-random torchvision
# classifiers, segmentation and detection models, and transformer / recurrent
# models written here, each exported with torch.onnx.export (fixed shapes,
# batch 1) at opset 11, 13 or 17, with PyTorch's own outputs as framework.npz.
# Writes $CTVM_CACHE/zoo/<name>/{model.onnx,inputs.npz,framework.npz,meta.json}
# in the format of ZOO_FORMAT.md.
#
# Run with Debian's interpreter (torch 1.13, torchvision 0.14, onnx 1.12):
#   /usr/bin/python3 zoo/export_torch.py [--list] [--ci] [--force] [name ...]
#
# Opsets: 11, 13 and 17 each cover CNNs and transformers; at 17 LayerNorm is
# one LayerNormalization op, at 11/13 torch writes ReduceMean/Sub/Pow/Sqrt/Div.
# Every model exports at the opset the table gives it. The --ci subset takes
# about 2 minutes to export on 2 busy cores (ssdlite's traced per-class
# post-processing is most of it).
import argparse
import json
import math
import os
import shutil
import sys
import time
import warnings
import zlib

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import bn_random  # noqa: E402
import export_models  # noqa: E402

EXPORTER = "torch.onnx " + torch.__version__.split("a")[0].split("+")[0]


# ---------------------------------------------------------------- transformers

class Attention(nn.Module):
    """Multi-head self-attention; `bias` is added to the scores before Softmax
    (an additive padding mask or a causal mask)."""

    def __init__(self, d, heads, k_bias=True):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d, bias=k_bias)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)

    def forward(self, x, bias=None):
        b, t, d = x.shape
        h = self.heads

        def split(y):
            return y.view(b, t, h, d // h).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        s = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        if bias is not None:
            s = s + bias
        p = s.softmax(-1)
        return self.o((p @ v).transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    """Transformer layer: post-norm (BERT) or pre-norm (GPT-2, Whisper)."""

    def __init__(self, d, heads, ffn, pre_norm, gelu="none", k_bias=True):
        super().__init__()
        self.pre_norm = pre_norm
        self.gelu = gelu
        self.attn = Attention(d, heads, k_bias)
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ffn)
        self.fc2 = nn.Linear(ffn, d)

    def mlp(self, x):
        return self.fc2(F.gelu(self.fc1(x), approximate=self.gelu))

    def forward(self, x, bias=None):
        if self.pre_norm:
            x = x + self.attn(self.ln1(x), bias)
            return x + self.mlp(self.ln2(x))
        x = self.ln1(x + self.attn(x, bias))
        return self.ln2(x + self.mlp(x))


class Bert(nn.Module):
    """BERT encoder: word + position + token-type embeddings, LayerNorm,
    post-norm layers with the additive mask (1-mask)*-10000, Erf-GELU;
    outputs the last hidden state and the tanh-pooled [CLS] vector."""

    def __init__(self, vocab=30522, d=768, heads=12, ffn=3072, layers=12, seq=128):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(512, d)
        self.token_type = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(Block(d, heads, ffn, pre_norm=False) for _ in range(layers))
        self.pool = nn.Linear(d, d)
        self.register_buffer("pos_ids", torch.arange(seq).unsqueeze(0))

    def forward(self, input_ids, attention_mask):
        t = input_ids.shape[1]
        x = self.word(input_ids) + self.pos(self.pos_ids[:, :t]) + self.token_type(torch.zeros_like(input_ids))
        x = self.ln(x)
        bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.pool(x[:, 0]))


class Gpt2(nn.Module):
    """GPT-2 decoder stack: token + position embeddings, pre-norm layers with
    a causal mask (masked_fill -inf from a constant lower-triangular buffer),
    tanh-GELU, final LayerNorm, LM head tied to the token embedding."""

    def __init__(self, vocab=8192, d=768, heads=12, layers=12, seq=128):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(1024, d)
        self.layers = nn.ModuleList(Block(d, heads, 4 * d, pre_norm=True, gelu="tanh") for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        # GPT-2's init scales: with N(0,1) embeddings the tied head's logit for
        # the input token itself (|e|^2 ~ 768) would dwarf every other logit
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)
        self.register_buffer("causal", torch.tril(torch.ones(1024, 1024, dtype=torch.bool)))
        self.register_buffer("pos_ids", torch.arange(seq).unsqueeze(0))

    def forward(self, input_ids):
        t = input_ids.shape[1]
        x = self.wte(input_ids) + self.wpe(self.pos_ids[:, :t])
        bias = torch.zeros(t, t).masked_fill(~self.causal[:t, :t], float("-inf"))
        for layer in self.layers:
            x = layer(x, bias)
        return self.ln_f(x) @ self.wte.weight.t()


class WhisperEncoder(nn.Module):
    """Whisper-tiny audio encoder: two Conv1d+GELU (the second stride 2),
    sinusoidal positions, pre-norm layers (k projection without bias), final
    LayerNorm. [1,80,3000] log-mel -> [1,1500,384]."""

    def __init__(self, mels=80, d=384, heads=6, layers=4, ctx=1500):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        inv = torch.exp(-math.log(10000) / (d // 2 - 1) * torch.arange(d // 2))
        ang = torch.arange(ctx)[:, None] * inv[None, :]
        self.register_buffer("pos", torch.cat([ang.sin(), ang.cos()], 1))
        self.layers = nn.ModuleList(Block(d, heads, 4 * d, pre_norm=True, k_bias=False) for _ in range(layers))
        self.ln_post = nn.LayerNorm(d)

    def forward(self, mel):
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).transpose(1, 2)
        x = x + self.pos
        for layer in self.layers:
            x = layer(x)
        return self.ln_post(x)


def torch_encoder(norm_first):
    """torch.nn.TransformerEncoder, d_model 256, 4 heads, ffn 1024, 4 layers."""
    layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True, norm_first=norm_first)
    return nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)


class RnnClassifier(nn.Module):
    """Token ids -> Embedding -> LSTM or GRU (batch_first) -> Linear on the last step."""

    def __init__(self, cell, vocab=5000, emb=128, hidden=256, layers=1, bidirectional=False, classes=10):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = cell(emb, hidden, layers, batch_first=True, bidirectional=bidirectional)
        self.fc = nn.Linear(hidden * (2 if bidirectional else 1), classes)

    def forward(self, input_ids):
        y, _ = self.rnn(self.emb(input_ids))
        return self.fc(y[:, -1])


class LayerNormNet(nn.Module):
    """Linear -> LayerNorm -> GELU -> Linear -> LayerNorm: at opset 17 each
    LayerNorm is one LayerNormalization op, below it ReduceMean/Sub/Pow/Sqrt/Div."""

    def __init__(self, d=64, hidden=128):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.ln1 = nn.LayerNorm(hidden)
        self.fc2 = nn.Linear(hidden, d)
        self.ln2 = nn.LayerNorm(d)

    def forward(self, x):
        return self.ln2(self.fc2(F.gelu(self.ln1(self.fc1(x)))))


# ------------------------------------------------------- dense prediction

class SegOut(nn.Module):
    """A torchvision segmentation model returning only its 'out' tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class Detector(nn.Module):
    """A torchvision detector on one [1,3,H,W] image, whole (transform,
    anchors, box decoding, per-class NonMaxSuppression): boxes, scores, labels."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        d = self.model([x[0]])[0]
        return d["boxes"], d["scores"], d["labels"]


class DetectorFeatures(nn.Module):
    """Backbone + head of an SSD without its pre/post-processing: what the
    BatchNorm calibration runs (the whole detector wants targets in train mode)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model.head(list(self.model.backbone(x).values()))


# ---------------------------------------------------------------- YOLOX-style detector

class BaseConv(nn.Module):
    """Conv (no bias) + BatchNorm + SiLU, as YOLOX writes every layer."""

    def __init__(self, cin, cout, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.silu(self.bn(self.conv(x)))


class CSPLayer(nn.Module):
    """YOLOX's CSP block: two 1x1 halves, bottlenecks (1x1, 3x3, residual) on
    one, concatenated and fused by a 1x1."""

    def __init__(self, cin, cout, n=1, shortcut=True):
        super().__init__()
        h = cout // 2
        self.conv1, self.conv2, self.conv3 = BaseConv(cin, h), BaseConv(cin, h), BaseConv(2 * h, cout)
        self.m = nn.ModuleList([nn.ModuleList([BaseConv(h, h), BaseConv(h, h, 3)]) for _ in range(n)])
        self.shortcut = shortcut

    def forward(self, x):
        a = self.conv1(x)
        for c1, c2 in self.m:
            y = c2(c1(a))
            a = a + y if self.shortcut else y
        return self.conv3(torch.cat([a, self.conv2(x)], 1))


class YoloxTiny(nn.Module):
    """YOLOX-tiny's shape (width 0.375, depth 0.33) at 416x416: Focus stem,
    CSPDarknet with stride-2 3x3 convs and an SPP, a PAFPN (nearest upsampling,
    concatenations), decoupled heads (1x1 stem, 3x3 cls and reg branches);
    outputs the three levels' [reg, obj, cls] maps flattened and concatenated,
    as YOLOX exports them without decoding. Channels 24 / 48 / 96 / 192 / 384:
    the 1x1 convs of 24 channels at 104x104 and 96 at 26x26 and the stride-2
    3x3 convs of issue 23."""

    def __init__(self, classes=80):
        super().__init__()
        w = [24, 48, 96, 192, 384]
        self.stem = BaseConv(12, w[0], 3)
        self.dark2 = nn.Sequential(BaseConv(w[0], w[1], 3, 2), CSPLayer(w[1], w[1], 1))
        self.dark3 = nn.Sequential(BaseConv(w[1], w[2], 3, 2), CSPLayer(w[2], w[2], 3))
        self.dark4 = nn.Sequential(BaseConv(w[2], w[3], 3, 2), CSPLayer(w[3], w[3], 3))
        self.dark5_conv = BaseConv(w[3], w[4], 3, 2)
        self.spp1, self.spp2 = BaseConv(w[4], w[4] // 2), BaseConv(w[4] * 2, w[4])
        self.dark5_csp = CSPLayer(w[4], w[4], 1, shortcut=False)
        self.lat0 = BaseConv(w[4], w[3])
        self.c3_p4 = CSPLayer(2 * w[3], w[3], 1, False)
        self.red1 = BaseConv(w[3], w[2])
        self.c3_p3 = CSPLayer(2 * w[2], w[2], 1, False)
        self.bu2 = BaseConv(w[2], w[2], 3, 2)
        self.c3_n3 = CSPLayer(2 * w[2], w[3], 1, False)
        self.bu1 = BaseConv(w[3], w[3], 3, 2)
        self.c3_n4 = CSPLayer(2 * w[3], w[4], 1, False)
        hw = w[2]
        self.heads = nn.ModuleList()
        for c in (w[2], w[3], w[4]):
            self.heads.append(nn.ModuleDict({
                "stem": BaseConv(c, hw),
                "cls": nn.Sequential(BaseConv(hw, hw, 3), BaseConv(hw, hw, 3)),
                "reg": nn.Sequential(BaseConv(hw, hw, 3), BaseConv(hw, hw, 3)),
                "cls_pred": nn.Conv2d(hw, classes, 1), "reg_pred": nn.Conv2d(hw, 4, 1),
                "obj_pred": nn.Conv2d(hw, 1, 1)}))

    def forward(self, x):
        x = torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1)  # Focus
        c3 = self.dark3(self.dark2(self.stem(x)))
        c4 = self.dark4(c3)
        c5 = self.spp1(self.dark5_conv(c4))
        c5 = self.spp2(torch.cat([c5] + [F.max_pool2d(c5, k, 1, k // 2) for k in (5, 9, 13)], 1))
        c5 = self.dark5_csp(c5)
        p5 = self.lat0(c5)
        f4 = self.c3_p4(torch.cat([F.interpolate(p5, scale_factor=2.0, mode="nearest"), c4], 1))
        p4 = self.red1(f4)
        o3 = self.c3_p3(torch.cat([F.interpolate(p4, scale_factor=2.0, mode="nearest"), c3], 1))
        o4 = self.c3_n3(torch.cat([self.bu2(o3), p4], 1))
        o5 = self.c3_n4(torch.cat([self.bu1(o4), p5], 1))
        outs = []
        for f, h in zip((o3, o4, o5), self.heads):
            s = h["stem"](f)
            c, r = h["cls"](s), h["reg"](s)
            y = torch.cat([h["reg_pred"](r), torch.sigmoid(h["obj_pred"](r)), torch.sigmoid(h["cls_pred"](c))], 1)
            outs.append(y.flatten(2))
        return torch.cat(outs, 2).permute(0, 2, 1)


def ssdlite():
    # score_thresh: seeded random weights give near-uniform class scores
    # (~1/91); 0.02 keeps only the boxes above that, a few dozen to hundreds.
    m = tvm.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                    score_thresh=0.02, detections_per_img=100)
    return Detector(m)


def seg(ctor):
    return lambda: SegOut(ctor(weights=None, weights_backbone=None, aux_loss=False))


def tv(ctor, **kw):
    return lambda: getattr(tvm, ctor)(weights=None, **kw)


# ------------------------------------------------------------------ the table

IMG = [("input", (1, 3, 224, 224), "float")]


def ids(n, vocab):
    return ("input_ids", (1, n), "ids", vocab)


# name -> (constructor, inputs, opset, family, ci, note)
# inputs: (name, shape, "float") or (name, shape, "ids", vocab) or (name, shape, "mask")
C, D, T, S, L = "classification", "dense", "transformer", "sequence", "layernorm"
MODELS = {
    "alexnet":            (tv("alexnet"), IMG, 11, C, False, ""),
    "vgg11_bn":           (tv("vgg11_bn"), IMG, 13, C, False, ""),
    "resnet18":           (tv("resnet18"), IMG, 13, C, True, ""),
    "resnet18_op11":      (tv("resnet18"), IMG, 11, C, False, "resnet18 at opset 11"),
    "resnet34":           (tv("resnet34"), IMG, 13, C, False, ""),
    "resnet50":           (tv("resnet50"), IMG, 13, C, False, ""),
    "resnet101":          (tv("resnet101"), IMG, 13, C, False, ""),
    "resnext50_32x4d":    (tv("resnext50_32x4d"), IMG, 13, C, False, ""),
    "wide_resnet50_2":    (tv("wide_resnet50_2"), IMG, 13, C, False, ""),
    "densenet121":        (tv("densenet121"), IMG, 13, C, False, ""),
    "googlenet":          (tv("googlenet", aux_logits=False, init_weights=True), IMG, 11, C, False,
                           "aux_logits off"),
    "inception_v3":       (tv("inception_v3", aux_logits=False, init_weights=True),
                           [("input", (1, 3, 299, 299), "float")], 13, C, False, "299x299, aux_logits off"),
    "mobilenet_v2":       (tv("mobilenet_v2"), IMG, 13, C, False, ""),
    "mobilenet_v2_op17":  (tv("mobilenet_v2"), IMG, 17, C, False, "mobilenet_v2 at opset 17"),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), IMG, 13, C, True, ""),
    "mobilenet_v3_large": (tv("mobilenet_v3_large"), IMG, 11, C, False, ""),
    "mnasnet1_0":         (tv("mnasnet1_0"), IMG, 11, C, False, ""),
    "shufflenet_v2_x1_0": (tv("shufflenet_v2_x1_0"), IMG, 13, C, False, ""),
    "squeezenet1_1":      (tv("squeezenet1_1"), IMG, 11, C, True, ""),
    "efficientnet_b0":    (tv("efficientnet_b0"), IMG, 13, C, False, ""),
    "efficientnet_v2_s":  (tv("efficientnet_v2_s"), IMG, 17, C, False, ""),
    "regnet_x_400mf":     (tv("regnet_x_400mf"), IMG, 13, C, False, ""),
    "regnet_y_400mf":     (tv("regnet_y_400mf"), IMG, 13, C, False, ""),
    "convnext_tiny":      (tv("convnext_tiny"), IMG, 17, C, False, "LayerNorm as LayerNormalization"),
    "vit_b_16":           (tv("vit_b_16"), IMG, 17, C, False, "LayerNorm as LayerNormalization"),
    "swin_t":             (tv("swin_t"), IMG, 17, C, False, "LayerNorm as LayerNormalization"),
    "maxvit_t":           (tv("maxvit_t"), IMG, 17, C, False, ""),
    "fcn_resnet50":       (seg(tvm.segmentation.fcn_resnet50), [("input", (1, 3, 256, 256), "float")],
                           13, D, False, "'out' only, 256x256 input"),
    "deeplabv3_mobilenet_v3_large": (seg(tvm.segmentation.deeplabv3_mobilenet_v3_large),
                                     [("input", (1, 3, 256, 256), "float")], 13, D, False,
                                     "'out' only, 256x256 input"),
    "lraspp_mobilenet_v3_large": (seg(tvm.segmentation.lraspp_mobilenet_v3_large),
                                  [("input", (1, 3, 256, 256), "float")], 11, D, True,
                                  "'out' only, 256x256 input"),
    "yolox_tiny": (YoloxTiny, [("input", (1, 3, 416, 416), "float")], 13, D, False,
                   "YOLOX-tiny's layers (CSPDarknet, PAFPN, decoupled heads), undecoded outputs"),
    "ssdlite320_mobilenet_v3_large": (ssdlite, [("input", (1, 3, 320, 320), "float")], 11, D, True,
                                      "whole detector incl. NonMaxSuppression; score_thresh 0.02, "
                                      "detections_per_img 100; outputs have a data-dependent count"),
    "transformer_post":   (lambda: torch_encoder(False), [("input", (1, 128, 256), "float")], 11, T, False,
                           "nn.TransformerEncoder post-norm, 4 layers"),
    "transformer_pre":    (lambda: torch_encoder(True), [("input", (1, 128, 256), "float")], 17, T, True,
                           "nn.TransformerEncoder pre-norm (norm_first), 4 layers"),
    "bert_base":          (Bert, [ids(128, 30522), ("attention_mask", (1, 128), "mask")], 13, T, False,
                           "12 layers, seq 128; outputs last hidden state and pooled"),
    "bert_mini":          (lambda: Bert(d=256, heads=4, ffn=1024, layers=4),
                           [ids(128, 30522), ("attention_mask", (1, 128), "mask")], 13, T, True,
                           "bert_base's graph at hidden 256, 4 heads, 4 layers (the cheap CI member)"),
    "gpt2_small":         (Gpt2, [ids(128, 8192)], 13, T, False,
                           "12 layers, seq 128; vocab 8192 instead of 50257 to keep the file small"),
    "whisper_tiny_enc":   (WhisperEncoder, [("mel", (1, 80, 3000), "float")], 17, T, False, ""),
    "lstm_bidir":         (lambda: RnnClassifier(nn.LSTM, layers=2, bidirectional=True), [ids(64, 5000)],
                           13, S, True, "2-layer bidirectional LSTM"),
    "gru_cls":            (lambda: RnnClassifier(nn.GRU), [ids(64, 5000)], 11, S, True, ""),
    "layernorm_op17":     (LayerNormNet, [("input", (1, 32, 64), "float")], 17, L, True,
                           "LayerNormalization ops"),
    "layernorm_decomposed": (LayerNormNet, [("input", (1, 32, 64), "float")], 13, L, True,
                             "same model as layernorm_op17; LayerNorm decomposed"),
}


# ---------------------------------------------------------------- weights

def seed_of(name):
    return 3000 + zlib.crc32(name.encode()) % 100000


def randomize(model, seed, calib_input):
    """Non-trivial weights: every all-zero bias ~ N(0, 0.05), every all-zero
    weight matrix (a zero-initialised head) ~ N(0, 0.02), LayerNorm affine
    random, BatchNorm calibrated and perturbed by golden/bn_random.py."""
    g = torch.Generator().manual_seed(seed + 3)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm) and m.elementwise_affine:
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.05)
        for name, p in model.named_parameters():
            if torch.any(p != 0):
                continue
            if name.endswith("bias"):
                p.copy_(torch.randn(p.shape, generator=g) * 0.05)
            elif p.dim() >= 2:
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    if calib_input is not None:
        target = DetectorFeatures(model.model) if isinstance(model, Detector) else model
        bn_random.randomize_batchnorm(target, torch.Generator().manual_seed(seed), calib_input)
    model.eval()


def make_inputs(spec, seed):
    g = torch.Generator().manual_seed(seed + 7)
    out = []
    for name, shape, kind, *rest in spec:
        if kind == "float":
            out.append(torch.randn(shape, generator=g))
        elif kind == "ids":
            out.append(torch.randint(0, rest[0], shape, generator=g))
        else:  # attention mask: ones, then trailing zeros (padding)
            m = torch.ones(shape, dtype=torch.int64)
            m[..., shape[-1] * 3 // 4:] = 0
            out.append(m)
    return out


# ------------------------------------------------------------------- export

def cache_dir():
    return os.path.join(export_models.cache_dir(), "zoo")


def as_list(y):
    return list(y) if isinstance(y, (tuple, list)) else [y]


def check_outputs(name, ys):
    for i, y in enumerate(ys):
        if y.dtype.is_floating_point:
            if not torch.all(torch.isfinite(y)):
                raise RuntimeError(f"{name}: output {i} is not finite")
        if y.numel() == 0:
            raise RuntimeError(f"{name}: output {i} is empty")
        if y.numel() > 1 and not torch.any(y != y.reshape(-1)[0]):
            raise RuntimeError(f"{name}: output {i} is constant")


def export_one(name, force):
    make, spec, opset, family, ci, note = MODELS[name]
    out_dir = os.path.join(cache_dir(), name)
    if not force and os.path.isfile(os.path.join(out_dir, "meta.json")):
        print(f"export_torch: {name} present, kept ({out_dir})", flush=True)
        return
    t0 = time.time()
    seed = seed_of(name.replace("_op11", "").replace("_op17", ""))
    torch.manual_seed(seed)
    model = make()
    first = spec[0]
    calib = (2,) + first[1][1:] if first[2] == "float" and family in (C, D) else None
    randomize(model, seed, calib)
    xs = make_inputs(spec, seed)
    with torch.no_grad():
        ys = as_list(model(*xs))
    check_outputs(name, ys)

    tmp = os.path.join(cache_dir(), f".{name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        in_names = [s[0] for s in spec]
        out_names = ["output"] if len(ys) == 1 else [f"output{i}" for i in range(len(ys))]
        if isinstance(model, Detector):
            out_names = ["boxes", "scores", "labels"]
        if isinstance(model, Bert):
            out_names = ["last_hidden_state", "pooled"]
        path = os.path.join(tmp, "model.onnx")
        # not under no_grad: it would let nn.TransformerEncoder take its fused fast
        # path (aten::_transformer_encoder_layer_fwd), which has no ONNX export
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, tuple(xs), path, opset_version=opset, input_names=in_names,
                              output_names=out_names, do_constant_folding=True)
        m = onnx.load(path, load_external_data=False)
        got_in = [i.name for i in m.graph.input]
        got_out = [o.name for o in m.graph.output]
        if got_in != in_names or got_out != out_names:
            raise RuntimeError(f"{name}: graph I/O {got_in} -> {got_out}, expected {in_names} -> {out_names}")
        np.savez(os.path.join(tmp, "inputs.npz"), **{n: x.numpy() for n, x in zip(in_names, xs)})
        np.savez(os.path.join(tmp, "framework.npz"), **{n: y.numpy() for n, y in zip(out_names, ys)})
        meta = {"name": name, "family": family, "exporter": EXPORTER, "opset": opset,
                "input_shapes": "", "ci": ci, "seed": seed, "note": note}
        with open(os.path.join(tmp, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
        if os.path.exists(out_dir):
            shutil.rmtree(out_dir)
        os.replace(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = os.path.getsize(os.path.join(out_dir, "model.onnx")) / 1e6
    shapes = " ".join(f"{n}{list(y.shape)}" for n, y in zip(out_names, ys))
    print(f"export_torch: {name} opset {opset} {size:.1f} MB {len(m.graph.node)} nodes "
          f"-> {shapes} ({time.time() - t0:.1f}s) {out_dir}", flush=True)


def main():
    ap = argparse.ArgumentParser(description="Export the torch.onnx models of the zoo.")
    ap.add_argument("names", nargs="*", help="models to export (default: all)")
    ap.add_argument("--list", action="store_true", help="print the model names and exit")
    ap.add_argument("--ci", action="store_true", help="only the ci subset")
    ap.add_argument("--force", action="store_true", help="re-export models already in the cache")
    a = ap.parse_args()
    names = a.names or list(MODELS)
    bad = [n for n in names if n not in MODELS]
    if bad:
        sys.exit(f"export_torch: unknown model(s): {' '.join(bad)}")
    if a.ci:
        names = [n for n in names if MODELS[n][4]]
    if a.list:
        print("\n".join(names))
        return 0
    os.makedirs(cache_dir(), exist_ok=True)
    torch.set_num_threads(2)
    failed = []
    for n in names:
        try:
            export_one(n, a.force)
        except Exception as e:  # report, carry on with the others, fail at the end
            print(f"export_torch: {n}: FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            failed.append(n)
    if failed:
        sys.exit(f"export_torch: failed: {' '.join(failed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
