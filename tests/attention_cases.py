"""attention_cases.py OUT_DIR - attention written out as operators, long
enough (2^20 scores and more) that pass match_sdpa makes it one ctvm.Sdpa
kernel, with ONNX Runtime references: MatMul -> Div -> Add(mask) -> Softmax
-> MatMul with a padding mask [B,1,1,T]; MatMul -> Mul -> Softmax -> MatMul
on 3-D [B*H,S,D] operands with odd sizes (row, column and V tails).

Each case is OUT_DIR/<case>/{model.onnx, inputs.npz, outputs.npz} and a line
"<case>" in OUT_DIR/cases.txt; tests/e2e.sh runs them through ctvm-run and
checks that the generated C calls ctvm_k_sdpa. Run with a Python that has
onnx and onnxruntime (the bench venv)."""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort
from onnx import TensorProto as TP
from onnx import helper as h


def const(name, arr):
    return h.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(np.asarray(arr), name + "_v"))


def masked(B, H, S, T, D):
    """4-D, Div by sqrt(D), a [B,1,1,T] padding mask as a graph input"""
    nodes = [h.make_node("MatMul", ["q", "kt"], ["s"]), const("c", np.array(np.sqrt(D), np.float32)),
             h.make_node("Div", ["s", "c"], ["sc"]), h.make_node("Add", ["sc", "mask"], ["sm"]),
             h.make_node("Softmax", ["sm"], ["p"], axis=-1), h.make_node("MatMul", ["p", "v"], ["y"])]
    ins = {"q": (B, H, S, D), "kt": (B, H, D, T), "v": (B, H, T, D), "mask": (B, 1, 1, T)}
    return nodes, ins, (B, H, S, D)


def scaled3d(BH, S, T, Dk, Dv):
    """3-D operands, Mul by a constant that is not a power of two, no mask"""
    nodes = [h.make_node("MatMul", ["q", "kt"], ["s"]), const("c", np.array(0.3, np.float32)),
             h.make_node("Mul", ["c", "s"], ["sc"]), h.make_node("Softmax", ["sc"], ["p"], axis=2),
             h.make_node("MatMul", ["p", "v"], ["y"])]
    ins = {"q": (BH, S, Dk), "kt": (BH, Dk, T), "v": (BH, T, Dv)}
    return nodes, ins, (BH, S, Dv)


def main(out):
    rng = np.random.default_rng(3)
    cases = {"sdpa_masked": masked(1, 2, 768, 700, 16), "sdpa_3d_odd": scaled3d(3, 611, 590, 24, 20)}
    lines = []
    for name, (nodes, ins, yshape) in cases.items():
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        g = h.make_graph(nodes, name, [h.make_tensor_value_info(k, TP.FLOAT, s) for k, s in ins.items()],
                         [h.make_tensor_value_info("y", TP.FLOAT, yshape)])
        path = os.path.join(d, "model.onnx")
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), path)
        feed = {k: rng.standard_normal(s).astype(np.float32) for k, s in ins.items()}
        if "mask" in feed:  # padding: the last 100 keys of batch 0 masked out
            feed["mask"] = np.zeros(ins["mask"], np.float32)
            feed["mask"][..., -100:] = -10000.0
        np.savez(os.path.join(d, "inputs.npz"), **feed)
        y = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feed)[0]
        np.savez(os.path.join(d, "outputs.npz"), y=y)
        lines.append(name)
        print(name, y.shape)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
