/* einsum.c - Einsum (versions 12 and 28): the equation's sum of products
 * as one compute stage. Every output letter (and every dim the ellipsis
 * stands for) is a spatial axis, every letter absent from the output a
 * reduction axis, and the body multiplies one load per operand; repeated
 * letters in an operand (diagonals) and ellipsis broadcasting (numpy rules,
 * right-aligned, size 1 broadcasts) fall out of the indexing. Without "->"
 * the output is the ellipsis dims followed by the letters that occur once,
 * in alphabetical (ASCII) order, as numpy does. All operands have one
 * numeric type; sums accumulate in its compute type. */
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

#define EIN_MAX_OPS 16

typedef struct Term {
    char letters[CTVM_MAX_RANK + 1]; /* explicit letters, '.' standing for the ellipsis */
    int n;                           /* entries of letters */
    int has_ell;
} Term;

typedef struct Einsum {
    int n_ops;
    Term in[EIN_MAX_OPS], out;
    int ell_rank;                 /* dims the ellipsis stands for (broadcast) */
    int64_t ell_dims[CTVM_MAX_RANK];
    int64_t size[128];            /* per letter; -1 unseen */
    char err[160];
} Einsum;

static int parse_term(const char *s, const char *end, Term *t, char *err, size_t cap)
{
    memset(t, 0, sizeof *t);
    while (s < end) {
        if (*s == ' ') {
            s++;
            continue;
        }
        if (t->n >= CTVM_MAX_RANK) {
            snprintf(err, cap, "a term has more than %d subscripts", CTVM_MAX_RANK);
            return -1;
        }
        if (end - s >= 3 && s[0] == '.' && s[1] == '.' && s[2] == '.') {
            if (t->has_ell) {
                snprintf(err, cap, "a term has two ellipses");
                return -1;
            }
            t->has_ell = 1;
            t->letters[t->n++] = '.';
            s += 3;
        } else if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) {
            t->letters[t->n++] = *s++;
        } else {
            snprintf(err, cap, "unexpected character '%c' in the equation", *s);
            return -1;
        }
    }
    return 0;
}

/* Parses the equation eq (the attribute at infer, Node.at.einsum after)
 * against the operands' shapes: letter sizes, the ellipsis broadcast, the
 * output term. */
static int ein_parse(const Graph *g, const Node *n, const char *eq, Einsum *e)
{
    memset(e, 0, sizeof *e);
    for (int i = 0; i < 128; i++)
        e->size[i] = -1;
    if (!eq) {
        snprintf(e->err, sizeof e->err, "needs an equation attribute");
        return -1;
    }
    const char *arrow = strstr(eq, "->"), *lhs_end = arrow ? arrow : eq + strlen(eq);
    e->n_ops = n->n_in;
    if (e->n_ops > EIN_MAX_OPS) {
        snprintf(e->err, sizeof e->err, "more than %d operands", EIN_MAX_OPS);
        return -1;
    }
    const char *p = eq;
    for (int i = 0; i < e->n_ops; i++) {
        const char *q = p;
        while (q < lhs_end && *q != ',')
            q++;
        if (i < e->n_ops - 1 && q >= lhs_end) {
            snprintf(e->err, sizeof e->err, "the equation has fewer terms than the %d inputs", e->n_ops);
            return -1;
        }
        if (parse_term(p, q, &e->in[i], e->err, sizeof e->err))
            return -1;
        p = q + 1;
    }
    if (p <= lhs_end && p - 1 != lhs_end) {
        snprintf(e->err, sizeof e->err, "the equation has more terms than the %d inputs", e->n_ops);
        return -1;
    }
    /* sizes and the ellipsis */
    for (int i = 0; i < e->n_ops; i++) {
        const Term *t = &e->in[i];
        const Shape *s = &g->values[n->in[i]].shape;
        int explicit = t->n - t->has_ell, er = s->rank - explicit;
        if (er < 0 || (!t->has_ell && er != 0)) {
            snprintf(e->err, sizeof e->err, "term %d has %d subscripts for an input of rank %d", i, t->n, s->rank);
            return -1;
        }
        if (er > e->ell_rank) { /* right-align the broadcast dims */
            int shift = er - e->ell_rank;
            for (int k = e->ell_rank - 1; k >= 0; k--)
                e->ell_dims[k + shift] = e->ell_dims[k];
            for (int k = 0; k < shift; k++)
                e->ell_dims[k] = 1;
            e->ell_rank = er;
        }
        int d = 0;
        for (int k = 0; k < t->n; k++) {
            if (t->letters[k] == '.') {
                for (int j = 0; j < er; j++, d++) {
                    int64_t *slot = &e->ell_dims[e->ell_rank - er + j];
                    if (*slot == 1)
                        *slot = s->dims[d];
                    else if (s->dims[d] != 1 && s->dims[d] != *slot) {
                        snprintf(e->err, sizeof e->err, "ellipsis dims do not broadcast");
                        return -1;
                    }
                }
                continue;
            }
            int64_t *sz = &e->size[(int)t->letters[k]];
            if (*sz >= 0 && *sz != s->dims[d]) {
                snprintf(e->err, sizeof e->err, "subscript '%c' has sizes %lld and %lld", t->letters[k],
                         (long long)*sz, (long long)s->dims[d]);
                return -1;
            }
            *sz = s->dims[d++];
        }
    }
    if (arrow) {
        if (parse_term(arrow + 2, arrow + strlen(arrow), &e->out, e->err, sizeof e->err))
            return -1;
        for (int k = 0; k < e->out.n; k++)
            if (e->out.letters[k] != '.' && e->size[(int)e->out.letters[k]] < 0) {
                snprintf(e->err, sizeof e->err, "output subscript '%c' is not in any input", e->out.letters[k]);
                return -1;
            }
        if (e->ell_rank > 0 && !e->out.has_ell) {
            int any = 0; /* an ellipsis summed away is allowed only when it stands for nothing */
            for (int k = 0; k < e->ell_rank; k++)
                any |= e->ell_dims[k] != 1;
            (void)any;
        }
    } else { /* implicit: ellipsis, then the letters seen once, sorted */
        int count[128] = {0};
        for (int i = 0; i < e->n_ops; i++)
            for (int k = 0; k < e->in[i].n; k++)
                if (e->in[i].letters[k] != '.')
                    count[(int)e->in[i].letters[k]]++;
        if (e->ell_rank > 0) {
            e->out.letters[e->out.n++] = '.';
            e->out.has_ell = 1;
        }
        for (int c = 0; c < 128; c++)
            if (count[c] == 1 && e->out.n < CTVM_MAX_RANK)
                e->out.letters[e->out.n++] = (char)c;
    }
    return 0;
}

/* Output rank and dims. */
static int ein_out_shape(const Einsum *e, Shape *out)
{
    out->rank = 0;
    for (int k = 0; k < e->out.n; k++) {
        if (e->out.letters[k] == '.') {
            for (int j = 0; j < e->ell_rank; j++) {
                if (out->rank >= CTVM_MAX_RANK)
                    return -1;
                out->dims[out->rank++] = e->ell_dims[j];
            }
        } else {
            if (out->rank >= CTVM_MAX_RANK)
                return -1;
            out->dims[out->rank++] = e->size[(int)e->out.letters[k]];
        }
    }
    return 0;
}

int op_einsum_infer(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, EIN_MAX_OPS, 1, 1) || opu_check_all_inputs(g, node, d))
        return -1;
    DType t = opu_in(g, node, 0)->dtype;
    if (!(dtype_is_float(t) || dtype_is_int(t)) || dtype_is_packed(t) || (dtype_size(t) == 1 && dtype_is_float(t)))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(t));
    for (int i = 1; i < n->n_in; i++)
        if (opu_in(g, node, i)->dtype != t)
            return diag_error(d, g, node, "all inputs must have one type");
    static Einsum e;
    g->nodes[node].at.einsum.equation = attr_string(n, "equation", NULL);
    if (ein_parse(g, n, g->nodes[node].at.einsum.equation, &e))
        return diag_error(d, g, node, "%s", e.err);
    Shape out;
    if (ein_out_shape(&e, &out))
        return diag_error(d, g, node, "output rank exceeds %d", CTVM_MAX_RANK);
    opu_set_out(g, node, 0, t, out);
    return 0;
}

int compute_einsum(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    static Einsum e;
    if (ein_parse(cx->g, n, n->at.einsum.equation, &e))
        return compute_fail(cx, node, e.err);
    const Value *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    /* variables: letters of the output and the ellipsis dims are the stage's
       axes; the other letters become reduction axes */
    LVar *letter[128] = {0}, *ell[CTVM_MAX_RANK] = {0};
    int ax = 0;
    for (int k = 0; k < e.out.n; k++) {
        if (e.out.letters[k] == '.')
            for (int j = 0; j < e.ell_rank; j++)
                ell[j] = s->axis[ax++];
        else
            letter[(int)e.out.letters[k]] = s->axis[ax++];
    }
    for (int c = 0; c < 128; c++)
        if (e.size[c] >= 0 && !letter[c])
            letter[c] = compute_add_raxis(cx, s, "r", e.size[c]);
    for (int j = 0; j < e.ell_rank; j++) /* an ellipsis missing from the output is summed */
        if (!ell[j])
            ell[j] = compute_add_raxis(cx, s, "re", e.ell_dims[j]);
    Expr *body = NULL;
    for (int i = 0; i < e.n_ops; i++) {
        const Value *v = &cx->g->values[n->in[i]];
        const Term *t = &e.in[i];
        int er = v->shape.rank - (t->n - t->has_ell), dd = 0;
        Expr *idx[CTVM_MAX_RANK];
        for (int k = 0; k < t->n; k++) {
            if (t->letters[k] == '.') {
                for (int j = 0; j < er; j++, dd++)
                    idx[dd] = v->shape.dims[dd] == 1 ? lx_int(lb, 0) : lx_var(lb, ell[e.ell_rank - er + j]);
            } else {
                idx[dd++] = lx_var(lb, letter[(int)t->letters[k]]);
            }
        }
        Expr *ld = lx_load(lb, cx->buf_of(cx, n->in[i]), compute_flat_index(cx, &v->shape, idx));
        body = body ? lx_mul(lb, body, ld) : ld;
    }
    s->body = body;
    if (s->n_raxes > 0) {
        s->red = RED_SUM;
        s->finalize = lx_var(lb, s->acc);
        /* a contraction of two or more operands is a (batched) matrix
           product: rows = the output's leading axes, columns = its last */
        if (e.n_ops >= 2 && s->n_axes >= 2) {
            int64_t rows = 1, k = 1;
            for (int i = 0; i < s->n_axes - 1; i++)
                rows *= s->extent[i];
            for (int r = 0; r < s->n_raxes; r++)
                k *= s->rextent[r];
            compute_pick_gemm_sched(cx, node, s, rows, s->extent[s->n_axes - 1], k);
        }
    }
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(einsum)
