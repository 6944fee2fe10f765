"""gen_node_suite.py OUT_DIR - writes the ONNX backend node test cases of the
installed onnx package (onnx.backend.test.case.node.collect_testcases) in the
on-disk layout of onnx's own test data: OUT_DIR/<case>/model.onnx and
OUT_DIR/<case>/test_data_set_<i>/{input,output}_<j>.pb.

Run with the python of the runner's venv (tests/conformance/conformance.py
creates it); writes into OUT_DIR.tmp and renames it into place when done, so
an interrupted run leaves no half-written suite."""
import os
import shutil
import sys

from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node


def proto_for(value, type_proto, name):
    """The serialisable proto of one input/output value of a case."""
    if type_proto.HasField("sequence_type"):
        return numpy_helper.from_list(value, name)
    if type_proto.HasField("optional_type"):
        return numpy_helper.from_optional(value, name)
    if type_proto.HasField("map_type"):
        return numpy_helper.from_dict(value, name)
    if isinstance(value, TensorProto):
        return value
    return numpy_helper.from_array(value, name)


def write_case(case, out_dir):
    d = os.path.join(out_dir, case.name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        ds = os.path.join(d, "test_data_set_%d" % i)
        os.makedirs(ds, exist_ok=True)
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                with open(os.path.join(ds, "%s_%d.pb" % (kind, j)), "wb") as f:
                    f.write(proto_for(value, infos[j].type, infos[j].name).SerializeToString())


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_node_suite.py OUT_DIR")
    out = sys.argv[1].rstrip("/")
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    cases = node.collect_testcases(None)
    for case in cases:
        write_case(case, tmp)
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    print("gen_node_suite: %d cases in %s" % (len(cases), out))


if __name__ == "__main__":
    main()
