/* graph_build.h - small helpers for unit tests that build graphs by hand:
 * typed runtime values, float/int64 constants, nodes from value-id lists,
 * string and tensor attributes, and float comparison. Header-only (static)
 * so each test binary includes it without another library. */
#ifndef CTVM_TESTS_GRAPH_BUILD_H
#define CTVM_TESTS_GRAPH_BUILD_H

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "ir/diag.h"
#include "ir/graph.h"

/* A runtime value (not constant) with dtype and shape. */
static inline int tb_val(Graph *g, const char *name, DType t, int rank, const int64_t *dims)
{
    int id = graph_add_value(g, name);
    g->values[id].dtype = t;
    g->values[id].shape = shape_make(rank, dims);
    return id;
}

static inline int tb_input(Graph *g, const char *name, int rank, const int64_t *dims)
{
    int id = tb_val(g, name, DT_FLOAT32, rank, dims);
    graph_add_input(g, id);
    return id;
}

static inline int tb_cf(Graph *g, const char *name, int rank, const int64_t *dims, const float *data)
{
    return graph_add_const(g, name, DT_FLOAT32, shape_make(rank, dims), data);
}

static inline int tb_ci(Graph *g, const char *name, int rank, const int64_t *dims,
                        const int64_t *data)
{
    return graph_add_const(g, name, DT_INT64, shape_make(rank, dims), data);
}

/* 1-D int64 constant from a list. */
static inline int tb_ci1(Graph *g, const char *name, int n, const int64_t *data)
{
    int64_t len = n;
    return tb_ci(g, name, 1, &len, data);
}

/* Node with n_in inputs then n_out outputs as varargs ints (-1 = omitted). */
static inline int tb_node(Graph *g, const char *op, int n_in, int n_out, ...)
{
    int ids[32];
    va_list ap;
    va_start(ap, n_out);
    for (int i = 0; i < n_in + n_out; i++)
        ids[i] = va_arg(ap, int);
    va_end(ap);
    return graph_add_node(g, op, NULL, n_in, ids, n_out, ids + n_in);
}

static inline void tb_set_string(Graph *g, int node, const char *name, const char *s)
{
    node_set_int(g, node, name, 0);
    Attr *a = (Attr *)node_attr(&g->nodes[node], name);
    a->kind = ATTR_STRING;
    a->s = arena_strdup(g->arena, s);
}

static inline void tb_set_tensor(Graph *g, int node, const char *name, DType t, int rank,
                                 const int64_t *dims, const void *data)
{
    node_set_int(g, node, name, 0);
    Attr *a = (Attr *)node_attr(&g->nodes[node], name);
    Tensor *tt = arena_alloc(g->arena, sizeof *tt);
    tt->dtype = t;
    tt->shape = shape_make(rank, dims);
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    tt->data = arena_alloc(g->arena, (size_t)n * dtype_size(t) + 1);
    memcpy(tt->data, data, (size_t)n * dtype_size(t));
    a->kind = ATTR_TENSOR;
    a->t = tt;
}

/* Max |a-b| over n floats is within tol. */
static inline int tb_close(const float *a, const float *b, int64_t n, float tol)
{
    for (int64_t i = 0; i < n; i++)
        if (!(fabsf(a[i] - b[i]) <= tol))
            return 0;
    return 1;
}

static inline Graph *tb_graph(int64_t opset)
{
    Graph *g = graph_new("test.onnx");
    g->opset = opset;
    return g;
}

/* Dimension lists and a Diag that keeps messages to itself, for tests. */
#define D2(a, b) (int64_t[]){a, b}
#define D3(a, b, c) (int64_t[]){a, b, c}
#define D4(a, b, c, e) (int64_t[]){a, b, c, e}

static inline Diag quiet(void)
{
    Diag d;
    memset(&d, 0, sizeof d);
    d.quiet = 1;
    return d;
}

#endif
