/* crop_conv_taps.c - pass "crop_conv_taps": kernel taps of a Conv that read
 * only zero padding, for every output position, are dropped.
 *
 * Along one spatial axis (input H, output O, stride s, dilation d, pads pb/pe,
 * kernel k) tap t reads input rows o*s - pb + t*d for o in [0, O). Where that
 * never lands in [0, H) the tap contributes nothing but zeros, so the kernel
 * shrinks to the taps [t0, t1] that do, with pads pb - t0*d and
 * pe - (k-1-t1)*d (the output size stays the same). The atrous convolutions of
 * DeepLabV3's ASPP head (dilation 24 and 36 on a 16x16 map) become 1x1
 * convolutions this way: 9 times less work, exactly the same numbers.
 * float32 Conv with constant weights, after the first inference. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

/* the useful taps [*t0, *t1] of one axis; 0 when no tap is useful */
static int useful_taps(int64_t H, int64_t O, int64_t s, int64_t d, int64_t pb, int64_t k, int64_t *t0, int64_t *t1)
{
    *t0 = -1;
    *t1 = -1;
    for (int64_t t = 0; t < k; t++) {
        int hit = 0;
        for (int64_t o = 0; o < O && !hit; o++) {
            int64_t r = o * s - pb + t * d;
            hit = r >= 0 && r < H;
        }
        if (hit) {
            if (*t0 < 0)
                *t0 = t;
            *t1 = t;
        }
    }
    return *t0 >= 0;
}

static void crop_one(Graph *g, int i)
{
    const Node *n = &g->nodes[i];
    if (n->n_in < 2 || n->in[1] < 0 || n->n_out < 1)
        return;
    const Value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    int ns = w->shape.rank - 2;
    const WindowAttrs *wa = &n->at.conv.win;
    const int64_t *ks = wa->kernel, *st = wa->strides, *dl = wa->dilations, *pd = wa->pads;
    if (!w->data || w->dtype != DT_FLOAT32 || x->dtype != DT_FLOAT32 || ns < 1 || ns > 3 || wa->n != ns ||
        x->shape.rank != ns + 2 || y->shape.rank != ns + 2)
        return;
    int64_t t0[3], t1[3], pads[6], kern[3], dil[3];
    int changed = 0;
    for (int a = 0; a < ns; a++) {
        if (ks[a] != w->shape.dims[2 + a] ||
            !useful_taps(x->shape.dims[2 + a], y->shape.dims[2 + a], st[a], dl[a], pd[a], ks[a], &t0[a], &t1[a]))
            return; /* (no useful tap at all: the output is the bias; left to the Conv) */
        pads[a] = pd[a] - t0[a] * dl[a];
        pads[ns + a] = pd[ns + a] - (ks[a] - 1 - t1[a]) * dl[a];
        if (pads[a] < 0 || pads[ns + a] < 0)
            return;
        kern[a] = t1[a] - t0[a] + 1;
        dil[a] = kern[a] == 1 ? 1 : dl[a];
        changed |= kern[a] != ks[a];
    }
    if (!changed)
        return;
    /* W [M, C/g, k...] -> [M, C/g, k'...] */
    int64_t outer = w->shape.dims[0] * w->shape.dims[1], nd3[3] = {1, 1, 1}, kd3[3] = {1, 1, 1}, o3[3] = {0, 0, 0};
    for (int a = 0; a < ns; a++) {
        nd3[3 - ns + a] = kern[a];
        kd3[3 - ns + a] = ks[a];
        o3[3 - ns + a] = t0[a];
    }
    int64_t cnt = outer * nd3[0] * nd3[1] * nd3[2];
    float *nw = malloc((size_t)cnt * sizeof *nw);
    if (!nw)
        return;
    const float *src = w->data;
    int64_t q = 0;
    for (int64_t m = 0; m < outer; m++)
        for (int64_t a = 0; a < nd3[0]; a++)
            for (int64_t b = 0; b < nd3[1]; b++)
                for (int64_t c = 0; c < nd3[2]; c++)
                    nw[q++] = src[((m * kd3[0] + a + o3[0]) * kd3[1] + b + o3[1]) * kd3[2] + c + o3[2]];
    int64_t wd[5] = {w->shape.dims[0], w->shape.dims[1], 0, 0, 0};
    for (int a = 0; a < ns; a++)
        wd[2 + a] = kern[a];
    int nwv = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_cropped", w->name)), DT_FLOAT32,
                              shape_make(ns + 2, wd), nw);
    free(nw);
    g->nodes[i].in[1] = nwv;
    node_set_ints(g, i, "kernel_shape", kern, ns);
    node_set_ints(g, i, "dilations", dil, ns);
    node_set_ints(g, i, "pads", pads, 2 * ns);
    WindowAttrs *out = &g->nodes[i].at.conv.win;
    for (int a = 0; a < ns; a++) {
        out->kernel[a] = kern[a];
        out->dilations[a] = dil[a];
        out->pads[a] = pads[a];
        out->pads[ns + a] = pads[ns + a];
    }
    graph_count_uses(g);
}

int pass_crop_conv_taps(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_CONV)
            crop_one(g, i);
    return 0;
}
