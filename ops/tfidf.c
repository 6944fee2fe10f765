/* tfidf.c - TfIdfVectorizer (version 9): n-gram counts of integer
 * sequences, weighted as term frequency (TF), inverse document frequency
 * (IDF) or both (TFIDF).
 *
 * Input X: int32 or int64, shape [C] (a scalar counts as [1]) or [N, C].
 * Output: float32 [O] or [N, O] with O = max(ngram_indexes) + 1.
 * The n-gram pool is given by attributes (pool_int64s split by ngram_counts
 * into groups of 1-grams, 2-grams, ...), so it is constant: the compute
 * definition unrolls it into the loop nest (one scan of the row per pooled
 * n-gram and skip distance) and needs no run-time table. String pools and
 * string inputs are refused.
 *
 * Semantics (as ONNX's reference): an n-gram of length n in
 * [min_gram_length, max_gram_length] is counted once for every start s
 * and skip distance k in 1..max_skip_count+1 with x[s + j*k] == g[j] for
 * all j < n; 1-grams are counted with k = 1 only. Counts of n-grams with
 * the same ngram_indexes entry add up. When the same n-gram is pooled
 * twice, the later entry wins (the earlier one never counts). Then
 * TF: y = count; IDF: y = count > 0 ? w[o] : 0; TFIDF: y = w[o] * count,
 * with w[o] = 1 when no weights are given.
 *
 * Typed (Node.at.tfidf): mode (1 TF, 2 IDF, 3 TFIDF), rows (N, 1 for rank
 * <= 1), cols (C), out (O), the gram lengths and skip count, and the
 * counts, indexes, pool and weights pointing into the node's attributes. */
#include <string.h>

#include "ir/tensor.h"
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_tfidf_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    const Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0);
    if (x->dtype == DT_STRING || node_attr(n, "pool_strings"))
        return diag_error(d, g, node, "string inputs and pool_strings are not supported (only int32/int64)");
    if (x->dtype != DT_INT32 && x->dtype != DT_INT64)
        return diag_error(d, g, node, "input type %s is not supported (int32 or int64)", dtype_name(x->dtype));
    const char *mode = attr_string(n, "mode", NULL);
    int m = !mode ? 0 : !strcmp(mode, "TF") ? 1 : !strcmp(mode, "IDF") ? 2 : !strcmp(mode, "TFIDF") ? 3 : 0;
    if (!m)
        return diag_error(d, g, node, "mode '%s' is not TF, IDF or TFIDF", mode ? mode : "(missing)");
    int64_t mn = attr_int(n, "min_gram_length", -1), mx = attr_int(n, "max_gram_length", -1);
    int64_t skip = attr_int(n, "max_skip_count", -1);
    if (mn < 1 || mx < mn || mx > 1024)
        return diag_error(d, g, node, "gram lengths %lld..%lld are not a valid range", (long long)mn, (long long)mx);
    if (skip < 0 || skip > 65536)
        return diag_error(d, g, node, "max_skip_count %lld is out of range", (long long)skip);
    int nc = 0, ni = 0, np = 0, nw = 0;
    const int64_t *cnt = attr_ints(n, "ngram_counts", &nc), *idx = attr_ints(n, "ngram_indexes", &ni);
    const int64_t *pool = attr_ints(n, "pool_int64s", &np);
    const Attr *wa = node_attr(n, "weights");
    if (wa)
        nw = wa->n;
    if (!cnt || !idx || ni < 1)
        return diag_error(d, g, node, "ngram_counts and ngram_indexes are required");
    int64_t grams = 0;
    for (int i = 0; i < nc; i++) {
        int64_t end = i + 1 < nc ? cnt[i + 1] : np;
        if (cnt[i] < 0 || end < cnt[i] || end > np)
            return diag_error(d, g, node, "ngram_counts[%d] = %lld is not an ascending offset into the pool", i,
                              (long long)cnt[i]);
        grams += (end - cnt[i]) / (i + 1);
    }
    if (grams > ni)
        return diag_error(d, g, node, "the pool holds %lld n-grams but ngram_indexes has %d entries",
                          (long long)grams, ni);
    int64_t out = 0;
    for (int i = 0; i < ni; i++) {
        if (idx[i] < 0 || idx[i] >= INT32_MAX)
            return diag_error(d, g, node, "ngram_indexes[%d] = %lld is out of range", i, (long long)idx[i]);
        if (idx[i] + 1 > out)
            out = idx[i] + 1;
    }
    if (nw && nw < out)
        return diag_error(d, g, node, "weights has %d entries, fewer than the output size %lld", nw, (long long)out);
    int64_t rows, cols;
    Shape s;
    if (x->shape.rank <= 1) {
        rows = 1, cols = x->shape.rank ? x->shape.dims[0] : 1;
        s = shape_make(1, &out);
    } else if (x->shape.rank == 2) {
        rows = x->shape.dims[0], cols = x->shape.dims[1];
        int64_t dims[2] = {rows, out};
        s = shape_make(2, dims);
    } else {
        return diag_error(d, g, node, "input must be [C] or [N, C], not %s", opu_shape_str(&x->shape));
    }
    int64_t total;
    if (opu_numel(g, node, d, &s, &total))
        return -1;
    TfIdfAttrs *ta = &g->nodes[node].at.tfidf;
    ta->mode = m, ta->rows = rows, ta->cols = cols, ta->out = out;
    ta->min_gram = mn, ta->max_gram = mx, ta->max_skip = skip;
    ta->n_counts = nc, ta->n_indexes = ni, ta->n_pool = np, ta->n_weights = nw;
    ta->counts = cnt, ta->indexes = idx, ta->pool = pool;
    ta->weights = wa && wa->n ? wa->floats : NULL;
    opu_set_out(g, node, 0, DT_FLOAT32, s);
    return 0;
}

/* Statements that add 1 to out[row*O + col] for every occurrence of the
 * n-gram g[0..len) with skip distance k in row `row` of x. */
static Stmt *count_gram(LoopBuilder *lb, LBuf *x, LBuf *y, LVar *row, int64_t cols, int64_t out_size,
                        const int64_t *gram, int len, int64_t k, int64_t col)
{
    int64_t span = k * (len - 1);
    if (span >= cols)
        return NULL;
    LVar *s = lv_new(lb, "s");
    Expr *base = lx_add(lb, lx_muli(lb, lx_var(lb, row), cols), lx_var(lb, s));
    Expr *cond = NULL;
    for (int j = 0; j < len; j++) {
        Expr *v = lx_cast(lb, LT_I64, lx_load(lb, x, lx_add(lb, base, lx_int(lb, j * k))));
        Expr *eq = lx_bin(lb, BO_EQ, v, lx_const_i(lb, LT_I64, gram[j]));
        cond = cond ? lx_bin(lb, BO_AND, cond, eq) : eq;
    }
    Expr *oi = lx_add(lb, lx_muli(lb, lx_var(lb, row), out_size), lx_int(lb, col));
    Stmt *inc = ls_store(lb, y, oi, lx_add(lb, lx_load(lb, y, oi), lx_float(lb, 1.0)));
    return ls_for(lb, s, cols - span, LOOP_SERIAL, ls_if(lb, cond, inc));
}

/* Whether the n-gram at pool offset `at` (length len, in the group of
 * len-grams [first, end)) appears again later in its group: then the later
 * entry takes its place and this one never counts. */
static int shadowed(const int64_t *pool, int64_t end, int len, int64_t at)
{
    for (int64_t o = at + len; o + len <= end; o += len)
        if (!memcmp(pool + o, pool + at, (size_t)len * sizeof *pool))
            return 1;
    return 0;
}

int compute_tfidf(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const TfIdfAttrs *ta = &n->at.tfidf;
    int m = ta->mode;
    int64_t rows = ta->rows, cols = ta->cols, osz = ta->out;
    int64_t mn = ta->min_gram, mx = ta->max_gram, skip = ta->max_skip;
    int nc = ta->n_counts, np = ta->n_pool;
    const int64_t *cnt = ta->counts, *idx = ta->indexes, *pool = ta->pool;
    const float *w = ta->weights;
    LBuf *x = cx->buf_of(cx, n->in[0]), *y = cx->buf_of(cx, n->out[0]);
    LVar *r = lv_new(lb, "r"), *o = lv_new(lb, "o");
    Expr *yi = lx_add(lb, lx_muli(lb, lx_var(lb, r), osz), lx_var(lb, o));
    int64_t cap = 8 + (int64_t)np * (skip + 1) + osz, k = 0;
    Stmt **items = arena_array(lb->arena, (size_t)cap, sizeof *items);
    if (!items)
        return compute_fail(cx, node, "out of memory");
    items[k++] = ls_for(lb, o, osz, LOOP_SERIAL, ls_store(lb, y, yi, lx_float(lb, 0.0)));
    int64_t id = 0;
    for (int i = 0; i < nc && cols > 0; i++) {
        int len = i + 1;
        int64_t end = i + 1 < nc ? cnt[i + 1] : np, ng = (end - cnt[i]) / len;
        for (int64_t q = 0; q < ng; q++, id++) {
            int64_t at = cnt[i] + q * len;
            if (len < mn || len > mx || shadowed(pool, cnt[i] + ng * len, len, at))
                continue;
            for (int64_t d = 1; d <= (len == 1 ? 1 : skip + 1); d++) {
                Stmt *st = count_gram(lb, x, y, r, cols, osz, pool + at, len, d, idx[id]);
                if (st)
                    items[k++] = st;
            }
        }
    }
    /* weighting */
    Expr *f = lx_load(lb, y, yi);
    if (m == 2 && !w)
        items[k++] = ls_for(lb, o, osz, LOOP_SERIAL,
                            ls_store(lb, y, yi, lx_select(lb, lx_bin(lb, BO_GT, f, lx_float(lb, 0.0)),
                                                         lx_float(lb, 1.0), lx_float(lb, 0.0))));
    else if (m != 1 && w) {
        for (int64_t c = 0; c < osz; c++) {
            Expr *ci = lx_add(lb, lx_muli(lb, lx_var(lb, r), osz), lx_int(lb, c));
            Expr *fc = lx_load(lb, y, ci), *wc = lx_float(lb, w[c]);
            Expr *v = m == 2 ? lx_select(lb, lx_bin(lb, BO_GT, fc, lx_float(lb, 0.0)), wc, lx_float(lb, 0.0))
                             : lx_mul(lb, wc, fc);
            items[k++] = ls_store(lb, y, ci, v);
        }
    }
    def->custom = ls_for(lb, r, rows, LOOP_SERIAL, ls_seq(lb, (int)k, items));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(tfidf)
