/* window.c - sliding-window geometry for Conv and pools, and the checks of
 * input rank, type and kernel_shape the conv-like ops share (see window.h). */
#include "ops/window.h"

#include <stdint.h>
#include <string.h>

#include "ops/op_util.h"

static int read_list(Graph *g, int node, Diag *d, const char *name, int want, int64_t def, int64_t min,
                     int64_t *out)
{
    int n = 0;
    const int64_t *v = attr_ints(&g->nodes[node], name, &n);
    for (int i = 0; i < want; i++)
        out[i] = def;
    if (!v || n == 0)
        return 0;
    if (n != want)
        return diag_error(d, g, node, "%s must have %d values, got %d", name, want, n);
    for (int i = 0; i < want; i++) {
        if (v[i] < min)
            return diag_error(d, g, node, "%s must be %s, got %lld", name, min ? "positive" : "non-negative",
                              (long long)v[i]);
        if (v[i] > INT32_MAX) /* so the window arithmetic below cannot overflow int64 */
            return diag_error(d, g, node, "%s must be at most %d, got %lld", name, INT32_MAX, (long long)v[i]);
        out[i] = v[i];
    }
    return 0;
}

int window_read(Graph *g, int node, Diag *d, int n, Window *w)
{
    memset(w, 0, sizeof *w);
    if (n < 1 || n > WINDOW_MAX_AXES)
        return diag_error(d, g, node, "%d spatial axes not supported", n);
    w->n = n;
    if (read_list(g, node, d, "strides", n, 1, 1, w->strides) ||
        read_list(g, node, d, "dilations", n, 1, 1, w->dilations) ||
        read_list(g, node, d, "pads", 2 * n, 0, 0, w->pads))
        return -1;
    return 0;
}

int window_infer(Graph *g, int node, Diag *d, int n, const int64_t *in, const int64_t *kernel, int ceil_mode,
                 Window *w)
{
    if (window_read(g, node, d, n, w))
        return -1;
    const char *ap = attr_string(&g->nodes[node], "auto_pad", "NOTSET");
    int is_same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
    if (strcmp(ap, "NOTSET") && strcmp(ap, "VALID") && !is_same)
        return diag_error(d, g, node, "unknown auto_pad '%s'", ap);
    if (strcmp(ap, "NOTSET"))
        memset(w->pads, 0, sizeof w->pads);
    for (int i = 0; i < n; i++) {
        if (kernel[i] < 1 || kernel[i] > INT32_MAX)
            return diag_error(d, g, node, "kernel size must be from 1 to %d, got %lld", INT32_MAX,
                              (long long)kernel[i]);
        if (in[i] < 1)
            return diag_error(d, g, node, "spatial input extent must be positive");
        w->kernel[i] = kernel[i];
        int64_t s = w->strides[i], ek = (kernel[i] - 1) * w->dilations[i] + 1, o;
        if (is_same) {
            o = (in[i] + s - 1) / s;
            int64_t total = (o - 1) * s + ek - in[i];
            if (total < 0)
                total = 0;
            int64_t small = total / 2, big = total - small;
            int upper = !strcmp(ap, "SAME_UPPER");
            w->pads[i] = upper ? small : big;
            w->pads[i + n] = upper ? big : small;
        } else {
            int64_t span = in[i] + w->pads[i] + w->pads[i + n] - ek;
            if (span < 0)
                return diag_error(d, g, node, "kernel extent %lld is larger than the padded input %lld",
                                  (long long)ek, (long long)(in[i] + w->pads[i] + w->pads[i + n]));
            o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
            if (ceil_mode && (o - 1) * s >= in[i] + w->pads[i])
                o--;
        }
        w->out[i] = o;
    }
    node_set_ints(g, node, "kernel_shape", w->kernel, n);
    node_set_ints(g, node, "strides", w->strides, n);
    node_set_ints(g, node, "dilations", w->dilations, n);
    node_set_ints(g, node, "pads", w->pads, 2 * n);
    opu_set_string(g, node, "auto_pad", "NOTSET");
    return 0;
}

int window_spatial_axes(Graph *g, int node, Diag *d, const Value *x, int *ns)
{
    int rank = x->shape.rank;
    *ns = rank - 2;
    if (rank < 3 || *ns > WINDOW_MAX_AXES)
        return diag_error(d, g, node, "input must have rank 3..%d (N, C, spatial...), got %s",
                          WINDOW_MAX_AXES + 2, opu_shape_str(&x->shape));
    return 0;
}

int window_float_type_ok(DType t, int version)
{
    return t == DT_FLOAT32 || t == DT_FLOAT64 || t == DT_FLOAT16 || (t == DT_BFLOAT16 && version >= 22);
}

int window_read_group(Graph *g, int node, Diag *d, const Value *x, const Value *w, int64_t *group)
{
    int rank = x->shape.rank;
    if (w->shape.rank != rank)
        return diag_error(d, g, node, "weights must have rank %d, got %s", rank, opu_shape_str(&w->shape));
    int64_t gr = attr_int(&g->nodes[node], "group", 1);
    int64_t c = x->shape.dims[1], m = w->shape.dims[0];
    if (gr < 1 || c % gr || m % gr)
        return diag_error(d, g, node, "group %lld does not divide %lld input and %lld output channels",
                          (long long)gr, (long long)c, (long long)m);
    if (w->shape.dims[1] != c / gr)
        return diag_error(d, g, node, "weights %s do not match %lld input channels in %lld groups",
                          opu_shape_str(&w->shape), (long long)c, (long long)gr);
    *group = gr;
    return 0;
}

int window_read_kernel_match(Graph *g, int node, Diag *d, const Value *w, int ns)
{
    int nk = 0;
    const int64_t *ks = attr_ints(&g->nodes[node], "kernel_shape", &nk);
    if (ks && nk != ns)
        return diag_error(d, g, node, "kernel_shape has %d values for %d spatial axes", nk, ns);
    for (int i = 0; ks && i < ns; i++)
        if (ks[i] != w->shape.dims[2 + i])
            return diag_error(d, g, node, "kernel_shape does not match weights %s", opu_shape_str(&w->shape));
    return 0;
}

const int64_t *window_read_kernel(Graph *g, int node, Diag *d, int ns)
{
    int nk = 0;
    const int64_t *ks = attr_ints(&g->nodes[node], "kernel_shape", &nk);
    if (!ks) {
        diag_error(d, g, node, "kernel_shape is required");
        return NULL;
    }
    if (nk != ns) {
        diag_error(d, g, node, "kernel_shape must have %d values, got %d", ns, nk);
        return NULL;
    }
    return ks;
}

void window_store(const Window *w, WindowAttrs *a)
{
    memset(a, 0, sizeof *a);
    a->n = w->n;
    for (int i = 0; i < w->n; i++) {
        a->kernel[i] = w->kernel[i];
        a->strides[i] = w->strides[i];
        a->dilations[i] = w->dilations[i];
        a->pads[i] = w->pads[i];
        a->pads[i + w->n] = w->pads[i + w->n];
    }
}
