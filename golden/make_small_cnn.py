#!/usr/bin/python3
# Makes the committed golden model golden/small_cnn/: a tiny seeded CNN (input
# 1x3x32x32 "input", output "output") whose ONNX export covers the op families
# of the seed torchvision models (Conv+bias, strided/padded, depthwise and
# grouped conv, kept BatchNormalization, Relu, Clip (ReLU6), MaxPool ceil_mode,
# AveragePool count_include_pad=0, Add, Concat, channel shuffle, chunk/split,
# ReduceMean, GlobalAveragePool, Flatten, Gemm, Softmax), plus its inputs.npz
# and outputs.npz (PyTorch's output of the exported model object).
#
# Run with Debian's interpreter: /usr/bin/python3 golden/make_small_cnn.py
# Overwriting the committed files needs UPDATE_GOLDEN=1 in the environment.
import argparse
import collections
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn

import bn_random

SEED = 2024
INPUT_SEED = SEED + 1
BN_SEED = SEED + 2
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_cnn")
FILES = ["model.onnx", "inputs.npz", "outputs.npz"]


def channel_shuffle(x, groups):
    # written the way torchvision's shufflenetv2 writes it
    batchsize, num_channels, height, width = x.size()
    channels_per_group = num_channels // groups
    x = x.view(batchsize, groups, channels_per_group, height, width)
    x = torch.transpose(x, 1, 2).contiguous()
    x = x.view(batchsize, -1, height, width)
    return x


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        # stem: Conv with bias, stride 2 + padding -> BN -> Relu      3x32x32 -> 16x16x16
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=True)
        self.stem_bn = nn.BatchNorm2d(16)
        # MaxPool ceil_mode: 16 -> 8 (floor mode would give 7)
        self.pool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        # inverted residual (mobilenet_v2 style): 1x1 expand, depthwise 3x3, 1x1 project, Add
        self.expand = nn.Conv2d(16, 32, 1, bias=False)
        self.expand_bn = nn.BatchNorm2d(32)
        self.dw = nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False)
        self.dw_bn = nn.BatchNorm2d(32)
        # nn.ReLU6 (hardtanh) exports as a single Clip, as in torchvision's
        # mobilenet_v2; F.relu6 would export as Relu followed by Clip.
        self.relu6 = nn.ReLU6()
        self.project = nn.Conv2d(32, 16, 1, bias=False)
        self.project_bn = nn.BatchNorm2d(16)
        # shufflenet style unit: chunk, grouped conv branch, concat, channel shuffle
        self.gconv = nn.Conv2d(8, 8, 3, padding=1, groups=2, bias=False)
        self.gconv_bn = nn.BatchNorm2d(8)
        # AveragePool with padding, count_include_pad=False: 8 -> 4
        self.pool2 = nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)
        # split with unequal sizes (ONNX Split with a 'split' input)
        self.conv_a = nn.Conv2d(6, 16, 1, bias=True)
        self.conv_b = nn.Conv2d(10, 16, 3, padding=1, bias=True)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(48, num_classes)

    def forward(self, x):
        x = torch.relu(self.stem_bn(self.stem(x)))
        x = self.pool1(x)
        y = self.relu6(self.expand_bn(self.expand(x)))
        y = self.relu6(self.dw_bn(self.dw(y)))
        y = self.project_bn(self.project(y))
        x = x + y
        x1, x2 = x.chunk(2, dim=1)
        x2 = torch.relu(self.gconv_bn(self.gconv(x2)))
        x = channel_shuffle(torch.cat((x1, x2), dim=1), 2)
        x = self.pool2(x)
        a, b = torch.split(x, [6, 10], dim=1)
        a = torch.relu(self.conv_a(a))
        b = torch.relu(self.conv_b(b))
        f1 = a.mean([2, 3])                        # ReduceMean
        f2 = torch.flatten(self.gap(b), 1)         # GlobalAveragePool + Flatten
        f3 = torch.flatten(x, 1)[:, :16]           # Flatten + Slice
        f = torch.cat((f1, f2, f3), dim=1)
        return torch.softmax(self.fc(f), dim=1)


def randomize(model):
    """Random BN affine params and running stats, calibrated so activations
    stay near unit scale: gamma ~ U(0.5,1.5), beta ~ N(0,0.1); running stats
    measured on a seeded calibration batch, then mean += 0.1*std*N(0,1) and
    var *= U(0.75,1.25). Conv biases ~ N(0, 0.1); fc weights scaled x3 so the
    softmax is not nearly uniform."""
    g = torch.Generator().manual_seed(BN_SEED)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Conv2d) and m.bias is not None:
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
        model.fc.weight.mul_(3.0)
        bn_random.randomize_batchnorm(model, g, (8, 3, 32, 32))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", default=OUT_DIR,
                    help="where to write (default: golden/small_cnn; other dirs need no UPDATE_GOLDEN)")
    args = ap.parse_args()
    out_dir = os.path.abspath(args.out_dir)
    existing = [f for f in FILES if os.path.exists(os.path.join(out_dir, f))]
    if existing and os.environ.get("UPDATE_GOLDEN") != "1":
        print("make_small_cnn.py: %s already holds %s; set UPDATE_GOLDEN=1 to overwrite committed golden data"
              % (out_dir, " ".join(existing)), file=sys.stderr)
        return 1
    os.makedirs(out_dir, exist_ok=True)

    torch.manual_seed(SEED)
    model = SmallCNN()
    randomize(model)
    model.eval()
    x = torch.randn((1, 3, 32, 32), generator=torch.Generator().manual_seed(INPUT_SEED))

    onnx_path = os.path.join(out_dir, "model.onnx")
    # PRESERVE on an eval model keeps BatchNormalization nodes, in inference
    # form (1 output); the warning about constant folding concerns models in
    # training mode only.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
        torch.onnx.export(model, x, onnx_path, opset_version=13,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=True, training=torch.onnx.TrainingMode.PRESERVE)
    with torch.no_grad():
        y = model(x)

    m = onnx.load(onnx_path)
    onnx.checker.check_model(m, full_check=True)
    ops = collections.Counter(n.op_type for n in m.graph.node)
    for n in m.graph.node:
        if n.op_type == "BatchNormalization" and len(n.output) != 1:
            raise RuntimeError("BatchNormalization %s has %d outputs (training mode)" % (n.name, len(n.output)))
    required = ["Conv", "BatchNormalization", "Relu", "Clip", "MaxPool", "AveragePool", "Add",
                "Concat", "Reshape", "Transpose", "Split", "Slice", "Shape", "Gather", "ReduceMean",
                "GlobalAveragePool", "Flatten", "Gemm", "Softmax"]
    missing = [r for r in required if r not in ops]
    if missing:
        raise RuntimeError("ops missing from the export: %s" % " ".join(missing))

    yn = y.numpy().astype(np.float32)
    if not np.all(np.isfinite(yn)):
        raise RuntimeError("output is not finite")
    np.savez(os.path.join(out_dir, "inputs.npz"), input=x.numpy().astype(np.float32))
    np.savez(os.path.join(out_dir, "outputs.npz"), output=yn)

    size = sum(os.path.getsize(os.path.join(out_dir, f)) for f in FILES)
    hist = " ".join("%s=%d" % kv for kv in sorted(ops.items(), key=lambda kv: (-kv[1], kv[0])))
    print("small_cnn %s %d bytes total  ops: %s  max|out|=%.4g  output=%s"
          % (onnx_path, size, hist, float(np.abs(yn).max()), np.array2string(yn.ravel(), precision=4)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
