/* test_loop_simplify.c - unit tests of the range-aware simplifier
 * (ir/loop_simplify.h). Every nest is checked twice: its simplified form
 * structurally (the dump of loop_print, or the parts a rule must remove or
 * keep), and by running the original and the simplified nest in the loop
 * interpreter (ir/loop_interp.h) on the same random inputs, whose outputs
 * must agree bit for bit. The cases where a rule must not fire (a value that
 * may be negative, reach N, overflow int, or a divisor that may be 0) are
 * tested the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "ir/loop.h"
#include "ir/loop_interp.h"
#include "ir/loop_simplify.h"

#define NBUF 4
#define CAP 4096

typedef struct Fix {
    LoopBuilder lb;
    LBuf *in, *in2, *out;
} Fix;

static Fix fix_new(void)
{
    Fix f;
    memset(&f, 0, sizeof f);
    f.lb.arena = arena_new();
    f.in = lbuf_new(&f.lb, "in", LB_INPUT, CAP);
    f.in2 = lbuf_new(&f.lb, "in2", LB_INPUT, CAP);
    f.out = lbuf_new(&f.lb, "out", LB_OUTPUT, CAP);
    return f;
}

typedef struct Mem {
    const LBuf *buf[NBUF];
    float *data[NBUF];
} Mem;

static void *mem_of(void *user, const LBuf *b)
{
    Mem *m = user;
    for (int i = 0; i < NBUF; i++)
        if (m->buf[i] == b)
            return m->data[i];
    return NULL;
}

/* Runs s on inputs from seed (with some -0.0 and NaN-free extremes); out
 * starts as a pattern so that skipped stores show. */
static void run(Fix *f, const Stmt *s, unsigned seed, float *out)
{
    static float in[CAP], in2[CAP];
    srand(seed);
    for (int i = 0; i < CAP; i++) {
        in[i] = (float)rand() / RAND_MAX * 4 - 2;
        in2[i] = i % 7 == 0 ? -0.0f : (float)rand() / RAND_MAX;
    }
    for (int i = 0; i < CAP; i++)
        out[i] = (float)(i % 13) - 100.0f;
    Mem m = {{f->in, f->in2, f->out}, {in, in2, out}};
    char err[256];
    int rc = loop_interp_run(s, mem_of, &m, err, sizeof err);
    if (rc != 0)
        fail_msg("interpreter: %s", err);
}

/* s and its simplified form compute the same outputs, bit for bit */
static Stmt *simplify_same(Fix *f, Stmt *s)
{
    static float a[CAP], b[CAP];
    Stmt *t = loop_simplify(&f->lb, s);
    for (unsigned seed = 1; seed <= 3; seed++) {
        run(f, s, seed, a);
        run(f, t, seed, b);
        assert_memory_equal(a, b, sizeof a);
    }
    return t;
}

static char *dump(const Stmt *s)
{
    static char out[4][8192];
    static int k;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    loop_print(fp, s, 0);
    fclose(fp);
    char *o = out[k++ & 3];
    snprintf(o, sizeof out[0], "%s", buf);
    free(buf);
    return o;
}

static const char *dump_expr(const Expr *e)
{
    static char out[4][1024];
    static int k;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    loop_print_expr(fp, e);
    fclose(fp);
    char *o = out[k++ & 3];
    snprintf(o, sizeof out[0], "%s", buf);
    free(buf);
    return o;
}

static Expr *V(Fix *f, LVar *v) { return lx_var(&f->lb, v); }
static Expr *I(Fix *f, int64_t k) { return lx_int(&f->lb, k); }
static Expr *B(Fix *f, BinOp op, Expr *a, Expr *b) { return lx_bin(&f->lb, op, a, b); }
static Expr *LD(Fix *f, LBuf *b, Expr *i) { return lx_load(&f->lb, b, i); }
static Stmt *FOR(Fix *f, LVar *v, int64_t n, LoopKind k, Stmt *body) { return ls_for(&f->lb, v, n, k, body); }
static Stmt *ST(Fix *f, Expr *i, Expr *val) { return ls_store(&f->lb, f->out, i, val); }

/* out[i] = in[i] for the innermost loop of an extent-1 nest of every kind */
static void test_extent1_loops_of_every_kind_vanish(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *o = lv_new(&f.lb, "o"), *l = lv_new(&f.lb, "l"), *q = lv_new(&f.lb, "q"), *u = lv_new(&f.lb, "u"),
         *i = lv_new(&f.lb, "i");
    Expr *idx = B(&f, BO_ADD, B(&f, BO_ADD, B(&f, BO_MUL, V(&f, o), I(&f, 64)), V(&f, l)),
                  B(&f, BO_ADD, B(&f, BO_ADD, V(&f, q), V(&f, u)), V(&f, i)));
    Stmt *s = ST(&f, idx, B(&f, BO_MUL, LD(&f, f.in, idx), lx_float(&f.lb, 2)));
    s = FOR(&f, i, 8, LOOP_SERIAL, s);
    s = FOR(&f, u, 1, LOOP_UNROLL, s);
    s = FOR(&f, q, 1, LOOP_PARALLEL, s);
    s = FOR(&f, l, 1, LOOP_VECTORIZE, s);
    s = FOR(&f, o, 1, LOOP_SERIAL, s);
    Stmt *t = simplify_same(&f, s);
    char want[256];
    snprintf(want, sizeof want, "for i_%d in 0..8 {\n  out[i_%d] = (in[i_%d] * 2f)\n}\n", i->id, i->id, i->id);
    assert_string_equal(dump(t), want);
    arena_free(f.lb.arena);
}

/* extent-0 loops, empty bodies and ifs with a false condition disappear */
static void test_empty_loops_and_false_ifs_vanish(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *i = lv_new(&f.lb, "i"), *j = lv_new(&f.lb, "j"), *k = lv_new(&f.lb, "k");
    Stmt *zero = FOR(&f, j, 0, LOOP_SERIAL, ST(&f, V(&f, j), lx_float(&f.lb, 1)));
    /* if (i >= 8) can never hold for i in 0..8 */
    Stmt *never = ls_if(&f.lb, B(&f, BO_GE, V(&f, i), I(&f, 8)), ST(&f, V(&f, i), lx_float(&f.lb, 5)));
    /* a loop whose only statement is removed */
    Stmt *hollow = FOR(&f, k, 4, LOOP_SERIAL, ls_if(&f.lb, B(&f, BO_LT, V(&f, k), I(&f, 0)),
                                                       ST(&f, V(&f, k), lx_float(&f.lb, 7))));
    Stmt *keep = ST(&f, V(&f, i), LD(&f, f.in, V(&f, i)));
    Stmt *items[] = {zero, never, hollow, keep};
    Stmt *s = FOR(&f, i, 8, LOOP_SERIAL, ls_seq(&f.lb, 4, items));
    Stmt *t = simplify_same(&f, s);
    char want[256];
    snprintf(want, sizeof want, "for i_%d in 0..8 {\n  out[i_%d] = in[i_%d]\n}\n", i->id, i->id, i->id);
    assert_string_equal(dump(t), want);
    /* a false if with an else becomes the else */
    Stmt *ie = ls_if_else(&f.lb, B(&f, BO_LT, V(&f, i), I(&f, 0)), ST(&f, V(&f, i), lx_float(&f.lb, 1)),
                          ST(&f, V(&f, i), lx_float(&f.lb, 3)));
    t = simplify_same(&f, FOR(&f, i, 8, LOOP_SERIAL, ie));
    assert_int_equal(t->body->kind, ST_STORE);
    assert_true(t->body->value->kind == EX_FLOAT && t->body->value->f == 3.0);
    arena_free(f.lb.arena);
}

/* A split loop: p in 0..64 of an outer loop of extent 1 (p/64)*4096 + (p%64)*4
 * is p*4; the split of a flat index x = o*16 + i: x/16 = o, x%16 = i. */
static void test_split_loop_div_mod_fold(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *p = lv_new(&f.lb, "p"), *c = lv_new(&f.lb, "c");
    Expr *idx = B(&f, BO_ADD,
                  B(&f, BO_ADD, B(&f, BO_MUL, B(&f, BO_DIV, V(&f, p), I(&f, 64)), I(&f, 4096)),
                    B(&f, BO_MUL, B(&f, BO_MOD, V(&f, p), I(&f, 64)), I(&f, 4))),
                  V(&f, c));
    Stmt *s = FOR(&f, p, 64, LOOP_PARALLEL, FOR(&f, c, 4, LOOP_VECTORIZE, ST(&f, idx, LD(&f, f.in, idx))));
    Stmt *t = simplify_same(&f, s);
    char want[64];
    snprintf(want, sizeof want, "((p_%d * 4) + c_%d)", p->id, c->id);
    assert_string_equal(dump_expr(t->body->body->index), want);
    assert_int_equal(t->loop, LOOP_PARALLEL);
    assert_int_equal(t->body->loop, LOOP_VECTORIZE);

    LVar *o = lv_new(&f.lb, "o"), *i = lv_new(&f.lb, "i");
    Expr *x = B(&f, BO_ADD, B(&f, BO_MUL, V(&f, o), I(&f, 16)), V(&f, i));
    Expr *rd = B(&f, BO_ADD, B(&f, BO_MUL, B(&f, BO_MOD, x, I(&f, 16)), I(&f, 100)), B(&f, BO_DIV, x, I(&f, 16)));
    s = FOR(&f, o, 20, LOOP_SERIAL, FOR(&f, i, 16, LOOP_SERIAL, ST(&f, x, LD(&f, f.in, rd))));
    t = simplify_same(&f, s);
    snprintf(want, sizeof want, "in[((i_%d * 100) + o_%d)]", i->id, o->id);
    assert_string_equal(dump_expr(t->body->body->value), want);
    /* with a constant part: (o*16 + i + 32)/16 = o + 2, %16 = i */
    Expr *x2 = B(&f, BO_ADD, x, I(&f, 32));
    s = FOR(&f, o, 20, LOOP_SERIAL,
            FOR(&f, i, 16, LOOP_SERIAL,
                ST(&f, x, LD(&f, f.in, B(&f, BO_ADD, B(&f, BO_DIV, x2, I(&f, 16)), B(&f, BO_MOD, x2, I(&f, 16)))))));
    t = simplify_same(&f, s);
    snprintf(want, sizeof want, "in[((o_%d + 2) + i_%d)]", o->id, i->id);
    assert_string_equal(dump_expr(t->body->body->value), want);
    arena_free(f.lb.arena);
}

/* x/N -> 0 and x%N -> x for 0 <= x < N; nested (x/N)/M -> x/(N*M) */
static void test_small_div_mod_and_nested_div(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *i = lv_new(&f.lb, "i");
    Expr *e = B(&f, BO_ADD, B(&f, BO_MUL, B(&f, BO_DIV, V(&f, i), I(&f, 8)), I(&f, 1000)),
                B(&f, BO_MOD, V(&f, i), I(&f, 8)));
    Stmt *t = simplify_same(&f, FOR(&f, i, 8, LOOP_SERIAL, ST(&f, V(&f, i), LD(&f, f.in, e))));
    char want[64];
    snprintf(want, sizeof want, "in[i_%d]", i->id);
    assert_string_equal(dump_expr(t->body->value), want);

    LVar *j = lv_new(&f.lb, "j");
    e = B(&f, BO_DIV, B(&f, BO_DIV, V(&f, j), I(&f, 8)), I(&f, 4));
    t = simplify_same(&f, FOR(&f, j, 1000, LOOP_SERIAL, ST(&f, V(&f, j), LD(&f, f.in, e))));
    snprintf(want, sizeof want, "in[(j_%d / 32)]", j->id);
    assert_string_equal(dump_expr(t->body->value), want);
    arena_free(f.lb.arena);
}

/* Cases where the folds must not fire: values that may be negative, reach
 * N, a divisor that may be 0, and index arithmetic that wraps. */
static void test_folds_that_must_not_fire(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *i = lv_new(&f.lb, "i"), *o = lv_new(&f.lb, "o"), *j = lv_new(&f.lb, "j");
    /* (i - 4)/4 for i in 0..8 takes -1 and 0 (C truncation): kept */
    Expr *neg = B(&f, BO_DIV, B(&f, BO_SUB, V(&f, i), I(&f, 4)), I(&f, 4));
    /* i%8 for i in 0..9 reaches 8: kept */
    Expr *reach = B(&f, BO_MOD, V(&f, i), I(&f, 8));
    Expr *val = B(&f, BO_ADD, lx_cast(&f.lb, LT_F32, neg), lx_cast(&f.lb, LT_F32, reach));
    Stmt *t = simplify_same(&f, FOR(&f, i, 9, LOOP_SERIAL, ST(&f, V(&f, i), val)));
    char want[128];
    snprintf(want, sizeof want, "(f32(((i_%d + -4) / 4)) + f32((i_%d %% 8)))", i->id, i->id);
    assert_string_equal(dump_expr(t->body->value), want);

    /* (o*16 + i - 1)/16 with i in 0..16: b = i - 1 may be -1: kept;
       (o*16 + i)/16 with i in 0..17: b reaches 16: kept */
    Expr *x1 = B(&f, BO_ADD, B(&f, BO_ADD, B(&f, BO_MUL, V(&f, o), I(&f, 16)), V(&f, i)), I(&f, -1));
    Expr *x2 = B(&f, BO_ADD, B(&f, BO_MUL, V(&f, o), I(&f, 16)), V(&f, i));
    Expr *r = B(&f, BO_ADD, B(&f, BO_MUL, B(&f, BO_DIV, x1, I(&f, 16)), I(&f, 100)),
                B(&f, BO_ADD, B(&f, BO_MOD, x1, I(&f, 16)), B(&f, BO_DIV, x2, I(&f, 16))));
    Stmt *s = FOR(&f, o, 4, LOOP_SERIAL,
                  FOR(&f, i, 17, LOOP_SERIAL, ST(&f, B(&f, BO_ADD, x2, I(&f, 1)), LD(&f, f.in, B(&f, BO_ADD, r, I(&f, 1))))));
    Stmt *s1 = FOR(&f, o, 4, LOOP_SERIAL,
                   FOR(&f, i, 16, LOOP_SERIAL, ST(&f, B(&f, BO_ADD, x2, I(&f, 1)), LD(&f, f.in, B(&f, BO_ADD, r, I(&f, 1))))));
    t = simplify_same(&f, s);
    assert_true(lx_uses_var(t->body->body->value->a, o)); /* nothing folded into a constant */
    assert_non_null(strstr(dump_expr(t->body->body->value), "/ 16)"));
    assert_non_null(strstr(dump_expr(t->body->body->value), "% 16)"));
    t = simplify_same(&f, s1);
    /* i in 0..16: x2/16 = o, but x1 (b = i - 1 may be -1) keeps its / and % */
    assert_non_null(strstr(dump_expr(t->body->body->value), "/ 16)"));
    assert_non_null(strstr(dump_expr(t->body->body->value), "% 16)"));

    /* i % j and i / j with j in 0..4 (j may be 0 in a divisor): never folded;
       i % (j + 5) with i < 5 is i */
    Expr *d = B(&f, BO_ADD, B(&f, BO_MOD, V(&f, i), B(&f, BO_ADD, V(&f, j), I(&f, 1))),
                B(&f, BO_MOD, V(&f, i), B(&f, BO_ADD, V(&f, j), I(&f, 5))));
    s = FOR(&f, j, 4, LOOP_SERIAL, FOR(&f, i, 5, LOOP_SERIAL, ST(&f, B(&f, BO_ADD, B(&f, BO_MUL, V(&f, j), I(&f, 5)), V(&f, i)),
                                                                 LD(&f, f.in, d))));
    t = simplify_same(&f, s);
    snprintf(want, sizeof want, "in[((i_%d %% (j_%d + 1)) + i_%d)]", i->id, j->id, i->id);
    assert_string_equal(dump_expr(t->body->body->value), want);

    /* (o*16 - i)/16 with i in 0..16 is o - 1 for i > 0 (the rest -i is
       negative): kept; i && (k >= 0) is 0/1, not i */
    LVar *k = lv_new(&f.lb, "k");
    Expr *x3 = B(&f, BO_SUB, B(&f, BO_MUL, V(&f, o), I(&f, 16)), V(&f, i));
    Expr *cnd = B(&f, BO_AND, V(&f, i), B(&f, BO_GE, V(&f, k), I(&f, 0)));
    val = B(&f, BO_ADD, lx_cast(&f.lb, LT_F32, B(&f, BO_DIV, x3, I(&f, 16))), lx_cast(&f.lb, LT_F32, cnd));
    s = FOR(&f, o, 4, LOOP_SERIAL,
            FOR(&f, i, 16, LOOP_SERIAL, FOR(&f, k, 2, LOOP_SERIAL, ST(&f, B(&f, BO_ADD, x2, I(&f, 1)), val))));
    t = simplify_same(&f, s);
    snprintf(want, sizeof want, "(f32((((o_%d * 16) - i_%d) / 16)) + f32((i_%d && 1)))", o->id, i->id, i->id);
    assert_string_equal(dump_expr(t->body->body->body->value), want);

    /* (i + 2)/(j - 3) for j in 0..3 (a negative divisor) lies in [-9, 0]:
       <= 0 holds, < 0 does not */
    Expr *q = B(&f, BO_DIV, B(&f, BO_ADD, V(&f, i), I(&f, 2)), B(&f, BO_SUB, V(&f, j), I(&f, 3)));
    Stmt *two[] = {ls_if(&f.lb, B(&f, BO_LE, q, I(&f, 0)), ST(&f, V(&f, i), lx_float(&f.lb, 4))),
                   ls_if(&f.lb, B(&f, BO_LT, q, I(&f, 0)), ST(&f, B(&f, BO_ADD, V(&f, i), I(&f, 10)), lx_float(&f.lb, 5)))};
    s = FOR(&f, j, 3, LOOP_SERIAL, FOR(&f, i, 8, LOOP_SERIAL, ls_seq(&f.lb, 2, two)));
    t = simplify_same(&f, s);
    assert_int_equal(t->body->body->items[0]->kind, ST_STORE);
    assert_int_equal(t->body->body->items[1]->kind, ST_IF);

    /* i*32768*65536 wraps (i = 1: INT_MIN): the guard >= 0 is not provable */
    Expr *w = B(&f, BO_MUL, B(&f, BO_MUL, V(&f, i), I(&f, 32768)), I(&f, 65536));
    s = FOR(&f, i, 4, LOOP_SERIAL, ls_if(&f.lb, B(&f, BO_GE, w, I(&f, 0)), ST(&f, V(&f, i), lx_float(&f.lb, 9))));
    t = simplify_same(&f, s);
    assert_int_equal(t->body->kind, ST_IF);
    /* if (i + (INT_MAX - 1) < INT_MAX) holds for i = 0 and, wrapped, for
       i = 2 and 3: it must not narrow i to 0 in its body */
    s = FOR(&f, i, 4, LOOP_SERIAL,
            ls_if(&f.lb, B(&f, BO_LT, B(&f, BO_ADD, V(&f, i), I(&f, INT32_MAX - 1)), I(&f, INT32_MAX)),
                  ST(&f, V(&f, i), lx_float(&f.lb, 9))));
    t = simplify_same(&f, s);
    assert_int_equal(t->body->body->index->kind, EX_VAR);
    arena_free(f.lb.arena);
}

/* Guards the loop bounds imply vanish from ifs, selects and conjunctions;
 * real guards stay. */
static void test_guards(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *i = lv_new(&f.lb, "i"), *k = lv_new(&f.lb, "k");
    Expr *h = B(&f, BO_ADD, B(&f, BO_MUL, V(&f, i), I(&f, 2)), V(&f, k)); /* 0..16 */
    Expr *ok_lo = B(&f, BO_GE, h, I(&f, 0));                             /* always */
    Expr *ok_hi = B(&f, BO_LT, h, I(&f, 16));                            /* not for i = 7, k = 2 */
    Expr *pad = B(&f, BO_GE, B(&f, BO_ADD, h, I(&f, -1)), I(&f, 0));     /* not for h = 0 */
    Expr *cond = B(&f, BO_AND, B(&f, BO_AND, ok_lo, ok_hi), pad);
    Expr *val = lx_select(&f.lb, cond, LD(&f, f.in, B(&f, BO_ADD, h, I(&f, -1))), lx_float(&f.lb, -1));
    Stmt *body = ST(&f, B(&f, BO_ADD, B(&f, BO_MUL, V(&f, i), I(&f, 3)), V(&f, k)), val);
    /* always true: an if and a ternary of it */
    Expr *tru = B(&f, BO_AND, B(&f, BO_LT, V(&f, k), I(&f, 3)), B(&f, BO_GT, V(&f, i), I(&f, -5)));
    Stmt *items[] = {body, ls_if(&f.lb, tru, ST(&f, B(&f, BO_ADD, V(&f, i), I(&f, 100)),
                                               lx_select(&f.lb, B(&f, BO_LE, V(&f, i), I(&f, 7)),
                                                         LD(&f, f.in2, V(&f, k)), lx_float(&f.lb, 0))))};
    Stmt *s = FOR(&f, i, 8, LOOP_SERIAL, FOR(&f, k, 3, LOOP_SERIAL, ls_seq(&f.lb, 2, items)));
    Stmt *t = simplify_same(&f, s);
    Stmt *in = t->body->body;
    assert_int_equal(in->kind, ST_SEQ);
    assert_int_equal(in->n, 2);
    char want[256];
    snprintf(want, sizeof want,
             "select(((((i_%d * 2) + k_%d) < 16) && ((((i_%d * 2) + k_%d) + -1) >= 0)), in[(((i_%d * 2) + k_%d) + -1)], -1f)",
             i->id, k->id, i->id, k->id, i->id, k->id);
    assert_string_equal(dump_expr(in->items[0]->value), want);
    assert_int_equal(in->items[1]->kind, ST_STORE); /* the if is gone */
    snprintf(want, sizeof want, "in2[k_%d]", k->id);
    assert_string_equal(dump_expr(in->items[1]->value), want); /* and the ternary */
    arena_free(f.lb.arena);
}

/* min/max decided by the ranges; c && 1 -> c; bounds of an if's condition
 * narrow its body */
static void test_min_max_and_refinement(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *i = lv_new(&f.lb, "i");
    Expr *mn = B(&f, BO_MIN, V(&f, i), I(&f, 10));                        /* i */
    Expr *mx = B(&f, BO_MAX, B(&f, BO_ADD, V(&f, i), I(&f, -3)), I(&f, 0)); /* kept */
    Stmt *t = simplify_same(&f, FOR(&f, i, 8, LOOP_SERIAL, ST(&f, V(&f, i), LD(&f, f.in, B(&f, BO_ADD, mn, mx)))));
    char want[128];
    snprintf(want, sizeof want, "in[(i_%d + max((i_%d + -3), 0))]", i->id, i->id);
    assert_string_equal(dump_expr(t->body->value), want);

    /* if (i < 4) { out[i % 4 + 10] = in[(i + 4) / 8] }: inside, i % 4 = i and (i + 4)/8 = 0 */
    Stmt *s = FOR(&f, i, 8, LOOP_SERIAL,
                  ls_if(&f.lb, B(&f, BO_LT, V(&f, i), I(&f, 4)),
                        ST(&f, B(&f, BO_ADD, B(&f, BO_MOD, V(&f, i), I(&f, 4)), I(&f, 10)),
                           LD(&f, f.in, B(&f, BO_DIV, B(&f, BO_ADD, V(&f, i), I(&f, 4)), I(&f, 8))))));
    t = simplify_same(&f, s);
    assert_int_equal(t->body->kind, ST_IF);
    snprintf(want, sizeof want, "(i_%d + 10)", i->id);
    assert_string_equal(dump_expr(t->body->body->index), want);
    assert_string_equal(dump_expr(t->body->body->value), "in[0]");
    /* the else branch is not narrowed */
    s = FOR(&f, i, 8, LOOP_SERIAL,
            ls_if_else(&f.lb, B(&f, BO_LT, V(&f, i), I(&f, 4)), ST(&f, V(&f, i), lx_float(&f.lb, 1)),
                       ST(&f, B(&f, BO_ADD, B(&f, BO_MOD, V(&f, i), I(&f, 4)), I(&f, 10)), lx_float(&f.lb, 2))));
    t = simplify_same(&f, s);
    snprintf(want, sizeof want, "((i_%d %% 4) + 10)", i->id);
    assert_string_equal(dump_expr(t->body->else_body->index), want);
    arena_free(f.lb.arena);
}

/* Float and typed integer arithmetic is never refolded: x + f32(i/8) with
 * i < 8 keeps the addition (-0.0 + 0.0 is +0.0, not x) */
static void test_float_arithmetic_untouched(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *i = lv_new(&f.lb, "i");
    Expr *val = B(&f, BO_ADD, LD(&f, f.in2, V(&f, i)), lx_cast(&f.lb, LT_F32, B(&f, BO_DIV, V(&f, i), I(&f, 8))));
    Stmt *t = simplify_same(&f, FOR(&f, i, 8, LOOP_SERIAL, ST(&f, V(&f, i), val)));
    char want[64];
    snprintf(want, sizeof want, "(in2[i_%d] + f32(0))", i->id);
    assert_string_equal(dump_expr(t->body->value), want);
    arena_free(f.lb.arena);
}

/* Shared sub-trees are not modified; an unchanged nest is returned as is;
 * a call's run-time argument is simplified, the call kept */
static void test_sharing_and_calls(void **state)
{
    (void)state;
    Fix f = fix_new();
    LVar *i = lv_new(&f.lb, "i"), *a = lv_new(&f.lb, "a"), *b = lv_new(&f.lb, "b");
    Stmt *shared = ST(&f, B(&f, BO_ADD, V(&f, i), B(&f, BO_MUL, V(&f, a), I(&f, 8))), LD(&f, f.in, V(&f, i)));
    Stmt *inner = FOR(&f, i, 8, LOOP_SERIAL, shared);
    Stmt *items[] = {FOR(&f, a, 1, LOOP_SERIAL, inner), FOR(&f, a, 4, LOOP_SERIAL, inner)};
    Stmt *s = ls_seq(&f.lb, 2, items);
    char before[8192];
    snprintf(before, sizeof before, "%s", dump(s));
    Stmt *t = simplify_same(&f, s);
    assert_string_equal(dump(s), before);
    assert_ptr_equal(t->items[1], items[1]); /* nothing to simplify: the same node */
    assert_int_equal(t->items[0]->kind, ST_FOR);
    assert_ptr_equal(t->items[0]->var, i);

    int64_t iargs[2] = {0, 7};
    Stmt *call = ls_call_iarg(&f.lb, ls_call(&f.lb, "ctvm_k_test", 1, &f.out, (int[]){1}, 2, iargs, 0, NULL), 0,
                              B(&f, BO_MUL, V(&f, b), I(&f, 5)));
    Stmt *c = loop_simplify(&f.lb, FOR(&f, b, 1, LOOP_PARALLEL, call));
    assert_int_equal(c->kind, ST_CALL);
    assert_string_equal(c->fn, "ctvm_k_test");
    assert_int_equal(c->n_iargs, 2);
    assert_int_equal(c->iargs[1], 7);
    assert_int_equal(c->iexpr->kind, EX_INT);
    assert_int_equal(c->iexpr->i, 0);
    assert_ptr_equal(call->iexpr->a->var, b); /* the original call is unchanged */
    arena_free(f.lb.arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extent1_loops_of_every_kind_vanish),
        cmocka_unit_test(test_empty_loops_and_false_ifs_vanish),
        cmocka_unit_test(test_split_loop_div_mod_fold),
        cmocka_unit_test(test_small_div_mod_and_nested_div),
        cmocka_unit_test(test_folds_that_must_not_fire),
        cmocka_unit_test(test_guards),
        cmocka_unit_test(test_min_max_and_refinement),
        cmocka_unit_test(test_float_arithmetic_untouched),
        cmocka_unit_test(test_sharing_and_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
