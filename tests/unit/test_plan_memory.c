/* test_plan_memory.c - pass_plan_memory never lets two live buffers overlap.
 * Graphs are built by hand (no shape inference: plan_memory looks only at
 * nodes, values, storage and fusion fields) and go through pass_views,
 * pass_fuse and pass_plan_memory. An independent checker recomputes every
 * arena value's live interval from graph_exec_order() (reads through views
 * count as reads of the root) and asserts: intersecting intervals have
 * disjoint byte ranges, offsets are 64-byte aligned, arena_bytes covers every
 * block, and no group writes over one of its own inputs. Cases: a chain (with
 * real reuse), a hole only the largest-first plan avoids, a residual diamond, views, a two-output node with one output
 * unused, and seeded random 200-node DAGs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ir/exec_order.h"
#include "passes/passes.h"
#include "tests/unit/graph_build.h"

/* float32 value of n elements (rank 1) */
static int fv(Graph *g, const char *name, int64_t n)
{
    return tb_val(g, name, DT_FLOAT32, 1, &n);
}

static int64_t vbytes(const Graph *g, int v)
{
    int64_t b = 0;
    assert_true(value_bytes(&g->values[v], &b));
    return b;
}

static void plan(Graph *g)
{
    Diag d = quiet();
    graph_count_uses(g);
    assert_int_equal(pass_views(g, &d), 0);
    graph_count_uses(g);
    assert_int_equal(pass_fuse(g, &d), 0);
    graph_count_uses(g);
    if (pass_plan_memory(g, &d) != 0)
        fail_msg("plan_memory failed: %s", d.last);
}

static int ranges_overlap(const Graph *g, int u, int v)
{
    int64_t ou = g->values[u].offset, ov = g->values[v].offset;
    return ou < ov + vbytes(g, v) && ov < ou + vbytes(g, u);
}

/* Pairs of arena values live at a common step whose byte ranges overlap. */
static int count_conflicts(const Graph *g, const int *def, const int *last, int report)
{
    int nv = g->n_values, bad = 0;
    for (int u = 0; u < nv; u++) {
        if (g->values[u].storage != STORE_ARENA)
            continue;
        for (int v = u + 1; v < nv; v++) {
            if (g->values[v].storage != STORE_ARENA)
                continue;
            int live_together = def[u] <= last[v] && def[v] <= last[u];
            if (live_together && ranges_overlap(g, u, v)) {
                bad++;
                if (report)
                    fprintf(stderr, "%s [%lld,+%lld) live %d..%d overlaps %s [%lld,+%lld) live %d..%d\n",
                            g->values[u].name, (long long)g->values[u].offset, (long long)vbytes(g, u),
                            def[u], last[u], g->values[v].name, (long long)g->values[v].offset,
                            (long long)vbytes(g, v), def[v], last[v]);
            }
        }
    }
    return bad;
}

/* Checks the plan; returns the number of arena values. */
static int check_plan(const Graph *g)
{
    int nv = g->n_values, nn = g->n_nodes;
    int *order = malloc(sizeof(int) * (size_t)(nn + 1));
    int *step_of = malloc(sizeof(int) * (size_t)(nn + 1)); /* node -> step */
    int *def = calloc((size_t)nv + 1, sizeof(int)), *last = calloc((size_t)nv + 1, sizeof(int));
    int steps = graph_exec_order(g, order);
    for (int i = 0; i < nn; i++)
        step_of[i] = -1;
    for (int s = 0; s < steps; s++) {
        const Node *a = &g->nodes[order[s]];
        assert_int_equal(a->fused_into, -1);
        step_of[order[s]] = s;
        for (int e = 0; e < a->n_epi; e++)
            step_of[a->epi[e]] = s;
    }
    /* every live non-view node belongs to exactly one step */
    for (int i = 0; i < nn; i++)
        if (!g->nodes[i].dead && !g->nodes[i].is_view && step_of[i] < 0)
            fail_msg("node %d (%s) runs at no step", i, g->nodes[i].op_type);
    for (int v = 0; v < nv; v++)
        def[v] = last[v] = -1;
    for (int i = 0; i < nn; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || n->is_view)
            continue;
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0)
                def[n->out[k]] = step_of[i];
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] >= 0) {
                int r = value_root(g, n->in[k]);
                if (step_of[i] > last[r])
                    last[r] = step_of[i];
            }
    }
    int n_arena = 0;
    for (int v = 0; v < nv; v++) {
        const Value *val = &g->values[v];
        if (val->storage == STORE_VIEW) {
            int r = value_root(g, v);
            assert_true(r >= 0 && g->values[r].storage != STORE_VIEW);
            continue;
        }
        if (val->storage != STORE_ARENA)
            continue;
        n_arena++;
        if (def[v] < 0)
            fail_msg("arena value %s is written by no step", val->name);
        if (val->offset % 64 != 0)
            fail_msg("value %s at unaligned offset %lld", val->name, (long long)val->offset);
        assert_true(val->offset >= 0);
        if (val->offset + vbytes(g, v) > g->arena_bytes)
            fail_msg("value %s [%lld, +%lld) beyond arena_bytes %lld", val->name, (long long)val->offset,
                     (long long)vbytes(g, v), (long long)g->arena_bytes);
        if (last[v] < def[v])
            last[v] = def[v]; /* never read: live during its own step */
    }
    assert_int_equal(count_conflicts(g, def, last, 1), 0);
    /* a group never writes over any of its (root) inputs */
    for (int i = 0; i < nn; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || n->is_view)
            continue;
        int s = step_of[i];
        for (int k = 0; k < n->n_out; k++) {
            int o = n->out[k];
            if (o < 0 || g->values[o].storage != STORE_ARENA)
                continue;
            for (int j = 0; j < nn; j++) {
                const Node *m = &g->nodes[j];
                if (m->dead || m->is_view || step_of[j] != s)
                    continue;
                for (int q = 0; q < m->n_in; q++) {
                    int r = m->in[q] >= 0 ? value_root(g, m->in[q]) : -1;
                    if (r >= 0 && r != o && g->values[r].storage == STORE_ARENA && ranges_overlap(g, o, r))
                        fail_msg("step %d writes %s over its input %s", s, g->values[o].name,
                                 g->values[r].name);
                }
            }
        }
    }
    free(order), free(step_of), free(def), free(last);
    return n_arena;
}

static int64_t arena_sum(const Graph *g)
{
    int64_t s = 0;
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].storage == STORE_ARENA)
            s += vbytes(g, v);
    return s;
}

/* x -> Conv -> Conv -> ... (10) -> y: Conv does not fuse into Conv */
static void test_chain(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    int cur = fv(g, "x", 1000);
    graph_add_input(g, cur);
    int vals[10];
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        int o = fv(g, name, 1000 + 100 * i);
        tb_node(g, "Conv", 1, 1, cur, o);
        vals[i] = cur = o;
    }
    graph_add_output(g, cur);
    plan(g);
    assert_int_equal(check_plan(g), 9);
    for (int i = 0; i < 9; i++)
        assert_int_equal(g->values[vals[i]].storage, STORE_ARENA);
    assert_int_equal(g->values[vals[9]].storage, STORE_OUTPUT);
    assert_int_equal(g->values[0].storage, STORE_INPUT);
    assert_true(g->arena_bytes < arena_sum(g)); /* real reuse */
    /* neighbours never share bytes */
    for (int i = 0; i + 1 < 9; i++)
        assert_false(ranges_overlap(g, vals[i], vals[i + 1]));
    graph_free(g);

    /* equal sizes: exact ping-pong between two blocks */
    g = tb_graph(13);
    cur = fv(g, "x", 1000);
    graph_add_input(g, cur);
    for (int i = 0; i < 10; i++) {
        int o = fv(g, "c", 1000);
        tb_node(g, "Conv", 1, 1, cur, o);
        cur = o;
    }
    graph_add_output(g, cur);
    plan(g);
    assert_int_equal(check_plan(g), 9);
    assert_int_equal(g->arena_bytes, 2 * 4032); /* blocks are rounded up to 64 */
    graph_free(g);
}

/* A hole the order of definition leaves and the largest-first plan does
 * not: a = Conv(x) (1024 B, read at step 1), b = Conv(a) (64 B, read at
 * step 3), c = Conv(x) (2048 B, steps 2-3), y = Conv(b, c). In order of
 * definition b lands past a and c past b (3136 B); largest first puts c and
 * a at 0 (their lifetimes are disjoint) and b past c: 2112 B. */
static void test_largest_first(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    int x = fv(g, "x", 16);
    graph_add_input(g, x);
    int a = fv(g, "a", 256), b = fv(g, "b", 16), c = fv(g, "c", 512), y = fv(g, "y", 16);
    tb_node(g, "Conv", 1, 1, x, a);
    tb_node(g, "Conv", 1, 1, a, b);
    tb_node(g, "Conv", 1, 1, x, c);
    tb_node(g, "Conv", 2, 1, b, c, y);
    graph_add_output(g, y);
    plan(g);
    assert_int_equal(check_plan(g), 3);
    assert_int_equal(g->arena_bytes, 2048 + 64);
    assert_int_equal(g->values[a].offset, g->values[c].offset);
    graph_free(g);
}

/* x -> Conv a -> Relu r -> Conv b -> Conv c -> Add(c, r) -> Relu -> Conv -> y:
 * the residual Add (and the Relus) fuse into their producers; r stays live
 * across b and c. */
static void test_diamond(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    int x = fv(g, "x", 256);
    graph_add_input(g, x);
    int a = fv(g, "a", 512), r = fv(g, "r", 512), b = fv(g, "b", 512), c = fv(g, "c", 512);
    int s = fv(g, "s", 512), sr = fv(g, "sr", 512), y = fv(g, "y", 10);
    tb_node(g, "Conv", 1, 1, x, a);
    int relu1 = tb_node(g, "Relu", 1, 1, a, r);
    tb_node(g, "Conv", 1, 1, r, b);
    int conv_c = tb_node(g, "Conv", 1, 1, b, c);
    int add = tb_node(g, "Add", 2, 1, c, r, s);
    tb_node(g, "Relu", 1, 1, s, sr);
    tb_node(g, "Conv", 1, 1, sr, y);
    graph_add_output(g, y);
    plan(g);
    assert_int_equal(g->nodes[relu1].fused_into, 0);
    assert_int_equal(g->nodes[add].fused_into, conv_c);
    assert_int_equal(g->values[a].storage, STORE_NONE); /* fused away */
    assert_int_equal(g->values[s].storage, STORE_NONE);
    assert_int_equal(g->values[r].storage, STORE_ARENA);
    assert_int_equal(g->values[sr].storage, STORE_ARENA);
    assert_int_equal(check_plan(g), 3); /* r, b, sr */
    assert_false(ranges_overlap(g, r, b));
    assert_false(ranges_overlap(g, r, sr)); /* the group writing sr reads r */
    assert_false(ranges_overlap(g, b, sr)); /* b is read by conv c, whose group writes sr */
    graph_free(g);
}

/* Views: x -> Conv a -> Reshape v -> Conv p -> Conv q -> Add(q, v) -> y.
 * a is read through v by the last step, so it must outlive p and q. */
static void test_views_extend_lifetime(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    int x = fv(g, "x", 300);
    graph_add_input(g, x);
    int a = fv(g, "a", 300);
    int64_t d2[2] = {10, 30};
    int v = tb_val(g, "v", DT_FLOAT32, 2, d2);
    int v2 = fv(g, "v2", 300);
    int shp = tb_ci1(g, "shp", 2, d2), shp1 = tb_ci1(g, "shp1", 1, (int64_t[]){300});
    int p = fv(g, "p", 300), q = fv(g, "q", 300), y = fv(g, "y", 300);
    tb_node(g, "Conv", 1, 1, x, a);
    int rs = tb_node(g, "Reshape", 2, 1, a, shp, v);
    int rs2 = tb_node(g, "Reshape", 2, 1, v, shp1, v2); /* view of a view */
    tb_node(g, "Conv", 1, 1, x, p);
    tb_node(g, "Conv", 1, 1, p, q);
    tb_node(g, "Conv", 1, 1, q, y);
    int add = tb_node(g, "Add", 2, 1, y, v2, fv(g, "z", 300));
    graph_add_output(g, g->nodes[add].out[0]);
    plan(g);
    assert_true(g->nodes[rs].is_view);
    assert_true(g->nodes[rs2].is_view);
    assert_int_equal(g->values[v].storage, STORE_VIEW);
    assert_int_equal(value_root(g, v2), a);
    assert_int_equal(g->values[a].storage, STORE_ARENA);
    check_plan(g);
    assert_false(ranges_overlap(g, a, p));
    assert_false(ranges_overlap(g, a, q));
    graph_free(g);
}

/* Split-like node with two outputs, the second unused: it still gets bytes of
 * its own, disjoint from its sibling and from the node's input. */
static void test_unused_second_output(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    int x = fv(g, "x", 64);
    graph_add_input(g, x);
    int a = fv(g, "a", 1000), o1 = fv(g, "o1", 500), o2 = fv(g, "o2", 500), y = fv(g, "y", 500);
    tb_node(g, "Conv", 1, 1, x, a);
    tb_node(g, "Split", 1, 2, a, o1, o2);
    tb_node(g, "Conv", 1, 1, o1, y);
    graph_add_output(g, y);
    plan(g);
    assert_int_equal(g->values[o2].storage, STORE_ARENA);
    assert_int_equal(check_plan(g), 3);
    assert_false(ranges_overlap(g, o1, o2));
    assert_false(ranges_overlap(g, a, o2));
    assert_false(ranges_overlap(g, a, o1));
    graph_free(g);
}

static int rnd(int n) { return rand() % n; }

/* 200 random nodes over earlier values: Relu (fusable, same size), Conv
 * (any size), Add / Concat with 2-3 inputs, Reshape (a view), Split with an
 * unused output; a few extra graph outputs. */
static Graph *random_dag(unsigned seed)
{
    srand(seed);
    Graph *g = tb_graph(13);
    int *pool = malloc(sizeof(int) * 1024);
    int np = 0;
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%d", i);
        pool[np] = fv(g, name, 1 + rnd(4000));
        graph_add_input(g, pool[np++]);
    }
    for (int i = 0; i < 200; i++) {
        char name[32];
        snprintf(name, sizeof name, "v%d", i);
        int src = pool[np - 1 - rnd(np < 12 ? np : 12)]; /* mostly recent values */
        int64_t sn = 0;
        shape_numel(&g->values[src].shape, &sn);
        int kind = rnd(10), o;
        if (kind < 3) { /* Relu: same size */
            o = fv(g, name, sn);
            tb_node(g, "Relu", 1, 1, src, o);
        } else if (kind < 5) {
            o = fv(g, name, 1 + rnd(5000));
            tb_node(g, "Conv", 1, 1, src, o);
        } else if (kind < 7) { /* Add: fan-in 2, same size as src */
            o = fv(g, name, sn);
            tb_node(g, "Add", 2, 1, src, pool[rnd(np)], o);
        } else if (kind < 8) { /* Concat: fan-in 3 */
            o = fv(g, name, 1 + rnd(6000));
            tb_node(g, "Concat", 3, 1, src, pool[rnd(np)], pool[rnd(np)], o);
        } else if (kind < 9) { /* Reshape view */
            int64_t d2[2] = {1, sn};
            o = tb_val(g, name, DT_FLOAT32, 2, d2);
            char cn[32];
            snprintf(cn, sizeof cn, "shape%d", i);
            tb_node(g, "Reshape", 2, 1, src, tb_ci1(g, cn, 2, d2), o);
        } else { /* Split with the second output unused */
            o = fv(g, name, 1 + rnd(3000));
            char un[32];
            snprintf(un, sizeof un, "unused%d", i);
            tb_node(g, "Split", 1, 2, src, o, fv(g, un, 1 + rnd(3000)));
        }
        pool[np++] = o;
    }
    graph_add_output(g, pool[np - 1]);
    for (int k = 0; k < 3; k++) {
        int v = pool[2 + rnd(np - 3)];
        int dup = 0;
        for (int j = 0; j < g->n_outputs; j++)
            dup |= g->outputs[j] == v;
        if (!dup)
            graph_add_output(g, v);
    }
    free(pool);
    return g;
}

static void test_random_dags(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 20; seed++) {
        Graph *g = random_dag(seed);
        plan(g);
        int n = check_plan(g);
        assert_true(n > 10);
        if (g->arena_bytes > arena_sum(g) + 64 * n)
            fail_msg("seed %u: arena %lld larger than no reuse at all (%lld)", seed,
                     (long long)g->arena_bytes, (long long)arena_sum(g));
        graph_free(g);
    }
}

/* The checker itself catches an overlap (so the tests above can fail). */
static void test_checker_detects_overlap(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    int x = fv(g, "x", 16);
    graph_add_input(g, x);
    int a = fv(g, "a", 16), b = fv(g, "b", 16), y = fv(g, "y", 16);
    tb_node(g, "Conv", 1, 1, x, a);
    tb_node(g, "Conv", 1, 1, a, b);
    tb_node(g, "Concat", 2, 1, a, b, y); /* a live while b is written */
    graph_add_output(g, y);
    plan(g);
    assert_int_equal(check_plan(g), 2);
    int def[8], last[8];
    for (int v = 0; v < 8; v++)
        def[v] = last[v] = -1;
    def[a] = 0, last[a] = 1, def[b] = 1, last[b] = 1;
    assert_int_equal(count_conflicts(g, def, last, 0), 0);
    g->values[b].offset = g->values[a].offset; /* corrupt the plan */
    assert_int_equal(count_conflicts(g, def, last, 0), 1);
    def[b] = last[b] = 2; /* not live together: sharing is fine */
    assert_int_equal(count_conflicts(g, def, last, 0), 0);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_largest_first),
        cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_views_extend_lifetime),
        cmocka_unit_test(test_unused_second_output),
        cmocka_unit_test(test_random_dags),
        cmocka_unit_test(test_checker_detects_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
