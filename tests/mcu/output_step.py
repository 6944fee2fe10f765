#!/usr/bin/python3
"""output_step.py - the quantization step of a QDQ model's graph output, for
the Cortex-M7 int8 test (tests/mcu/run_m7.sh --int8):

    output_step.py model.onnx [OUTPUT]

prints the scale of the DequantizeLinear that produces OUTPUT (default: the
first graph output), a per-tensor float constant; exit 1 when the output is
not made by such a DequantizeLinear. Needs Debian's python3-onnx."""
import sys

import onnx
from onnx import numpy_helper


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: output_step.py model.onnx [OUTPUT]")
    m = onnx.load(sys.argv[1])
    name = sys.argv[2] if len(sys.argv) == 3 else m.graph.output[0].name
    consts = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    for n in m.graph.node:
        if name in n.output:
            if n.op_type != "DequantizeLinear" or n.input[1] not in consts or consts[n.input[1]].size != 1:
                sys.exit(f"output_step: {name} is made by {n.op_type}, not a per-tensor DequantizeLinear")
            print(repr(float(consts[n.input[1]].ravel()[0])))
            return 0
    sys.exit(f"output_step: no node makes {name}")


if __name__ == "__main__":
    sys.exit(main())
