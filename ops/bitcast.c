/* bitcast.c - BitCast (version 26): the bits of a tensor reinterpreted as
 * another type of the same width (attribute `to`, an ONNX type code), with
 * the same shape. No value is converted: float32 1.0 becomes int32
 * 0x3f800000. Every type ctvm stores is allowed on either side (bool,
 * every int width, the float types, float8, and the packed 4- and 2-bit
 * types, whose packed bytes are kept as they are), as long as the widths
 * agree; strings and complex numbers are not supported.
 *
 * The loop IR has no bit-reinterpreting operation, so the compute
 * definition is a call of the runtime kernel ctvm_k_bitcast
 * (templates/kernel_bitcast.h), a byte copy; folding runs the same kernel.
 *
 * Normalised attributes: none ("to" is read as given). */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_bitcast_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    const Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0);
    if (!node_attr(n, "to"))
        return diag_error(d, g, node, "attribute 'to' is required");
    int64_t code = attr_int(n, "to", 0);
    DType t = dtype_from_onnx((int)code);
    if (t == DT_UNDEFINED)
        return diag_error(d, g, node, "'to' %lld is not a tensor type", (long long)code);
    if (!dtype_supported(x->dtype) || !dtype_supported(t))
        return diag_error(d, g, node, "bit cast from %s to %s is not supported", dtype_name(x->dtype),
                          dtype_name(t));
    if (dtype_bits(x->dtype) != dtype_bits(t))
        return diag_error(d, g, node, "%s (%d bits) and %s (%d bits) differ in width", dtype_name(x->dtype),
                          dtype_bits(x->dtype), dtype_name(t), dtype_bits(t));
    opu_set_out(g, node, 0, t, x->shape);
    return 0;
}

int compute_bitcast(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int64_t numel = 0, bytes[1] = {0};
    if (!shape_numel(&x->shape, &numel) || !dtype_bytes(x->dtype, numel, &bytes[0]))
        return compute_fail(cx, node, "input size unknown or too large");
    LBuf *bufs[2] = {cx->buf_of(cx, n->in[0]), cx->buf_of(cx, n->out[0])};
    int written[2] = {0, 1};
    def->custom = ls_call(cx->lb, "ctvm_k_bitcast", 2, bufs, written, 1, bytes, 0, NULL);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(bitcast)
