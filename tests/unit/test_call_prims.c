/* test_call_prims.c - the table of call primitives (ir/call_prims.h), and
 * that constant folding computes the transcendental functions of
 * templates/ctvm_vec_math.h exactly as generated code does.
 *
 * For every target this host can build and run (generic, x86_64-sse4,
 * x86_64-avx2, x86_64-avx512 as the CPU allows; aarch64 and riscv64 under
 * qemu-user when their cross gcc and qemu are installed), a program made of
 * the runtime, the target's vector header and the math (laid out as emit_c
 * lays them out, with -std=c99 -O2 and the target's flags) runs a scalar
 * kernel `out[i] = f(in[i])` printed by emit_c and the vector function
 * ctvm_v<f> on about 70000 float32 inputs (signed zeros, denormals, +-inf,
 * NaN, the overflow and underflow edges, values past them, random values and
 * a sweep of 65536 bit patterns over the whole float range). The same loop
 * nest run by the loop interpreter for that target (loop_interp_run_for)
 * must give the same bits for every input, scalar kernel and vector lanes
 * alike (any NaN matches any NaN). ARMv7 NEON is left out: it flushes
 * denormals to zero, which the compiler's scalar instance does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "emit_c/emit.h"
#include "emit_c/emit_loop.h"
#include "ir/call_prims.h"
#include "ir/loop.h"
#include "ir/loop_interp.h"
#include "ir/target.h"
#include "tests/unit/cc_run.h"

/* every row is its own op, named, and the math rows have both C forms */
static void test_table(void **state)
{
    (void)state;
    for (int i = 0; i < CO_COUNT; i++) {
        const CallPrim *p = call_prim((CallOp)i);
        assert_int_equal(p->op, i);
        assert_string_not_equal(p->name, "?");
        assert_string_equal(lx_call_name((CallOp)i), p->name);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(call_prim((CallOp)j)->name, p->name);
        if (p->math) {
            assert_non_null(p->vec);
            assert_non_null(p->c_f32);
            assert_non_null(p->c_f64);
            assert_non_null(p->f32[0]);
            assert_non_null(p->f32[1]);
            assert_non_null(p->f64);
        }
    }
    assert_string_equal(call_prim(CO_COUNT)->name, "?");
    assert_string_equal(call_prim_c_name(CO_EXP, LT_F32), "ctvm_expf");
    assert_string_equal(call_prim_c_name(CO_EXP, LT_F64), "exp");
    assert_string_equal(call_prim_c_name(CO_SQRT, LT_F32), "sqrtf");
    assert_string_equal(call_prim(CO_LOG)->vec, "ctvm_vlog");
    assert_null(call_prim(CO_SIN)->vec);
    assert_null(call_prim_c_name(CO_NEG, LT_F32)); /* printed as (-x) */
    assert_true(call_prims_text_uses_math("y = ctvm_vexp(x);"));
    assert_true(call_prims_text_uses_math("y = ctvm_sigmoidf(x);"));
    assert_false(call_prims_text_uses_math("y = expf(x); /* ctvm_vexp */"));
    /* the interpreter's functions against libm (independent references) */
    assert_true(fabs(call_prim_f32(CO_EXP, 1.0f, 0) - exp(1.0)) <= 2e-7 * exp(1.0));
    assert_true(fabs(call_prim_f32(CO_LOG, 10.0f, 1) - log(10.0)) <= 2e-7 * log(10.0));
    assert_true(fabsf(call_prim_f32(CO_SIGMOID, -2.0f, 0) - (float)(1 / (1 + exp(2.0)))) <= 1e-7f);
    assert_true(isnan(call_prim_f32(CO_LOG, -1.0f, 0)));
    assert_true(call_prim_f32(CO_LOG, 0.0f, 1) == -INFINITY);
    assert_true(call_prim_f32(CO_ROUND, 2.5f, 0) == 2.0f && call_prim_f32(CO_ROUND, -3.5f, 1) == -4.0f);
    assert_true(call_prim(CO_SIGMOID)->f64(0.0) == 0.5);
}

#define N_SWEEP 65536
#define N_TOTAL (N_SWEEP + 4096)
static const CallOp MATH_OPS[] = {CO_EXP, CO_TANH, CO_SIGMOID, CO_LOG, CO_LOG1P, CO_ERF, CO_EXPM1};
#define N_OPS ((int)(sizeof MATH_OPS / sizeof MATH_OPS[0]))

typedef struct Config {
    const char *target; /* ir/target.h name */
    const char *cc;
    const char *runner; /* "" natively */
    const char *cpu;    /* __builtin_cpu_supports feature needed natively, or NULL */
} Config;

static const Config CONFIGS[] = {
    {"generic", "gcc", "", NULL},
    {"x86_64-sse4", "gcc", "", "sse4.1"},
    {"x86_64-avx2", "gcc", "", "avx2"},
    {"x86_64-avx512", "gcc", "", "avx512f"},
    {"aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64 -L /usr/aarch64-linux-gnu", NULL},
    {"riscv64", "riscv64-linux-gnu-gcc", "qemu-riscv64 -L /usr/riscv64-linux-gnu", NULL},
};

/* inputs, made by the generated program and printed with the results */
static const char *INPUTS =
    "static float in_[N_TOTAL], out_[N_TOTAL], vout_[N_TOTAL];\n"
    "static unsigned long rng = 987654321UL;\n"
    "static unsigned long rnd(void) { rng = (rng * 1103515245UL + 12345UL) & 0xffffffffUL; return rng; }\n"
    "static float from_bits(unsigned int u) { float f; memcpy(&f, &u, sizeof f); return f; }\n"
    "static unsigned int bits(float f) { unsigned int u; memcpy(&u, &f, sizeof u); return u; }\n"
    "static void fill(void)\n{\n"
    "    static const float special[] = {0.0f, 1e-45f, 1e-40f, 1.1754942e-38f, 1.17549435e-38f, 1e-30f,\n"
    "        1e-20f, 1e-10f, 1e-7f, 3e-8f, 1e-4f, 0.01f, 0.1f, 0.3465736f, 0.5f, 0.625f, 0.6249999f, 1.0f,\n"
    "        1.41421354f, 1.4142137f, 2.0f, 3.0f, 4.0f, 9.0f, 10.0f, 20.0f, 44.36f, 87.33f, 87.34f, 88.0f,\n"
    "        88.72283f, 88.72284f, 89.0f, 89.5f, 100.0f, 103.97f, 103.98f, 104.0f, 105.0f, 150.0f, 1e10f,\n"
    "        1e30f, 3.40282347e38f, HUGE_VALF};\n"
    "    int ns = (int)(sizeof special / sizeof special[0]), i = 0, k;\n"
    "    for (k = 0; k < ns; k++) { in_[i++] = special[k]; in_[i++] = -special[k]; }\n"
    "    in_[i++] = NAN; in_[i++] = -NAN;\n"
    "    for (k = 0; k < N_SWEEP; k++) in_[i++] = from_bits((unsigned int)k * 65537u);\n"
    "    while (i < N_TOTAL - 1024) in_[i++] = ((float)(rnd() >> 8 & 0xffffff) / 16777216.0f - 0.5f) * 40.0f;\n"
    "    while (i < N_TOTAL) in_[i++] = (float)(rnd() >> 8 & 0xffffff) / 16777216.0f * 2.0f - 1.0f;\n"
    "}\n";

typedef struct Mem {
    float *in, *out;
} Mem;

static void *mem_of(void *user, const LBuf *b)
{
    Mem *m = user;
    return b->kind == LB_INPUT ? (void *)m->in : b->kind == LB_OUTPUT ? (void *)m->out : NULL;
}

static int same_bits(uint32_t a, uint32_t b)
{
    float fa, fb;
    memcpy(&fa, &a, 4);
    memcpy(&fb, &b, 4);
    return a == b || (isnan(fa) && isnan(fb));
}

static int host_runs(const Config *k)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (k->cpu && strcmp(k->cpu, "sse4.1") == 0)
        return __builtin_cpu_supports("sse4.1");
    if (k->cpu && strcmp(k->cpu, "avx2") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (k->cpu && strcmp(k->cpu, "avx512f") == 0)
        return __builtin_cpu_supports("avx512f");
    return 1;
#else
    return !k->cpu;
#endif
}

static int tool_missing(const char *cmd)
{
    char tool[64], probe[128];
    size_t n = strcspn(cmd, " ");
    snprintf(tool, sizeof tool, "%.*s", (int)n, cmd);
    snprintf(probe, sizeof probe, "command -v %s > /dev/null 2>&1", tool);
    return system(probe) != 0;
}

/* the generated program for target tg: prints N_TOTAL lines "in scalar... vector..." in hex */
static char *program(const Target *tg, LoopBuilder *lb)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "#include <stdio.h>\n#include <string.h>\n");
    if (tg->vl == 1) /* as emit_c defines it before the scalar header */
        fprintf(f, "#define CTVM_VFMA_FUSED %d\n", tg->fma);
    fprintf(f, "%s\n%s\n%s\n", ctvm_embedded_find("runtime_min/ctvm_runtime.h"), ctvm_embedded_find(tg->header),
            ctvm_embedded_find("templates/ctvm_vec_math.h"));
    LBuf *in = lbuf_new(lb, "in", LB_INPUT, N_TOTAL), *out = lbuf_new(lb, "out", LB_OUTPUT, N_TOTAL);
    for (int k = 0; k < N_OPS; k++) {
        LVar *i = lv_new(lb, "i");
        Stmt *s = ls_for(lb, i, N_TOTAL, LOOP_SERIAL,
                         ls_store(lb, out, lx_var(lb, i), lx_call(lb, MATH_OPS[k], lx_load(lb, in, lx_var(lb, i)))));
        KernelParams p;
        assert_int_equal(kernel_collect_params(s, &p), 0);
        char name[32];
        snprintf(name, sizeof name, "k_%s", lx_call_name(MATH_OPS[k]));
        emit_kernel_text(f, name, "test kernel", s, &p, 0);
    }
    fprintf(f, "#define N_SWEEP %d\n#define N_TOTAL %d\n%s", N_SWEEP, N_TOTAL, INPUTS);
    fprintf(f, "int main(void)\n{\n    int i, k;\n    fill();\n");
    for (int k = 0; k < N_OPS; k++) {
        fprintf(f, "    k_%s(in_, out_);\n", lx_call_name(MATH_OPS[k]));
        fprintf(f, "    for (i = 0; i < N_TOTAL; i += CTVM_VL) ctvm_vstore(vout_ + i, %s(ctvm_vload(in_ + i)));\n",
                call_prim(MATH_OPS[k])->vec);
        fprintf(f, "    for (i = 0; i < N_TOTAL; i++) printf(\"%%d %%08x %%08x %%08x\\n\", %d, bits(in_[i]), "
                   "bits(out_[i]), bits(vout_[i]));\n",
                k);
    }
    fprintf(f, "    (void)k;\n    return 0;\n}\n#ifdef CTVM_ISA_END\nCTVM_ISA_END\n#endif\n");
    fclose(f);
    return buf;
}

static void run_config(const Config *k)
{
    const Target *tg = target_find(k->target);
    assert_non_null(tg);
    if (tool_missing(k->cc) || (*k->runner && tool_missing(k->runner))) {
        printf("    %-14s skipped: %s or %s not installed\n", k->target, k->cc, k->runner);
        return;
    }
    if (!host_runs(k)) {
        printf("    %-14s skipped: this CPU lacks the ISA\n", k->target);
        return;
    }
    LoopBuilder lb;
    memset(&lb, 0, sizeof lb);
    lb.arena = arena_new();
    char *text = program(tg, &lb);
    char flags[256];
    snprintf(flags, sizeof flags, "-O2 %s%s", tg->cflags, *k->runner ? " -static" : "");
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int rc = cc_compile_ex(&c, text, k->cc, flags, 0, 1);
    free(text);
    if (rc != 0) {
        cc_dir_close(&c);
        fail_msg("%s: the program does not compile", k->target);
    }
    int status;
    char *outtext = cc_run_ex(&c, k->runner, &status);
    cc_dir_close(&c);
    assert_non_null(outtext);
    assert_int_equal(status, 0);

    /* the interpreter, for the target, on the printed inputs */
    static float in[N_TOTAL], want[N_TOTAL];
    static uint32_t got_s[N_TOTAL], got_v[N_TOTAL];
    const char *p = outtext;
    long mismatches = 0, compared = 0;
    for (int op = 0; op < N_OPS; op++) {
        for (int i = 0; i < N_TOTAL; i++) {
            /* strtoul, not sscanf: glibc's sscanf measures the whole rest of the text every call */
            char *end;
            long kk = strtol(p, &end, 10);
            uint32_t xin = (uint32_t)strtoul(end, &end, 16);
            got_s[i] = (uint32_t)strtoul(end, &end, 16);
            got_v[i] = (uint32_t)strtoul(end, &end, 16);
            if (kk != op || *end != '\n')
                fail_msg("%s: short output at op %d line %d", k->target, op, i);
            p = end + 1;
            memcpy(&in[i], &xin, 4);
        }
        LVar *i = lv_new(&lb, "i");
        LBuf *bi = lbuf_new(&lb, "in", LB_INPUT, N_TOTAL), *bo = lbuf_new(&lb, "out", LB_OUTPUT, N_TOTAL);
        Stmt *s = ls_for(&lb, i, N_TOTAL, LOOP_SERIAL,
                         ls_store(&lb, bo, lx_var(&lb, i), lx_call(&lb, MATH_OPS[op], lx_load(&lb, bi, lx_var(&lb, i)))));
        Mem m = {in, want};
        char err[256];
        assert_int_equal(loop_interp_run_for(s, tg, mem_of, &m, err, sizeof err), 0);
        long bad = 0;
        for (int j = 0; j < N_TOTAL; j++) {
            uint32_t w;
            memcpy(&w, &want[j], 4);
            compared += 2;
            if (!same_bits(w, got_s[j]) || !same_bits(w, got_v[j])) {
                if (bad++ < 5)
                    printf("    %s %s(%.9g): folded %08x, generated scalar %08x vector %08x\n", k->target,
                           lx_call_name(MATH_OPS[op]), in[j], w, got_s[j], got_v[j]);
            }
        }
        mismatches += bad;
    }
    free(outtext);
    arena_free(lb.arena);
    printf("    %-14s (fma %d): %ld results compared bit for bit, %ld differ\n", k->target, tg->fma, compared,
           mismatches);
    assert_int_equal(mismatches, 0);
}

static void test_folding_matches_generated(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CONFIGS / sizeof CONFIGS[0]; i++) {
#if !defined(__x86_64__) && !defined(__i386__)
        if (CONFIGS[i].cpu)
            continue; /* x86 targets need an x86 host */
#endif
        run_config(&CONFIGS[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_folding_matches_generated),
    };
    return cmocka_run_group_tests_name("call_prims", tests, NULL, NULL);
}
