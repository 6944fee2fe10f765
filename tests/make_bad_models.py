"""make_bad_models.py - ONNX models for the refusal tests of tests/e2e.sh
(an unsupported operator, a symbolic input dimension; hostile files: huge or
negative dims, bad output lists, deep nesting, many nodes, external data that
is a FIFO, folding bombs and sizes past what the generated C indexes; a big
model to kill while it is emitted) and of ctvm-run (input files of the wrong
shape, dtype or name). Run with /usr/bin/python3."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
# an operator of a custom domain: no standard meaning, so it must stay refused
node = helper.make_node("FancyOp", ["x", "x"], ["y"], name="weird_node", domain="com.example")
g = helper.make_graph([node], "unsupported", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)]),
          f"{out}/unsupported.onnx")

xs = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
ys = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
node = helper.make_node("Relu", ["x"], ["y"], name="relu")
g = helper.make_graph([node], "symbolic", [xs], [ys])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/symbolic.onnx")

# big.onnx: a chain of 8 MatMuls with 1024x1024 weights (32 MB), whose
# emission takes long enough to send it a signal midway

n, k = 1024, 8
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])
rng = np.random.default_rng(0)
inits, nodes, prev = [], [], "x"
for i in range(k):
    inits.append(numpy_helper.from_array(rng.standard_normal((n, n)).astype(np.float32), f"w{i}"))
    nxt = "y" if i == k - 1 else f"h{i}"
    nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [nxt], name=f"mm{i}"))
    prev = nxt
g = helper.make_graph(nodes, "big", [x], [y], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/big.onnx")

# --- sizes: folding bombs and element counts past int (passes/infer_fold.c) ---
def save13(nodes, name, inits, inputs=()):
    yv = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph(nodes, name, list(inputs), [yv], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/{name}.onnx")


def i64(name, vals):
    return numpy_helper.from_array(np.array(vals, np.int64), name)


one = numpy_helper.from_array(np.zeros([1], np.float32), "one")
# under 100 bytes each: a Tile and a ConstantOfShape that fold to 4 GiB
save13([helper.make_node("Tile", ["one", "r"], ["y"], name="big_tile")], "fold_tile",
       [one, i64("r", [1 << 30])])
save13([helper.make_node("ConstantOfShape", ["s"], ["y"], name="big_fill")], "fold_fill",
       [i64("s", [1 << 30])])
# ... and one asking for 4 TB (2^40 elements)
save13([helper.make_node("ConstantOfShape", ["s"], ["y"], name="huge_fill")], "fold_fill_4tb",
       [i64("s", [1 << 20, 1 << 20])])
# a valid model that folds 16 MB (a Tile summed to a scalar) added to its input
save13([helper.make_node("Tile", ["one", "r"], ["t"], name="tile16m"),
        helper.make_node("ReduceSum", ["t"], ["s"], name="sum16m", keepdims=0),
        helper.make_node("Add", ["x", "s"], ["y"], name="add")], "fold_16m",
       [one, i64("r", [1 << 22])], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])])
# an element count that overflows int64 only through inference: three
# [2^21]-element views of one small input broadcast together to [2^21]^3
n = 1 << 21
save13([helper.make_node("Reshape", ["x", "sa"], ["a"], name="ra"),
        helper.make_node("Reshape", ["x", "sb"], ["b"], name="rb"),
        helper.make_node("Reshape", ["x", "sc"], ["c"], name="rc"),
        helper.make_node("Sum", ["a", "b", "c"], ["y"], name="huge_sum")], "huge_sum",
       [i64("sa", [n, 1, 1]), i64("sb", [1, n, 1]), i64("sc", [1, 1, n])],
       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])])
# an input declared [2^32, 2^32, 2^32]
save13([helper.make_node("Relu", ["x"], ["y"], name="relu")], "huge_input", [],
       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1 << 32] * 3)])
# a Loop unrolled 4096 times, each iteration a new copy of its body's 64 KB initializer
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep"),
     helper.make_node("Add", ["v_in", "w"], ["v_out"], name="add_w")], "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [16384])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [16384])],
    [numpy_helper.from_array(np.ones([16384], np.float32), "w")])
save13([helper.make_node("Loop", ["m", "", "x"], ["y"], name="unrolled", body=body)], "loop_copies",
       [i64("m", 4096)], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16384])])
# int64 arithmetic on attribute and constant values at their extremes (UBSan
# found signed overflow in each): Range bounds, Split sizes, pool strides/pads
save13([helper.make_node("Range", ["a", "b", "d"], ["y"], name="long_range")], "range_extreme",
       [i64("a", -(1 << 62)), i64("b", 1 << 62), i64("d", 1)])
four = numpy_helper.from_array(np.ones([4], np.float32), "four")
split = helper.make_node("Split", ["four", "s"], ["y", "z"], name="split_sum")
save13([split], "split_extreme", [four, i64("s", [2**63 - 1, 2**63 - 1])])
save13([helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], strides=[2**62, 1],
                         pads=[2**62, 0, 2**62, 0])], "pool_extreme", [],
       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])])
# ctvm-run's input files (tests/e2e.sh, "ctvm-run checks its inputs"): golden/small_cnn's
# input ([1,3,32,32] float32, named "input") in another shape, dtype or name, and a
# [1]-shaped model fed a scalar
import os

import numpy as np
from onnx import numpy_helper

x = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "small_cnn", "inputs.npz"))["input"]
np.save(f"{out}/in_nhwc.npy", x.reshape(3, 32, 32, 1))
np.save(f"{out}/in_flat.npy", x.reshape(3072))
np.save(f"{out}/in_f64.npy", x.astype(np.float64))
np.savez(f"{out}/in_other_name.npz", image=x, mask=x)
with open(f"{out}/in_other_name.pb", "wb") as f:
    f.write(numpy_helper.from_array(x, name="image").SerializeToString())
x1 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
y1 = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "one", [x1], [y1])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/one.onnx")
np.save(f"{out}/scalar.npy", np.array(2.0, dtype=np.float32))

def save(graph, name, opset=13):
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), f"{out}/{name}")


# hostile declarations: dims of 2^32 (whose product overflowed to SIZE 0), a -5 dim
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
save(helper.make_graph([relu], "huge", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2**32] * 3)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2**32] * 3)]), "huge_dims.onnx")
save(helper.make_graph([relu], "neg", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-5, 3])],
                       [y]), "neg_dim.onnx")
# outputs: listed twice; an output that is the input; no nodes at all
save(helper.make_graph([relu], "dup", [x], [y, y]), "dup_output.onnx")
save(helper.make_graph([relu], "outin", [x], [y, x]), "output_is_input.onnx")
save(helper.make_graph([], "identity", [x], [x]), "identity.onnx")

# If bodies nested 20 deep (ctvm's limit is 16)
cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
def leaf(o):
    return helper.make_graph([helper.make_node("Identity", ["x"], [o])], "leaf", [],
                             [helper.make_tensor_value_info(o, TensorProto.FLOAT, [2, 3])])


body = leaf("o0")
for level in range(1, 21):
    o = f"o{level}"
    node = helper.make_node("If", ["c"], [o], name=f"if{level}", then_branch=body, else_branch=leaf(o))
    body = helper.make_graph([node], f"b{level}", [], [helper.make_tensor_value_info(o, TensorProto.FLOAT, [2, 3])])
save(helper.make_graph(body.node, "deep_if", [x, cond], [helper.make_tensor_value_info("o20", TensorProto.FLOAT, [2, 3])]),
     "deep_if.onnx")

# initializer W whose external data is the FIFO fifo.bin (e2e.sh makes it with mkfifo)
w = helper.make_tensor("W", TensorProto.FLOAT, [2, 3], [0.0] * 6)
w.ClearField("float_data")
w.data_location = TensorProto.EXTERNAL
w.external_data.add(key="location", value="fifo.bin")
add = helper.make_node("Add", ["x", "W"], ["y"], name="add")
save(helper.make_graph([add], "fifo_ext", [x], [y], initializer=[w]), "fifo_ext.onnx")


# raw protobuf bytes the onnx module would not write
def varint(v):
    b = bytearray()
    while True:
        b.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            return bytes(b)


def field(num, body):
    return varint(num << 3 | 2) + varint(len(body)) + body


def model_of_graph_body(body):
    return b"\x08\x08" + field(7, body)  # ir_version 8, graph


# 30000 levels: graph > node > attribute > graph ... (overflowed the stack in protobuf-c)
body = b""
for _ in range(10000):
    body = field(1, field(5, field(6, body)))
with open(f"{out}/deep_proto.onnx", "wb") as f:
    f.write(model_of_graph_body(body))
# 2^20 + 1 empty nodes (two bytes each)
with open(f"{out}/many_nodes.onnx", "wb") as f:
    f.write(model_of_graph_body(b"\x0a\x00" * (2**20 + 1)))

# a variadic operator with an empty input name (found by fuzz_model: Max with a
# name that began with a NUL byte dereferenced the missing input)
for op, attrs in (("Concat", {"axis": 0}), ("Einsum", {"equation": "i,i->i"}), ("Sum", {}), ("Max", {})):
    n = helper.make_node(op, ["x", ""], ["y"], name="n", **attrs)
    save(helper.make_graph([n], "missing", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                           [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]), f"missing_{op}.onnx")

# a Tile to [2^33, 0]: no elements, but a dim past int (found by fuzz_model:
# signed overflow in the loop lowering's index arithmetic)
save(helper.make_graph([helper.make_node("Tile", ["x", "r"], ["y"], name="tile_empty")], "tile_empty",
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                       [numpy_helper.from_array(np.array([1 << 33, 0], np.int64), "r")]), "tile_huge_empty.onnx")
