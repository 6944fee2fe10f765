"""freeze_inputs.py CASE_DIR OUT_DIR [INDEX...] - prepare an ONNX backend
conformance case for an ahead-of-time compiler: graph inputs that ctvm needs
as constants (every non-float input, and the float inputs whose indices are
given, e.g. Clip bounds or BatchNormalization statistics) become initializers
holding the case's test_data_set_0 values. Writes OUT_DIR/model.onnx and
OUT_DIR/input_<k>.pb for the inputs that stay runtime inputs, in order.
Cases stamped with an opset below 7 (GlobalAveragePool, HardSigmoid, ...,
whose semantics have not changed since) are restamped as opset 7, the
lowest ctvm accepts.
Run with /usr/bin/python3 (Debian's onnx)."""
import os
import sys

import onnx
from onnx import TensorProto

case, out = sys.argv[1], sys.argv[2]
frozen = {int(a) for a in sys.argv[3:]}
model = onnx.load(os.path.join(case, "model.onnx"))
g = model.graph
for op in model.opset_import:
    if op.domain in ("", "ai.onnx") and op.version < 7:
        op.version = 7
init_names = {t.name for t in g.initializer}
runtime = [i for i in g.input if i.name not in init_names]
keep = []
for k, vi in enumerate(runtime):
    t = TensorProto()
    with open(os.path.join(case, "test_data_set_0", f"input_{k}.pb"), "rb") as f:
        t.ParseFromString(f.read())
    if k in frozen or vi.type.tensor_type.elem_type != TensorProto.FLOAT:
        t.name = vi.name
        g.initializer.append(t)
    else:
        keep.append(t)
for k, t in enumerate(keep):
    with open(os.path.join(out, f"input_{k}.pb"), "wb") as f:
        f.write(t.SerializeToString())
onnx.save(model, os.path.join(out, "model.onnx"))
