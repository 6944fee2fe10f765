#!/usr/bin/python3
# Models beyond the seed CNNs that users bring (issue 9): seeded-random
# torchvision/torch models and a paddle2onnx-style model, each exported to
# ONNX with PyTorch's output of the same model object as the reference.
# Writes <cache>/extra/<name>/{model.onnx, inputs.npz, outputs.npz, shapes.txt}
# (not zoo/: that is the model zoo of zoo/, another format)
# (shapes.txt: the --input-shapes argument the model needs, may be empty).
#
#   densenet121   torchvision, opset 13 (Pad from the exported pooling)
#   vit_b_16      torchvision, opset 14 (LayerNorm exported as ReduceMean/Pow/Sqrt)
#   transformer   torch.nn.TransformerEncoder, 2 layers, opset 14
#   paddle_style  a small CNN with nearest and bilinear Resize and x**2 (Pow),
#                 opset 11, its input's batch dim stored as dim_value -1 the
#                 way paddle2onnx writes it
#
# Run with Debian's interpreter (it has torch):
#   /usr/bin/python3 golden/export_zoo.py [--force] [name ...]
import argparse
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torchvision


def cache_dir():
    d = os.environ.get("CTVM_CACHE")
    if not d:
        d = os.path.join(os.path.expanduser("~"), ".cache", "ctvm", "models")
    return os.path.join(d, "extra")


class PaddleStyle(torch.nn.Module):
    """Conv, nearest and bilinear upsampling, a square (Pow) and a head."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.c3 = torch.nn.Conv2d(16, 4, 1)

    def forward(self, x):
        a = torch.relu(self.c1(x))
        b = torch.relu(self.c2(a))
        up_n = torch.nn.functional.interpolate(b, scale_factor=2.0, mode="nearest")
        up_l = torch.nn.functional.interpolate(b, scale_factor=2.0, mode="bilinear", align_corners=False)
        y = torch.cat([up_n, up_l], 1)
        return self.c3(y) ** 2


def transformer():
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                             batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2)


def vit_b_16():
    m = torchvision.models.vit_b_16()
    # torchvision zero-initialises the classifier head: with seeded random
    # weights every logit would be 0 and the comparison would test nothing
    torch.nn.init.normal_(m.heads.head.weight, std=0.02)
    torch.nn.init.normal_(m.heads.head.bias, std=0.02)
    return m


# name -> (constructor, input shape, opset, seed, -1 batch dim)
MODELS = {
    "densenet121": (lambda: torchvision.models.densenet121(), (1, 3, 224, 224), 13, 2001, False),
    "vit_b_16": (vit_b_16, (1, 3, 224, 224), 14, 2002, False),
    "transformer": (transformer, (1, 16, 64), 14, 2003, False),
    "paddle_style": (PaddleStyle, (1, 3, 32, 32), 11, 2004, True),
}


def export_one(name, force):
    make, shape, opset, seed, minus_one = MODELS[name]
    d = os.path.join(cache_dir(), name)
    path = os.path.join(d, "model.onnx")
    if os.path.exists(path) and not force:
        return
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(seed)
    model = make().eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed + 7))
    with torch.no_grad():
        y = model(x)
    if not float(y.abs().max()) > 0:
        sys.exit(f"export_zoo: {name}'s reference output is all zero: it would test nothing")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
    shapes = ""
    if minus_one:  # paddle2onnx stores an unknown dim as dim_value -1
        m = onnx.load(path)
        m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = -1
        onnx.save(m, path)
        shapes = "input:[" + ",".join(str(s) for s in shape) + "]"
    np.savez(os.path.join(d, "inputs.npz"), input=x.numpy())
    np.savez(os.path.join(d, "outputs.npz"), output=y.numpy())
    with open(os.path.join(d, "shapes.txt"), "w") as f:
        f.write(shapes + "\n")
    print(f"export_zoo: {name} -> {d}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--force", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    for n in a.names or MODELS:
        if n not in MODELS:
            sys.exit(f"export_zoo: unknown model {n}")
        export_one(n, a.force)


if __name__ == "__main__":
    main()
