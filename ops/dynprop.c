/* dynprop.c - data-dependent shapes flowing through operators.
 *
 * A value with Value.dyn has upper-bound dims in `shape` and its actual
 * dims in an int64[rank] value (Value.dyn_dims, made by pass hidden). Its
 * buffer is laid out over the bound (padded, templates/kernel_dyn.h), so an
 * operator that computes every element of its bound-shaped output from the
 * bound-shaped inputs is exact on the actual extents; such operators keep
 * their ordinary compute definition and get a small run-time program that
 * writes their output's dims (kind DYN_PROG, attribute "dyn_prog<k>" per
 * output k: instructions of kernel_dyn.h's DIMS, buffer j = 1 + input j,
 * the input's dims when it is dyn, else its int64 data). Bounds come from
 * the ordinary shape rules on the inputs' bounds.
 *
 *   elementwise (incl. Cast, Where, Identity): numpy broadcasting of dims
 *   Transpose: permuted; Squeeze/Unsqueeze/Reshape/Flatten: a dyn axis must
 *     keep its extent and the bound product of the axes before it;
 *   Gather/GatherND: dims of data and indices as the shape rule takes them;
 *   Slice: a dyn axis with constant start >= 0, end >= 0, step > 0;
 *   Split: not along a dyn axis; Concat not along a dyn axis;
 *   ConstantOfShape: dims are the run-time shape, bounded by the dims of
 *     the value a Shape node read.
 * Operators that need the actual extents use kernel_dyn.h (attribute
 * "dyn_kind"): Concat along a dyn axis (DYN_APPEND), Reduce* (DYN_REDUCE),
 * TopK with a run-time k or a dyn input (DYN_TOPK; k is bounded by the
 * input's bound along the axis), Shape of a dyn value (DYN_SHAPE, a run-time
 * int64 tensor). NonMaxSuppression reads its boxes' actual count and If
 * with a run-time condition becomes ctvm.DynSelect (ops/dynamic.c). Any
 * other operator reading a dyn value is refused. */
#include <string.h>

#include "ir/loop_kernels.h"
#include "ops/compute.h"
#include "ops/dynprop.h"
#include "ops/op_util.h"
#include "ops/ops.h"

enum { M_SET = 0, M_COPY = 1, M_BCAST = 2, M_SLICE = 3, M_ADD = 4 };

typedef struct Prog {
    int n;
    int64_t ins[7 * 4 * CTVM_MAX_RANK];
} Prog;

static void emit(Prog *p, int mode, int r, int j, int64_t a, int64_t p0, int64_t p1, int64_t p2)
{
    int64_t *q = p->ins + 7 * p->n++;
    q[0] = mode, q[1] = r, q[2] = j, q[3] = a, q[4] = p0, q[5] = p1, q[6] = p2;
}

static const Value *in_val(const Graph *g, const Node *n, int i)
{
    return i < n->n_in && n->in[i] >= 0 ? &g->values[n->in[i]] : NULL;
}

/* d[r] = dim a of input i (its run-time dims when dyn) */
static void copy_dim(Prog *p, const Graph *g, const Node *n, int r, int i, int a)
{
    const Value *v = in_val(g, n, i);
    if (v && v->dyn)
        emit(p, M_COPY, r, 1 + i, a, 0, 0, 0);
    else
        emit(p, M_SET, r, 0, 0, v ? v->shape.dims[a] : 1, 0, 0);
}

static int prog_reads(const Prog *p)
{
    for (int t = 0; t < p->n; t++)
        if (p->ins[7 * t + 2] > 0)
            return 1;
    return 0;
}

static int first_dyn_input(const Graph *g, const Node *n)
{
    for (int i = 0; i < n->n_in; i++)
        if (in_val(g, n, i) && in_val(g, n, i)->dyn)
            return i;
    return -1;
}

static int refuse(Graph *g, int node, Diag *d, const char *why)
{
    const Node *n = &g->nodes[node];
    int i = first_dyn_input(g, n);
    return diag_error(d, g, node, "input '%s' has a data-dependent shape; %s", i >= 0 ? g->values[n->in[i]].name : "?",
                      why);
}

static int is_eltwise(OpKind k)
{
    return op_is_elementwise(k) || k == OP_CAST || k == OP_WHERE || k == OP_IDENTITY;
}

/* the program of output k of node; 1 when there is one, 0 when the op does
 * not take this path, -1 on error */
static int build_prog(Graph *g, int node, int k, Prog *p, Diag *d)
{
    const Node *n = &g->nodes[node];
    const Value *y = &g->values[n->out[k]];
    const Value *x = in_val(g, n, 0);
    int R = y->shape.rank;
    p->n = 0;
    if (is_eltwise(n->op)) {
        for (int r = 0; r < R; r++) {
            emit(p, M_SET, r, 0, 0, 1, 0, 0);
            for (int i = 0; i < n->n_in; i++) {
                const Value *v = in_val(g, n, i);
                if (!v || r < R - v->shape.rank)
                    continue;
                int a = r - (R - v->shape.rank);
                if (v->dyn)
                    emit(p, M_BCAST, r, 1 + i, a, 0, 0, 0);
                else
                    emit(p, M_BCAST, r, 0, 0, v->shape.dims[a], 0, 0);
            }
        }
        return 1;
    }
    switch (n->op) {
    case OP_TRANSPOSE: {
        const int64_t *perm = n->at.transpose.perm;
        for (int r = 0; r < R; r++)
            copy_dim(p, g, n, r, 0, (int)perm[r]);
        return 1;
    }
    case OP_RESHAPE: case OP_SQUEEZE: case OP_UNSQUEEZE: case OP_FLATTEN: {
        for (int r = 0; r < R; r++)
            emit(p, M_SET, r, 0, 0, y->shape.dims[r], 0, 0);
        if (!x->dyn)
            return 1;
        for (int i = 0; i < x->shape.rank; i++) {
            /* a dyn axis keeps its extent and the bound elements before it */
            int64_t pre = 1, found = -1;
            for (int a = 0; a < i; a++)
                pre *= x->shape.dims[a];
            int64_t opre = 1;
            for (int r = 0; r < R && found < 0; r++) {
                if (opre == pre && y->shape.dims[r] == x->shape.dims[i])
                    found = r;
                opre *= y->shape.dims[r];
            }
            if (x->shape.dims[i] == 1 && found < 0)
                continue; /* a squeezed axis of bound 1 */
            if (found < 0)
                return refuse(g, node, d, "this reshape does not keep its axes of run-time extent");
            emit(p, M_COPY, (int)found, 1, i, 0, 0, 0);
        }
        return 1;
    }
    case OP_GATHER: {
        const Value *iv = in_val(g, n, 1);
        int axis = n->at.axis.axis, q = iv->shape.rank;
        for (int r = 0; r < R; r++) {
            if (r < axis)
                copy_dim(p, g, n, r, 0, r);
            else if (r < axis + q)
                copy_dim(p, g, n, r, 1, r - axis);
            else
                copy_dim(p, g, n, r, 0, r - q + 1);
        }
        return 1;
    }
    case OP_GATHERND: {
        const Value *iv = in_val(g, n, 1);
        int q = iv->shape.rank, b = (int)n->at.axis.batch_dims;
        int last = (int)iv->shape.dims[q - 1];
        for (int r = 0; r < R; r++) {
            if (r < q - 1)
                copy_dim(p, g, n, r, 1, r);
            else
                copy_dim(p, g, n, r, 0, b + last + (r - (q - 1)));
        }
        return 1;
    }
    case OP_SLICE: {
        if (n->version < 10)
            return refuse(g, node, d, "Slice before version 10 is not supported on it");
        int64_t st[CTVM_MAX_RANK], en[CTVM_MAX_RANK], ax[CTVM_MAX_RANK], sp[CTVM_MAX_RANK];
        int ns = 0, ne = 0, na = -1, nst = -1;
        if (opu_const_ints(g, node, d, 1, st, CTVM_MAX_RANK, &ns) || opu_const_ints(g, node, d, 2, en, CTVM_MAX_RANK, &ne))
            return -1;
        if (in_val(g, n, 3) && opu_const_ints(g, node, d, 3, ax, CTVM_MAX_RANK, &na))
            return -1;
        if (in_val(g, n, 4) && opu_const_ints(g, node, d, 4, sp, CTVM_MAX_RANK, &nst))
            return -1;
        for (int r = 0; r < R; r++) {
            int sliced = -1;
            for (int i = 0; i < ns; i++) {
                int64_t a = na >= 0 ? ax[i] : i;
                if (a < 0)
                    a += R;
                if (a == r)
                    sliced = i;
            }
            if (!x->dyn || sliced < 0) {
                if (sliced < 0)
                    copy_dim(p, g, n, r, 0, r);
                else
                    emit(p, M_SET, r, 0, 0, y->shape.dims[r], 0, 0);
                continue;
            }
            int64_t s = st[sliced], e = en[sliced], step = nst >= 0 ? sp[sliced] : 1;
            if (s < 0 || e < 0 || step <= 0)
                return refuse(g, node, d, "Slice on it needs constant starts and ends >= 0 and steps > 0");
            emit(p, M_SLICE, r, 1, r, s, e, step);
        }
        return 1;
    }
    case OP_SPLIT: {
        int axis = n->at.axis.axis;
        for (int r = 0; x->dyn && r < R; r++) {
            if (r == axis)
                emit(p, M_SET, r, 0, 0, y->shape.dims[r], 0, 0);
            else
                copy_dim(p, g, n, r, 0, r);
        }
        return 1;
    }
    case OP_CONCAT: {
        int axis = n->at.axis.axis, src = first_dyn_input(g, n);
        for (int r = 0; r < R; r++)
            if (r == axis)
                emit(p, M_SET, r, 0, 0, y->shape.dims[r], 0, 0);
            else
                copy_dim(p, g, n, r, src, r);
        return 1;
    }
    case OP_CONSTANTOFSHAPE:
        for (int r = 0; r < R; r++)
            emit(p, M_COPY, r, 1, r, 0, 0, 0);
        return 1;
    default:
        return 0;
    }
}

static void mark_dyn(Graph *g, int v)
{
    g->values[v].dyn = 1;
    g->values[v].dyn_dims = -1;
}

/* Keeps program p as the one computing output k's dims (Node.dyn). */
static void set_prog(Graph *g, int node, int k, const Prog *p)
{
    Node *n = &g->nodes[node];
    if (!n->dyn.prog) {
        n->dyn.n_prog = n->n_out;
        n->dyn.prog = arena_array(g->arena, (size_t)n->n_out + 1, sizeof(int64_t *));
        n->dyn.prog_len = arena_array(g->arena, (size_t)n->n_out + 1, sizeof(int));
    }
    int64_t *ins = arena_array(g->arena, (size_t)(7 * p->n) + 1, sizeof(int64_t));
    memcpy(ins, p->ins, sizeof(int64_t) * (size_t)(7 * p->n));
    n->dyn.prog[k] = ins;
    n->dyn.prog_len[k] = 7 * p->n;
}

int dyn_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int any = first_dyn_input(g, n) >= 0;
    int special = (n->op == OP_TOPK && n->at.topk.k_runtime) ||
                  (n->op == OP_CONSTANTOFSHAPE && n->at.shape.shape_runtime);
    if (!any && !special)
        return 0;
    switch (n->op) {
    case OP_NONMAXSUPPRESSION: case OP_DYNSELECT:
        return 0; /* ops/dynamic.c reads the dims itself */
    case OP_SHAPE:
        n->dyn.kind = DYN_SHAPE;
        return 0;
    case OP_TOPK:
        n->dyn.kind = DYN_TOPK;
        mark_dyn(g, n->out[0]);
        mark_dyn(g, n->out[1]);
        return 0;
    case OP_REDUCEMAX: case OP_REDUCEMIN: case OP_REDUCESUM: case OP_REDUCEPROD: case OP_REDUCEMEAN: {
        n->dyn.kind = DYN_REDUCE;
        const Value *x = in_val(g, n, 0);
        int na = n->at.reduce.n_axes;
        const int64_t *axes = n->at.reduce.axes;
        int keep = n->at.reduce.keepdims, mark[CTVM_MAX_RANK] = {0};
        for (int i = 0; i < na; i++)
            mark[axes[i]] = 1;
        Prog p = {0};
        int r = 0;
        for (int a = 0; a < x->shape.rank; a++) {
            if (mark[a]) {
                if (keep)
                    emit(&p, M_SET, r++, 0, 0, 1, 0, 0);
            } else {
                copy_dim(&p, g, n, r++, 0, a);
            }
        }
        if (prog_reads(&p)) {
            set_prog(g, node, 0, &p);
            mark_dyn(g, n->out[0]);
        }
        return 0;
    }
    case OP_CONCAT: {
        int axis = n->at.axis.axis;
        for (int i = 0; i < n->n_in; i++)
            if (in_val(g, n, i) && in_val(g, n, i)->dyn && in_val(g, n, i)->shape.dims[axis] != 1) {
                n->dyn.kind = DYN_APPEND;
                mark_dyn(g, n->out[0]);
                return 0;
            }
        break;
    }
    default: break;
    }
    if (n->op == OP_NONZERO)
        return refuse(g, node, d, "NonZero of it is not supported");
    int any_prog = 0;
    for (int k = 0; k < n->n_out; k++) {
        if (n->out[k] < 0)
            continue;
        Prog p;
        int r = build_prog(g, node, k, &p, d);
        if (r < 0)
            return -1;
        if (r == 0)
            return refuse(g, node, d, "this operator does not support run-time shapes");
        if (!prog_reads(&p))
            continue;
        for (int t = 0; t < p.n; t++)
            if (p.ins[7 * t + 2] >= LOOP_CALL_MAX_BUFS)
                return refuse(g, node, d, "too many inputs for a run-time shape");
        set_prog(g, node, k, &p);
        mark_dyn(g, n->out[k]);
        any_prog = 1;
    }
    if (any_prog)
        n->dyn.kind = DYN_PROG;
    return 0;
}

/* ---- code ---- */

static LBuf *dims_buf(ComputeCtx *cx, int v)
{
    const Value *val = &cx->g->values[v];
    return val->dyn && val->dyn_dims >= 0 ? cx->buf_of(cx, val->dyn_dims) : NULL;
}

static Stmt *call(ComputeCtx *cx, int nb, LBuf **bufs, const int *written, int ni, const int64_t *ia)
{
    return ls_call(cx->lb, "ctvm_k_dyn", nb, bufs, written, ni, ia, 0, NULL);
}

static Stmt *prog_call(ComputeCtx *cx, int node, int k)
{
    const Graph *g = cx->g;
    const Node *n = &g->nodes[node];
    const int64_t *ins = k < n->dyn.n_prog ? n->dyn.prog[k] : NULL;
    int np = ins ? n->dyn.prog_len[k] : 0;
    int y = n->out[k];
    if (!ins || !g->values[y].dyn || g->values[y].dyn_dims < 0)
        return NULL;
    LBuf *bufs[LOOP_CALL_MAX_BUFS] = {0};
    int written[LOOP_CALL_MAX_BUFS] = {0}, nb = 1;
    bufs[0] = dims_buf(cx, y);
    written[0] = 1;
    for (int t = 0; t < np / 7; t++) {
        int j = (int)ins[7 * t + 2];
        if (j <= 0)
            continue;
        int v = n->in[j - 1];
        bufs[j] = g->values[v].dyn ? dims_buf(cx, v) : cx->buf_of(cx, v);
        if (j + 1 > nb)
            nb = j + 1;
    }
    int64_t ia[2 + 7 * 4 * CTVM_MAX_RANK];
    ia[0] = 0, ia[1] = np / 7;
    memcpy(ia + 2, ins, sizeof(int64_t) * (size_t)np);
    return call(cx, nb, bufs, written, 2 + np, ia);
}

static int64_t es_of(const Value *v)
{
    return (int64_t)dtype_size(v->dtype);
}

Stmt *dyn_compact_stmt(ComputeCtx *cx, int v)
{
    const Value *val = &cx->g->values[v];
    if (!val->dyn || !val->is_output || val->shape.rank < 2 || val->dyn_dims < 0)
        return NULL;
    LBuf *bufs[2] = {cx->buf_of(cx, v), dims_buf(cx, v)};
    int written[2] = {1, 0};
    int64_t ia[3 + CTVM_MAX_RANK] = {6, es_of(val), val->shape.rank};
    for (int r = 0; r < val->shape.rank; r++)
        ia[3 + r] = val->shape.dims[r];
    return call(cx, 2, bufs, written, 3 + val->shape.rank, ia);
}

static Stmt *kind_code(ComputeCtx *cx, int node, int kind)
{
    const Graph *g = cx->g;
    const Node *n = &g->nodes[node];
    const Value *x = &g->values[n->in[0]];
    int rank = x->shape.rank;
    switch (kind) {
    case DYN_SHAPE: {
        LBuf *bufs[2] = {dims_buf(cx, n->in[0]), cx->buf_of(cx, n->out[0])};
        int written[2] = {0, 1};
        int64_t ia[3] = {5, n->at.shape.start, n->at.shape.end};
        return call(cx, 2, bufs, written, 3, ia);
    }
    case DYN_REDUCE: {
        LBuf *bufs[3] = {cx->buf_of(cx, n->in[0]), dims_buf(cx, n->in[0]), cx->buf_of(cx, n->out[0])};
        int written[3] = {0, 0, 1};
        int na = n->at.reduce.n_axes, mark[CTVM_MAX_RANK] = {0};
        const int64_t *axes = n->at.reduce.axes;
        for (int i = 0; i < na; i++)
            mark[axes[i]] = 1;
        int red = n->op == OP_REDUCESUM ? 0 : n->op == OP_REDUCEMAX ? 1 : n->op == OP_REDUCEMIN ? 2
                : n->op == OP_REDUCEPROD ? 3 : 4;
        int64_t ia[4 + 2 * CTVM_MAX_RANK] = {3, x->dtype, rank, red};
        for (int r = 0; r < rank; r++)
            ia[4 + r] = x->shape.dims[r], ia[4 + rank + r] = mark[r];
        if (!bufs[1]) /* a static input of a run-time-shaped reduction cannot happen */
            return NULL;
        return call(cx, 3, bufs, written, 4 + 2 * rank, ia);
    }
    case DYN_TOPK: {
        int axis = n->at.topk.axis;
        LBuf *bufs[7] = {cx->buf_of(cx, n->in[0]), dims_buf(cx, n->in[0]), cx->buf_of(cx, n->out[0]),
                         cx->buf_of(cx, n->out[1]),
                         n->at.topk.k_runtime ? cx->buf_of(cx, n->in[1]) : NULL,
                         dims_buf(cx, n->out[0]), dims_buf(cx, n->out[1])};
        int written[7] = {0, 0, 1, 1, 0, 1, 1};
        int64_t ia[7 + CTVM_MAX_RANK] = {4, x->dtype, rank, axis, n->at.topk.largest, n->at.topk.k};
        for (int r = 0; r < rank; r++)
            ia[6 + r] = x->shape.dims[r];
        ia[6 + rank] = g->values[n->out[0]].shape.dims[axis];
        return call(cx, 7, bufs, written, 7 + rank, ia);
    }
    case DYN_APPEND: {
        const Value *y = &g->values[n->out[0]];
        int axis = n->at.axis.axis;
        Stmt **items = arena_array(g->arena, (size_t)n->n_in + 1, sizeof(Stmt *));
        for (int i = 0; i < n->n_in; i++) {
            const Value *v = &g->values[n->in[i]];
            LBuf *bufs[4] = {cx->buf_of(cx, n->in[i]), dims_buf(cx, n->in[i]), cx->buf_of(cx, n->out[0]),
                             dims_buf(cx, n->out[0])};
            int written[4] = {0, 0, 1, 1};
            int64_t ia[5 + 2 * CTVM_MAX_RANK] = {1, es_of(y), rank, axis, i == 0};
            for (int r = 0; r < rank; r++)
                ia[5 + r] = v->shape.dims[r], ia[5 + rank + r] = y->shape.dims[r];
            items[i] = call(cx, 4, bufs, written, 5 + 2 * rank, ia);
        }
        return ls_seq(cx->lb, n->n_in, items);
    }
    default: return NULL;
    }
}

int dyn_compute(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    int kind = n->dyn.kind;
    if (kind < 0)
        return 0;
    if (kind != DYN_PROG) {
        memset(def, 0, sizeof *def);
        def->custom = kind_code(cx, node, kind);
        if (!def->custom)
            return compute_fail(cx, node, "run-time shape code (internal error)");
    }
    Stmt *items[2 * CTVM_MAX_OUT_DYN + 1];
    int ni = 0;
    items[ni++] = def->custom;
    for (int k = 0; k < n->n_out && k < CTVM_MAX_OUT_DYN; k++) {
        if (n->out[k] < 0)
            continue;
        if (kind == DYN_PROG || kind == DYN_REDUCE)
            items[ni++] = prog_call(cx, node, k);
        items[ni++] = dyn_compact_stmt(cx, n->out[k]);
    }
    def->custom = ls_seq(cx->lb, ni, items);
    return 0;
}
