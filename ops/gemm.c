/* gemm.c - Gemm and MatMul in every version and type: float16, bfloat16,
 * float32, float64, int32, int64, uint32, uint64 (the integer types wrap).
 * Constant float32 products fold with cblas_sgemm; other types through the
 * compute definition (ops/compute_gemm.c).
 *
 * Gemm: Y[M,N] = alpha * op(A) * op(B) + beta * C, op = transpose when
 * transA/transB. C broadcasts one-way to [M,N] (versions before 7: only
 * with broadcast = 1, else it must be [M,N]); it is optional from version
 * 11. After infer alpha, beta, transA, transB are explicit.
 * MatMul: numpy matmul. A 1-D A is treated as [1,K] and a 1-D B as [K,1],
 * the added dimension dropped from the result; leading (batch) dimensions
 * broadcast. No attributes. */
#include <cblas.h>
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"

static int gemm_type(DType t)
{
    switch (t) {
    case DT_FLOAT16: case DT_BFLOAT16: case DT_FLOAT32: case DT_FLOAT64:
    case DT_INT32: case DT_INT64: case DT_UINT32: case DT_UINT64:
        return 1;
    default:
        return 0;
    }
}

static int infer_gemm(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 3, 1, 1))
        return -1;
    Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1), *c = opu_in(g, node, 2);
    if (!gemm_type(a->dtype) || b->dtype != a->dtype || (c && c->dtype != a->dtype))
        return diag_error(d, g, node, "inputs must have one type among float16/bfloat16/float32/float64/"
                                      "int32/int64/uint32/uint64, got %s and %s", dtype_name(a->dtype),
                          dtype_name(b->dtype));
    if (a->shape.rank != 2 || b->shape.rank != 2)
        return diag_error(d, g, node, "A and B must be 2-D, got %s and %s",
                          opu_shape_str(&a->shape), opu_shape_str(&b->shape));
    int64_t ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
    int64_t m = a->shape.dims[ta], k = a->shape.dims[1 - ta];
    int64_t kb = b->shape.dims[tb], nn = b->shape.dims[1 - tb];
    if (k != kb)
        return diag_error(d, g, node, "inner dimensions differ: A %s%s and B %s%s",
                          opu_shape_str(&a->shape), ta ? " (transposed)" : "",
                          opu_shape_str(&b->shape), tb ? " (transposed)" : "");
    int64_t dims[2] = {m, nn};
    Shape out = shape_make(2, dims), bc;
    if (c && (c->shape.rank > 2 || !shape_broadcast(&c->shape, &out, &bc) || !shape_equal(&bc, &out)))
        return diag_error(d, g, node, "C %s does not broadcast to %s", opu_shape_str(&c->shape),
                          opu_shape_str(&out));
    if (c && n->version < 7 && !attr_int(n, "broadcast", 0) && !shape_equal(&c->shape, &out))
        return diag_error(d, g, node, "C %s must be %s when broadcast is 0 (version %d)", opu_shape_str(&c->shape),
                          opu_shape_str(&out), n->version);
    GemmAttrs *ga = &n->at.gemm;
    *ga = (GemmAttrs){.trans_a = (int)ta, .trans_b = (int)tb, .alpha = attr_float(n, "alpha", 1.0f),
                      .beta = attr_float(n, "beta", 1.0f)};
    node_set_float(g, node, "alpha", ga->alpha);
    node_set_float(g, node, "beta", ga->beta);
    node_set_int(g, node, "transA", ta);
    node_set_int(g, node, "transB", tb);
    opu_set_out(g, node, 0, a->dtype, out);
    return 0;
}

static int infer_matmul(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1);
    if (!gemm_type(a->dtype) || b->dtype != a->dtype)
        return diag_error(d, g, node, "inputs must have one type among float16/bfloat16/float32/float64/"
                                      "int32/int64/uint32/uint64, got %s and %s", dtype_name(a->dtype),
                          dtype_name(b->dtype));
    int ra = a->shape.rank, rb = b->shape.rank;
    if (ra < 1 || rb < 1)
        return diag_error(d, g, node, "operands must have rank >= 1");
    int64_t ka = a->shape.dims[ra - 1], kb = rb == 1 ? b->shape.dims[0] : b->shape.dims[rb - 2];
    if (ka != kb)
        return diag_error(d, g, node, "inner dimensions of %s and %s differ",
                          opu_shape_str(&a->shape), opu_shape_str(&b->shape));
    Shape ba = shape_make(ra > 2 ? ra - 2 : 0, a->shape.dims);
    Shape bb = shape_make(rb > 2 ? rb - 2 : 0, b->shape.dims), out;
    if (!shape_broadcast(&ba, &bb, &out))
        return diag_error(d, g, node, "batch dimensions of %s and %s do not broadcast",
                          opu_shape_str(&a->shape), opu_shape_str(&b->shape));
    if (ra >= 2)
        out.dims[out.rank++] = a->shape.dims[ra - 2];
    if (rb >= 2)
        out.dims[out.rank++] = b->shape.dims[rb - 1];
    opu_set_out(g, node, 0, a->dtype, out);
    return 0;
}

int op_gemm_infer(Graph *g, int node, Diag *d)
{
    return g->nodes[node].op == OP_GEMM ? infer_gemm(g, node, d) : infer_matmul(g, node, d);
}

static void sgemm(int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                  const float *b, float *c)
{
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) {
        memset(c, 0, (size_t)(m * n) * sizeof(float));
        return;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                (int)m, (int)n, (int)k, alpha, a, ta ? (int)m : (int)k, b, tb ? (int)k : (int)n,
                0.0f, c, (int)n);
}

static int eval_gemm(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1), *c = opu_in(g, node, 2);
    Value *yv = opu_out(g, node, 0);
    int ta = n->at.gemm.trans_a, tb = n->at.gemm.trans_b;
    int64_t m = yv->shape.dims[0], nn = yv->shape.dims[1], k = a->shape.dims[1 - ta];
    float *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    sgemm(ta, tb, m, nn, k, n->at.gemm.alpha, a->data, b->data, y);
    if (c) {
        int64_t st[CTVM_MAX_RANK];
        float beta = n->at.gemm.beta;
        opu_bcast_strides(&c->shape, &yv->shape, st);
        for (int64_t i = 0; i < m * nn; i++)
            y[i] += beta * ((const float *)c->data)[opu_bcast_offset(&yv->shape, st, i)];
    }
    return 1;
}

static int eval_matmul(Graph *g, int node, Diag *d)
{
    Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1), *yv = opu_out(g, node, 0);
    int ra = a->shape.rank, rb = b->shape.rank;
    int64_t m = ra >= 2 ? a->shape.dims[ra - 2] : 1, k = a->shape.dims[ra - 1];
    int64_t nn = rb >= 2 ? b->shape.dims[rb - 1] : 1;
    Shape ba = shape_make(ra > 2 ? ra - 2 : 0, a->shape.dims);
    Shape bb = shape_make(rb > 2 ? rb - 2 : 0, b->shape.dims), batch;
    shape_broadcast(&ba, &bb, &batch);
    int64_t nb, sa[CTVM_MAX_RANK], sb[CTVM_MAX_RANK];
    if (opu_numel(g, node, d, &batch, &nb))
        return -1;
    opu_bcast_strides(&ba, &batch, sa);
    opu_bcast_strides(&bb, &batch, sb);
    float *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    (void)yv;
    for (int64_t i = 0; i < nb; i++) {
        const float *pa = (const float *)a->data + opu_bcast_offset(&batch, sa, i) * m * k;
        const float *pb = (const float *)b->data + opu_bcast_offset(&batch, sb, i) * k * nn;
        sgemm(0, 0, m, nn, k, 1.0f, pa, pb, y + i * m * nn);
    }
    return 1;
}

int op_gemm_eval(Graph *g, int node, Diag *d)
{
    if (opu_in(g, node, 0)->dtype != DT_FLOAT32)
        return OPS_EVAL_BY_COMPUTE;
    return g->nodes[node].op == OP_GEMM ? eval_gemm(g, node, d) : eval_matmul(g, node, d);
}
