/* emit_bench.c - ctvm-tune's side of emit_c: one tuning candidate as a
 * small self-timing C program.
 *
 * A candidate program holds the group's kernel scheduled with the
 * candidate's knobs and the same group lowered naively (the reference;
 * both made by lower_kernel_bench, lower/lower.h), every buffer as a static array of seeded random
 * values, and a main that checks the candidate against the reference and
 * times it, printing the protocol of docs/TUNING.md:
 *     ctvm-tune: check ok|wrong max_err=E
 *     ctvm-tune: ms T1 T2 ...
 * Built with -DCTVM_TUNE_FLUSH, every timed call starts with cold weights
 * (64 MB of other data through the caches, the activations read back in),
 * as in a network whose weights do not fit in cache; otherwise calls are
 * timed back to back on hot caches. Built with -DCTVM_TUNE_FAULT (or _HANG), a candidate whose knobs are not
 * all 0 corrupts its output (or never returns): the tests' failing
 * candidates. */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "emit_internal.h"
#include "ir/target.h"

/* static arrays and their seeded contents: b<i> as the candidate sees it,
   r<i> the reference's copy of a written buffer, i<i> its initial contents */
static void bench_buffers(FILE *f, const KernelParams *u)
{
    for (int i = 0; i < u->n; i++) {
        const char *ct = dtype_c_storage(u->buf[i]->dtype);
        long long n = (long long)u->buf[i]->numel;
        fprintf(f, "static %s ctvm_b%d[%lld];\n", ct, i, n ? n : 1);
        if (u->written[i])
            fprintf(f, "static %s ctvm_r%d[%lld], ctvm_i%d[%lld];\n", ct, i, n ? n : 1, i, n ? n : 1);
    }
    fputs("static unsigned long long ctvm_seed = 88172645463325252ull;\n"
          "static float ctvm_rand(void) /* xorshift64, uniform in [-1, 1) */\n{\n"
          "    ctvm_seed ^= ctvm_seed << 13;\n    ctvm_seed ^= ctvm_seed >> 7;\n    ctvm_seed ^= ctvm_seed << 17;\n"
          "    return (float)((double)(ctvm_seed >> 11) / 4503599627370496.0 - 1.0);\n}\n"
          "static void ctvm_fill(void)\n{\n    long i;\n",
          f);
    for (int i = 0; i < u->n; i++) {
        fprintf(f, "    for (i = 0; i < %lld; i++)\n        ctvm_b%d[i] = ctvm_rand();\n", (long long)u->buf[i]->numel, i);
        if (u->written[i])
            fprintf(f, "    memcpy(ctvm_i%d, ctvm_b%d, sizeof ctvm_b%d);\n", i, i, i);
    }
    fputs("}\n/* the activations read into cache, as the kernel before would leave them */\n"
          "static volatile float ctvm_sink;\nstatic void ctvm_warm(void)\n{\n    long i;\n    float s = 0;\n", f);
    for (int i = 0; i < u->n; i++)
        if (u->buf[i]->kind != LB_CONST)
            fprintf(f, "    for (i = 0; i < %lld; i += 16)\n        s += (float)ctvm_b%d[i];\n", (long long)u->buf[i]->numel, i);
    fputs("    ctvm_sink = s;\n}\n/* the written buffers back to their initial contents */\nstatic void ctvm_reset(void)\n{\n", f);
    for (int i = 0; i < u->n; i++)
        if (u->written[i])
            fprintf(f, "    memcpy(ctvm_b%d, ctvm_i%d, sizeof ctvm_b%d);\n    memcpy(ctvm_r%d, ctvm_i%d, sizeof ctvm_r%d);\n",
                    i, i, i, i, i, i);
    fputs("}\n", f);
}

static int index_in(const KernelParams *u, const LBuf *b)
{
    for (int i = 0; i < u->n; i++)
        if (u->buf[i] == b)
            return i;
    return -1;
}

/* `name(b0, b3, ...[, c])`: a kernel called on the arrays (ref: r<i> for written ones) */
static void bench_call(FILE *f, const char *name, const KernelParams *kp, const KernelParams *u, int ref, int team)
{
    fprintf(f, "%s(", name);
    for (int i = 0; i < kp->n; i++) {
        int j = index_in(u, kp->buf[i]);
        fprintf(f, "%sctvm_%c%d", i ? ", " : "", ref && u->written[j] ? 'r' : 'b', j);
    }
    if (team)
        fputs(kp->n ? ", &c" : "&c", f);
    fputs(")", f);
}

static const char BENCH_MAIN[] =
    "static double ctvm_now(void)\n{\n    struct timespec ts;\n    clock_gettime(CLOCK_MONOTONIC, &ts);\n"
    "    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;\n}\n"
    "#ifdef CTVM_TUNE_FLUSH\nstatic float ctvm_flush[16 << 20];\n#endif\n"
    "int main(int argc, char **argv)\n{\n"
    "    int repeat = argc > 1 ? atoi(argv[1]) : 10, r, k, inner = 1;\n"
    "    double t[64], t0, err = 0, big = 0;\n"
    "    if (repeat < 1 || repeat > 64)\n        repeat = 10;\n"
    "    ctvm_fill();\n    ctvm_reset();\n    ctvm_ref_all();\n    ctvm_cand_all(1);\n"
    "#if defined(CTVM_TUNE_FAULT) || defined(CTVM_TUNE_HANG)\n"
    "    if (ctvm_knobs[0] || ctvm_knobs[1] || ctvm_knobs[2] || ctvm_knobs[3]) {\n"
    "#ifdef CTVM_TUNE_HANG\n        for (;;)\n            ctvm_cand_all(1);\n#endif\n"
    "        CTVM_TUNE_CORRUPT;\n    }\n#endif\n"
    "    CTVM_TUNE_COMPARE;\n"
    "    printf(\"ctvm-tune: check %s max_err=%g\\n\", err <= 1e-4 + 1e-3 * big ? \"ok\" : \"wrong\", err);\n"
    "#ifdef CTVM_TUNE_FLUSH\n"
    "    /* cold weights (a network's do not stay in cache): each sample one call\n"
    "       after 64 MB of other data went through the caches and the\n"
    "       activations were read back in */\n"
    "    for (r = 0; r < repeat; r++) {\n"
    "        for (k = 0; k < (int)(sizeof ctvm_flush / sizeof ctvm_flush[0]); k += 16)\n"
    "            ctvm_flush[k] += 1.0f;\n"
    "        ctvm_warm();\n        t0 = ctvm_now();\n        ctvm_cand_all(1);\n        t[r] = ctvm_now() - t0;\n    }\n"
    "#else\n"
    "    /* hot caches: samples of at least ~2 ms, inner calls each */\n"
    "    t0 = ctvm_now();\n    ctvm_cand_all(1);\n    t0 = ctvm_now() - t0;\n"
    "    if (t0 < 2.0)\n        inner = t0 > 0.002 ? (int)(2.0 / t0) + 1 : 1000;\n"
    "    for (r = 0; r < repeat; r++) {\n        t0 = ctvm_now();\n        ctvm_cand_all(inner);\n"
    "        t[r] = (ctvm_now() - t0) / inner;\n    }\n"
    "#endif\n"
    "    printf(\"ctvm-tune: ms\");\n    for (k = 0; k < repeat; k++)\n        printf(\" %.6f\", t[k]);\n"
    "    printf(\"\\n\");\n    return 0;\n}\n";

int emit_kernel_bench(const Module *m, const char *key, const char *node, const int knobs[4], FILE *out, Diag *d)
{
    const Target *tg = m->target;
    int threads = m->threads;
    const Kernel *cand = &m->kernels[0], *ref = &m->kernels[1];
    const KernelParams *kc = &cand->params, *kr = &ref->params;
    KernelParams u = *kc;
    for (int i = 0; i < kr->n; i++) {
        int j = index_in(&u, kr->buf[i]);
        if (j < 0 && u.n < KERNEL_MAX_PARAMS) {
            u.buf[u.n] = kr->buf[i];
            u.written[u.n++] = kr->written[i];
        } else if (j >= 0)
            u.written[j] |= kr->written[i];
    }
    int team = cand->team;
    fputs("/* ctvm-tune candidate: ", out);
    c_text_print(out, key, C_COMMENT);
    fputs(" (group of node '", out);
    c_text_print(out, node, C_COMMENT);
    fprintf(out, "'), knobs %d %d %d %d, target %s, %d thread(s) */\n", knobs[0], knobs[1], knobs[2], knobs[3],
            tg->name, threads);
    if (threads > 1)
        fprintf(out, "#define CTVM_THREADS %d\n", threads);
    fputs("#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200112L\n#endif\n#include <stdint.h>\n#include <stdio.h>\n"
          "#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n",
          out);
    if (emit_kernel_headers(out, m, d) != 0)
        return -1;
    emit_kernel_text(out, "ctvm_cand", "candidate", cand->body, kc, cand->team);
    emit_kernel_text(out, "ctvm_ref", "reference: the plain loop nest", ref->body, kr, ref->team);
    if (m->uses_vec)
        fputs("#ifdef CTVM_ISA_END\nCTVM_ISA_END\n#endif\n", out);
    bench_buffers(out, &u);
    fprintf(out, "static const int ctvm_knobs[4] = {%d, %d, %d, %d};\n", knobs[0], knobs[1], knobs[2], knobs[3]);
    fputs("static void ctvm_ref_all(void)\n{\n    ", out);
    bench_call(out, "ctvm_ref", kr, &u, 1, 0);
    fputs(";\n}\n/* n calls of the candidate; threaded: all in one parallel region, as in a model */\n"
          "static void ctvm_cand_all(int n)\n{\n    int k;\n",
          out);
    if (team) {
        emit_team_open(out, " private(k)");
        fputs("        for (k = 0; k < n; k++)\n            ", out);
        bench_call(out, "ctvm_cand", kc, &u, 0, 1);
        fputs(";\n    }\n}\n", out);
    } else {
        fputs("    for (k = 0; k < n; k++)\n        ", out);
        bench_call(out, "ctvm_cand", kc, &u, 0, 0);
        fputs(";\n}\n", out);
    }
    /* comparison over the written buffers; the fault corrupts the first */
    int first = -1;
    fputs("#define CTVM_TUNE_COMPARE do { long i_; double d_; \\\n", out);
    for (int i = 0; i < u.n; i++)
        if (u.written[i]) {
            if (first < 0)
                first = i;
            fprintf(out, "    for (i_ = 0; i_ < %lld; i_++) { d_ = (double)ctvm_b%d[i_] - (double)ctvm_r%d[i_]; "
                         "d_ = d_ < 0 ? -d_ : d_; err = d_ > err || d_ != d_ ? d_ : err; "
                         "d_ = ctvm_r%d[i_] < 0 ? -(double)ctvm_r%d[i_] : (double)ctvm_r%d[i_]; big = d_ > big ? d_ : big; } \\\n",
                    (long long)u.buf[i]->numel, i, i, i, i, i);
        }
    fputs("} while (0)\n", out);
    if (first >= 0)
        fprintf(out, "#define CTVM_TUNE_CORRUPT (ctvm_b%d[0] += 1.0f)\n", first);
    else
        fputs("#define CTVM_TUNE_CORRUPT ((void)0)\n", out);
    fputs(BENCH_MAIN, out);
    return 0;
}
