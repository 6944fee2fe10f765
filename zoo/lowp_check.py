"""lowp_check.py - when a low-precision zoo form's output is right (issue 22):
run_zoo.py's comparison of ctvm's outputs with ONNX Runtime's for the forms
zoo/export_quant.py makes (meta.json "precision"):

- int8 forms (qdq_u8, qdq_s8, qop, dyn), integer outputs: equal to ORT's on
  >= 99.9% of the elements and within one step (1) everywhere.
- int8 forms, a float output behind a DequantizeLinear (through Reshape,
  Flatten, Transpose, Squeeze, Unsqueeze, Identity only): the step is that
  DequantizeLinear's scale, read from the model; every element within one
  step of ORT's output, or of ORT's run without graph fusion
  (ORT_DISABLE_ALL: the literal DQ -> float op -> Q semantics), whichever is
  closer; where those two ORT runs are themselves N > 1 steps apart (deep
  graphs: resnet18_qdq_u8's are 2 steps apart, 57% equal), within N steps;
  "equal" = within half a step.
- int8 forms, a float output with no DequantizeLinear (dynamic quantization, a
  float head such as a LayerNorm): no step exists, so the tolerance is ORT's
  own int8-vs-float32 gap on the same input (max |ORT int8 - ORT float32 of
  the source model|): ctvm may be as far from ORT's int8 answer as ORT's int8
  answer is from the float32 one; never tighter than the float32 rule.
  Against ORT or ORT unfused, whichever is closer (on bert_mini_dyn ORT's
  fused and unfused runs differ by as much as ctvm differs from either:
  dynamic quantization flips rounding at every requantized activation).
- fp16: ORT's float16 output; tolerance ORT's own fp16-vs-float32 gap, never
  under 2 float16 ulps of max|ref|; "equal" = within one float16 ulp of the
  element's reference value.
- bf16 (float32 arithmetic on bfloat16 weights): ORT on the same file, the
  float32 rule (1e-4 + 1e-3 max|ref|).
Needs numpy and onnx (any version that loads the file)."""
import numpy as np

ATOL, RTOL = 1e-4, 1e-3
INT8 = ("qdq_u8", "qdq_s8", "qop", "dyn")
PASS_THROUGH = {"Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Identity"}
MIN_EQUAL_PCT = 99.9


def dq_steps(onnx_path):
    """{graph output name: the scale of the DequantizeLinear it comes from}."""
    import onnx
    from onnx import numpy_helper
    g = onnx.load(onnx_path).graph
    prod = {o: n for n in g.node for o in n.output}
    inits = {i.name: i for i in g.initializer}

    def value(name):
        if name in inits:
            return numpy_helper.to_array(inits[name])
        n = prod.get(name)
        if n is not None and n.op_type == "Constant":
            for at in n.attribute:
                if at.name == "value":
                    return numpy_helper.to_array(at.t)
        return None

    steps = {}
    for o in g.output:
        n = prod.get(o.name)
        while n is not None and n.op_type in PASS_THROUGH:
            n = prod.get(n.input[0])
        if n is not None and n.op_type == "DequantizeLinear":
            sc = value(n.input[1])
            if sc is not None and sc.size:
                steps[o.name] = float(np.max(np.abs(sc.astype(np.float64))))
    return steps


def fp16_ulp(x):
    """The float16 spacing at |x| (elementwise; subnormal spacing below 2^-14)."""
    a = np.maximum(np.abs(np.asarray(x, dtype=np.float64)), 2.0 ** -14)
    return 2.0 ** (np.floor(np.log2(a)) - 10)


class Rule:
    """The output rule of one low-precision model. judge() per output; equal_pct
    and notes collect the per-model figures the table prints."""

    def __init__(self, precision, onnx_path, ref, src_ref=None, nofuse_ref=None):
        self.prec = precision
        self.ref = ref
        self.src_ref = src_ref or {}
        self.src_list = list(self.src_ref.values())
        self.ref_names = list(ref)
        self.nofuse = nofuse_ref
        self.steps = dq_steps(onnx_path) if precision in INT8 else {}
        self.equal_pct = 100.0
        self.kinds = []
        self.worst = (0.0, "step")  # the largest error in its rule's unit (steps, ulps, tolerances)

    def _src(self, name, shape):
        """The float32 source model's ORT output matching output name (else position)."""
        s = self.src_ref.get(name)
        if s is None and name in self.ref_names and self.ref_names.index(name) < len(self.src_list):
            s = self.src_list[self.ref_names.index(name)]
        return s if s is not None and s.shape == shape else None

    def judge(self, name, got):
        """(ok, one line, error over tolerance, max abs error) for one output."""
        ref = self.ref[name]
        if got.shape != ref.shape:
            return False, "%s: shape %s != ORT %s" % (name, list(got.shape), list(ref.shape)), float("inf"), 0.0
        if ref.size == 0:
            return True, "%s: empty" % name, 0.0, 0.0
        g, r = got.astype(np.float64), ref.astype(np.float64)
        d = np.abs(g - r)
        err = float(d.max())
        if self.prec in INT8 and not np.issubdtype(ref.dtype, np.floating):
            eq = 100.0 * float(np.mean(d == 0))
            ok = eq >= MIN_EQUAL_PCT and err <= 1
            return self._done(name, ok, eq, err, 1.0, "integer, step 1", err)
        if self.prec in INT8 and name in self.steps:
            step = self.steps[name]
            d, err, how = self._closer(name, g, d, err, "DQ scale %.3g" % step)
            eq = 100.0 * float(np.mean(d <= 0.5 * step))
            # ORT's own two runs (integer kernels, literal float graph) can be
            # further apart than a step on deep graphs: a rounding flip at one
            # requantized activation moves the later ones; ctvm may be as far
            # from the closer of them as they are from each other.
            n = 1
            nf = self.nofuse.get(name) if self.nofuse is not None else None
            if nf is not None and nf.shape == ref.shape:
                n = max(1, int(np.ceil(float(np.max(np.abs(r - nf.astype(np.float64)))) / step - 1e-3)))
                if n > 1:
                    how += ", ORT fused-vs-unfused %d steps" % n
            tol = n * step
            return self._done(name, err <= tol * (1 + 1e-4), eq, err, tol, how, err / step)
        mref = float(np.max(np.abs(r)))
        ftol = ATOL + RTOL * mref
        if self.prec == "bf16" or self.prec not in INT8 + ("fp16",):
            eq = 100.0 * float(np.mean(d <= ftol))
            return self._done(name, err <= ftol, eq, err, ftol, "float32 rule", err / ftol, unit="tol")
        src = self._src(name, ref.shape)
        gap = float(np.max(np.abs(r - src.astype(np.float64)))) if src is not None else None
        if self.prec == "fp16":
            floor = 2 * float(fp16_ulp(mref))
            tol = max(gap or 0.0, floor)
            eq = 100.0 * float(np.mean(d <= fp16_ulp(r)))
            how = ("ORT fp16-vs-f32 gap %.3g" % gap if gap is not None and gap > floor
                   else "2 fp16 ulp of max|ref|")
            return self._done(name, err <= tol, eq, err, tol, how, err / float(fp16_ulp(mref)), unit="ulp")
        tol = max(gap or 0.0, ftol)
        how = "ORT int8-vs-f32 gap %.3g" % gap if gap is not None and gap > ftol else "float32 rule"
        d, err, how = self._closer(name, g, d, err, how)
        eq = 100.0 * float(np.mean(d <= ftol))
        return self._done(name, err <= tol, eq, err, tol, how, err / tol, unit="tol")

    def _closer(self, name, g, d, err, how):
        """ORT's run without graph fusion instead, when it is the closer reference."""
        nf = self.nofuse.get(name) if self.nofuse is not None else None
        if nf is not None and nf.shape == g.shape:
            d2 = np.abs(g - nf.astype(np.float64))
            if float(d2.max()) < err:
                return d2, float(d2.max()), how + ", vs ORT unfused"
        return d, err, how

    def _done(self, name, ok, eq, err, tol, how, scaled, unit="step"):
        self.equal_pct = min(self.equal_pct, eq)
        self.kinds.append(how)
        if scaled >= self.worst[0]:
            self.worst = (scaled, unit)
        line = "%s: %.2f%% equal, max|err| %.3g = %.2g %s (tol %.3g: %s)%s" % (
            name, eq, err, scaled, unit, tol, how, "" if ok else " MISMATCH")
        return bool(ok), line, err / tol if tol else (0.0 if err == 0 else float("inf")), err
