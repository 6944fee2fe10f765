/* dynamic.c - operators whose output shape depends on the data: NonZero,
 * Compress, Unique and NonMaxSuppression.
 *
 * Their outputs are marked Value.dyn with upper-bound dims: NonZero
 * [rank, numel], Compress the selected axis as long as the condition (or
 * the axis), Unique n distinct slices, NonMaxSuppression
 * batches * classes * min(max_output_boxes_per_class, boxes) rows. The
 * run-time kernels (templates/kernel_{nonzero,compress,unique,nms}.h) write
 * the data compactly for the actual shape and the actual dims into the
 * value pass "hidden" attaches (the caller's `out<i>_shape`). With constant
 * inputs the same kernels run at compile time and the result folds to a
 * constant of the exact shape. Unique and NonMaxSuppression need scratch
 * memory (attribute "scratch_bytes", placed by pass hidden).
 *
 * Normalised attributes after infer: Compress and Unique "flat_axis" (the
 * axis >= 0, or -1 for the flattened input); Unique "sorted"; NMS
 * "max_boxes" (from input 2, 0 when absent; the number of boxes when input
 * 2 is a run-time value, which the kernel then reads: "max_boxes_input" 1),
 * "center_point_box". */
#include <stdlib.h>
#include <string.h>

#include "ir/loop_kernels.h"
#include "ops/compute.h"
#include "ops/dynprop.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static void set_dyn(Graph *g, int node, int k, DType t, Shape s)
{
    opu_set_out(g, node, k, t, s);
    Value *v = opu_out(g, node, k);
    if (v) {
        v->dyn = 1;
        v->dyn_dims = -1;
    }
}

static int64_t numel_of(const Value *v)
{
    int64_t n = 0;
    shape_numel(&v->shape, &n);
    return n;
}

/* ---- infer ---- */

static int infer_nonzero(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    const Value *x = opu_in(g, node, 0);
    if (!dtype_supported(x->dtype) || dtype_is_packed(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int64_t dims[2] = {x->shape.rank ? x->shape.rank : 1, numel_of(x)};
    set_dyn(g, node, 0, DT_INT64, shape_make(2, dims));
    return 0;
}

static int infer_compress(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    const Value *x = opu_in(g, node, 0), *c = opu_in(g, node, 1);
    if (c->dtype != DT_BOOL || c->shape.rank != 1)
        return diag_error(d, g, node, "condition must be a 1-D bool tensor, got %s %s", dtype_name(c->dtype),
                          opu_shape_str(&c->shape));
    if (dtype_is_packed(x->dtype) || !dtype_supported(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int axis = -1;
    if (node_attr(n, "axis") && opu_norm_axis(g, node, d, attr_int(n, "axis", 0), x->shape.rank, "axis", &axis))
        return -1;
    n->at.dynamic.flat_axis = axis;
    Shape out = x->shape;
    int64_t clen = c->shape.dims[0];
    if (axis < 0) {
        int64_t len = numel_of(x);
        out = shape_make(1, (int64_t[]){clen < len ? clen : len});
    } else if (clen < out.dims[axis]) {
        out.dims[axis] = clen;
    }
    set_dyn(g, node, 0, x->dtype, out);
    return 0;
}

static int infer_unique(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, 1, 1, 4))
        return -1;
    const Value *x = opu_in(g, node, 0);
    if (dtype_is_packed(x->dtype) || !dtype_supported(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int axis = -1;
    if (node_attr(n, "axis") && opu_norm_axis(g, node, d, attr_int(n, "axis", 0), x->shape.rank, "axis", &axis))
        return -1;
    n->at.dynamic.flat_axis = axis;
    n->at.dynamic.sorted = attr_int(n, "sorted", 1) != 0;
    node_set_int(g, node, "sorted", n->at.dynamic.sorted);
    int64_t len = axis < 0 ? numel_of(x) : x->shape.dims[axis];
    Shape ys = axis < 0 ? shape_make(1, &len) : x->shape;
    set_dyn(g, node, 0, x->dtype, ys);
    set_dyn(g, node, 1, DT_INT64, shape_make(1, &len));
    opu_set_out(g, node, 2, DT_INT64, shape_make(1, &len));
    set_dyn(g, node, 3, DT_INT64, shape_make(1, &len));
    n->scratch.bytes = 16 * (len ? len : 1);
    n->scratch.dtype = DT_UINT8;
    return 0;
}

static int infer_nms(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 5, 1, 1))
        return -1;
    const Value *b = opu_in(g, node, 0), *s = opu_in(g, node, 1);
    if (b->dtype != DT_FLOAT32 || s->dtype != DT_FLOAT32)
        return diag_error(d, g, node, "boxes and scores must be float32");
    if (b->shape.rank != 3 || b->shape.dims[2] != 4 || s->shape.rank != 3 || s->shape.dims[0] != b->shape.dims[0] ||
        s->shape.dims[2] != b->shape.dims[1])
        return diag_error(d, g, node, "boxes %s and scores %s do not have shapes [B,N,4] and [B,C,N]",
                          opu_shape_str(&b->shape), opu_shape_str(&s->shape));
    for (int i = 3; i < 5; i++) {
        const Value *t = opu_in(g, node, i);
        if (t && (t->dtype != DT_FLOAT32 || numel_of(t) != 1))
            return diag_error(d, g, node, "input %d must be a float32 scalar", i);
    }
    int64_t max_boxes = 0;
    int64_t B = b->shape.dims[0], N = b->shape.dims[1], C = s->shape.dims[1];
    if (N > INT32_MAX / 64)
        return diag_error(d, g, node, "%lld boxes are more than the kernel indexes", (long long)N);
    const Value *m = opu_in(g, node, 2);
    if (m) {
        if (m->dtype != DT_INT64 || numel_of(m) != 1)
            return diag_error(d, g, node, "max_output_boxes_per_class must be an int64 scalar");
        /* a run-time value is read by the kernel; the buffer is sized for N */
        max_boxes = m->data ? tensor_get_i64(m->dtype, m->data, 0) : N;
        n->at.dynamic.max_boxes_input = !m->data;
    }
    if (max_boxes < 0)
        max_boxes = 0;
    int64_t per = max_boxes < N ? max_boxes : N, rows;
    if (!i64_mul(B * C, per, &rows))
        return diag_error(d, g, node, "output size overflows");
    n->at.dynamic.max_boxes = max_boxes;
    n->at.dynamic.center_point_box = (int)attr_int(n, "center_point_box", 0);
    node_set_int(g, node, "center_point_box", n->at.dynamic.center_point_box);
    set_dyn(g, node, 0, DT_INT64, shape_make(2, (int64_t[]){rows, 3}));
    /* the score order, then the x-sorted box index of templates/kernel_nms.h */
    n->scratch.bytes = 48 * (N ? N : 1);
    n->scratch.dtype = DT_UINT8;
    return 0;
}

/* ctvm.DynSelect(cond, a, b): a when the one-element cond is true, else b
 * (an If with a run-time condition whose branches both ran,
 * passes/control_flow.c); bound: the larger of the branches' bounds. */
static int infer_select(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 3, 3, 1, 1))
        return -1;
    const Value *c = opu_in(g, node, 0), *a = opu_in(g, node, 1), *b = opu_in(g, node, 2);
    if (numel_of(c) != 1 && !(c->shape.rank == 0))
        return diag_error(d, g, node, "the condition must hold one element");
    if (a->dtype != b->dtype || a->shape.rank != b->shape.rank)
        return diag_error(d, g, node, "the If branches give %s %s and %s %s; with a run-time condition ctvm needs "
                          "the same type and rank", dtype_name(a->dtype), opu_shape_str(&a->shape),
                          dtype_name(b->dtype), opu_shape_str(&b->shape));
    if (dtype_is_packed(a->dtype))
        return diag_error(d, g, node, "type %s is not supported", dtype_name(a->dtype));
    Shape s = a->shape;
    for (int i = 0; i < s.rank; i++)
        if (b->shape.dims[i] > s.dims[i])
            s.dims[i] = b->shape.dims[i];
    set_dyn(g, node, 0, a->dtype, s);
    return 0;
}

int op_dynamic_infer(Graph *g, int node, Diag *d)
{
    switch (g->nodes[node].op) {
    case OP_NONZERO: return infer_nonzero(g, node, d);
    case OP_COMPRESS: return infer_compress(g, node, d);
    case OP_UNIQUE: return infer_unique(g, node, d);
    case OP_NONMAXSUPPRESSION: return infer_nms(g, node, d);
    case OP_DYNSELECT: return infer_select(g, node, d);
    default: return diag_error(d, g, node, "not a data-dependent operator (internal error)");
    }
}

/* ---- kernel arguments, shared by code generation and folding ---- */

enum { MAXB = 10, MAXI = 32 };

typedef struct Call {
    const char *fn;
    int nb, ni;
    int vals[MAXB];  /* value ids, -1 for a null buffer; -2: dims of output k, -3 - k... see below */
    int dims_of[MAXB]; /* >= 0: this buffer is the dims array of output dims_of */
    int dims_in[MAXB]; /* >= 0: this buffer is the run-time dims of value dims_in */
    int scratch;     /* buffer index of the scratch, or -1 */
    int written[MAXB];
    int64_t ia[MAXI];
} Call;

static void compress_geometry(const Graph *g, const Node *n, int64_t *ia)
{
    const Value *x = &g->values[n->in[0]], *c = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    int axis = n->at.dynamic.flat_axis;
    int64_t outer = 1, len = 1, inner = 1;
    if (axis < 0) {
        len = numel_of(x);
    } else {
        for (int i = 0; i < x->shape.rank; i++)
            *(i < axis ? &outer : i == axis ? &len : &inner) *= x->shape.dims[i];
    }
    ia[0] = (int64_t)dtype_size(x->dtype);
    ia[1] = outer;
    ia[2] = len;
    ia[3] = inner;
    ia[4] = c->shape.dims[0];
    ia[5] = y->shape.rank;
    ia[6] = axis < 0 ? 0 : axis;
    for (int i = 0; i < y->shape.rank; i++)
        ia[7 + i] = y->shape.dims[i];
}

static int build_call(const Graph *g, int node, Call *c)
{
    const Node *n = &g->nodes[node];
    memset(c, 0, sizeof *c);
    for (int i = 0; i < MAXB; i++)
        c->dims_of[i] = c->dims_in[i] = -1;
    c->scratch = -1;
    const Value *x = &g->values[n->in[0]];
    switch (n->op) {
    case OP_NONZERO:
        c->fn = "ctvm_k_nonzero";
        c->nb = 3;
        c->vals[0] = n->in[0], c->vals[1] = n->out[0], c->dims_of[2] = 0;
        c->written[1] = c->written[2] = 1;
        c->ia[0] = x->dtype, c->ia[1] = x->shape.rank, c->ia[2] = numel_of(x);
        for (int i = 0; i < x->shape.rank; i++)
            c->ia[3 + i] = x->shape.dims[i];
        c->ia[3 + x->shape.rank] = 0; /* compact; compute_dynamic pads an operand of other operators */
        c->ni = 4 + x->shape.rank;
        return 0;
    case OP_COMPRESS:
        c->fn = "ctvm_k_compress";
        c->nb = 4;
        c->vals[0] = n->in[0], c->vals[1] = n->in[1], c->vals[2] = n->out[0], c->dims_of[3] = 0;
        c->written[2] = c->written[3] = 1;
        compress_geometry(g, n, c->ia);
        c->ni = 7 + g->values[n->out[0]].shape.rank;
        return 0;
    case OP_UNIQUE: {
        int axis = n->at.dynamic.flat_axis;
        c->fn = "ctvm_k_unique";
        c->nb = 9;
        c->vals[0] = n->in[0];
        for (int k = 0; k < 4; k++)
            c->vals[1 + k] = k < n->n_out ? n->out[k] : -1;
        c->dims_of[5] = 0, c->dims_of[6] = 1, c->dims_of[7] = 3, c->scratch = 8;
        for (int k = 1; k < 9; k++)
            c->written[k] = 1;
        int64_t outer = 1, len = 1, inner = 1;
        if (axis < 0)
            len = numel_of(x);
        else
            for (int i = 0; i < x->shape.rank; i++)
                *(i < axis ? &outer : i == axis ? &len : &inner) *= x->shape.dims[i];
        const Value *y = &g->values[n->out[0]];
        c->ia[0] = x->dtype, c->ia[1] = n->at.dynamic.sorted, c->ia[2] = len, c->ia[3] = outer, c->ia[4] = inner;
        c->ia[5] = y->shape.rank, c->ia[6] = axis < 0 ? 0 : axis;
        for (int i = 0; i < y->shape.rank; i++)
            c->ia[7 + i] = y->shape.dims[i];
        c->ni = 7 + y->shape.rank;
        return 0;
    }
    case OP_NONMAXSUPPRESSION: {
        const Value *s = &g->values[n->in[1]];
        c->fn = "ctvm_k_nms";
        c->nb = 9;
        c->vals[0] = n->in[0], c->vals[1] = n->in[1];
        c->vals[8] = -1;
        if (x->dyn)
            c->dims_in[8] = n->in[0];
        c->vals[2] = n->n_in > 3 ? n->in[3] : -1;
        c->vals[3] = n->n_in > 4 ? n->in[4] : -1;
        c->vals[7] = n->at.dynamic.max_boxes_input ? n->in[2] : -1;
        c->vals[4] = n->out[0], c->dims_of[5] = 0, c->scratch = 6;
        c->written[4] = c->written[5] = c->written[6] = 1;
        c->ia[0] = x->shape.dims[0], c->ia[1] = s->shape.dims[1], c->ia[2] = x->shape.dims[1];
        c->ia[3] = n->at.dynamic.max_boxes, c->ia[4] = n->at.dynamic.center_point_box;
        c->ni = 5;
        return 0;
    }
    case OP_DYNSELECT: {
        const Value *a = &g->values[n->in[1]], *b = &g->values[n->in[2]], *y = &g->values[n->out[0]];
        int r = y->shape.rank;
        c->fn = "ctvm_k_dyn";
        c->nb = 7;
        c->vals[0] = n->in[0], c->vals[1] = n->in[1], c->vals[3] = n->in[2], c->vals[5] = n->out[0];
        c->vals[2] = c->vals[4] = -1;
        if (a->dyn)
            c->dims_in[2] = n->in[1];
        if (b->dyn)
            c->dims_in[4] = n->in[2];
        c->dims_of[6] = 0;
        c->written[5] = c->written[6] = 1;
        c->ia[0] = 2, c->ia[1] = (int64_t)dtype_size(y->dtype), c->ia[2] = r, c->ia[3] = x->dtype;
        for (int i = 0; i < r; i++)
            c->ia[4 + i] = a->shape.dims[i], c->ia[4 + r + i] = b->shape.dims[i], c->ia[4 + 2 * r + i] = y->shape.dims[i];
        c->ni = 4 + 3 * r;
        return 0;
    }
    default: return -1;
    }
}

/* ---- code generation ---- */

int compute_dynamic(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Graph *g = cx->g;
    const Node *n = &g->nodes[node];
    Call c;
    if (build_call(g, node, &c))
        return compute_fail(cx, node, "not a data-dependent operator (internal error)");
    LBuf *bufs[MAXB];
    for (int i = 0; i < c.nb; i++) {
        int v = c.vals[i];
        if (c.dims_of[i] >= 0) {
            int out = c.dims_of[i] < n->n_out ? n->out[c.dims_of[i]] : -1;
            v = out >= 0 && g->values[out].dyn_dims >= 0 ? g->values[out].dyn_dims : -1;
        } else if (i == c.scratch) {
            v = n->scratch.value;
            if (v < 0)
                return compute_fail(cx, node, "scratch buffer not planned (internal error)");
        } else if (c.dims_in[i] >= 0) {
            v = g->values[c.dims_in[i]].dyn_dims;
        }
        bufs[i] = v >= 0 ? cx->buf_of(cx, v) : NULL;
    }
    if (n->op == OP_NONZERO && !g->values[n->out[0]].is_output)
        c.ia[c.ni - 1] = numel_of(&g->values[n->in[0]]); /* padded rows (templates/kernel_dyn.h) */
    def->custom = ls_call(cx->lb, c.fn, c.nb, bufs, c.written, c.ni, c.ia, 0, NULL);
    if (n->op == OP_DYNSELECT)
        def->custom = ls_seq2(cx->lb, def->custom, dyn_compact_stmt(cx, n->out[0]));
    return 0;
}

/* ---- folding: the same kernel on the constants, then the exact shapes ---- */

int op_dynamic_eval(Graph *g, int node, Diag *d)
{
    Call c;
    if (build_call(g, node, &c))
        return diag_error(d, g, node, "not a data-dependent operator (internal error)");
    const Node *n = &g->nodes[node];
    for (int k = 0; k < n->n_out; k++)
        if (n->out[k] >= 0 && !opu_alloc_out(g, node, k, d))
            return -1;
    int64_t dims[MAXB][CTVM_MAX_RANK + 1];
    void *bufs[MAXB];
    void *scratch = NULL;
    for (int i = 0; i < c.nb; i++) {
        if (c.dims_of[i] >= 0) {
            bufs[i] = c.dims_of[i] < n->n_out && n->out[c.dims_of[i]] >= 0 ? dims[i] : NULL;
        } else if (i == c.scratch) {
            scratch = calloc(1, (size_t)(n->scratch.bytes > 0 ? n->scratch.bytes : 8) + 8);
            if (!scratch)
                return diag_error(d, g, node, "out of memory");
            bufs[i] = scratch;
        } else {
            bufs[i] = c.vals[i] >= 0 ? g->values[c.vals[i]].data : NULL;
        }
    }
    LoopKernelFn fn = loop_kernel_find(c.fn);
    if (!fn) {
        free(scratch);
        return diag_error(d, g, node, "kernel %s missing (internal error)", c.fn);
    }
    fn(bufs, c.ia, NULL);
    free(scratch);
    for (int i = 0; i < c.nb; i++) {
        int k = c.dims_of[i];
        if (k < 0 || k >= n->n_out || n->out[k] < 0)
            continue;
        Value *v = &g->values[n->out[k]];
        for (int r = 0; r < v->shape.rank; r++)
            v->shape.dims[r] = dims[i][r];
        v->dyn = 0;
    }
    return 1;
}
