/* match_gelu.c - pass "match_gelu": GELU that the exporter wrote out as
 * operators (every exporter below opset 20):
 *
 *   erf form   y = x * 0.5 * (1 + Erf(x / sqrt(2)))      (or x * (1/sqrt(2)))
 *   tanh form  y = x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
 *
 * with the final products in any of the orders exporters write them, becomes
 * one Gelu node (approximate "none" / "tanh"): x is read once instead of two
 * or three times, and the Gelu joins its producer's epilogue (pass fuse), so
 * a projection's bias add and GELU cost no extra pass over the activations.
 * float32 only; every intermediate must have no other reader. */
#include <math.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-5 * fabs(b);
}

/* Binary node n of operator op with operands {v, constant c near want}. */
static int with_const(const Graph *g, int n, OpKind op, int v, double want)
{
    double c;
    if (n < 0 || g->nodes[n].op != op || g->nodes[n].dead)
        return 0;
    int o = pass_other_operand(g, n, v);
    return o >= 0 && pass_const_scalar(g, o, &c) && near(c, want);
}

/* u = x/sqrt(2) or x*(1/sqrt(2)): x, else -1 */
static int erf_arg(const Graph *g, int u, int *node)
{
    int p = pass_producer(g, u, OP_DIV);
    double c;
    if (p >= 0 && pass_const_scalar(g, g->nodes[p].in[1], &c) && near(c, sqrt(2.0))) {
        *node = p;
        return g->nodes[p].in[0];
    }
    p = pass_producer(g, u, OP_MUL);
    for (int k = 0; p >= 0 && k < 2; k++)
        if (pass_const_scalar(g, g->nodes[p].in[k], &c) && near(c, 1.0 / sqrt(2.0))) {
            *node = p;
            return g->nodes[p].in[1 - k];
        }
    return -1;
}

/* u = sqrt(2/pi) * (x + 0.044715 * x^3), x^3 as Pow(x, 3) or x*(x*x): x,
 * else -1; the nodes go to dead[], the reads of x they make plus the final
 * product's to *x_reads. */
static int tanh_arg(const Graph *g, int u, int *dead, int *n_dead, int *x_reads)
{
    int m = pass_producer(g, u, OP_MUL);
    if (m < 0)
        return -1;
    double c;
    int s = -1;
    for (int k = 0; k < 2 && s < 0; k++)
        if (pass_const_scalar(g, g->nodes[m].in[k], &c) && near(c, sqrt(2.0 / M_PI)))
            s = g->nodes[m].in[1 - k];
    int a = pass_producer(g, s, OP_ADD);
    if (a < 0 || g->values[s].n_uses != 1)
        return -1;
    for (int k = 0; k < 2; k++) {
        int x = g->nodes[a].in[k], t = g->nodes[a].in[1 - k];
        int mc = pass_producer(g, t, OP_MUL);
        if (mc < 0 || g->values[t].n_uses != 1)
            continue;
        int cube = -1;
        for (int j = 0; j < 2 && cube < 0; j++)
            if (pass_const_scalar(g, g->nodes[mc].in[j], &c) && near(c, 0.044715))
                cube = g->nodes[mc].in[1 - j];
        int pw = pass_producer(g, cube, OP_POW), m3 = pass_producer(g, cube, OP_MUL), sqr = -1;
        if (g->values[cube].n_uses != 1)
            continue;
        if (pw >= 0 && g->nodes[pw].in[0] == x && pass_const_scalar(g, g->nodes[pw].in[1], &c) && c == 3.0) {
            *x_reads = 3; /* Pow, Add and the final product */
        } else if (m3 >= 0 && (sqr = pass_producer(g, pass_other_operand(g, m3, x), OP_MUL)) >= 0 &&
                   g->nodes[sqr].in[0] == x && g->nodes[sqr].in[1] == x &&
                   g->values[g->nodes[sqr].out[0]].n_uses == 1) {
            *x_reads = 5; /* x*x, (x*x)*x, Add and the final product */
            dead[(*n_dead)++] = sqr;
            pw = m3;
        } else {
            continue;
        }
        dead[(*n_dead)++] = m;
        dead[(*n_dead)++] = a;
        dead[(*n_dead)++] = mc;
        dead[(*n_dead)++] = pw;
        return x;
    }
    return -1;
}

/* The pattern around Erf/Tanh node i; returns 1 when rewritten. */
static int match_one(Graph *g, int i)
{
    int dead[12], n_dead = 0, x_reads = 0;
    int e = g->nodes[i].out[0], u = g->nodes[i].in[0], x, tanh_form = g->nodes[i].op == OP_TANH;
    if (g->values[u].n_uses != 1)
        return 0;
    if (tanh_form) {
        x = tanh_arg(g, u, dead, &n_dead, &x_reads);
    } else {
        int un = -1;
        x = erf_arg(g, u, &un);
        dead[n_dead++] = un;
        x_reads = 2;
    }
    if (x < 0 || g->values[x].dtype != DT_FLOAT32 || g->values[x].n_uses != x_reads)
        return 0;
    dead[n_dead++] = i;
    int add1 = pass_sole_consumer(g, e);
    if (!with_const(g, add1, OP_ADD, e, 1.0))
        return 0;
    dead[n_dead++] = add1;
    int a = g->nodes[add1].out[0], m1 = pass_sole_consumer(g, a), y = -1;
    if (m1 < 0 || g->nodes[m1].op != OP_MUL)
        return 0;
    int o = pass_other_operand(g, m1, a), m2 = pass_sole_consumer(g, g->nodes[m1].out[0]);
    double c;
    int h = pass_producer(g, o, OP_MUL);
    if (o == x && with_const(g, m2, OP_MUL, g->nodes[m1].out[0], 0.5)) { /* (x * a) * 0.5 */
        dead[n_dead++] = m1;
        dead[n_dead++] = m2;
        y = g->nodes[m2].out[0];
    } else if (pass_const_scalar(g, o, &c) && near(c, 0.5) && m2 >= 0 && g->nodes[m2].op == OP_MUL &&
               pass_other_operand(g, m2, g->nodes[m1].out[0]) == x) { /* (a * 0.5) * x */
        dead[n_dead++] = m1;
        dead[n_dead++] = m2;
        y = g->nodes[m2].out[0];
    } else if (h >= 0 && g->values[o].n_uses == 1 && with_const(g, h, OP_MUL, x, 0.5)) { /* (x * 0.5) * a */
        dead[n_dead++] = h;
        dead[n_dead++] = m1;
        y = g->nodes[m1].out[0];
    } else {
        return 0;
    }
    if (!shape_equal(&g->values[y].shape, &g->values[x].shape) || g->values[y].dtype != DT_FLOAT32)
        return 0;
    int gelu = pass_replace_nodes(g, dead, n_dead, "Gelu", 1, &x, y);
    node_set_string(g, gelu, "approximate", tanh_form ? "tanh" : "none");
    graph_count_uses(g);
    return 1;
}

int pass_match_gelu(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (!n->dead && n->fused_into < 0 && (n->op == OP_ERF || n->op == OP_TANH) && n->n_in == 1)
            match_one(g, i);
    }
    return 0;
}
