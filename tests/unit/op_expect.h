/* op_expect.h - cmocka checks shared by the operator unit tests
 * (test_ops.c, test_ops_misc.c): run a node through infer and eval, then
 * compare its output's shape, values or attributes, or the last diagnostic.
 * Header-only (static inline); include after <cmocka.h> and graph_build.h. */
#ifndef CTVM_TESTS_OP_EXPECT_H
#define CTVM_TESTS_OP_EXPECT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/ops.h"
#include "tests/unit/graph_build.h"

/* infer, then eval; returns eval's result or -1 */
static inline int run(Graph *g, int node, Diag *d)
{
    if (ops_infer(g, node, d))
        return -1;
    return ops_eval(g, node, NULL, d);
}

static inline void expect_shape(Graph *g, int v, int rank, const int64_t *dims)
{
    const Shape *s = &g->values[v].shape;
    assert_int_equal(s->rank, rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(s->dims[i], dims[i]);
}

static inline void expect_f32(Graph *g, int v, int64_t n, const float *want, float tol)
{
    assert_int_equal(g->values[v].dtype, DT_FLOAT32);
    assert_non_null(g->values[v].data);
    const float *got = g->values[v].data;
    for (int64_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= tol))
            fail_msg("element %lld: got %.7g want %.7g", (long long)i, got[i], want[i]);
}

static inline void expect_i64(Graph *g, int v, int64_t n, const int64_t *want)
{
    assert_int_equal(g->values[v].dtype, DT_INT64);
    assert_non_null(g->values[v].data);
    const int64_t *got = g->values[v].data;
    for (int64_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

static inline void expect_ints_attr(Graph *g, int node, const char *name, int n, const int64_t *want)
{
    int cnt = -1;
    const int64_t *v = attr_ints(&g->nodes[node], name, &cnt);
    assert_non_null(v);
    assert_int_equal(cnt, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(v[i], want[i]);
}

static inline void expect_error(Diag *d, const char *part)
{
    if (!strstr(d->last, part))
        fail_msg("diagnostic '%s' lacks '%s'", d->last, part);
}

#endif
