/* window.c - sliding-window geometry for Conv and pools (see window.h). */
#include "ops/window.h"

#include <string.h>

#include "ops/op_util.h"

static int read_pair(Graph *g, int node, Diag *d, const char *name, int64_t def, int64_t out[2])
{
    int n = 0;
    const int64_t *v = attr_ints(&g->nodes[node], name, &n);
    out[0] = out[1] = def;
    if (!v)
        return 0;
    if (n != 2)
        return diag_error(d, g, node, "%s must have 2 values for a 2-D window, got %d", name, n);
    for (int i = 0; i < 2; i++) {
        if (v[i] < 1)
            return diag_error(d, g, node, "%s must be positive, got %lld", name, (long long)v[i]);
        out[i] = v[i];
    }
    return 0;
}

int window_resolve(Graph *g, int node, Diag *d, const int64_t in[2], const int64_t kernel[2],
                   int ceil_mode, Window *w)
{
    const Node *n = &g->nodes[node];
    memset(w, 0, sizeof *w);
    w->kernel[0] = kernel[0];
    w->kernel[1] = kernel[1];
    if (read_pair(g, node, d, "strides", 1, w->strides) ||
        read_pair(g, node, d, "dilations", 1, w->dilations))
        return -1;
    const char *ap = attr_string(n, "auto_pad", "NOTSET");
    int np = 0;
    const int64_t *pads = attr_ints(n, "pads", &np);
    int is_same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
    if (strcmp(ap, "NOTSET") && strcmp(ap, "VALID") && !is_same)
        return diag_error(d, g, node, "unknown auto_pad '%s'", ap);
    if (!strcmp(ap, "NOTSET") && pads) {
        if (np != 4)
            return diag_error(d, g, node, "pads must have 4 values for a 2-D window, got %d", np);
        for (int i = 0; i < 4; i++) {
            if (pads[i] < 0)
                return diag_error(d, g, node, "negative pads not supported");
            w->pads[i] = pads[i];
        }
    }
    for (int i = 0; i < 2; i++) {
        int64_t s = w->strides[i], ek = (kernel[i] - 1) * w->dilations[i] + 1, o;
        if (kernel[i] < 1)
            return diag_error(d, g, node, "kernel size must be positive");
        if (is_same) {
            o = (in[i] + s - 1) / s;
            int64_t total = (o - 1) * s + ek - in[i];
            if (total < 0)
                total = 0;
            int64_t small = total / 2, big = total - small;
            int upper = !strcmp(ap, "SAME_UPPER");
            w->pads[i] = upper ? small : big;
            w->pads[i + 2] = upper ? big : small;
        } else {
            int64_t span = in[i] + w->pads[i] + w->pads[i + 2] - ek;
            if (span < 0)
                return diag_error(d, g, node,
                                  "kernel extent %lld is larger than the padded input %lld",
                                  (long long)ek, (long long)(in[i] + w->pads[i] + w->pads[i + 2]));
            o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
            if (ceil_mode && (o - 1) * s >= in[i] + w->pads[i])
                o--;
        }
        w->out[i] = o;
    }
    node_set_ints(g, node, "kernel_shape", w->kernel, 2);
    node_set_ints(g, node, "strides", w->strides, 2);
    node_set_ints(g, node, "dilations", w->dilations, 2);
    node_set_ints(g, node, "pads", w->pads, 4);
    opu_set_string(g, node, "auto_pad", "NOTSET");
    return 0;
}
