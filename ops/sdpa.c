/* sdpa.c - ctvm.Sdpa(Q, Kt, V[, mask]): scaled dot-product attention in one
 * runtime kernel (templates/kernel_sdpa.h), made by passes/match_sdpa.c:
 *
 *   Y = Softmax((Q . Kt) (* scale | / scale) (+ mask), last axis) . V
 *
 * Q [..., S, Dk], Kt [..., Dk, T], V [..., T, Dv] with the same leading
 * dims (rank 3 or 4: [BH, ...] or [B, H, ...]), float32; the mask
 * broadcasts (numpy rules) against [..., S, T]. Y [..., S, Dv].
 * Typed attributes (Node.at.sdpa), set by pass match_sdpa: scale_mode (0
 * none, 1 multiply, 2 divide), scale (the constant); set here: mask_strides
 * (element strides of the mask along batch, head, row, column; 0 where it
 * broadcasts) and Node.scratch (per thread: 24 rows of T scores and the packed Kt and V,
 * loop_kernel_sdpa_scratch; pass hidden places one share per thread of the
 * CodegenOptions). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/loop_kernels.h"
#include "ops/compute.h"
#include "ops/op_util.h"

int op_sdpa_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 3, 4, 1, 1))
        return -1;
    const Value *q = opu_in(g, node, 0), *k = opu_in(g, node, 1), *v = opu_in(g, node, 2), *m = opu_in(g, node, 3);
    int r = q->shape.rank;
    if (q->dtype != DT_FLOAT32 || k->dtype != DT_FLOAT32 || v->dtype != DT_FLOAT32 || (m && m->dtype != DT_FLOAT32))
        return diag_error(d, g, node, "ctvm.Sdpa takes float32 operands");
    if (r < 3 || r > 4 || k->shape.rank != r || v->shape.rank != r)
        return diag_error(d, g, node, "ctvm.Sdpa takes Q, Kt, V of one rank, 3 or 4");
    for (int i = 0; i < r - 2; i++)
        if (k->shape.dims[i] != q->shape.dims[i] || v->shape.dims[i] != q->shape.dims[i])
            return diag_error(d, g, node, "Q %s, Kt %s and V %s differ in their leading dims", opu_shape_str(&q->shape),
                              opu_shape_str(&k->shape), opu_shape_str(&v->shape));
    int64_t S = q->shape.dims[r - 2], Dk = q->shape.dims[r - 1], T = k->shape.dims[r - 1];
    if (k->shape.dims[r - 2] != Dk || v->shape.dims[r - 2] != T)
        return diag_error(d, g, node, "Q %s, Kt %s and V %s do not chain", opu_shape_str(&q->shape),
                          opu_shape_str(&k->shape), opu_shape_str(&v->shape));
    /* the mask's strides along (batch, head, row, column), right-aligned */
    int64_t st[4] = {0, 0, 0, 0}, want[4] = {r == 4 ? q->shape.dims[0] : 1, r == 4 ? q->shape.dims[1] : q->shape.dims[0], S, T};
    if (m) {
        int mr = m->shape.rank;
        if (mr > r)
            return diag_error(d, g, node, "the mask %s has more dims than the scores", opu_shape_str(&m->shape));
        int64_t stride = 1;
        for (int i = mr - 1; i >= 0; i--) {
            int ax = 4 - (mr - i); /* logical axis: rank-3 operands have no batch axis, their dim 0 is heads */
            int64_t dim = m->shape.dims[i];
            if (dim != 1 && dim != want[ax])
                return diag_error(d, g, node, "the mask %s does not broadcast against the scores",
                                  opu_shape_str(&m->shape));
            st[ax] = dim == 1 ? 0 : stride;
            stride *= dim;
        }
    }
    for (int i = 0; i < 4; i++)
        g->nodes[node].at.sdpa.mask_strides[i] = st[i];
    int64_t bytes, per = loop_kernel_sdpa_scratch(T, Dk, v->shape.dims[r - 1]);
    if (per < 0 || !i64_mul(per, 4, &bytes))
        return diag_error(d, g, node, "the score block overflows");
    g->nodes[node].scratch.bytes = bytes;
    g->nodes[node].scratch.dtype = DT_FLOAT32;
    g->nodes[node].scratch.per_thread = 1;
    Shape y = q->shape;
    y.dims[r - 1] = v->shape.dims[r - 1];
    opu_set_out(g, node, 0, DT_FLOAT32, y);
    return 0;
}

/* the kernel's integer arguments (templates/kernel_sdpa.h) for a team of
 * `threads` (one scratch slot each) */
static void sdpa_args(const Graph *g, const Node *n, int threads, int64_t *ia, double *fa)
{
    const Value *q = &g->values[n->in[0]], *k = &g->values[n->in[1]], *v = &g->values[n->in[2]];
    int r = q->shape.rank;
    const SdpaAttrs *sa = &n->at.sdpa;
    int64_t BH = 1;
    for (int i = 0; i < r - 2; i++)
        BH *= q->shape.dims[i];
    ia[0] = BH;
    ia[1] = r == 4 ? q->shape.dims[1] : BH;
    ia[2] = q->shape.dims[r - 2];
    ia[3] = k->shape.dims[r - 1];
    ia[4] = q->shape.dims[r - 1];
    ia[5] = v->shape.dims[r - 1];
    ia[6] = sa->scale_mode;
    fa[0] = sa->scale;
    int e;
    if (ia[6] == 2 && frexp(fa[0], &e) == 0.5) { /* dividing by a power of two: the same as multiplying */
        ia[6] = 1;
        fa[0] = 1.0 / fa[0];
    }
    for (int i = 0; i < 4; i++)
        ia[7 + i] = sa->mask_strides[i];
    ia[11] = threads > 1 ? threads : 1;
    ia[12] = 0;
}

int op_sdpa_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    int64_t ia[13];
    double fa[1];
    sdpa_args(g, n, 1, ia, fa);
    int64_t per = loop_kernel_sdpa_scratch(ia[3], ia[4], ia[5]);
    float *scratch = per < 0 ? NULL : calloc((size_t)(per ? per : 1), sizeof(float));
    void *y = opu_alloc_out(g, node, 0, d);
    if (!scratch || !y) {
        free(scratch);
        return scratch ? -1 : diag_error(d, g, node, "out of memory");
    }
    const Value *m = n->n_in > 3 && n->in[3] >= 0 ? &g->values[n->in[3]] : NULL;
    void *bufs[6] = {g->values[n->in[0]].data, g->values[n->in[1]].data, g->values[n->in[2]].data,
                     m ? m->data : NULL, y, scratch};
    loop_kernel_find("ctvm_k_sdpa")(bufs, ia, fa);
    free(scratch);
    return 1;
}

int compute_sdpa(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Graph *g = cx->g;
    const Node *n = &g->nodes[node];
    int sv = n->scratch.value;
    if (sv < 0)
        return compute_fail(cx, node, "scratch buffer not planned (internal error)");
    int64_t ia[13];
    double fa[1];
    sdpa_args(g, n, cx->threads, ia, fa);
    int has_mask = n->n_in > 3 && n->in[3] >= 0;
    LBuf *bufs[6] = {cx->buf_of(cx, n->in[0]), cx->buf_of(cx, n->in[1]), cx->buf_of(cx, n->in[2]),
                     has_mask ? cx->buf_of(cx, n->in[3]) : NULL, cx->buf_of(cx, n->out[0]), cx->buf_of(cx, sv)};
    int written[6] = {0, 0, 0, 0, 1, 1};
    def->custom = ls_call(cx->lb, "ctvm_k_sdpa", 6, bufs, written, 13, ia, 1, fa);
    if (ia[11] > 1) { /* one call per scratch slot, the slots shared among the threads */
        LVar *t = lv_new(cx->lb, "slot");
        def->custom = ls_role(ls_for(cx->lb, t, ia[11], LOOP_SERIAL, ls_call_iarg(cx->lb, def->custom, 12, lx_var(cx->lb, t))),
                              LR_INDEPENDENT, -1);
    }
    return 0;
}
