/* test_schedule_custom.c - unit tests of target-free compute definitions:
 * no file of ops/ reads the target or the thread count or picks loop kinds
 * (a scan of the sources), and schedule/schedule_custom.c turns the loop
 * roles of a custom nest into vector, unrolled and parallel loops for the
 * target and thread count, computing what the nest computed before (run in
 * the loop interpreter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tests/unit/read_text.h"

#include <dirent.h>
#include <math.h>
#include <string.h>

#include "ir/graph.h"
#include "ir/loop.h"
#include "ir/loop_interp.h"
#include "ir/target.h"
#include "schedule/schedule_custom.h"

/* ---- ops/ is target-free ---- */

/* Names that pick for a target in ops/: the target's numbers, the thread
 * count, loop kinds. The target and thread count reach ops/ only through
 * ComputeCtx (the CodegenOptions; the Graph has neither), and one compute
 * definition reads the thread count: ctvm.Sdpa's scratch, one slot per
 * thread (sdpa.c), a size, not a choice; rnn.c's recurrent register tile
 * is asked of the schedule (ComputeCtx.reg_tile). Constant folding computes as the target does (whether
 * its multiply-add fuses) by taking the target as an argument
 * (ops_eval_compute): no vector or thread choice. */
static void test_ops_are_target_free(void **state)
{
    (void)state;
    static const char *const banned[] = {"compute_vl", "compute_threads", "LOOP_VECTORIZE", "LOOP_PARALLEL",
                                         "LOOP_UNROLL", "->target", "->threads", "ir/target.h", "n_vregs"};
    static const char *const allowed[][2] = {{"sdpa.c", "->threads"}};
    DIR *d = opendir("ops");
    assert_non_null(d); /* run from the repository root, as make test does */
    struct dirent *e;
    int files = 0, bad = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 3 || (strcmp(e->d_name + n - 2, ".c") != 0 && strcmp(e->d_name + n - 2, ".h") != 0))
            continue;
        char path[512];
        snprintf(path, sizeof path, "ops/%s", e->d_name);
        char *text = read_text(path);
        assert_non_null(text);
        files++;
        for (size_t b = 0; b < sizeof banned / sizeof banned[0]; b++) {
            if (!strstr(text, banned[b]))
                continue;
            int ok = 0;
            for (size_t a = 0; a < sizeof allowed / sizeof allowed[0]; a++)
                ok |= strcmp(allowed[a][0], e->d_name) == 0 && strcmp(allowed[a][1], banned[b]) == 0;
            if (!ok) {
                fprintf(stderr, "%s uses %s: vector and thread decisions belong in schedule/\n", path, banned[b]);
                bad++;
            }
        }
        free(text);
    }
    closedir(d);
    assert_true(files > 50);
    assert_int_equal(bad, 0);
}

/* ---- schedule_custom ---- */

typedef struct Fixture {
    LoopBuilder lb;
    Graph g;
    ComputeCtx cx;
} Fixture;

static void fixture(Fixture *f, const char *target, int threads)
{
    memset(f, 0, sizeof *f);
    f->lb.arena = arena_new();
    f->cx.target = target_find(target);
    f->cx.threads = threads;
    f->cx.lb = &f->lb;
    f->cx.g = &f->g;
    assert_non_null(f->cx.target);
}

/* counts of loops by kind (and the extents of vectorized ones) */
typedef struct Census {
    int kind[4];
    int64_t vec_extent, min_vec_extent;
} Census;

static void census(const Stmt *s, Census *c)
{
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR:
        c->kind[s->loop]++;
        if (s->loop == LOOP_VECTORIZE) {
            c->vec_extent = s->extent;
            if (!c->min_vec_extent || s->extent < c->min_vec_extent)
                c->min_vec_extent = s->extent;
        }
        census(s->body, c);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            census(s->items[i], c);
        break;
    case ST_IF:
        census(s->body, c);
        census(s->else_body, c);
        break;
    case ST_ALLOC: census(s->body, c); break;
    default: break;
    }
}

typedef struct Mem {
    LBuf *in, *out;
    float *x, *y;
} Mem;

static void *mem_of(void *user, const LBuf *b)
{
    Mem *m = user;
    return b == m->in ? (void *)m->x : b == m->out ? (void *)m->y : NULL;
}

enum { ROWS = 6, LEN = 43 };

/* out[o] = max over the row, out[ROWS + o] = sum of the row, with the
 * row loops contiguous (LR_LANES) and the rows independent */
static Stmt *row_stats(LoopBuilder *lb, Mem *m, int64_t work)
{
    LBuf *mx = lbuf_new_typed(lb, "mx", LB_LOCAL, DT_FLOAT32, 1), *sm = lbuf_new_typed(lb, "sum", LB_LOCAL, DT_FLOAT32, 1);
    LVar *o = lv_new(lb, "o"), *l = lv_new(lb, "l"), *k = lv_new(lb, "k");
    Expr *z = lx_int(lb, 0), *x = lx_load(lb, m->in, lx_add(lb, lx_muli(lb, lx_var(lb, o), LEN), lx_var(lb, l)));
    Stmt *upd = ls_seq2(lb, ls_store(lb, mx, z, lx_bin(lb, BO_MAX, lx_load(lb, mx, z), x)),
                        ls_store(lb, sm, z, lx_add(lb, lx_load(lb, sm, z), x)));
    Stmt *items[5] = {
        ls_store(lb, mx, z, lx_lowest(lb, LT_F32)),
        ls_store(lb, sm, z, lx_zero(lb, LT_F32)),
        /* a perfect nest k { l }: the partials span both loops */
        ls_for(lb, k, 1, LOOP_SERIAL, ls_role(ls_for(lb, l, LEN, LOOP_SERIAL, upd), LR_LANES, 0)),
        ls_store(lb, m->out, lx_var(lb, o), lx_load(lb, mx, z)),
        ls_store(lb, m->out, lx_add(lb, lx_var(lb, o), lx_int(lb, ROWS)), lx_load(lb, sm, z)),
    };
    Stmt *row = ls_alloc(lb, mx, ls_alloc(lb, sm, ls_seq(lb, 5, items)));
    return ls_role(ls_for(lb, o, ROWS, LOOP_SERIAL, row), LR_INDEPENDENT, work);
}

static void run(const Stmt *s, Mem *m)
{
    char err[256] = "";
    int rc = loop_interp_run(s, mem_of, m, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
}

static void check_row_stats(const char *target, int threads, int64_t work, int want_vec, int want_par)
{
    Fixture f;
    fixture(&f, target, threads);
    float x[ROWS * LEN], ref[2 * ROWS], got[2 * ROWS];
    for (int i = 0; i < ROWS * LEN; i++)
        x[i] = (float)((i * 37) % 101) / 8.0f - 5.0f;
    Mem m = {lbuf_new(&f.lb, "x", LB_INPUT, ROWS * LEN), lbuf_new(&f.lb, "y", LB_OUTPUT, 2 * ROWS), x, ref};
    run(row_stats(&f.lb, &m, work), &m); /* the definition as written: serial */
    Stmt *s = schedule_custom(&f.cx, row_stats(&f.lb, &m, work));
    m.y = got;
    run(s, &m);
    for (int o = 0; o < ROWS; o++) {
        assert_true(got[o] == ref[o]);                                   /* max: exact */
        assert_true(fabsf(got[ROWS + o] - ref[ROWS + o]) <= 1e-4f * (1.0f + fabsf(ref[ROWS + o])));
    }
    Census c = {{0}, 0, 0};
    census(s, &c);
    int vl = f.cx.target->vl;
    /* vectors: the row loop's whole vectors go U at a time (U groups of
       partials, at most 4 and 8 vector partials for the two accumulators),
       the vectors left over in one loop, its tail of LEN % vl (the first
       lanes of one vector); each group's partials set (2 U), folded into
       group 0 (2 (U - 1)) and combined across lanes (2) */
    int vl0 = f.cx.target->vl, nv = LEN / vl0, U = nv < 4 ? nv : 4;
    int want = U + (nv % U ? 1 : 0) + (LEN % vl0 ? 1 : 0) + 2 * U + 2 * (U - 1) + 2;
    assert_int_equal(c.kind[LOOP_VECTORIZE], want_vec ? want : 0);
    if (want_vec) {
        assert_int_equal(c.vec_extent, vl);
        assert_int_equal(c.min_vec_extent, LEN % vl);
    }
    assert_int_equal(c.kind[LOOP_PARALLEL], want_par);
    arena_free(f.lb.arena);
}

static void test_lanes_and_rows(void **state)
{
    (void)state;
    check_row_stats("x86_64-avx512", 1, 1000000, 1, 0); /* one thread: serial rows */
    check_row_stats("x86_64-avx512", 2, 1000000, 1, 1); /* enough work: rows on threads */
    check_row_stats("x86_64-avx512", 2, 100, 1, 0);     /* too little work */
    check_row_stats("x86_64-avx2", 2, -1, 1, 1);        /* 8 lanes; -1: always worth a thread */
    check_row_stats("generic", 2, -1, 0, 1);            /* scalar: the loops stay */
}

/* Independent items of a sequence: a parallel loop over them, each under
 * guards of its index; tiles unroll, panels vectorize. */
static void test_items_tiles_panels(void **state)
{
    (void)state;
    Fixture f;
    fixture(&f, "x86_64-avx512", 2);
    LoopBuilder *lb = &f.lb;
    LBuf *y = lbuf_new(lb, "y", LB_OUTPUT, 64);
    Stmt *parts[3];
    for (int q = 0; q < 3; q++) {
        LVar *j = lv_new(lb, "j"), *l = lv_new(lb, "l");
        Stmt *st = ls_store(lb, y, lx_add(lb, lx_muli(lb, lx_var(lb, j), 16), lx_var(lb, l)), lx_float(lb, (double)q));
        parts[q] = ls_role(ls_for(lb, j, 1, LOOP_SERIAL, ls_role(ls_for(lb, l, 16, LOOP_SERIAL, st), LR_PANEL, 0)), LR_TILE, 0);
    }
    Stmt *seq = ls_role(ls_seq(lb, 3, parts), LR_INDEPENDENT, 1 << 20);
    Stmt *s = schedule_custom(&f.cx, seq);
    assert_int_equal(s->kind, ST_FOR);
    assert_int_equal(s->loop, LOOP_PARALLEL);
    assert_int_equal(s->extent, 3);
    Census c = {{0}, 0, 0};
    census(s, &c);
    assert_int_equal(c.kind[LOOP_UNROLL], 3);
    assert_int_equal(c.kind[LOOP_VECTORIZE], 3);
    /* the same at one thread: the items stay a sequence */
    arena_free(f.lb.arena);
    fixture(&f, "x86_64-avx512", 1);
    lb = &f.lb;
    y = lbuf_new(lb, "y", LB_OUTPUT, 64);
    Stmt *two[2] = {ls_store(lb, y, lx_int(lb, 0), lx_float(lb, 1.0)), ls_store(lb, y, lx_int(lb, 1), lx_float(lb, 2.0))};
    s = schedule_custom(&f.cx, ls_role(ls_seq(lb, 2, two), LR_INDEPENDENT, -1));
    assert_int_equal(s->kind, ST_SEQ);
    arena_free(f.lb.arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_are_target_free),
        cmocka_unit_test(test_lanes_and_rows),
        cmocka_unit_test(test_items_tiles_panels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
