/* winograd.c - pass "winograd": 3x3 stride-1 blocked convolutions as
 * Winograd F(2x2, 3x3) (ctvm.WinogradConv, ops/winograd.c).
 *
 * Runs after pass layout. A ctvm.ConvNCHWc is rewritten when it has a 3x3
 * kernel, stride 1, dilation 1, one group, is not depthwise, reads and
 * writes blocks of the target's vector width (SIMD targets only: with one
 * lane the GEMM part has no register tile to gain), has at least 16 input
 * and 64 output channels (the input transform costs about 1/OC of the
 * GEMM, the output transform about 1/IC; squeezenet1_1's fire modules with
 * 16-48 input channels: whole model 6.3 -> 5.4-5.6 ms at 1 thread, where
 * 32 and up gave 5.6-6.2), output
 * at least 4x4, and passes the measured size rule below. The node keeps its
 * id (so the fused bias, Relu and residual Add still attach to it); its
 * weights become U = G g G^T [16, IC, OC] computed here in double, its
 * PadHW input (pass layout) is bypassed when the conv is its only reader
 * (the input transform reads zeros outside the input itself), and it gets
 * two arena scratch outputs V [16, P, IC] and M [16, P, OC] (P tiles),
 * live only while it runs, like pass hidden's scratch values.
 *
 * Those sizes are F(2x2, 3x3)'s; F(4x4, 3x3) (U [36, IC, OC], V and M
 * [36, P, .] over tiles of 4x4, and a third scratch output Z of whole
 * output tiles) is taken where it pays: >= 64 input channels, output at
 * least 8x8 and >= 32 tiles of 4x4 (rule and measurements in rewrite).
 *
 * CTVM_WINOGRAD=0 in the environment turns the pass off, CTVM_WINOGRAD=2
 * keeps it to F(2x2, 3x3) (A/B timing). */
#include <stdlib.h>
#include <string.h>

#include "ir/target.h"
#include "passes.h"
#include "passes/pass_util.h"

/* G of F(2x2,3x3) and of F(4x4,3x3) (Lavin & Gray's matrices; the rows
 * of F(4x4)'s match ops/winograd.c's B^T and A^T) */
static const double WG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
static const double WG4[6][3] = {{1.0 / 4, 0, 0},
                                 {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                 {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                 {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                 {0, 0, 1}};

static int scratch(Graph *g, int node, const char *what, int64_t d0, int64_t d1, int64_t d2)
{
    int v = graph_add_value(g, pass_unique_name(g, arena_printf(g->arena, "%s_%s", g->nodes[node].name, what)));
    int64_t dims[3] = {d0, d1, d2};
    g->values[v].dtype = DT_FLOAT32;
    g->values[v].shape = shape_make(3, dims);
    pass_append_output(g, node, v);
    return v;
}

/* Whether Winograd is faster for this layer: at least 32 tiles. With fewer
 * (7x7 outputs: 16 tiles) each of the 16 products has too few rows to reuse
 * its IC x OC slice of U, which is 16/9 of the direct kernel's weights and
 * comes from memory: resnet18's 512-channel 7x7 convs ran at 58 effective
 * GFLOP/s against the direct kernel's ~100, while 14x14 (49 tiles) ran at
 * ~177 (docs/ARCHITECTURE.md, "Winograd"). */
static int worth_it(int64_t P, int64_t IC, int64_t OC)
{
    (void)IC;
    (void)OC;
    return P >= 32;
}

static int rewrite(Graph *g, int node, int vl, int allow4)
{
    Node *n = &g->nodes[node];
    if (n->n_out != 1 || n->n_in < 2)
        return 0;
    int x = n->in[0], w = n->in[1];
    const Value *xv = &g->values[x], *wv = &g->values[w], *yv = &g->values[n->out[0]];
    const WindowAttrs *wa = &n->at.conv.win;
    const int64_t *ks = wa->kernel, *st = wa->strides, *dl = wa->dilations, *pd = wa->pads;
    if (wa->n != 2)
        return 0;
    if (ks[0] != 3 || ks[1] != 3 || st[0] != 1 || st[1] != 1 || dl[0] != 1 || dl[1] != 1 ||
        n->at.conv.group != 1 || n->at.conv.depthwise)
        return 0;
    if (xv->dtype != DT_FLOAT32 || !wv->data || wv->dtype != DT_FLOAT32 || wv->shape.rank != 6 ||
        xv->shape.rank != 5 || yv->shape.rank != 5)
        return 0;
    const int64_t *wd = wv->shape.dims;
    int64_t ICb = xv->shape.dims[1], OCb = wd[0], OH = yv->shape.dims[2], OW = yv->shape.dims[3];
    if (xv->shape.dims[4] != vl || wd[4] != vl || wd[5] != vl || wd[1] != ICb || wd[2] != 3 || wd[3] != 3)
        return 0;
    int64_t IC = ICb * vl, OC = OCb * vl, N = xv->shape.dims[0];
    int64_t P = N * ((OH + 1) / 2) * ((OW + 1) / 2);
    if (IC < 16 || OC < 64 || OH < 4 || OW < 4 || !worth_it(P, IC, OC))
        return 0;
    /* F(4x4,3x3): 36 products for 16 outputs (F(2x2): 16 for 4), where
       the transforms stay small beside the products: a tile's output
       transform costs 324 multiply-adds per output channel against 36*IC
       in the products (F(2x2): 36 against 16*IC), so IC >= 64; and at least
       32 tiles, as for F(2x2) (resnet18's 14x14 layers, 16 tiles of 4x4:
       1.25 -> 1.61 ms; its 56x56 ones 1.39 -> 0.80 ms, 28x28 1.09 -> 0.82) */
    int64_t P4 = N * ((OH + 3) / 4) * ((OW + 3) / 4);
    int m = allow4 && IC >= 64 && OH >= 8 && OW >= 8 && worth_it(P4, IC, OC) ? 4 : 2, A = m + 2, T = A * A;
    if (m == 4)
        P = P4;
    const double(*WG)[3] = m == 4 ? WG4 : WG2;
    /* the input before layout's PadHW, when this conv is its only reader */
    int64_t pads[4] = {pd[0], pd[1], pd[2], pd[3]};
    int pn = xv->producer;
    if (pn >= 0 && g->nodes[pn].op == OP_PADHW && xv->n_uses == 1 && !xv->is_output) {
        const int64_t *pp = g->nodes[pn].at.layout.pads;
        const Value *src = &g->values[g->nodes[pn].in[0]];
        if (src->shape.rank == 5 && src->dtype == DT_FLOAT32) {
            for (int i = 0; i < 4; i++)
                pads[i] += pp[i];
            x = g->nodes[pn].in[0];
            g->nodes[pn].dead = 1;
        }
    }
    /* U[t][ic][oc] = sum_{kh,kw} G[xi][kh] G[nu][kw] W[ocb, icb, kh, kw, il, ol] */
    float *U = malloc((size_t)(T * IC * OC) * sizeof(float));
    if (!U)
        return -1;
    const float *W = wv->data;
    for (int64_t ic = 0; ic < IC; ic++)
        for (int64_t oc = 0; oc < OC; oc++) {
            double gk[3][3];
            int64_t icb = ic / vl, il = ic % vl, ocb = oc / vl, ol = oc % vl;
            for (int kh = 0; kh < 3; kh++)
                for (int kw = 0; kw < 3; kw++)
                    gk[kh][kw] = W[((((ocb * ICb + icb) * 3 + kh) * 3 + kw) * vl + il) * vl + ol];
            for (int xi = 0; xi < A; xi++)
                for (int nu = 0; nu < A; nu++) {
                    double s = 0;
                    for (int kh = 0; kh < 3; kh++)
                        for (int kw = 0; kw < 3; kw++)
                            s += WG[xi][kh] * WG[nu][kw] * gk[kh][kw];
                    U[((int64_t)(xi * A + nu) * IC + ic) * OC + oc] = (float)s;
                }
        }
    int64_t ud[3] = {T, IC, OC};
    int u = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_wino", g->values[w].name)),
                            DT_FLOAT32, shape_make(3, ud), U);
    free(U);
    n = &g->nodes[node];
    n->op = OP_WINOGRAD_CONV;
    n->op_type = "ctvm.WinogradConv";
    n->in[0] = x;
    n->in[1] = u;
    node_set_ints(g, node, "pads", pads, 4);
    for (int i = 0; i < 4; i++)
        n->at.conv.win.pads[i] = pads[i];
    scratch(g, node, "wino_v", T, P, IC);
    scratch(g, node, "wino_m", T, P, OC);
    if (m == 4) /* whole output tiles, before the copy that fuses the epilogues */
        scratch(g, node, "wino_z", OCb, P * 16, vl);
    return 1;
}

int pass_winograd(Graph *g, const CodegenOptions *cg, Diag *d)
{
    int vl = cg->target ? cg->target->vl : 1;
    const char *env = getenv("CTVM_WINOGRAD");
    if (vl <= 1 || (env && strcmp(env, "0") == 0))
        return 0;
    int allow4 = !(env && strcmp(env, "2") == 0);
    graph_count_uses(g);
    int n_nodes = g->n_nodes;
    for (int i = 0; i < n_nodes; i++) {
        if (g->nodes[i].dead || g->nodes[i].op != OP_CONV_NCHWC)
            continue;
        if (rewrite(g, i, vl, allow4) < 0)
            return diag_error(d, g, i, "out of memory transforming weights");
    }
    graph_count_uses(g);
    return 0;
}
