#!/usr/bin/python3
# Golden data for ctvm's end-to-end tests: exports seeded-random torchvision
# models to ONNX (opset 13) and writes, per model, model.onnx + inputs.npz +
# outputs.npz (PyTorch's output of the exported model object) into a cache
# directory outside the repo ($CTVM_CACHE, default ~/.cache/ctvm/models).
#
# Run with Debian's interpreter (it has torch): /usr/bin/python3 golden/export_models.py [--force] [--describe] [name ...]
import argparse
import collections
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
import torch
import torchvision

import bn_random

# name -> (torchvision constructor, seed, keep BatchNormalization nodes in the graph)
# The *_bn variants share their base model's seed: same weights, same input, so
# their outputs equal the folded model's outputs up to float rounding.
MODELS = collections.OrderedDict([
    ("resnet18",           ("resnet18",           1001, False)),
    ("resnet50",           ("resnet50",           1002, False)),
    ("mobilenet_v2",       ("mobilenet_v2",       1003, False)),
    ("squeezenet1_1",      ("squeezenet1_1",      1004, False)),
    ("shufflenet_v2_x1_0", ("shufflenet_v2_x1_0", 1005, False)),
    ("resnet18_bn",        ("resnet18",           1001, True)),
    ("mobilenet_v2_bn",    ("mobilenet_v2",       1003, True)),
])

INPUT_SHAPE = (1, 3, 224, 224)
INPUT_NAME = "input"
OUTPUT_NAME = "output"
OPSET = 13
INPUT_SEED_OFFSET = 7      # input tensor seed = model seed + this
BIAS_SEED_OFFSET = 3       # zero-bias randomization seed = model seed + this
# randomize_batchnorm seeds its generator (gamma, beta, calibration batch, stat
# perturbation) with the model seed itself.


def cache_dir():
    d = os.environ.get("CTVM_CACHE")
    if not d:
        d = os.path.join(os.path.expanduser("~"), ".cache", "ctvm", "models")
    return d


def randomize_batchnorm(model, seed):
    """Random, well-scaled BatchNorm parameters and statistics (bn_random.py),
    calibrated on a seeded batch of 2 inputs."""
    g = torch.Generator().manual_seed(seed)
    return bn_random.randomize_batchnorm(model, g, (2,) + INPUT_SHAPE[1:])


def randomize_zero_biases(model, seed):
    """Conv/Linear biases that the torchvision init leaves at exactly zero
    (squeezenet, shufflenet-free paths, ...) get N(0, 0.05): a zero bias would
    let a compiler that drops biases pass, and identical zero initializers make
    the exporter deduplicate them into Identity nodes."""
    g = torch.Generator().manual_seed(seed)
    n = 0
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)) and m.bias is not None \
                    and not torch.any(m.bias != 0):
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.05)
                n += 1
    return n


def op_histogram(model):
    c = collections.Counter(n.op_type for n in model.graph.node)
    return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))


def fmt_hist(hist):
    return " ".join("%s=%d" % kv for kv in hist)


def const_sources(model):
    """Names of initializers and Constant-node outputs (for --describe)."""
    s = {i.name: "initializer" for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant":
            for o in n.output:
                s[o] = "Constant"
    return s


def describe(model):
    """One line per distinct (op, attributes, input kinds) combination, for the
    op types whose attributes or constant inputs matter to a compiler."""
    interesting = {"MaxPool", "AveragePool", "Clip", "Split", "ReduceMean", "Reshape",
                   "Flatten", "Gemm", "Concat", "Transpose", "Slice", "Gather",
                   "BatchNormalization", "Softmax", "Unsqueeze", "Squeeze", "Pad",
                   "GlobalAveragePool", "Shape", "Add", "Mul", "Div", "Sub"}
    src = const_sources(model)
    seen = collections.Counter()
    for n in model.graph.node:
        if n.op_type not in interesting:
            continue
        attrs = []
        for a in n.attribute:
            v = onnx.helper.get_attribute_value(a)
            if isinstance(v, bytes):
                v = v.decode()
            attrs.append("%s=%s" % (a.name, v))
        ins = ",".join(src.get(i, "act") if i else "<none>" for i in n.input)
        seen["%s(%s) inputs[%s] outputs=%d" % (n.op_type, " ".join(attrs), ins, len(n.output))] += 1
    return ["    %3dx %s" % (cnt, key) for key, cnt in sorted(seen.items())]


def check_bn_nodes(model, keep_bn, name):
    bns = [n for n in model.graph.node if n.op_type == "BatchNormalization"]
    if not keep_bn:
        if bns:
            raise RuntimeError("%s: %d BatchNormalization nodes were not folded" % (name, len(bns)))
        return
    if not bns:
        raise RuntimeError("%s: no BatchNormalization node kept in the graph" % name)
    for n in bns:
        tm = [a.i for a in n.attribute if a.name == "training_mode"]
        if len(n.output) != 1 or (tm and tm[0] != 0):
            raise RuntimeError("%s: BatchNormalization %s is in training mode (outputs=%d)"
                               % (name, n.name, len(n.output)))


def build_model(name):
    """The seeded torchvision model (eval mode) and input tensor for one entry
    of MODELS, plus the number of BatchNorm layers randomized. bench/bench.py
    reuses it so PyTorch runs exactly the weights that were exported."""
    ctor, seed, _ = MODELS[name]
    torch.manual_seed(seed)
    model = getattr(torchvision.models, ctor)(weights=None)
    model.eval()
    randomize_zero_biases(model, seed + BIAS_SEED_OFFSET)
    nbn = randomize_batchnorm(model, seed)
    model.eval()

    g = torch.Generator().manual_seed(seed + INPUT_SEED_OFFSET)
    x = torch.randn(INPUT_SHAPE, generator=g)
    return model, x, nbn


def export_one(name, force, show):
    _, seed, keep_bn = MODELS[name]
    out_dir = os.path.join(cache_dir(), name)
    files = ["model.onnx", "inputs.npz", "outputs.npz"]
    if not force and all(os.path.isfile(os.path.join(out_dir, f)) for f in files):
        print("%-20s present, skipped (%s)" % (name, out_dir))
        return

    model, x, nbn = build_model(name)

    tmp_dir = os.path.join(cache_dir(), ".%s.tmp-%d" % (name, os.getpid()))
    shutil.rmtree(tmp_dir, ignore_errors=True)
    os.makedirs(tmp_dir)
    try:
        onnx_path = os.path.join(tmp_dir, "model.onnx")
        # Eval-mode export folds BN into Conv.  For *_bn, PRESERVE on an eval
        # model keeps BatchNormalization nodes in inference form (1 output,
        # no training_mode attribute) in torch 1.13; check_bn_nodes verifies it.
        # torch warns that constant folding with PRESERVE may mutate learnable
        # parameters; that concerns models in training mode, ours is in eval.
        training = torch.onnx.TrainingMode.PRESERVE if keep_bn else torch.onnx.TrainingMode.EVAL
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
            torch.onnx.export(model, x, onnx_path, opset_version=OPSET,
                              input_names=[INPUT_NAME], output_names=[OUTPUT_NAME],
                              do_constant_folding=True, training=training)
        if model.training:
            raise RuntimeError("%s: model left in training mode by export" % name)
        with torch.no_grad():
            y = model(x)

        m = onnx.load(onnx_path)
        onnx.checker.check_model(m, full_check=True)
        check_bn_nodes(m, keep_bn, name)
        in_names = [i.name for i in m.graph.input]
        out_names = [o.name for o in m.graph.output]
        if in_names != [INPUT_NAME] or out_names != [OUTPUT_NAME]:
            raise RuntimeError("%s: unexpected graph I/O %s -> %s" % (name, in_names, out_names))

        xn = x.numpy().astype(np.float32)
        yn = y.numpy().astype(np.float32)
        if not np.all(np.isfinite(yn)):
            raise RuntimeError("%s: output is not finite" % name)
        ymax = float(np.abs(yn).max())
        if not (0.1 <= ymax <= 1e3):
            raise RuntimeError("%s: max|output| = %g is out of [0.1, 1e3]" % (name, ymax))
        np.savez(os.path.join(tmp_dir, "inputs.npz"), **{INPUT_NAME: xn})
        np.savez(os.path.join(tmp_dir, "outputs.npz"), **{OUTPUT_NAME: yn})

        if os.path.exists(out_dir):
            shutil.rmtree(out_dir)
        os.replace(tmp_dir, out_dir)
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise

    onnx_path = os.path.join(out_dir, "model.onnx")
    size = os.path.getsize(onnx_path)
    print("%-20s %s %.1f MB seed=%d bn=%d %s  ops: %s  max|out|=%.4g"
          % (name, onnx_path, size / 1e6, seed, nbn, "kept" if keep_bn else "folded",
             fmt_hist(op_histogram(m)), ymax), flush=True)
    if show:
        print("\n".join(describe(m)), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("models", nargs="*", help="subset of: " + " ".join(MODELS))
    ap.add_argument("--force", action="store_true", help="re-export models already in the cache")
    ap.add_argument("--describe", action="store_true",
                    help="also print attributes and input kinds of notable ops")
    args = ap.parse_args()
    names = args.models or list(MODELS)
    bad = [n for n in names if n not in MODELS]
    if bad:
        print("export_models.py: unknown model(s): %s (known: %s)" % (" ".join(bad), " ".join(MODELS)),
              file=sys.stderr)
        return 2
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    os.makedirs(cache_dir(), exist_ok=True)
    failed = 0
    for n in names:
        try:
            export_one(n, args.force, args.describe)
        except Exception as e:  # report and carry on with the other models
            print("export_models.py: %s: FAILED: %s" % (n, e), file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
