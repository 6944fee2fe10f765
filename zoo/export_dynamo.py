"""export_dynamo.py - the zoo's models exported by torch 2's dynamo exporter
(torch.onnx.export(..., dynamo=True)) at its default opset, with seeded random
weights, into $CTVM_CACHE/zoo/<name>/ (format: /work/ZOO_FORMAT.md).

    ~/.cache/ctvm/zoo-dynamo/bin/python zoo/export_dynamo.py [--list] [--ci] [--force] [name ...]

(zoo/setup_venvs.sh makes that venv.) Each model is checked before it is saved:
ONNX Runtime on inputs.npz must match torch's own outputs (framework.npz)."""
import math
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import bn_random  # noqa: E402
import zoo_common  # noqa: E402

PROG = "export_dynamo"


class BertEncoder(torch.nn.Module):
    """BERT-base shaped encoder: word/position/token-type Gather embeddings,
    LayerNorm, 12 layers of 12-head attention with the additive mask before
    Softmax and an erf-GELU FFN. Returns the last hidden state."""

    def __init__(self, vocab=30522, hidden=768, heads=12, ffn=3072, layers=12, max_pos=512):
        super().__init__()
        self.heads = heads
        self.word = torch.nn.Embedding(vocab, hidden)
        self.pos = torch.nn.Embedding(max_pos, hidden)
        self.token_type = torch.nn.Embedding(2, hidden)
        self.ln = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.layers = torch.nn.ModuleList(BertLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, input_ids, attention_mask):
        seq = input_ids.shape[1]
        pos = torch.arange(seq, dtype=torch.int64).unsqueeze(0)
        x = self.ln(self.word(input_ids) + self.pos(pos) + self.token_type(torch.zeros_like(input_ids)))
        add_mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, add_mask)
        return x


class BertLayer(torch.nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.q = torch.nn.Linear(hidden, hidden)
        self.k = torch.nn.Linear(hidden, hidden)
        self.v = torch.nn.Linear(hidden, hidden)
        self.o = torch.nn.Linear(hidden, hidden)
        self.ln1 = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.ff1 = torch.nn.Linear(hidden, ffn)
        self.ff2 = torch.nn.Linear(ffn, hidden)
        self.gelu = torch.nn.GELU()  # erf form
        self.ln2 = torch.nn.LayerNorm(hidden, eps=1e-12)

    def split(self, t):
        b, s, h = t.shape
        return t.view(b, s, self.heads, h // self.heads).transpose(1, 2)

    def forward(self, x, add_mask):
        b, s, h = x.shape
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(h // self.heads) + add_mask
        ctx = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, s, h)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.ff2(self.gelu(self.ff1(x))))


def image_input(seed):
    return {"input": torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(seed + 7))}


def bert_input(seed, seq=128, valid=100, vocab=30522):
    g = torch.Generator().manual_seed(seed + 7)
    ids = torch.randint(0, vocab, (1, seq), generator=g, dtype=torch.int64)
    mask = torch.zeros(1, seq, dtype=torch.int64)
    mask[:, :valid] = 1  # trailing padding
    ids[:, valid:] = 0   # [PAD]
    return {"input_ids": ids, "attention_mask": mask}


def vit_b_16():
    m = torchvision.models.vit_b_16(weights=None)
    # torchvision zero-initialises the classifier head: the logits would be constant
    torch.nn.init.normal_(m.heads.head.weight, std=0.02)
    torch.nn.init.normal_(m.heads.head.bias, std=0.02)
    return m


# name -> constructor, inputs, family, seed, ci
MODELS = {
    "resnet50_dynamo": dict(make=lambda: torchvision.models.resnet50(weights=None), inputs=image_input,
                            family="classification", seed=3001, ci=False),
    "mobilenet_v3_dynamo": dict(make=lambda: torchvision.models.mobilenet_v3_large(weights=None),
                                inputs=image_input, family="classification", seed=3002, ci=True),
    "vit_b_16_dynamo": dict(make=vit_b_16, inputs=image_input, family="transformer", seed=3003, ci=False),
    "bert_base_dynamo": dict(make=BertEncoder, inputs=bert_input, family="transformer", seed=3004, ci=False),
}


def randomize_params(model, seed):
    """Non-trivial BatchNorm (bn_random, calibrated on a seeded batch of 2),
    LayerNorm affine and every bias drawn at random: a compiler that drops a
    bias or a normalisation's shift must not pass."""
    g = torch.Generator().manual_seed(seed + 3)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)) and m.bias is not None:
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.05)
            if isinstance(m, torch.nn.LayerNorm):
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
    if any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in model.modules()):
        bn_random.randomize_batchnorm(model, torch.Generator().manual_seed(seed), (2, 3, 224, 224))
    model.eval()


def export_onnx(model, inputs, path):
    """Dynamo export at the exporter's default opset, weights inside the file,
    graph I/O named after the forward arguments and 'output'."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prog = torch.onnx.export(model, tuple(inputs.values()), dynamo=True, external_data=False,
                                 input_names=list(inputs), output_names=["output"])
    prog.save(path, external_data=False)
    return onnx.load(path)


def export_one(name):
    spec = MODELS[name]
    torch.manual_seed(spec["seed"])
    model = spec["make"]().eval()
    randomize_params(model, spec["seed"])
    inputs = spec["inputs"](spec["seed"])
    with torch.no_grad():
        y = model(*inputs.values())
    tmp = zoo_common.tmp_dir(name)
    path = os.path.join(tmp, "model.onnx")
    m = export_onnx(model, inputs, path)
    zoo_common.check_fixed_shapes(name, m)
    if len(m.graph.output) != 1:
        raise RuntimeError("%s: %d graph outputs, expected 1" % (name, len(m.graph.output)))
    ins = {k: v.numpy() for k, v in inputs.items()}
    ref = {m.graph.output[0].name: y.numpy()}
    zoo_common.check_output(name, ref)
    zoo_common.input_dtypes_match(name, m, ins)
    err = zoo_common.ort_max_err(name, path, ins, ref)
    opset = zoo_common.opset_of(m)
    meta = {"name": name, "family": spec["family"], "exporter": "torch.export/dynamo " + torch.__version__,
            "opset": opset, "input_shapes": "", "ci": spec["ci"], "seed": spec["seed"],
            "note": "torch %s, onnxscript %s, default opset; ORT vs torch max err %.3g"
                    % (torch.__version__, _version("onnxscript"), err)}
    d = zoo_common.write_model_dir(name, tmp, ins, ref, meta)
    return "opset %d, %d nodes, ORT max err %.3g -> %s" % (opset, len(m.graph.node), err, d)


def _version(mod):
    try:
        return __import__(mod).__version__
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    torch.set_num_threads(2)
    zoo_common.run_all(PROG, MODELS, export_one)
