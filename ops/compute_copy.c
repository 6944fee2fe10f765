/* compute_copy.c - data movement: Concat (one stage per input writing its
 * slab of the output), Split (one stage per output reading its slab),
 * Slice (strided read), Transpose (permuted read), and Reshape-family nodes
 * that could not become views (a plain copy of the flat elements). */
#include "ops/compute.h"

/* Index vector of a stage's axes with `add` added on dimension `axis`. */
static void axes_shifted(ComputeCtx *cx, const ComputeStage *s, int axis, int64_t add, Expr **idx)
{
    for (int d = 0; d < s->n_axes; d++) {
        idx[d] = lx_var(cx->lb, s->axis[d]);
        if (d == axis)
            idx[d] = lx_add(cx->lb, idx[d], lx_int(cx->lb, add));
    }
}

int compute_concat(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    int axis = n->at.axis.axis;
    int64_t offset = 0;
    for (int i = 0; i < n->n_in; i++) {
        const Value *x = &cx->g->values[n->in[i]];
        ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &x->shape);
        if (!s)
            return compute_fail(cx, node, "too many inputs");
        /* the stage's own row-major index reads x; the shifted one writes y */
        s->body = lx_load(cx->lb, cx->buf_of(cx, n->in[i]), s->out_index);
        Expr *oi[CTVM_MAX_RANK];
        axes_shifted(cx, s, axis, offset, oi);
        s->out_index = compute_flat_index(cx, &y->shape, oi);
        offset += x->shape.dims[axis];
    }
    return 0;
}

int compute_split(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int axis = n->at.axis.axis;
    int64_t offset = 0;
    int parts = n->at.axis.n_split; /* pass hidden may have appended outputs (run-time dims) */
    for (int i = 0; i < parts && i < n->n_out; i++) {
        if (n->out[i] < 0)
            continue;
        const Value *y = &cx->g->values[n->out[i]];
        ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[i]), &y->shape);
        if (!s)
            return compute_fail(cx, node, "too many outputs");
        Expr *xi[CTVM_MAX_RANK];
        axes_shifted(cx, s, axis, offset, xi);
        s->body = lx_load(cx->lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
        offset += y->shape.dims[axis];
    }
    return 0;
}

int compute_slice(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    const int64_t *starts = n->at.slice.starts, *steps = n->at.slice.steps;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *xi[CTVM_MAX_RANK];
    for (int d = 0; d < x->shape.rank; d++)
        xi[d] = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[d]), steps[d]), lx_int(lb, starts[d]));
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    return 0;
}

int compute_transpose(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int np = x->shape.rank;
    const int64_t *perm = n->at.transpose.perm;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *xi[CTVM_MAX_RANK];
    for (int d = 0; d < np; d++) /* y[..., i_d, ...] = x[..., i at perm[d], ...] */
        xi[perm[d]] = lx_var(lb, s->axis[d]);
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    /* [A, B, C] from [B, A, C] over 1 MB: tiled when its rows are at least a
       vector long (schedule_stage_default's knob[0]), so reads and writes are both
       contiguous pieces of 8 rows (pack_matmul's panels turned back into
       rows, with their bias and Gelu: vit_b_16's 17 -> 9 ms in all at 1
       thread, bert_base's 26.7 -> 6.2; whisper's 2-thread 10.3 -> 8.7 ms).
       Smaller ones stay in the output's order: their input is still in L2
       and whole-row writes win there (TransformerEncoder 512 KB: 0.020 vs
       0.032 ms in the input's order). */
    int64_t numel = 0;
    if (np == 3 && perm[0] == 1 && perm[1] == 0 && perm[2] == 2 &&
        shape_numel(&x->shape, &numel) && numel > (int64_t)(1 << 20) / (int64_t)dtype_size(x->dtype))
        s->knob[0] = 1;
    return 0;
}

/* Same elements, same order: copy flat. */
int compute_reshape(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    s->body = lx_load(cx->lb, cx->buf_of(cx, n->in[0]), s->out_index);
    return 0;
}
