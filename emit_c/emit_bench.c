/* emit_bench.c - ctvm-tune's side of emit_c: the tunable workloads of a
 * graph, and one tuning candidate as a small self-timing C program.
 *
 * A candidate program holds the group's kernel scheduled with the
 * candidate's knobs and the same group lowered naively (the reference,
 * ComputeCtx.naive), every buffer as a static array of seeded random
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
#include "ir/exec_order.h"
#include "ir/loop_kernels.h"
#include "ir/target.h"
#include "schedule/schedule.h"
#include "schedule/schedule_key.h"

int emit_tasks(Graph *g, const EmitOptions *o, EmitTask *tasks, int cap, Diag *d)
{
    EmitCtx e;
    emit_ctx_init(&e, g, d);
    const char **keys = arena_array(g->arena, (size_t)cap + 1, sizeof(char *));
    int(*knobs)[4] = arena_array(g->arena, (size_t)cap + 1, sizeof *knobs);
    int *used = arena_array(g->arena, (size_t)cap + 1, sizeof(int));
    SchedTuning rec = {.workload = keys, .knobs = knobs, .used = used, .record = 1, .cap = cap};
    e.cx.tuning = &rec;
    (void)o;
    int *order = arena_array(g->arena, (size_t)g->n_nodes + 1, sizeof(int));
    int steps = graph_exec_order(g, order), n = 0;
    for (int s = 0; s < steps; s++) {
        int before = rec.n;
        for (int i = 0; i < rec.n; i++)
            used[i] = 0;
        Stmt *k = schedule_group(&e.cx, order[s]);
        if (!k || e.failed) {
            weights_free(&e.blob);
            return -1;
        }
        KernelParams kp;
        int all_f32 = emit_collect_params(k, &kp) == 0;
        for (int i = 0; i < kp.n && all_f32; i++)
            all_f32 = kp.buf[i]->dtype == DT_FLOAT32;
        for (int i = 0; i < rec.n; i++) {
            if (!used[i])
                continue;
            if (i < before) { /* seen before: one more group of it */
                for (int t = 0; t < n; t++)
                    if (strcmp(tasks[t].workload, keys[i]) == 0)
                        tasks[t].count++;
                continue;
            }
            if (!all_f32 || n >= cap) /* candidates are timed on float32 buffers only */
                continue;
            EmitTask *t = &tasks[n++];
            memset(t, 0, sizeof *t);
            t->step = s;
            t->count = 1;
            snprintf(t->workload, sizeof t->workload, "%s", keys[i]);
            snprintf(t->node, sizeof t->node, "%s", g->nodes[order[s]].name);
            t->flops = emit_group_flops(g, order[s]);
        }
    }
    weights_free(&e.blob);
    return n;
}

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

int emit_kernel_bench(Graph *g, const EmitOptions *o, const EmitTask *task, const int knobs[4], FILE *out, Diag *d)
{
    const Target *tg = emit_target(g, o, d);
    if (!tg)
        return -1;
    int threads = o->threads > 1 ? o->threads : 1;
    EmitCtx e;
    emit_ctx_init(&e, g, d);
    const char *key = task->workload;
    int kn[1][4], used[1] = {0};
    memcpy(kn[0], knobs, sizeof kn[0]);
    SchedTuning one = {.n = 1, .workload = &key, .knobs = kn, .used = used};
    int *order = arena_array(g->arena, (size_t)g->n_nodes + 1, sizeof(int));
    int steps = graph_exec_order(g, order);
    if (task->step < 0 || task->step >= steps)
        return diag_error(d, g, -1, "tuning task step %d out of range (internal error)", task->step);
    int anchor = order[task->step];
    e.cx.tuning = &one;
    Stmt *cand = schedule_group(&e.cx, anchor);
    e.cx.tuning = NULL;
    e.cx.naive = 1;
    Stmt *ref = cand ? schedule_group(&e.cx, anchor) : NULL;
    weights_free(&e.blob);
    if (!cand || !ref || e.failed)
        return -1;
    if (!used[0])
        return diag_error(d, g, anchor, "workload %s not found in its group (internal error)", key);
    KernelParams kc, kr, u;
    if (emit_collect_params(cand, &kc) != 0 || emit_collect_params(ref, &kr) != 0)
        return diag_error(d, g, anchor, "kernel needs more than %d buffers", EMIT_MAX_PARAMS);
    u = kc;
    for (int i = 0; i < kr.n; i++) {
        int j = index_in(&u, kr.buf[i]);
        if (j < 0 && u.n < EMIT_MAX_PARAMS) {
            u.buf[u.n] = kr.buf[i];
            u.written[u.n++] = kr.written[i];
        } else if (j >= 0)
            u.written[j] |= kr.written[i];
    }
    /* the kernels, first into memory (as emit_model: the headers they need) */
    char *ktext = NULL;
    size_t klen = 0;
    FILE *kf = open_memstream(&ktext, &klen);
    if (!kf)
        return diag_error(d, g, -1, "out of memory writing the kernels");
    EmitCfg cc = {tg->vl, threads, &e.lb}, rc = {1, 1, &e.lb};
    int team = emit_kernel_is_team(cand, &cc);
    emit_kernel_cfg(kf, "ctvm_cand", "candidate", cand, &kc, &cc);
    emit_kernel_cfg(kf, "ctvm_ref", "reference: the plain loop nest", ref, &kr, &rc);
    fclose(kf);
    Stmt *both[2] = {cand, ref};
    int uses_vec = emit_uses_vec(tg, both, 2, ktext);
    fputs("/* ctvm-tune candidate: ", out);
    c_text_print(out, key, C_COMMENT);
    fputs(" (group of node '", out);
    c_text_print(out, g->nodes[anchor].name, C_COMMENT);
    fprintf(out, "'), knobs %d %d %d %d, target %s, %d thread(s) */\n", knobs[0], knobs[1], knobs[2], knobs[3],
            tg->name, threads);
    if (threads > 1)
        fprintf(out, "#define CTVM_THREADS %d\n", threads);
    fputs("#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200112L\n#endif\n#include <stdint.h>\n#include <stdio.h>\n"
          "#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n",
          out);
    if (emit_kernel_headers(out, g, tg, both, 2, ktext, uses_vec, threads, d) != 0) {
        free(ktext);
        return -1;
    }
    fwrite(ktext, 1, klen, out);
    free(ktext);
    if (uses_vec)
        fputs("#ifdef CTVM_ISA_END\nCTVM_ISA_END\n#endif\n", out);
    bench_buffers(out, &u);
    fprintf(out, "static const int ctvm_knobs[4] = {%d, %d, %d, %d};\n", knobs[0], knobs[1], knobs[2], knobs[3]);
    fputs("static void ctvm_ref_all(void)\n{\n    ", out);
    bench_call(out, "ctvm_ref", &kr, &u, 1, 0);
    fputs(";\n}\n/* n calls of the candidate; threaded: all in one parallel region, as in a model */\n"
          "static void ctvm_cand_all(int n)\n{\n    int k;\n",
          out);
    if (team) {
        emit_team_open(out, " private(k)");
        fputs("        for (k = 0; k < n; k++)\n            ", out);
        bench_call(out, "ctvm_cand", &kc, &u, 0, 1);
        fputs(";\n    }\n}\n", out);
    } else {
        fputs("    for (k = 0; k < n; k++)\n        ", out);
        bench_call(out, "ctvm_cand", &kc, &u, 0, 0);
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
