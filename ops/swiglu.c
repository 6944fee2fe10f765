/* swiglu.c - SwiGLU (opset 28): Y = A * sigmoid(alpha * A) * B.
 *
 * A and B have one float type and one shape (no broadcasting). The value is
 * computed as the reference does, step by step in the input type:
 *   g = 1 / (1 + exp(-alpha * a)),  Y = (a * g) * b
 * float16/bfloat16 compute in float32 and round to their precision after
 * each step (numpy's arithmetic in those types).
 *
 * Normalised attribute: "alpha" (1.0 when absent). */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime_min/ctvm_types.h"

static int swiglu_float(DType t)
{
    return t == DT_FLOAT32 || t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT64;
}

int op_swiglu_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1);
    if (!swiglu_float(a->dtype) || b->dtype != a->dtype)
        return diag_error(d, g, node, "A and B must share a float type, got %s and %s", dtype_name(a->dtype),
                          dtype_name(b->dtype));
    int same = a->shape.rank == b->shape.rank;
    for (int i = 0; same && i < a->shape.rank; i++)
        same = a->shape.dims[i] == b->shape.dims[i];
    if (!same)
        return diag_error(d, g, node, "A %s and B %s must have the same shape (no broadcasting)",
                          opu_shape_str(&a->shape), opu_shape_str(&b->shape));
    n->at.swiglu.alpha = attr_float(n, "alpha", 1.0f);
    node_set_float(g, node, "alpha", n->at.swiglu.alpha);
    opu_set_out(g, node, 0, a->dtype, a->shape);
    return 0;
}

int compute_swiglu(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *a = &cx->g->values[n->in[0]];
    const Value *y = &cx->g->values[n->out[0]];
    DType dt = a->dtype;
    ComputeStage *st = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    st->out_is_node_output = 1;
    Expr *av = lx_load(lb, cx->buf_of(cx, n->in[0]), st->out_index);
    Expr *bv = lx_load(lb, cx->buf_of(cx, n->in[1]), st->out_index);
    LType t = av->type;
    double alpha = n->at.swiglu.alpha;
    if (dt == DT_FLOAT16)
        alpha = ctvm_f16_to_f32(ctvm_f32_to_f16((float)alpha));
    else if (dt == DT_BFLOAT16)
        alpha = ctvm_bf16_to_f32(ctvm_f32_to_bf16((float)alpha));
    Expr *one = lx_one(lb, t);
    Expr *z = compute_round_to(lb, dt, lx_mul(lb, lx_const_f(lb, t, -alpha), av));
    Expr *e = compute_round_to(lb, dt, lx_call(lb, CO_EXP, z));
    Expr *gate = compute_round_to(lb, dt, lx_div(lb, one, compute_round_to(lb, dt, lx_add(lb, one, e))));
    st->body = compute_round_to(lb, dt, lx_mul(lb, compute_round_to(lb, dt, lx_mul(lb, av, gate)), bv));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(swiglu)
