/* ctvm_tune.c - `ctvm-tune model.onnx -o records.json [options]`: searches
 * the knobs of every tunable kernel of a model (docs/TUNING.md).
 *
 * The model goes through the frontend and the passes once; its distinct
 * workloads (lower_tasks) are the tasks. For each, tune_search proposes
 * knob vectors; each candidate is written as a small program
 * (lower_kernel_bench + emit_kernel_bench), built with the user's compiler and flags (several
 * at once), run in its own process with a timeout (through --runner when
 * given), checked against the plain loop nest and timed; every measured
 * candidate becomes one JSON line of the records file, failed ones too.
 * Records already in the file (or in --records) are not measured again, so
 * an interrupted run resumes where it stopped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "lower/lower.h"
#include "frontend/out_file.h"
#include "ir/target.h"
#include "tune/measure.h"
#include "tune/records.h"
#include "tune/search.h"
#include "tune/spawn.h"
#include "tune/space.h"

#define MAX_TASKS 512

static void usage(FILE *f)
{
    fputs("usage: ctvm-tune model.onnx -o records.json [options]\n"
          "  -o FILE             tuning records (JSON lines), appended to; records already\n"
          "                      there are not measured again (a run resumes)\n"
          "  --target T          as ctvm-emit (default native)\n"
          "  --threads N         tune for N threads (default 1; candidates built with -fopenmp)\n"
          "  --trials N          candidates measured per task at most (default 32)\n"
          "  --time-budget S     seconds for the whole run (default 600)\n"
          "  --records FILE      earlier records to start from (read only; repeatable)\n"
          "  --tasks list|i,j,.. print the tasks and exit, or tune only these (0-based)\n"
          "  --cc CC --cflags F  the compiler and flags the model will be built with\n"
          "                      (default: the target's compiler, -O2; the target's ISA flags\n"
          "                      are added; cross targets link -static)\n"
          "  --runner CMD        run candidates through CMD, e.g. 'qemu-aarch64 -L /usr/aarch64-linux-gnu'\n"
          "                      or an ssh wrapper (default: the target's qemu off this machine)\n"
          "                      CC, F and CMD are split on blanks into words and run without a\n"
          "                      shell: quotes, $VARS, globs and ; are not interpreted\n"
          "  --timeout S         per build and per run (default 20)\n"
          "  --repeat N          timed samples per candidate, median kept (default 10)\n"
          "  --jobs N            candidates built at once (default: the cores)\n"
          "  --overlap N         builds that may go on while a candidate is timed (default:\n"
          "                      the cores the candidate's threads leave free; 0: never;\n"
          "                      the confirmation rounds are always timed alone)\n"
          "  --hot-cache         time candidates back to back on hot caches (default: each\n"
          "                      call after flushing the caches, activations read back in,\n"
          "                      as in a network whose weights do not stay in cache)\n"
          "  --seed N            search seed (default 1): the same seed, records and timings\n"
          "                      give the same candidates\n"
          "  --input-shapes SPEC as ctvm-emit\n"
          "  --max-fold-bytes N  as ctvm-emit\n"
          "  -q                  no progress lines\n",
          f);
}

typedef struct Tuner {
    Graph *g;
    CodegenOptions cg;
    const LowerTask *task;
    const char *target, *cc, *cflags, *runner, *out, *dir;
    int threads, repeat, jobs, quiet, n_vregs, hot;
    int overlap;            /* builds beside a timed candidate (0 in confirmation rounds) */
    double timeout;
    int n_cand, measured;   /* candidate files written; measurements this task */
    TuneRecordSet *all;     /* every record known: the files read, then each measured here */
    int task_i, n_tasks;    /* for the progress line */
    double t0;
    Diag *d;
} Tuner;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fill_record(const Tuner *t, const int *knobs, TuneRecord *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->workload, sizeof r->workload, "%s", t->task->workload);
    snprintf(r->target, sizeof r->target, "%s", t->target);
    snprintf(r->ctvm_version, sizeof r->ctvm_version, "%s", CTVM_VERSION);
    r->threads = t->threads;
    memcpy(r->knobs, knobs, sizeof r->knobs);
    r->timestamp = (long long)time(NULL);
}

/* tune_search's measurement: write, build (jobs at once), run one by one */
static void measure(void *user, int n, const int (*knobs)[TUNE_MAX_KNOBS], double *ms, TuneStatus *st)
{
    Tuner *t = user;
    ArgList *cmds = calloc((size_t)n + 1, sizeof *cmds);
    char ***argvs = calloc((size_t)n + 1, sizeof *argvs);
    char(*exe)[512] = calloc((size_t)n + 1, sizeof *exe), (*src_of)[512] = calloc((size_t)n + 1, sizeof *src_of);
    int *idx = calloc((size_t)n + 1, sizeof(int)), nb = 0;
    TuneRecord *rec = calloc((size_t)n + 1, sizeof *rec);
    TuneSpawnResult *res = calloc((size_t)n + 1, sizeof *res);
    const Target *tg = target_find(t->target);
    int cross = tg && !target_runs_natively(tg);
    for (int i = 0; i < n; i++) {
        fill_record(t, knobs[i], &rec[i]);
        rec[i].status = st[i] = TUNE_BUILD_FAIL; /* until built, run and checked */
        ms[i] = HUGE_VAL;
        char why[160];
        if (!tune_space_valid(t->task->workload, t->n_vregs, knobs[i], why, sizeof why)) {
            snprintf(rec[i].error, sizeof rec[i].error, "not built: %s", why);
            continue;
        }
        char src[512];
        int k = t->n_cand++;
        snprintf(src, sizeof src, "%s/c%d.c", t->dir, k);
        snprintf(exe[i], sizeof exe[i], "%s/c%d", t->dir, k);
        snprintf(src_of[i], sizeof src_of[i], "%s", src);
        FILE *f = fopen(src, "w");
        Module *bm = f ? lower_kernel_bench(t->g, &t->cg, t->task, knobs[i], t->d) : NULL;
        int rc = bm ? emit_kernel_bench(bm, t->task->workload, t->task->node, knobs[i], f, t->d) : -1;
        if (f && fclose(f) != 0)
            rc = -1;
        if (rc != 0) {
            snprintf(rec[i].error, sizeof rec[i].error, "cannot write the candidate program c%d.c", k);
            continue;
        }
        /* cc cflags target-flags [-fopenmp] [-static] [-DCTVM_TUNE_FLUSH] -o exe src -lm,
           each option split on blanks into words: no shell */
        ArgList *c = &cmds[nb];
        arglist_add_words(c, t->cc);
        arglist_add_words(c, t->cflags);
        arglist_add_words(c, tg ? tg->cflags : "");
        if (t->threads > 1)
            arglist_add(c, "-fopenmp");
        if (cross)
            arglist_add(c, "-static");
        if (!t->hot)
            arglist_add(c, "-DCTVM_TUNE_FLUSH");
        arglist_add(c, "-o");
        arglist_add(c, exe[i]);
        arglist_add(c, src);
        arglist_add(c, "-lm");
        if (c->failed || !c->argv) {
            snprintf(rec[i].error, sizeof rec[i].error, "not built: out of memory");
            arglist_free(c);
            continue;
        }
        argvs[nb] = c->argv;
        idx[nb++] = i;
    }
    char repeat[32];
    snprintf(repeat, sizeof repeat, "%d", t->repeat);
    char *args[] = {repeat, NULL};
    char **exes = calloc((size_t)nb + 1, sizeof(char *));
    TuneRunResult *ran = calloc((size_t)nb + 1, sizeof *ran);
    for (int b = 0; b < nb; b++)
        exes[b] = exe[idx[b]];
    if (nb)
        tune_build_and_run(nb, argvs, t->runner, exes, args, t->jobs, t->overlap, t->timeout, res, ran);
    for (int b = 0; b < nb; b++) {
        int i = idx[b];
        if (res[b].exit_code != 0 || res[b].timed_out) {
            const char *o = res[b].out, *line = o;
            for (const char *p = o; *p; p++) /* the first error line */
                if (strstr(p, "error") == p) {
                    line = p;
                    break;
                }
            snprintf(rec[i].error, sizeof rec[i].error, "build %s: %.200s", res[b].timed_out ? "timed out" : "failed",
                     line);
            rec[i].status = TUNE_BUILD_FAIL;
            continue;
        }
        const TuneRunResult *rr = &ran[b];
        rec[i].status = st[i] = rr->status;
        snprintf(rec[i].error, sizeof rec[i].error, "%s", rr->error);
        if (rr->status == TUNE_OK) {
            ms[i] = rec[i].median_ms = rr->median_ms;
            rec[i].n_runs = rr->n_runs;
            memcpy(rec[i].runs_ms, rr->runs_ms, sizeof rr->runs_ms);
            rec[i].gflops = rr->median_ms > 0 ? t->task->flops / rr->median_ms / 1e6 : 0;
        }
        remove(exe[i]);
    }
    free(exes), free(ran);
    for (int i = 0; i < n; i++) {
        /* every candidate, those refused for the registers without building
           too: a resumed run then proposes none of them again */
        char err[512];
        if (tune_record_append(t->out, &rec[i], err, sizeof err) != 0)
            fprintf(stderr, "ctvm-tune: %s\n", err);
        tune_records_add(t->all, &rec[i]);
        t->measured++;
        if (src_of[i][0])
            remove(src_of[i]);
    }
    for (int b = 0; b < nb; b++)
        arglist_free(&cmds[b]);
    free(cmds), free(argvs), free(exe), free(src_of), free(idx), free(rec), free(res);
}

/* Confirmation rounds: the fastest single measurement of the task against
   the default knobs, each measured `rounds` more times in alternation
   (fresh builds, fresh processes). ctvm-emit then applies knobs by the
   median of their measurements (tune_records_choose), so a lucky timing of
   a noisy kernel does not win. Skipped when the default already has more
   than one measurement or is the fastest. */
static void confirm(Tuner *t, int rounds)
{
    static const int zero[TUNE_MAX_KNOBS] = {0};
    const TuneRecordSet *s = t->all;
    int n_default = 0;
    for (int i = 0; i < s->n; i++)
        n_default += s->rec[i].status == TUNE_OK && s->rec[i].threads == t->threads &&
                     !strcmp(s->rec[i].workload, t->task->workload) && !memcmp(s->rec[i].knobs, zero, sizeof zero);
    const TuneRecord *b = tune_records_best(s, t->task->workload, t->threads);
    int kn[2][TUNE_MAX_KNOBS];
    memcpy(kn[0], zero, sizeof zero);
    if (b)
        memcpy(kn[1], b->knobs, sizeof kn[1]);
    if (!b || n_default != 1 || !memcmp(kn[1], zero, sizeof zero))
        return;
    int overlap = t->overlap;
    t->overlap = 0; /* the measurements that decide are taken on a quiet machine */
    for (int r = 0; r < rounds; r++) {
        double ms[2];
        TuneStatus st[2];
        measure(t, 2, (const int(*)[TUNE_MAX_KNOBS])kn, ms, st);
    }
    t->overlap = overlap;
}

static void progress(void *user, int trials, double best_ms)
{
    const Tuner *t = user;
    (void)trials;
    if (t->quiet)
        return;
    fprintf(stderr, "\rctvm-tune: [%d/%d] %s: %d trials, best %.1f GFLOP/s, %.0f s   ", t->task_i + 1, t->n_tasks,
            t->task->workload, t->measured, isfinite(best_ms) ? t->task->flops / best_ms / 1e6 : 0.0, now_s() - t->t0);
}

static int parse_tasks(const char *s, int *sel, int n)
{
    for (const char *p = s; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v >= n)
            return -1;
        sel[v] = 1;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    CompileOptions co;
    memset(&co, 0, sizeof co);
    Diag d = {.tool = "ctvm-tune"};
    co.target = "native";
    co.threads = 1;
    const char *out = NULL, *tasks_arg = NULL, *cc = NULL, *cflags = "-O2", *runner = NULL, *priors[8];
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int hot = 0, n_priors = 0, trials = 32, repeat = 10, jobs = cores > 0 ? cores : 1, quiet = 0, overlap = -1;
    double budget = 600, timeout = 20;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(flag) (strcmp(a, flag) == 0 && val && (++i, 1))
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (TAKE("-o")) {
            out = val;
        } else if (TAKE("--target")) {
            co.target = val;
        } else if (TAKE("--threads")) {
            co.threads = atoi(val);
        } else if (TAKE("--trials")) {
            trials = atoi(val);
        } else if (TAKE("--time-budget")) {
            budget = atof(val);
        } else if (TAKE("--records")) {
            if (n_priors < 8)
                priors[n_priors++] = val;
        } else if (TAKE("--tasks")) {
            tasks_arg = val;
        } else if (TAKE("--cc")) {
            cc = val;
            if (!cc[strspn(cc, " \t\n")]) {
                fprintf(stderr, "ctvm-tune: --cc names no compiler\n");
                return 2;
            }
        } else if (TAKE("--cflags")) {
            cflags = val;
        } else if (TAKE("--runner")) {
            runner = val;
        } else if (TAKE("--timeout")) {
            timeout = atof(val);
        } else if (TAKE("--repeat")) {
            repeat = atoi(val);
        } else if (TAKE("--jobs")) {
            jobs = atoi(val);
        } else if (TAKE("--overlap")) {
            overlap = atoi(val);
            if (overlap < 0)
                overlap = -2; /* refused below */
        } else if (TAKE("--seed")) {
            seed = strtoull(val, NULL, 10);
        } else if (TAKE("--input-shapes")) {
            if (onnx_parse_input_shapes(val, &co.load, &d) != 0)
                return 2;
        } else if (TAKE("--max-fold-bytes")) {
            if (driver_parse_max_fold_bytes("ctvm-tune", val, &co) != 0)
                return 2;
        } else if (!strcmp(a, "--hot-cache")) {
            hot = 1;
        } else if (!strcmp(a, "-q")) {
            quiet = 1;
        } else if (a[0] == '-' || co.model) {
            fprintf(stderr, "ctvm-tune: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        } else {
            co.model = a;
        }
#undef TAKE
    }
    int listing = tasks_arg && !strcmp(tasks_arg, "list");
    if (!co.model || (!out && !listing) || co.threads < 1 || co.threads > 1024 || trials < 1 ||
        repeat < 1 || repeat > 64 || jobs < 1 || timeout <= 0 || budget <= 0 || overlap == -2) {
        usage(stderr);
        return 2;
    }
    d.file = co.model;
    if (out && out_check(out, &d) != 0) /* before reading it to resume */
        return 2;
    CodegenOptions cg;
    Graph *g = driver_prepare(&co, &cg, &d);
    if (!g)
        return 1;
    static LowerTask tasks[MAX_TASKS];
    int nt = lower_tasks(g, &cg, tasks, MAX_TASKS, &d);
    if (nt < 0) {
        graph_free(g);
        return 1;
    }
    const Target *tg = cg.target;
    if (listing) {
        printf("# %d tunable workloads of %s for %s, %d thread(s): index, groups, GFLOP a run, first node, workload\n",
               nt, co.model, tg->name, co.threads);
        for (int i = 0; i < nt; i++)
            printf("%d %d %.4f %s %s\n", i, tasks[i].count, tasks[i].flops / 1e9, tasks[i].node, tasks[i].workload);
        graph_free(g);
        return 0;
    }
    int *sel = calloc((size_t)nt + 1, sizeof(int));
    if (tasks_arg && parse_tasks(tasks_arg, sel, nt) != 0) {
        fprintf(stderr, "ctvm-tune: --tasks takes 'list' or task indices from 0 to %d, comma-separated\n", nt - 1);
        return 2;
    }
    for (int i = 0; i < nt && !tasks_arg; i++)
        sel[i] = 1;
    /* earlier measurements: the output file (resume) and --records */
    TuneRecordSet prior = {0};
    struct stat sb;
    if (stat(out, &sb) == 0 && tune_records_load_report("ctvm-tune", out, tg->name, CTVM_VERSION, &prior) != 0)
        return 1;
    for (int i = 0; i < n_priors; i++)
        if (tune_records_load_report("ctvm-tune", priors[i], tg->name, CTVM_VERSION, &prior) != 0)
            return 1;
    char dir[] = "/tmp/ctvm-tune-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("ctvm-tune: mkdtemp");
        return 1;
    }
    if (overlap < 0)
        overlap = cores > co.threads ? cores - co.threads : 0;
    Tuner t = {.g = g, .overlap = overlap < jobs ? overlap : jobs, .cg = cg, .target = tg->name, .cc = cc ? cc : tg->cc, .cflags = cflags,
               .runner = runner ? runner : (!target_runs_natively(tg) ? tg->runner : NULL), .out = out, .dir = dir,
               .threads = co.threads, .repeat = repeat, .jobs = jobs, .quiet = quiet, .n_vregs = tg->n_vregs,
               .hot = hot, .timeout = timeout, .all = &prior, .d = &d};
    double t0 = t.t0 = now_s();
    int n_sel = 0, done = 0, total_new = 0;
    for (int i = 0; i < nt; i++)
        n_sel += sel[i];
    t.n_tasks = n_sel;
    double sec_per_trial = 0;
    for (int i = 0; i < nt; i++) {
        if (!sel[i])
            continue;
        double left = budget - (now_s() - t0);
        if (left <= 0) {
            fprintf(stderr, "%sctvm-tune: time budget spent; %d task(s) not tuned (run again to resume)\n",
                    quiet ? "" : "\n", n_sel - done);
            break;
        }
        t.task = &tasks[i];
        t.task_i = done;
        t.measured = 0;
        TuneSpace sp;
        if (tune_space_for(tasks[i].workload, tg->n_vregs, &sp) != 0) {
            done++;
            continue;
        }
        /* this task's prior measurements */
        int np = 0;
        for (int k = 0; k < prior.n; k++)
            np += !strcmp(prior.rec[k].workload, tasks[i].workload) && prior.rec[k].threads == t.threads;
        int(*pk)[TUNE_MAX_KNOBS] = calloc((size_t)np + 1, sizeof *pk);
        double *pms = calloc((size_t)np + 1, sizeof(double));
        TuneStatus *pst = calloc((size_t)np + 1, sizeof(TuneStatus));
        np = 0;
        for (int k = 0; k < prior.n; k++)
            if (!strcmp(prior.rec[k].workload, tasks[i].workload) && prior.rec[k].threads == t.threads) {
                memcpy(pk[np], prior.rec[k].knobs, sizeof pk[np]);
                pms[np] = prior.rec[k].status == TUNE_OK ? prior.rec[k].median_ms : HUGE_VAL;
                pst[np++] = prior.rec[k].status;
            }
        static const int zero[1][TUNE_MAX_KNOBS] = {{0, 0, 0, 0}};
        int max_trials = trials - np; /* resuming: what the earlier runs measured counts */
        if (max_trials <= 0) {
            confirm(&t, 2);
            if (!quiet)
                fprintf(stderr, "ctvm-tune: [%d/%d] %s: %d trials measured before, none left to do%s\n", done + 1,
                        n_sel, tasks[i].workload, np, t.measured ? " but the confirmation" : "");
            total_new += t.measured;
            done++;
            free(pk), free(pms), free(pst);
            continue;
        }
        if (sec_per_trial > 0) { /* share what is left among the tasks left */
            int fit = (int)(left / (n_sel - done) / sec_per_trial);
            max_trials = fit < max_trials ? (fit > 2 ? fit : 2) : max_trials;
        }
        TuneSearchOpts so = {.seed = seed + (uint64_t)i, .max_trials = max_trials, .patience = max_trials / 2 > 8 ? max_trials / 2 : 8,
                             .batch = jobs * 2, .n_initial = 1, .initial = zero, .measured = (const int(*)[TUNE_MAX_KNOBS])pk,
                             .measured_ms = pms, .measured_status = pst, .n_measured = np, .min_gain = 0.01,
                             .progress = progress};
        int best[TUNE_MAX_KNOBS] = {0};
        double best_ms = HUGE_VAL, ts = now_s();
        tune_search(&sp, &so, measure, &t, best, &best_ms);
        confirm(&t, 2);
        if (t.measured > 0) {
            double per = (now_s() - ts) / t.measured;
            sec_per_trial = sec_per_trial > 0 ? 0.5 * (sec_per_trial + per) : per;
        }
        total_new += t.measured;
        done++;
        if (!quiet)
            fprintf(stderr, "\rctvm-tune: [%d/%d] %s (%s, %d group%s): %d new trials, best %.1f GFLOP/s at knobs %d %d %d %d, %.0f s\n",
                    done, n_sel, tasks[i].workload, tasks[i].node, tasks[i].count, tasks[i].count > 1 ? "s" : "", t.measured,
                    isfinite(best_ms) ? tasks[i].flops / best_ms / 1e6 : 0.0, best[0], best[1], best[2], best[3],
                    now_s() - t0);
        free(pk), free(pms), free(pst);
    }
    if (!quiet)
        fprintf(stderr, "ctvm-tune: %d tasks, %d new trials in %.0f s; records in %s\n", done, total_new,
                now_s() - t0, out);
    rmdir(dir);
    tune_records_free(&prior);
    free(sel);
    graph_free(g);
    return 0;
}
