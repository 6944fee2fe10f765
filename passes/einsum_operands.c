/* einsum_operands.c - pass "einsum_operands": a float32 Einsum contraction
 * whose output's last letter is not the innermost axis of any operand
 * (attention scores "bhqd,bhkd->bhqk") gets the first operand holding that
 * letter transposed so that it is, and its equation rewritten to match
 * ("bhqd,bhdk->bhqk"). The Einsum's GEMM schedule (ops/einsum.c) then loads
 * that operand contiguously along its vectorized columns instead of one
 * element per row; the Transpose is one pass over the operand (folded at
 * compile time when it is constant). [1,12,197,64] scores: 45 -> 3 ms.
 *
 * Only plain equations: letters only (no ellipsis), an explicit output, no
 * letter twice in one term, two or more operands; anything else is left
 * as it is. Runs before the second inference, which infers the new node. */
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

#define EO_MAX_OPS 8

static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Splits eq (spaces dropped) into terms; returns the count, 0 if not plain. */
static int split_terms(const char *eq, char terms[][CTVM_MAX_RANK + 1], int max_terms, char *out)
{
    int nt = 0, len = 0, arrow = 0;
    char *cur = terms[0];
    for (const char *p = eq;; p++) {
        if (*p == ' ')
            continue;
        if (*p == ',' || (*p == '-' && p[1] == '>') || *p == '\0') {
            cur[len] = '\0';
            if (len == 0 || arrow)
                return *p == '\0' && arrow && len > 0 ? nt : 0;
            nt++;
            if (*p == '\0')
                return 0; /* no output term */
            if (*p == '-') {
                arrow = 1;
                p++;
                cur = out;
            } else {
                if (nt >= max_terms)
                    return 0;
                cur = terms[nt];
            }
            len = 0;
            continue;
        }
        if (!is_letter(*p) || len >= CTVM_MAX_RANK || memchr(cur, *p, (size_t)len))
            return 0;
        cur[len++] = *p;
    }
}

int pass_einsum_operands(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || n->op != OP_EINSUM || n->n_in < 2 || n->n_in > EO_MAX_OPS || n->out[0] < 0)
            continue;
        const char *eq = n->at.einsum.equation;
        char terms[EO_MAX_OPS][CTVM_MAX_RANK + 1], out[CTVM_MAX_RANK + 1];
        if (!eq || split_terms(eq, terms, EO_MAX_OPS, out) != n->n_in)
            continue;
        int ok = g->values[n->out[0]].dtype == DT_FLOAT32, holder = -1;
        size_t ol = strlen(out);
        if (ol < 2 || !ok)
            continue;
        char last = out[ol - 1];
        for (int k = 0; k < n->n_in && ok; k++) {
            const Value *v = &g->values[n->in[k]];
            size_t tl = strlen(terms[k]);
            if (v->dtype != DT_FLOAT32 || v->shape.rank != (int)tl)
                ok = 0;
            else if (terms[k][tl - 1] == last)
                ok = 0; /* already contiguous in some operand */
            else if (holder < 0 && strchr(terms[k], last))
                holder = k;
        }
        if (!ok || holder < 0)
            continue;
        /* move `last` to the end of the holder's term */
        char *t = terms[holder];
        int tl = (int)strlen(t), at = (int)(strchr(t, last) - t), r = 0;
        int64_t perm[CTVM_MAX_RANK];
        for (int k = 0; k < tl; k++)
            if (k != at)
                perm[r++] = k;
        perm[r] = at;
        memmove(t + at, t + at + 1, (size_t)(tl - at)); /* drops `last`, keeps the NUL */
        t[tl - 1] = last;
        t[tl] = '\0';
        char neq[EO_MAX_OPS * (CTVM_MAX_RANK + 1) + CTVM_MAX_RANK + 4];
        int w = 0;
        for (int k = 0; k < n->n_in; k++)
            w += snprintf(neq + w, sizeof neq - (size_t)w, "%s%s", k ? "," : "", terms[k]);
        snprintf(neq + w, sizeof neq - (size_t)w, "->%s", out);
        PassBuild b = {g, i, n->name};
        int tv = pb_transpose(&b, g->nodes[i].in[holder], tl, perm, -1);
        g->nodes[b.pos].in[holder] = tv; /* the Einsum, moved up past the Transpose */
        const char *kept = arena_strdup(g->arena, neq);
        node_set_string(g, b.pos, "equation", kept);
        g->nodes[b.pos].at.einsum.equation = kept; /* in step until infer_fold2 re-infers it */
        graph_count_uses(g);
        i = b.pos;
    }
    return 0;
}
