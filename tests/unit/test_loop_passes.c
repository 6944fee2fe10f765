/* test_loop_passes.c - the loop passes of lower/ (loop_passes.h) on
 * hand-made nests: each nest is run by the loop interpreter as written
 * (the reference) and, after every loop pass, printed for x86_64-avx512,
 * compiled and run; the outputs must be equal bit for bit, and the text
 * must show what the pass made (tail-split vector loops, typed vector
 * code, no local nothing reads), and names come from the model's names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emit_c/emit.h"
#include "emit_c/emit_loop.h"
#include "ir/loop_interp.h"
#include "ir/loop_vec.h"
#include "ir/target.h"
#include "lower/loop_passes.h"
#include "tests/unit/cc_run.h"

#define N 37 /* one vector of 16, a second, and a tail of 5 */

static float fin[N], fout[N];
static int32_t ia[N], ib[N], iout[N];

static void *mem(void *user, const LBuf *b)
{
    (void)user;
    if (!strcmp(b->name, "fin"))
        return fin;
    if (!strcmp(b->name, "fout"))
        return fout;
    if (!strcmp(b->name, "ia"))
        return ia;
    if (!strcmp(b->name, "ib"))
        return ib;
    return iout;
}

static void fill(void)
{
    for (int i = 0; i < N; i++) {
        fin[i] = (float)(i * 37 % 11) * 0.3125f - 1.5f;
        ia[i] = (int32_t)(2147483000u + (uint32_t)i * 100u); /* wraps in the sum */
        ib[i] = i * 1000 - 7;
    }
}

/* A one-kernel module of body lowered by every loop pass for target tname. */
static Module *lower_one_for(LoopBuilder *lb, Stmt *body, int threads, const char *tname)
{
    Module *m = arena_alloc(lb->arena, sizeof *m);
    m->target = target_find(tname);
    m->threads = threads;
    m->lb = *lb;
    m->n_kernels = 1;
    m->kernels = arena_alloc(lb->arena, sizeof(Kernel));
    m->kernels[0].name = "k";
    m->kernels[0].body = body;
    assert_int_equal(kernel_collect_params(body, &m->kernels[0].params), 0);
    CodegenOptions o = {.target = m->target, .threads = threads};
    Diag d = {.tool = "test", .quiet = 1};
    assert_int_equal(loop_passes_run(m, &o, &d), 0);
    *lb = m->lb;
    return m;
}

static Module *lower_one(LoopBuilder *lb, Stmt *body, int threads)
{
    return lower_one_for(lb, body, threads, "x86_64-avx512");
}

static char *kernel_c(const Module *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    emit_kernel_text(f, "k", "test", m->kernels[0].body, &m->kernels[0].params, m->kernels[0].team);
    fclose(f);
    return buf;
}

/* The kernel compiled with the runtime and the module's target's vector
   API, called on the arrays above (filled as fill() does), printing every
   output element as hex; returns stdout. */
static char *run_c(const Module *m, const char *kernel, const char *out, int n_out, int is_int)
{
    const Kernel *k = &m->kernels[0];
    char call[512] = "k(";
    for (int i = 0; i < k->params.n; i++)
        snprintf(call + strlen(call), sizeof call - strlen(call), "%s%s", i ? ", " : "", k->params.buf[i]->cname);
    strcat(call, ");");
    const char *rt = ctvm_embedded_find("runtime_min/ctvm_runtime.h"), *types = ctvm_embedded_find("runtime_min/ctvm_types.h");
    const char *vec = ctvm_embedded_find(m->target->header);
    const char *math = ctvm_embedded_find("templates/ctvm_vec_math.h");
    size_t n = strlen(rt) + strlen(types) + strlen(vec) + strlen(math) + strlen(kernel) + 4096;
    char *text = malloc(n);
    snprintf(text, n,
             "#include <stdio.h>\n#include <stdint.h>\n%s\n%s\n%s\n%s\n%s\n"
             "static float fin[%d], fout[%d];\nstatic int32_t ia[%d], ib[%d], iout[%d];\n"
             "#ifdef CTVM_ISA_END\nCTVM_ISA_END\n#endif\n"
             "int main(void)\n{\n    int i;\n"
             "    for (i = 0; i < %d; i++) {\n"
             "        fin[i] = (float)(i * 37 %% 11) * 0.3125f - 1.5f;\n"
             "        ia[i] = (int32_t)(2147483000u + (uint32_t)i * 100u);\n        ib[i] = i * 1000 - 7;\n    }\n"
             "    %s\n    for (i = 0; i < %d; i++)\n        printf(\"%s \", %s%s[i]);\n"
             "    (void)fout;\n    (void)iout;\n    return 0;\n}\n",
             rt, types, vec, math, kernel, N, N, N, N, N, N, call, n_out, is_int ? "%d" : "%a", is_int ? "(int)" : "(double)",
             out);
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    if (cc_compile(&c, text, 0) != 0) {
        fprintf(stderr, "%s\n", kernel);
        cc_show_log(&c);
        cc_dir_close(&c);
        fail_msg("lowered kernel does not compile");
    }
    char *res = cc_run(&c);
    cc_dir_close(&c);
    free(text);
    assert_non_null(res);
    return res;
}

static void expect_same(const char *printed, const void *ref, int n, int is_int)
{
    char *want = calloc((size_t)n, 32), *p = want;
    for (int i = 0; i < n; i++)
        p += is_int ? sprintf(p, "%d ", ((const int32_t *)ref)[i]) : sprintf(p, "%a ", (double)((const float *)ref)[i]);
    assert_string_equal(printed, want);
    free(want);
}

/* k (freed here) compiled and run: its output `name` must equal ref */
static void expect_run(const Module *m, char *k, const char *name, const void *ref, int is_int)
{
    char *got = run_c(m, k, name, N, is_int);
    expect_same(got, ref, N, is_int);
    free(got);
    free(k);
}

/* a padding: for r in 0..2 { for v in 0..37 vectorize {
     fout[v] = select(r >= 1 && v - 3 >= 0 && v - 3 < 30, fin[v - 3], 0.5) } }
   (fin[v - 3] is out of bounds outside the guard). Partitioned: no element
   tests a bound, the copy is vector code, the r test is hoisted out of the
   v loops; the result is the padding written out in C here. */
static void test_partition_pad(void **state)
{
    (void)state;
    LoopBuilder lb = {.arena = arena_new()};
    LBuf *in = lbuf_new(&lb, "fin", LB_INPUT, N), *out = lbuf_new(&lb, "fout", LB_OUTPUT, N);
    LVar *r = lv_new(&lb, "r"), *v = lv_new(&lb, "v");
    Expr *j = lx_add(&lb, lx_var(&lb, v), lx_int(&lb, -3));
    Expr *cond = lx_bin(&lb, BO_AND, lx_bin(&lb, BO_GE, lx_var(&lb, r), lx_int(&lb, 1)),
                        lx_bin(&lb, BO_AND, lx_bin(&lb, BO_GE, j, lx_int(&lb, 0)), lx_bin(&lb, BO_LT, j, lx_int(&lb, 30))));
    Expr *x = lx_select(&lb, cond, lx_load(&lb, in, j), lx_float(&lb, 0.5));
    Stmt *body = ls_for(&lb, r, 2, LOOP_SERIAL, ls_for(&lb, v, N, LOOP_VECTORIZE, ls_store(&lb, out, lx_var(&lb, v), x)));
    fill();
    float want[N];
    for (int i = 0; i < N; i++)
        want[i] = i >= 3 && i < 33 ? fin[i - 3] : 0.5f;
    Module *m = lower_one(&lb, body, 1);
    char *k = kernel_c(m);
    assert_null(strstr(k, " ? "));                                /* no select is left */
    assert_non_null(strstr(k, "if ((r >= 1))"));                  /* the r test, once per r */
    assert_non_null(strstr(k, "ctvm_vstore(&fout[3], ctvm_vload(&fin[0]));"));     /* the copy */
    char *got = run_c(m, k, "fout", N, 0);
    expect_same(got, want, N, 0);
    free(got);
    free(k);
    arena_free(lb.arena);
}

/* fout[v] = max(fin[v], 0.25) * 2 over 37 lanes: two whole vectors and a tail */
static void test_tail_split_float(void **state)
{
    (void)state;
    LoopBuilder lb = {.arena = arena_new()};
    LBuf *in = lbuf_new(&lb, "fin", LB_INPUT, N), *out = lbuf_new(&lb, "fout", LB_OUTPUT, N);
    LVar *v = lv_new(&lb, "v");
    Expr *x = lx_mul(&lb, lx_bin(&lb, BO_MAX, lx_load(&lb, in, lx_var(&lb, v)), lx_float(&lb, 0.25)), lx_float(&lb, 2.0));
    Stmt *body = ls_for(&lb, v, N, LOOP_VECTORIZE, ls_store(&lb, out, lx_var(&lb, v), x));
    fill();
    char err[256];
    assert_int_equal(loop_interp_run(body, mem, NULL, err, sizeof err), 0);
    Module *m = lower_one(&lb, body, 1);
    char *k = kernel_c(m);
    assert_non_null(strstr(k, "ctvm_vmax(ctvm_vload(&fin[")); /* the whole vectors */
    assert_non_null(strstr(k, " < 2; ++vo) {"));             /* two of them */
    assert_non_null(strstr(k, " < 5; ++vt) {"));             /* and the tail */
    expect_run(m, k, "fout", fout, 0);
    arena_free(lb.arena);
}

/* A row tail of 5 (LR_LANES) that stores e = exp(fin[v]) and reads it back
   in the next statement, fout[v + 8] = fout[v] * 2: a masked store does not
   forward to a load, so the reader takes the stored value, computed once
   into a register variable that both share (one ctvm_vexp, not two) */
static void test_partial_store_bound(void **state)
{
    (void)state;
    LoopBuilder lb = {.arena = arena_new()};
    LBuf *in = lbuf_new(&lb, "fin", LB_INPUT, N), *out = lbuf_new(&lb, "fout", LB_OUTPUT, N);
    LVar *v = lv_new(&lb, "v");
    Expr *e = lx_call(&lb, CO_EXP, lx_load(&lb, in, lx_var(&lb, v)));
    Stmt *two[2] = {ls_store(&lb, out, lx_var(&lb, v), e),
                    ls_store(&lb, out, lx_add(&lb, lx_var(&lb, v), lx_int(&lb, 8)),
                             lx_mul(&lb, lx_load(&lb, out, lx_var(&lb, v)), lx_float(&lb, 2.0)))};
    Stmt *body = ls_role(ls_for(&lb, v, 5, LOOP_VECTORIZE, ls_seq(&lb, 2, two)), LR_LANES, 0);
    fill();
    memset(fout, 0, sizeof fout);
    char err[256];
    assert_int_equal(loop_interp_run_for(body, target_find("x86_64-avx512"), mem, NULL, err, sizeof err), 0);
    Module *m = lower_one(&lb, body, 1);
    char *k = kernel_c(m);
    const char *first = strstr(k, "ctvm_vexp(");
    assert_non_null(first);
    assert_null(strstr(first + 1, "ctvm_vexp(")); /* computed once */
    assert_non_null(strstr(k, "ctvm_vstore_n(&fout["));
    expect_run(m, k, "fout", fout, 0);
    arena_free(lb.arena);
}

/* iout[v] = ia[v] + ib[v] (wrapping int32) over 37 lanes */
static void test_int32_vectors(void **state)
{
    (void)state;
    LoopBuilder lb = {.arena = arena_new()};
    LBuf *a = lbuf_new_typed(&lb, "ia", LB_INPUT, DT_INT32, N), *b = lbuf_new_typed(&lb, "ib", LB_INPUT, DT_INT32, N);
    LBuf *out = lbuf_new_typed(&lb, "iout", LB_OUTPUT, DT_INT32, N);
    LVar *v = lv_new(&lb, "v");
    Expr *x = lx_add(&lb, lx_load(&lb, a, lx_var(&lb, v)), lx_load(&lb, b, lx_var(&lb, v)));
    Stmt *body = ls_for(&lb, v, N, LOOP_VECTORIZE, ls_store(&lb, out, lx_var(&lb, v), x));
    fill();
    char err[256];
    assert_int_equal(loop_interp_run(body, mem, NULL, err, sizeof err), 0);
    Module *m = lower_one(&lb, body, 1);
    char *k = kernel_c(m);
    assert_non_null(strstr(k, "ctvm_vstore_i32((int32_t *)&iout["));
    assert_non_null(strstr(k, "ctvm_vadd_i32(ctvm_vload_i32((int32_t *)&ia["));
    expect_run(m, k, "iout", iout, 1);
    arena_free(lb.arena);
}

/* iout[v] = ib[v] + (int32)(uint8)ia[v] * (int32)(int8)ib[v]: factors known
   to fit 16 bits -> one EX_MLA16 (ctvm_vmla16_i32); and
   iout[v] = (int32)min(max(round(fin[v] * 4) + 7, 0), 10) (QuantizeLinear's
   form, .5 ties and both bounds hit) -> clamp, then ctvm_vcvt_f32_i32_rne_in
   and + 7 in int32; both bit for bit the interpreter's */
static void test_int16_products_and_requant(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        LoopBuilder lb = {.arena = arena_new()};
        LBuf *a = lbuf_new_typed(&lb, "ia", LB_INPUT, DT_INT32, N), *b = lbuf_new_typed(&lb, "ib", LB_INPUT, DT_INT32, N);
        LBuf *in = lbuf_new(&lb, "fin", LB_INPUT, N), *out = lbuf_new_typed(&lb, "iout", LB_OUTPUT, DT_INT32, N);
        LVar *v = lv_new(&lb, "v");
        Expr *av = lx_load(&lb, a, lx_var(&lb, v)), *bv = lx_load(&lb, b, lx_var(&lb, v)), *x;
        if (t == 0) {
            x = lx_add(&lb, bv, lx_mul(&lb, lx_cast(&lb, LT_I32, lx_cast(&lb, LT_U8, av)),
                                       lx_cast(&lb, LT_I32, lx_cast(&lb, LT_I8, bv))));
        } else {
            Expr *r = lx_add(&lb, lx_call(&lb, CO_ROUND, lx_mul(&lb, lx_load(&lb, in, lx_var(&lb, v)), lx_float(&lb, 4.0))),
                             lx_float(&lb, 7.0));
            x = lx_cast(&lb, LT_I32, lx_bin(&lb, BO_MIN, lx_bin(&lb, BO_MAX, r, lx_float(&lb, 0.0)), lx_float(&lb, 10.0)));
        }
        Stmt *body = ls_for(&lb, v, N, LOOP_VECTORIZE, ls_store(&lb, out, lx_var(&lb, v), x));
        fill();
        char err[256];
        assert_int_equal(loop_interp_run(body, mem, NULL, err, sizeof err), 0);
        Module *m = lower_one(&lb, body, 1);
        char *k = kernel_c(m);
        if (t == 0)
            assert_non_null(strstr(k, "ctvm_vmla16_i32(ctvm_vload_i32((int32_t *)&ib["));
        else {
            assert_non_null(strstr(k, "ctvm_vcvt_f32_i32_rne_in(ctvm_vmin(ctvm_vmax("));
            assert_null(strstr(k, "ctvm_vround("));
        }
        char *got = run_c(m, k, "iout", N, 1);
        expect_same(got, iout, N, 1);
        free(got);
        free(k);
        arena_free(lb.arena);
    }
}

/* a local only written (never read) disappears with its stores; one read
   through constant indices becomes registers named after its hint */
static void test_dead_and_register_locals(void **state)
{
    (void)state;
    LoopBuilder lb = {.arena = arena_new()};
    LBuf *in = lbuf_new(&lb, "fin", LB_INPUT, N), *out = lbuf_new(&lb, "fout", LB_OUTPUT, N);
    LBuf *dead = lbuf_new(&lb, "scratch", LB_LOCAL, 4), *acc = lbuf_new(&lb, "acc", LB_LOCAL, 2);
    LVar *i = lv_new(&lb, "i");
    Stmt *items[] = {
        ls_store(&lb, dead, lx_int(&lb, 0), lx_load(&lb, in, lx_int(&lb, 0))),
        ls_store(&lb, acc, lx_int(&lb, 0), lx_float(&lb, 0.0)),
        ls_store(&lb, acc, lx_int(&lb, 1), lx_float(&lb, 1.0)),
        ls_for(&lb, i, N, LOOP_SERIAL,
               ls_seq2(&lb, ls_store(&lb, acc, lx_int(&lb, 0), lx_add(&lb, lx_load(&lb, acc, lx_int(&lb, 0)),
                                                                    lx_load(&lb, in, lx_var(&lb, i)))),
                       ls_store(&lb, acc, lx_int(&lb, 1), lx_mul(&lb, lx_load(&lb, acc, lx_int(&lb, 1)),
                                                                 lx_float(&lb, 1.0625))))),
        ls_store(&lb, out, lx_int(&lb, 0), lx_load(&lb, acc, lx_int(&lb, 0))),
        ls_store(&lb, out, lx_int(&lb, 1), lx_load(&lb, acc, lx_int(&lb, 1))),
    };
    Stmt *body = ls_alloc(&lb, dead, ls_alloc(&lb, acc, ls_seq(&lb, 6, items)));
    fill();
    char err[256];
    assert_int_equal(loop_interp_run(body, mem, NULL, err, sizeof err), 0);
    Module *m = lower_one(&lb, body, 1);
    char *k = kernel_c(m);
    assert_null(strstr(k, "scratch")); /* gone, with its store */
    assert_null(strstr(k, "(void)"));
    assert_non_null(strstr(k, "float acc0, acc1;"));
    char *got = run_c(m, k, "fout", 2, 0);
    expect_same(got, fout, 2, 0);
    free(got);
    free(k);
    arena_free(lb.arena);
}

/* a register tile of 4 int32 vectors (AVX2: 8 lanes, 16 registers):
     for r in 0..R { for s in 0..4 unroll { for l in 0..8 vectorize {
       acc[8s + l] += ia[r % 5 + s + l] } } }
   then iout[8s + l] = clamp(((acc * 3 + 5) ^ 7) - 11, -10^6, 10^6): six
   constants. With R = 160 steps the epilogue's constants, hoisted, would
   crowd the accumulators: lp_tile_consts broadcasts each once after the
   reduction (ctvm_vset1_i32_late), into registers; with R = 8 the
   epilogue is most of the work and they stay plain. Bits as the
   interpreter's either way. */
static void test_tile_consts(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        LoopBuilder lb = {.arena = arena_new()};
        LBuf *a = lbuf_new_typed(&lb, "ia", LB_INPUT, DT_INT32, N);
        LBuf *out = lbuf_new_typed(&lb, "iout", LB_OUTPUT, DT_INT32, N);
        LBuf *acc = lbuf_new_typed(&lb, "acc", LB_LOCAL, DT_INT32, 32);
        LVar *sv[3], *lv[3], *r = lv_new(&lb, "r");
        Stmt *part[3];
        for (int p = 0; p < 3; p++) {
            sv[p] = lv_new(&lb, "s");
            lv[p] = lv_new(&lb, "l");
            Expr *idx = lx_add(&lb, lx_muli(&lb, lx_var(&lb, sv[p]), 8), lx_var(&lb, lv[p])), *v;
            LBuf *dst = acc;
            if (p == 0) {
                v = lx_zero(&lb, LT_I32);
            } else if (p == 1) {
                Expr *ai = lx_add(&lb, lx_add(&lb, lx_bin(&lb, BO_MOD, lx_var(&lb, r), lx_int(&lb, 5)), lx_var(&lb, sv[p])),
                                  lx_var(&lb, lv[p]));
                v = lx_add(&lb, lx_load(&lb, acc, idx), lx_load(&lb, a, ai));
            } else {
                Expr *x = lx_add(&lb, lx_mul(&lb, lx_load(&lb, acc, idx), lx_const_i(&lb, LT_I32, 3)), lx_const_i(&lb, LT_I32, 5));
                x = lx_sub(&lb, lx_bin(&lb, BO_XOR, x, lx_const_i(&lb, LT_I32, 7)), lx_const_i(&lb, LT_I32, 11));
                v = lx_bin(&lb, BO_MIN, lx_bin(&lb, BO_MAX, x, lx_const_i(&lb, LT_I32, -1000000)),
                           lx_const_i(&lb, LT_I32, 1000000));
                dst = out;
            }
            part[p] = ls_for(&lb, sv[p], 4, LOOP_UNROLL,
                             ls_for(&lb, lv[p], 8, LOOP_VECTORIZE, ls_store(&lb, dst, idx, v)));
        }
        part[1] = ls_for(&lb, r, t == 0 ? 160 : 8, LOOP_SERIAL, part[1]);
        Stmt *body = ls_alloc(&lb, acc, ls_seq(&lb, 3, part));
        fill();
        memset(iout, 0, sizeof iout);
        char err[256];
        assert_int_equal(loop_interp_run(body, mem, NULL, err, sizeof err), 0);
        Module *m = lower_one_for(&lb, body, 1, "x86_64-avx2");
        char *k = kernel_c(m);
        assert_non_null(strstr(k, "ctvm_vi acc0, acc1, acc2, acc3;"));
        int late = 0;
        for (const char *q = k; (q = strstr(q, "ctvm_vset1_i32_late(")) != NULL; q++)
            late++;
        assert_int_equal(late, t == 0 ? 6 : 0); /* each constant once, or none */
        char *got = run_c(m, k, "iout", 32, 1);
        expect_same(got, iout, 32, 1);
        free(got);
        free(k);
        arena_free(lb.arena);
    }
}

/* a dot-product tile's innermost loop over kw (step 4 bytes) with two
   columns' input groups at byte offsets 0 and d: with d = 8 and 7 steps
   the column at offset 8 is what the first reads two steps later (a
   stride-2 conv), so lp_fresh_bcast marks both broadcasts read in place
   (ctvm_vbcast4_q_late); with d = 16 and 4 steps no step repeats
   another's bytes and they stay plain. */
static void test_fresh_bcast(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        LoopBuilder lb = {.arena = arena_new()};
        LBuf *x = lbuf_new_typed(&lb, "qx", LB_INPUT, DT_UINT8, 256), *w = lbuf_new_typed(&lb, "qw", LB_INPUT, DT_INT8, 4096);
        LVar *kw = lv_new(&lb, "kw"), *acc[2];
        Stmt *as[2];
        for (int c = 0; c < 2; c++) {
            acc[c] = lv_new_reg(&lb, "acc", LT_I32, 16);
            Expr *xi = lx_add(&lb, lx_muli(&lb, lx_var(&lb, kw), 4), lx_int(&lb, c * (t == 0 ? 8 : 16)));
            Expr *g = lx_bcast_group(&lb, lx_vload(&lb, x, xi, 4, LT_U8), 64);
            Expr *wv = lx_vload(&lb, w, lx_muli(&lb, lx_var(&lb, kw), 64), 64, LT_I8);
            as[c] = ls_assign(&lb, acc[c], lx_dot(&lb, lx_reg(&lb, acc[c]), g, wv));
        }
        Stmt *loop = ls_for(&lb, kw, t == 0 ? 7 : 4, LOOP_SERIAL, ls_seq(&lb, 2, as));
        Module m = {.target = target_find("x86_64-avx512"), .lb = lb, .n_kernels = 1};
        Kernel k = {.name = "k", .body = ls_decl(&m.lb, 2, acc, loop)};
        assert_int_equal(lp_fresh_bcast(&m, &k, NULL), 0);
        assert_int_equal(kernel_collect_params(k.body, &k.params), 0);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        emit_kernel_text(f, "k", "test", k.body, &k.params, 0);
        fclose(f);
        int late = 0, plain = 0;
        for (const char *q = buf; (q = strstr(q, "ctvm_vbcast4_q")) != NULL; q++)
            late += strncmp(q, "ctvm_vbcast4_q_late(", 20) == 0, plain += strncmp(q, "ctvm_vbcast4_q(", 15) == 0;
        assert_int_equal(late, t == 0 ? 2 : 0);
        assert_int_equal(plain, t == 0 ? 0 : 2);
        free(buf);
        arena_free(m.lb.arena);
    }
}

/* C names from any bytes: keywords, the entry point's parameter shapes,
   digits first, repeats and the file's own prefixes never come out as they
   are; a loop variable never takes a buffer's name */
static void test_names(void **state)
{
    (void)state;
    LoopBuilder lb = {.arena = arena_new()};
    const char *raw[] = {"x", "x", "for", "oc_3", "1 bad/name", "ctvm_blob", "", "in0", "i"};
    const char *want[] = {"x", "x_v2", "for_", "oc_3", "v1_bad_name", "ctvm_blob_", "v", "in0_", "i"};
    int n = (int)(sizeof raw / sizeof raw[0]);
    LVar *i = lv_new(&lb, "i");
    LBuf *out = lbuf_new(&lb, "out", LB_OUTPUT, n);
    Expr *sum = lx_float(&lb, 0.0);
    LBuf *bufs[9];
    for (int k = 0; k < n; k++) {
        bufs[k] = lbuf_new(&lb, raw[k], LB_INPUT, 1);
        sum = lx_add(&lb, sum, lx_load(&lb, bufs[k], lx_int(&lb, 0)));
    }
    Stmt *body = ls_for(&lb, i, n, LOOP_SERIAL, ls_store(&lb, out, lx_var(&lb, i), sum));
    lower_one(&lb, body, 1);
    for (int k = 0; k < n; k++)
        assert_string_equal(bufs[k]->cname, want[k]);
    assert_string_equal(i->name, "i_v2"); /* the loop variable, after the buffer named i */
    arena_free(lb.arena);
}

/* two threads: the parallel loop is cut into a fixed number of chunks the
   threads take (8: four per thread of --threads 2, whatever the team at run
   time), the serial store is a phase of one chunk, and since both write
   fout, a wait separates them */
static void test_thread_partition(void **state)
{
    (void)state;
    LoopBuilder lb = {.arena = arena_new()};
    LBuf *in = lbuf_new(&lb, "fin", LB_INPUT, N), *out = lbuf_new(&lb, "fout", LB_OUTPUT, N);
    LVar *p = lv_new(&lb, "p");
    Stmt *par = ls_for(&lb, p, 36, LOOP_PARALLEL, ls_store(&lb, out, lx_var(&lb, p), lx_load(&lb, in, lx_var(&lb, p))));
    Stmt *one = ls_store(&lb, out, lx_int(&lb, 36), lx_float(&lb, 3.0));
    Module *m = lower_one(&lb, ls_seq2(&lb, par, one), 2);
    assert_true(m->kernels[0].team);
    char *k = kernel_c(m);
    assert_non_null(strstr(k, "while ((ctvm_k = ctvm_take(ctvm_c, 8)) >= 0) {"));
    assert_non_null(strstr(k, "int ctvm_lo = (int)(36LL * ctvm_k / 8), ctvm_hi = (int)(36LL * (ctvm_k + 1) / 8);"));
    assert_non_null(strstr(k, "while (ctvm_take(ctvm_c, 1) >= 0) {"));
    const char *a = strstr(k, "ctvm_wait(ctvm_c);");
    assert_non_null(a);
    assert_non_null(strstr(a + 1, "ctvm_wait(ctvm_c);")); /* after each phase */
    assert_null(strstr(k, "ctvm_c->tid"));               /* no phase is bound to a thread */
    free(k);
    arena_free(lb.arena);
}

static int count_of(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* a phase out[p] = src[p] + 1 over 64 elements */
static Stmt *copy_phase(LoopBuilder *lb, LBuf *out, LBuf *src)
{
    LVar *p = lv_new(lb, "p");
    return ls_for(lb, p, 64, LOOP_PARALLEL,
                  ls_store(lb, out, lx_var(lb, p), lx_add(lb, lx_load(lb, src, lx_var(lb, p)), lx_float(lb, 1.0))));
}

/* waits in the 2-thread kernel make() builds over the buffers in, out and
   arena buffers a (at byte 0), b (at 128: overlaps a), c (512), d (1024) */
static int waits_in(Stmt *(*make)(LoopBuilder *lb, LBuf *const *b), int *n_phases)
{
    static const int64_t off[4] = {0, 128, 512, 1024};
    LoopBuilder lb = {.arena = arena_new()};
    LBuf *b[6];
    b[0] = lbuf_new(&lb, "in", LB_INPUT, 64);
    b[1] = lbuf_new(&lb, "out", LB_OUTPUT, 64);
    for (int i = 0; i < 4; i++) {
        b[2 + i] = lbuf_new(&lb, "a", LB_ARENA, 64);
        b[2 + i]->offset = off[i];
    }
    Module *m = lower_one(&lb, make(&lb, b), 2);
    char *k = kernel_c(m);
    int w = count_of(k, "ctvm_wait(ctvm_c);");
    *n_phases = count_of(k, "ctvm_take(ctvm_c");
    free(k);
    arena_free(lb.arena);
    return w;
}

/* c = in + 1; d = in + 1: both read in, write apart */
static Stmt *independent(LoopBuilder *lb, LBuf *const *b)
{
    return ls_seq2(lb, copy_phase(lb, b[4], b[0]), copy_phase(lb, b[5], b[0]));
}
/* c = in + 1; out = c + 1: reads what the first writes */
static Stmt *read_after_write(LoopBuilder *lb, LBuf *const *b)
{
    return ls_seq2(lb, copy_phase(lb, b[4], b[0]), copy_phase(lb, b[1], b[4]));
}
/* out = c + 1; c = in + 1: overwrites what the first reads */
static Stmt *write_after_read(LoopBuilder *lb, LBuf *const *b)
{
    return ls_seq2(lb, copy_phase(lb, b[1], b[4]), copy_phase(lb, b[4], b[0]));
}
/* a = in + 1; b = in + 1: other buffers, but the same bytes of the arena */
static Stmt *arena_overlap(LoopBuilder *lb, LBuf *const *b)
{
    return ls_seq2(lb, copy_phase(lb, b[2], b[0]), copy_phase(lb, b[3], b[0]));
}
/* c = in + 1; d = in + 1; out = c + 1: the third reads what the first
   (not the second) writes, so it waits: the first is still open */
static Stmt *two_then_one(LoopBuilder *lb, LBuf *const *b)
{
    Stmt *items[3] = {copy_phase(lb, b[4], b[0]), copy_phase(lb, b[5], b[0]), copy_phase(lb, b[1], b[4])};
    return ls_seq(lb, 3, items);
}

/* lp_barriers drops a wait only between phases whose buffers do not
   overlap; the kernel's last wait always stays */
static void test_barrier_elision(void **state)
{
    (void)state;
    int phases;
    assert_int_equal(waits_in(independent, &phases), 1);
    assert_int_equal(phases, 2);
    assert_int_equal(waits_in(read_after_write, &phases), 2);
    assert_int_equal(waits_in(write_after_read, &phases), 2);
    assert_int_equal(waits_in(arena_overlap, &phases), 2);
    assert_int_equal(waits_in(two_then_one, &phases), 2);
    assert_int_equal(phases, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tail_split_float), cmocka_unit_test(test_partition_pad),
        cmocka_unit_test(test_partial_store_bound),
        cmocka_unit_test(test_int32_vectors),
        cmocka_unit_test(test_int16_products_and_requant),
        cmocka_unit_test(test_dead_and_register_locals),
        cmocka_unit_test(test_tile_consts),
        cmocka_unit_test(test_fresh_bcast),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_thread_partition),
        cmocka_unit_test(test_barrier_elision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
