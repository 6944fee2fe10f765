/* test_tune.c - the tuner's library: records (JSON lines written, read
 * back, filtered, bad lines reported by line number), the search (on
 * synthetic cost functions: finds the optimum in a small share of the
 * space, deterministic, never re-measures, never picks a failed point,
 * resumes, stops), and measurement in child processes (timeouts, large
 * output, crashes, the output protocol, the runner prefix, parallel builds). */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tune/measure.h"
#include "tune/records.h"
#include "tune/search.h"
#include "tune/spawn.h"

/* a shell command as an argument vector, where a test wants a shell */
#define SH(script) ((char *[]){"/bin/sh", "-c", (script), NULL})

/* ---- records ---- */

typedef struct TmpDir {
    char dir[64], path[128];
} TmpDir;

static void tmp_open(TmpDir *t, const char *name)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/ctvm_tune_XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/%s", t->dir, name);
}

static void tmp_close(TmpDir *t)
{
    unlink(t->path);
    rmdir(t->dir);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static TuneRecord make_record(const char *workload, const char *target, const int *knobs,
                              TuneStatus st, double ms)
{
    TuneRecord r;
    memset(&r, 0, sizeof r);
    snprintf(r.workload, sizeof r.workload, "%s", workload);
    snprintf(r.target, sizeof r.target, "%s", target);
    snprintf(r.ctvm_version, sizeof r.ctvm_version, "0.3");
    r.threads = 2;
    memcpy(r.knobs, knobs, sizeof r.knobs);
    r.status = st;
    r.median_ms = ms;
    if (st == TUNE_OK) {
        r.n_runs = 3;
        r.runs_ms[0] = ms * 1.1;
        r.runs_ms[1] = ms;
        r.runs_ms[2] = ms * 0.9;
        r.gflops = 95.5;
    } else {
        snprintf(r.error, sizeof r.error, "exit status 1; last output: boom");
    }
    return r;
}

static void test_status_names(void **state)
{
    (void)state;
    for (int s = TUNE_OK; s <= TUNE_WRONG; s++) {
        TuneStatus back;
        assert_int_equal(tune_status_parse(tune_status_name((TuneStatus)s), &back), 0);
        assert_int_equal(back, s);
    }
    TuneStatus x;
    assert_int_equal(tune_status_parse("fast", &x), -1);
    assert_string_equal(tune_status_name(TUNE_BUILD_FAIL), "build_fail");
}

/* The exact line: keys in a fixed order, compact, short numbers. */
static void test_record_json_line(void **state)
{
    (void)state;
    const int k[TUNE_MAX_KNOBS] = {6, 2, 1, 0};
    TuneRecord r = make_record("conv:1x64x56x56", "x86_64-avx512", k, TUNE_OK, 0.125);
    r.timestamp = 1700000000;
    char err[256];
    char *text = tune_record_to_json(&r, err, sizeof err);
    assert_non_null(text);
    assert_string_equal(text, "{\"v\":1,\"ctvm\":\"0.3\",\"target\":\"x86_64-avx512\","
                              "\"workload\":\"conv:1x64x56x56\",\"threads\":2,\"knobs\":[6,2,1,0],"
                              "\"status\":\"ok\",\"median_ms\":0.125,\"gflops\":95.5,"
                              "\"runs_ms\":[0.1375,0.125,0.1125],\"error\":\"\",\"time\":1700000000}");
    TuneRecord back;
    assert_int_equal(tune_record_from_json(text, &back, err, sizeof err), 0);
    assert_memory_equal(back.knobs, k, sizeof back.knobs);
    assert_int_equal(back.n_runs, 3);
    assert_true(back.timestamp == 1700000000);
    free(text);

    TuneRecord bad = make_record("w", "t", k, TUNE_OK, NAN);
    assert_null(tune_record_to_json(&bad, err, sizeof err));
    assert_non_null(strstr(err, "median_ms"));
}

static void test_records_roundtrip(void **state)
{
    (void)state;
    TmpDir t;
    tmp_open(&t, "records.json");
    const int k1[4] = {6, 2, 1, 0}, k2[4] = {4, 2, 1, 0}, k3[4] = {8, 1, 2, 0};
    TuneRecord rs[] = {
        make_record("convA", "x86_64-avx512", k1, TUNE_OK, 0.5),
        make_record("convA", "x86_64-avx512", k2, TUNE_OK, 0.25),
        make_record("convA", "x86_64-avx512", k3, TUNE_WRONG, 0.01), /* fast but wrong */
        make_record("convA", "aarch64", k1, TUNE_OK, 0.1),
        make_record("convB", "x86_64-avx512", k1, TUNE_TIMEOUT, NAN),
    };
    snprintf(rs[3].ctvm_version, sizeof rs[3].ctvm_version, "0.3");
    char err[512];
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        assert_int_equal(tune_record_append(t.path, &rs[i], err, sizeof err), 0);
    TuneRecord old = make_record("convA", "x86_64-avx512", k1, TUNE_OK, 0.001);
    snprintf(old.ctvm_version, sizeof old.ctvm_version, "0.2");
    assert_int_equal(tune_record_append(t.path, &old, err, sizeof err), 0);

    TuneRecordSet s = {0};
    assert_int_equal(tune_records_load(t.path, "x86_64-avx512", "0.3", &s, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(s.n, 4);
    assert_int_equal(s.skipped_target, 1);
    assert_int_equal(s.skipped_version, 1);
    assert_int_equal(s.skipped_bad, 0);
    assert_string_equal(s.rec[2].error, rs[2].error);
    assert_int_equal(s.rec[3].status, TUNE_TIMEOUT);
    assert_true(isnan(s.rec[3].median_ms));

    const TuneRecord *best = tune_records_best(&s, "convA", 2);
    assert_non_null(best);
    assert_memory_equal(best->knobs, k2, sizeof best->knobs);
    assert_float_equal(best->median_ms, 0.25, 1e-12);
    assert_null(tune_records_best(&s, "convB", 2)); /* only a failed record */
    assert_null(tune_records_best(&s, "convA", 1));
    assert_int_equal(tune_records_find(&s, "convA", 2, k3), 2); /* failed ones count */
    assert_int_equal(tune_records_find(&s, "convB", 2, k1), 3);
    assert_int_equal(tune_records_find(&s, "convB", 2, k2), -1);
    tune_records_free(&s);

    TuneRecordSet all = {0};
    assert_int_equal(tune_records_load(t.path, NULL, NULL, &all, err, sizeof err), 0);
    assert_int_equal(all.n, 6);
    assert_int_equal(tune_records_add(&all, &rs[0]), 0);
    assert_int_equal(all.n, 7);
    tune_records_free(&all);
    tmp_close(&t);
}

/* Records made for x86_64-avx512 apply to x86_64-avx512-vnni (Target.base:
 * same header, width and registers); not the other way, and not to an
 * unrelated target; the VNNI target's own records apply to it too. */
static void test_records_base_target(void **state)
{
    (void)state;
    TmpDir t;
    tmp_open(&t, "records.json");
    const int k1[4] = {6, 2, 1, 0}, k2[4] = {4, 2, 1, 0};
    TuneRecord rs[] = {
        make_record("convA", "x86_64-avx512", k1, TUNE_OK, 0.5),
        make_record("convB", "x86_64-avx512-vnni", k2, TUNE_OK, 0.25),
        make_record("convA", "x86_64-avx2", k2, TUNE_OK, 0.125),
    };
    char err[512];
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        assert_int_equal(tune_record_append(t.path, &rs[i], err, sizeof err), 0);
    TuneRecordSet s = {0};
    assert_int_equal(tune_records_load(t.path, "x86_64-avx512-vnni", "0.3", &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.skipped_target, 1);
    const TuneRecord *best = tune_records_best(&s, "convA", 2);
    assert_non_null(best);
    assert_memory_equal(best->knobs, k1, sizeof best->knobs); /* the avx512 record, not avx2's */
    tune_records_free(&s);
    assert_int_equal(tune_records_load(t.path, "x86_64-avx512", "0.3", &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1); /* not the VNNI target's */
    assert_int_equal(s.skipped_target, 2);
    tune_records_free(&s);
    /* the BF16 target extends x86_64-avx512 too: the avx512 record applies, not the VNNI target's */
    assert_int_equal(tune_records_load(t.path, "x86_64-avx512-bf16", "0.3", &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1);
    assert_memory_equal(s.rec[0].knobs, k1, sizeof k1);
    tune_records_free(&s);
    assert_int_equal(tune_records_load(t.path, "x86_64-avx2-vnni", "0.3", &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1); /* avx2's */
    assert_memory_equal(s.rec[0].knobs, k2, sizeof k2);
    tune_records_free(&s);
    tmp_close(&t);
}

static void test_records_bad_lines(void **state)
{
    (void)state;
    TmpDir t;
    tmp_open(&t, "records.json");
    const int k[4] = {1, 2, 3, 4};
    TuneRecord r = make_record("w", "x86_64-avx2", k, TUNE_OK, 1.0);
    char good[2048], err[1024];
    char *line = tune_record_to_json(&r, err, sizeof err);
    assert_non_null(line);
    snprintf(good, sizeof good,
             "%s\n"
             "this is not json\n"
             "\n"
             "{\"v\":1,\"ctvm\":\"0.3\",\"target\":\"x86_64-avx2\",\"threads\":1}\n"
             "{\"v\":2,\"whatever\":true}\n"
             "[1,2]\n"
             "%s\n"
             "{\"v\":1,\"ctvm\":\"0.3\",\"tar", /* an interrupted write */
             line, line);
    free(line);
    write_text(t.path, good);

    TuneRecordSet s = {0};
    assert_int_equal(tune_records_load(t.path, "x86_64-avx2", "0.3", &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.skipped_bad, 4);
    assert_int_equal(s.skipped_version, 1);
    char want[256];
    snprintf(want, sizeof want, "%s:2: not a tuning record (invalid JSON", t.path);
    assert_non_null(strstr(err, want));
    snprintf(want, sizeof want, "%s:4: not a tuning record (no \"workload\")", t.path);
    assert_non_null(strstr(err, want));
    snprintf(want, sizeof want, "%s:6: not a tuning record (not a JSON object)", t.path);
    assert_non_null(strstr(err, want));
    snprintf(want, sizeof want, "%s:8: not a tuning record (", t.path);
    assert_non_null(strstr(err, want));
    tune_records_free(&s);

    /* Appending after the partial line starts a new line. */
    assert_int_equal(tune_record_append(t.path, &r, err, sizeof err), 0);
    assert_int_equal(tune_records_load(t.path, NULL, NULL, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.skipped_bad, 4);
    tune_records_free(&s);

    /* Warnings that do not fit end with "...". */
    char small[120];
    assert_int_equal(tune_records_load(t.path, NULL, NULL, &s, small, sizeof small), 0);
    assert_non_null(strstr(small, "...\n"));
    tune_records_free(&s);
    tmp_close(&t);
}

static void test_records_missing_and_empty(void **state)
{
    (void)state;
    TuneRecordSet s = {0};
    char err[256];
    assert_int_equal(tune_records_load("/nonexistent/records.json", NULL, NULL, &s, err,
                                       sizeof err),
                     -1);
    assert_string_equal(err, "cannot open /nonexistent/records.json: No such file or directory");
    TmpDir t;
    tmp_open(&t, "empty.json");
    write_text(t.path, "");
    assert_int_equal(tune_records_load(t.path, NULL, NULL, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 0);
    tune_records_free(&s);
    const int k[4] = {0};
    TuneRecord r = make_record("w", "t", k, TUNE_OK, 1.0);
    assert_int_equal(tune_record_append("/nonexistent/r.json", &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot append to /nonexistent/r.json: "));
    tmp_close(&t);
}

/* ---- search ---- */

/* 8 x 8 x 4 x 6 = 1536 points; knob values are 1..n (knob 0 like T). */
static TuneSpace space_1536(void)
{
    TuneSpace sp = {.n_knobs = 4, .n_values = {8, 8, 4, 6}};
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < sp.n_values[k]; j++)
            sp.values[k][j] = j + 1;
    return sp;
}

/* A smooth tilted bowl with its minimum between grid points. */
static double cost_bowl(const int *v)
{
    double a = v[0] - 6.3, b = v[1] - 3.2, c = v[2] - 2.6, d = v[3] - 4.9;
    return 1.0 + 0.05 * a * a + 0.08 * b * b + 0.2 * c * c + 0.03 * d * d + 0.02 * a * b;
}

/* The bowl made rugged the way real kernels are: tiles that do not divide
 * 56 columns cost a third more, a parity-like interaction between two
 * knobs, and a high-frequency ripple. */
static double cost_rugged(const int *v)
{
    double f = cost_bowl(v);
    if (56 % v[0])
        f *= 1.35;
    if ((v[1] + v[3]) % 3 == 0)
        f *= 1.15;
    return f * (1.0 + 0.08 * sin(v[0] * 2.1 + v[1] * 1.3 + v[2] * 0.7 + v[3] * 2.9));
}

static double cost_flat(const int *v)
{
    (void)v;
    return 2.0;
}

/* What a measure callback sees: the cost function, every measured point in
 * order, and a check that no point is measured twice. */
typedef struct Bench {
    double (*cost)(const int *v);
    double wrong_below; /* points faster than this are TUNE_WRONG */
    int n;
    int seen[4096][TUNE_MAX_KNOBS];
    int progress_calls;
    int (*forbidden)[TUNE_MAX_KNOBS]; /* measured by an earlier run */
    int n_forbidden;
} Bench;

static int same_knobs(const int *a, const int *b)
{
    return memcmp(a, b, TUNE_MAX_KNOBS * sizeof(int)) == 0;
}

static void bench_measure(void *user, int n, const int (*knobs)[TUNE_MAX_KNOBS], double *ms,
                          TuneStatus *st)
{
    Bench *b = user;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < b->n; j++)
            assert_false(same_knobs(b->seen[j], knobs[i]));
        for (int j = 0; j < b->n_forbidden; j++)
            assert_false(same_knobs(b->forbidden[j], knobs[i]));
        assert_true(b->n < 4096);
        memcpy(b->seen[b->n++], knobs[i], sizeof knobs[i]);
        ms[i] = b->cost(knobs[i]);
        st[i] = ms[i] < b->wrong_below ? TUNE_WRONG : TUNE_OK;
    }
}

static void bench_progress(void *user, int trials, double best_ms)
{
    Bench *b = user;
    assert_int_equal(trials, b->n);
    assert_true(best_ms > 0);
    b->progress_calls++;
}

/* The best value over the whole space (the grid the search avoids). */
static double grid_best(const TuneSpace *sp, double (*cost)(const int *), double above)
{
    double best = HUGE_VAL;
    int v[4];
    for (int a = 0; a < sp->n_values[0]; a++)
        for (int b = 0; b < sp->n_values[1]; b++)
            for (int c = 0; c < sp->n_values[2]; c++)
                for (int d = 0; d < sp->n_values[3]; d++) {
                    v[0] = sp->values[0][a], v[1] = sp->values[1][b];
                    v[2] = sp->values[2][c], v[3] = sp->values[3][d];
                    double x = cost(v);
                    if (x >= above && x < best)
                        best = x;
                }
    return best;
}

static Bench *bench_new(double (*cost)(const int *))
{
    Bench *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->cost = cost;
    b->wrong_below = -1;
    return b;
}

/* Within 2% of the optimum in at most 15% of the space (230 of 1536
 * trials), over 12 seeds, with and without early stopping. */
static void check_finds_optimum(double (*cost)(const int *))
{
    TuneSpace sp = space_1536();
    double opt = grid_best(&sp, cost, -1);
    for (uint64_t seed = 1; seed <= 12; seed++) {
        Bench *b = bench_new(cost);
        TuneSearchOpts o = {.seed = seed, .max_trials = 230, .batch = 8, .min_gain = 0.01,
                            .patience = seed % 2 ? 64 : 0, .progress = bench_progress};
        int best[TUNE_MAX_KNOBS];
        double best_ms = 0;
        int trials = tune_search(&sp, &o, bench_measure, b, best, &best_ms);
        assert_true(trials > 0 && trials <= 230);
        assert_int_equal(trials, b->n);
        assert_true(b->progress_calls > 0);
        assert_true(best_ms <= opt * 1.02);
        assert_float_equal(best_ms, cost(best), 0);
        free(b);
    }
}

static void test_search_bowl(void **state)
{
    (void)state;
    check_finds_optimum(cost_bowl);
}

static void test_search_rugged(void **state)
{
    (void)state;
    check_finds_optimum(cost_rugged);
}

static void test_search_deterministic(void **state)
{
    (void)state;
    TuneSpace sp = space_1536();
    Bench *a = bench_new(cost_rugged), *b = bench_new(cost_rugged), *c = bench_new(cost_rugged);
    TuneSearchOpts o = {.seed = 7, .max_trials = 100, .batch = 6};
    int best[TUNE_MAX_KNOBS];
    double ms;
    assert_int_equal(tune_search(&sp, &o, bench_measure, a, best, &ms), 100);
    assert_int_equal(tune_search(&sp, &o, bench_measure, b, best, &ms), 100);
    assert_memory_equal(a->seen, b->seen, sizeof a->seen[0] * 100);
    o.seed = 8;
    assert_int_equal(tune_search(&sp, &o, bench_measure, c, best, &ms), 100);
    assert_memory_not_equal(a->seen, c->seen, sizeof a->seen[0] * 100);
    free(a);
    free(b);
    free(c);
}

/* The initial points are measured first, in order. */
static void test_search_initial_first(void **state)
{
    (void)state;
    TuneSpace sp = space_1536();
    const int init[2][TUNE_MAX_KNOBS] = {{8, 8, 4, 6}, {1, 1, 1, 1}};
    Bench *b = bench_new(cost_bowl);
    TuneSearchOpts o = {.seed = 1, .max_trials = 20, .batch = 4, .initial = init, .n_initial = 2};
    int best[TUNE_MAX_KNOBS];
    double ms;
    assert_int_equal(tune_search(&sp, &o, bench_measure, b, best, &ms), 20);
    assert_true(same_knobs(b->seen[0], init[0]));
    assert_true(same_knobs(b->seen[1], init[1]));
    free(b);
}

/* The fastest points are wrong: the best is the fastest correct one. */
static void test_search_never_picks_failed(void **state)
{
    (void)state;
    TuneSpace sp = space_1536();
    double opt = grid_best(&sp, cost_bowl, -1);
    double limit = opt * 1.15; /* the ~dozens of points around the optimum are wrong */
    double opt_ok = grid_best(&sp, cost_bowl, limit);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        Bench *b = bench_new(cost_bowl);
        b->wrong_below = limit;
        TuneSearchOpts o = {.seed = seed, .max_trials = 300, .batch = 8};
        int best[TUNE_MAX_KNOBS];
        double ms = 0;
        assert_true(tune_search(&sp, &o, bench_measure, b, best, &ms) > 0);
        assert_true(ms >= limit);
        assert_true(cost_bowl(best) >= limit);
        assert_true(ms <= opt_ok * 1.02);
        free(b);
    }
    /* Nothing correct at all: -1 and best untouched. */
    Bench *b = bench_new(cost_bowl);
    b->wrong_below = HUGE_VAL;
    TuneSearchOpts o = {.seed = 3, .max_trials = 50};
    int best[TUNE_MAX_KNOBS] = {-7, -7, -7, -7};
    double ms = -7;
    assert_int_equal(tune_search(&sp, &o, bench_measure, b, best, &ms), -1);
    assert_int_equal(b->n, 50);
    assert_int_equal(best[0], -7);
    assert_true(ms == -7);
    free(b);
}

/* A second run given the first one's measurements never re-measures them,
 * and its best is at least as good. */
static void test_search_resume(void **state)
{
    (void)state;
    TuneSpace sp = space_1536();
    Bench *first = bench_new(cost_rugged);
    TuneSearchOpts o = {.seed = 5, .max_trials = 40, .batch = 8};
    int best1[TUNE_MAX_KNOBS], best2[TUNE_MAX_KNOBS];
    double ms1, ms2;
    assert_int_equal(tune_search(&sp, &o, bench_measure, first, best1, &ms1), 40);

    double prior_ms[40];
    TuneStatus prior_st[40];
    for (int i = 0; i < 40; i++) {
        prior_ms[i] = cost_rugged(first->seen[i]);
        prior_st[i] = i == 3 ? TUNE_BUILD_FAIL : TUNE_OK;
    }
    Bench *second = bench_new(cost_rugged);
    second->forbidden = first->seen;
    second->n_forbidden = 40;
    o.measured = (const int(*)[TUNE_MAX_KNOBS])first->seen;
    o.measured_ms = prior_ms;
    o.measured_status = prior_st;
    o.n_measured = 40;
    o.initial = (const int(*)[TUNE_MAX_KNOBS])first->seen; /* already measured: skipped */
    o.n_initial = 2;
    int trials = tune_search(&sp, &o, bench_measure, second, best2, &ms2);
    assert_int_equal(trials, 40);
    assert_int_equal(second->n, 40);
    assert_true(ms2 <= ms1 || same_knobs(best1, first->seen[3]));

    /* One new trial: the best is at least the best prior. */
    double best_prior = HUGE_VAL;
    for (int i = 0; i < 40; i++)
        if (prior_st[i] == TUNE_OK && prior_ms[i] < best_prior)
            best_prior = prior_ms[i];
    o.max_trials = 1;
    Bench *third = bench_new(cost_rugged);
    assert_int_equal(tune_search(&sp, &o, bench_measure, third, best2, &ms2), 1);
    assert_true(ms2 <= best_prior);
    free(first);
    free(second);
    free(third);
}

static void test_search_stops(void **state)
{
    (void)state;
    TuneSpace sp = space_1536();
    int best[TUNE_MAX_KNOBS];
    double ms;
    /* max_trials that is not a multiple of the batch. */
    Bench *b = bench_new(cost_bowl);
    TuneSearchOpts o = {.seed = 2, .max_trials = 21, .batch = 8};
    assert_int_equal(tune_search(&sp, &o, bench_measure, b, best, &ms), 21);
    assert_int_equal(b->n, 21);
    free(b);

    /* Patience on a flat function: stops after 16 trials without a gain,
     * checked per batch. */
    b = bench_new(cost_flat);
    o = (TuneSearchOpts){.seed = 2, .max_trials = 500, .batch = 8, .patience = 16,
                         .min_gain = 0.01};
    int trials = tune_search(&sp, &o, bench_measure, b, best, &ms);
    assert_true(trials >= 16 && trials <= 16 + 8 + 1);
    assert_float_equal(ms, 2.0, 0);
    free(b);

    /* A space of 3 x 2 points is exhausted: each measured once. */
    TuneSpace tiny = {.n_knobs = 2, .n_values = {3, 2}, .values = {{4, 8, 16}, {0, 1}}};
    b = bench_new(cost_flat);
    o = (TuneSearchOpts){.seed = 9, .max_trials = 100, .batch = 4};
    assert_int_equal(tune_search(&tiny, &o, bench_measure, b, best, &ms), 6);
    assert_int_equal(b->seen[0][2], 0); /* unused knobs are 0 */

    /* An invalid space. */
    TuneSpace bad = {.n_knobs = 5};
    assert_int_equal(tune_search(&bad, &o, bench_measure, b, best, &ms), -1);
    free(b);
}

/* ---- measurement ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 1 when pid is gone or a zombie (killed, not yet reaped by its new parent). */
static int process_dead(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    int dead = fgets(line, sizeof line, f) && strstr(line, ") Z ");
    fclose(f);
    return dead;
}

static void test_spawn_timeout_kills_group(void **state)
{
    (void)state;
    char out[256];
    int code = 0, timed_out = 0;
    double t0 = now_s();
    assert_int_equal(tune_spawn(SH("sleep 30 & echo $!; sleep 30"), 0.3, out, sizeof out, &code,
                                &timed_out),
                     0);
    double dt = now_s() - t0;
    assert_int_equal(timed_out, 1);
    assert_int_equal(code, 128 + SIGKILL);
    assert_true(dt >= 0.29 && dt < 0.8);
    long bg = atol(out);
    assert_true(bg > 0);
    int dead = 0;
    for (int i = 0; i < 100 && !(dead = process_dead(bg)); i++)
        usleep(10000);
    assert_true(dead);
}

static void test_spawn_output_and_status(void **state)
{
    (void)state;
    char out[4096];
    int code = -1, timed_out = -1;
    double t0 = now_s();
    assert_int_equal(tune_spawn(SH("head -c 1000000 /dev/zero | tr '\\0' x; echo; echo done >&2"),
                                5, out, sizeof out, &code, &timed_out),
                     0);
    assert_true(now_s() - t0 < 2);
    assert_int_equal(code, 0);
    assert_int_equal(timed_out, 0);
    assert_int_equal(strlen(out), sizeof out - 1);
    assert_int_equal(out[0], 'x');

    assert_int_equal(tune_spawn(SH("echo to-stderr >&2; exit 3"), 5, out, sizeof out, &code,
                                &timed_out),
                     0);
    assert_int_equal(code, 3);
    assert_string_equal(out, "to-stderr\n");
    assert_int_equal(tune_spawn(SH("kill -SEGV $$"), 5, out, sizeof out, &code, &timed_out), 0);
    assert_int_equal(code, 128 + SIGSEGV);
    /* A background child that keeps the pipe open does not hold us up. */
    t0 = now_s();
    assert_int_equal(tune_spawn(SH("sleep 30 & echo started"), 5, out, sizeof out, &code,
                                &timed_out),
                     0);
    assert_true(now_s() - t0 < 1);
    assert_int_equal(timed_out, 0);
    assert_string_equal(out, "started\n");
}

static void test_build_many(void **state)
{
    (void)state;
    char **cmds[4] = {SH("sleep 0.5; echo zero"), SH("sleep 0.5; echo one; exit 1"),
                      SH("sleep 0.5; echo two; exit 2"), SH("sleep 0.5; echo three")};
    TuneSpawnResult *res = calloc(5, sizeof *res);
    assert_non_null(res);
    double t0 = now_s();
    assert_int_equal(tune_build_many(4, cmds, 2, 5, res), 2);
    double dt = now_s() - t0;
    /* two at a time: two rounds of 0.5 s (one at a time would take 2 s,
       four at once 0.5 s); wide margins for a loaded CI machine */
    assert_true(dt >= 0.95 && dt < 1.9);
    const char *want[4] = {"zero\n", "one\n", "two\n", "three\n"};
    int codes[4] = {0, 1, 2, 0};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(res[i].out, want[i]);
        assert_int_equal(res[i].exit_code, codes[i]);
        assert_int_equal(res[i].timed_out, 0);
        assert_true(res[i].seconds >= 0.49 && res[i].seconds < 1.4);
    }

    /* A C file that does not compile, and one that does. */
    TmpDir t;
    tmp_open(&t, "bad.c");
    write_text(t.path, "int main(void) { return undeclared; }\n");
    char bad[256], good[256];
    snprintf(bad, sizeof bad, "cc -c -o /dev/null %s", t.path);
    snprintf(good, sizeof good, "echo 'int main(void) { return 0; }' | cc -x c -c -o /dev/null -");
    char **builds[2] = {SH(bad), SH(good)};
    assert_int_equal(tune_build_many(2, builds, 2, 30, res), 1);
    assert_int_not_equal(res[0].exit_code, 0);
    assert_non_null(strstr(res[0].out, "undeclared"));
    assert_int_equal(res[1].exit_code, 0);
    tmp_close(&t);

    /* A build that hangs times out; the others are unaffected. */
    char **hang[2] = {(char *[]){"sleep", "30", NULL}, (char *[]){"true", NULL}};
    assert_int_equal(tune_build_many(2, hang, 1, 0.2, res), 1);
    assert_int_equal(res[0].timed_out, 1);
    assert_int_equal(res[1].exit_code, 0);
    free(res);
}

/* Runs tune_build_and_run on four candidates (the third does not build)
   whose builds and runs log their start (+) and end (-), and returns the
   most builds seen going on while a candidate was being timed. */
static int build_and_run_overlap(int overlap, TuneRunResult *ran, double *seconds)
{
    char dir[] = "/tmp/ctvm_tune_XXXXXX", log[96], proto[96], cmd[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(proto, sizeof proto, "%s/proto.sh", dir);
    char script[512];
    snprintf(script, sizeof script,
             "#!/bin/sh\necho R+ >> %s; sleep 0.3; echo R- >> %s\n"
             "echo 'ctvm-tune: check ok max_err=0'; echo \"ctvm-tune: ms $1 $1\"\n",
             log, log);
    write_text(proto, script);
    assert_int_equal(chmod(proto, 0755), 0);
    char *builds[4], *exes[4], **build_argvs[4];
    for (int i = 0; i < 4; i++) {
        builds[i] = malloc(512);
        exes[i] = malloc(128);
        snprintf(exes[i], 128, "%s/c%d", dir, i);
        snprintf(builds[i], 512, "echo B+ >> %s; sleep 0.3; echo B- >> %s; %s", log, log,
                 i == 2 ? "echo 'c2.c:1: error: nope'; exit 1" : "");
        if (i != 2)
            snprintf(builds[i] + strlen(builds[i]), 512 - strlen(builds[i]), "cp %s %s", proto,
                     exes[i]);
        build_argvs[i] = malloc(4 * sizeof(char *));
        memcpy(build_argvs[i], SH(builds[i]), 4 * sizeof(char *));
    }
    TuneSpawnResult *built = calloc(4, sizeof *built);
    assert_non_null(built);
    double t0 = now_s();
    assert_int_equal(tune_build_and_run(4, build_argvs, NULL, exes, (char *[]){"4", NULL}, 2, overlap, 10, built, ran), 1);
    *seconds = now_s() - t0;
    assert_int_not_equal(built[2].exit_code, 0);
    assert_non_null(strstr(built[2].out, "error: nope"));
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    int building = 0, running = 0, most = 0, runs = 0;
    char line[16];
    while (fgets(line, sizeof line, f)) {
        building += line[0] == 'B' ? (line[1] == '+' ? 1 : -1) : 0;
        running += line[0] == 'R' ? (line[1] == '+' ? 1 : -1) : 0;
        runs += line[0] == 'R' && line[1] == '+';
        assert_true(running <= 1); /* one candidate timed at a time */
        if (running && building > most)
            most = building;
    }
    fclose(f);
    assert_int_equal(runs, 3);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    for (int i = 0; i < 4; i++)
        free(builds[i]), free(exes[i]), free(build_argvs[i]);
    free(built);
    return most;
}

static void test_build_and_run(void **state)
{
    (void)state;
    TuneRunResult ran[4];
    double quiet_s, overlapped_s;
    /* overlap 0: no build goes on while a candidate is timed */
    assert_int_equal(build_and_run_overlap(0, ran, &quiet_s), 0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ran[i].status, i == 2 ? TUNE_BUILD_FAIL : TUNE_OK);
        if (i != 2)
            assert_float_equal(ran[i].median_ms, 4, 0);
    }
    /* overlap 1: one build beside a run, never two; and the whole is
       shorter (0.3 s steps: 2 builds, then run + build, run + build, run
       = 1.2 s against 2 + 3 = 1.5 s at least without overlap) */
    assert_int_equal(build_and_run_overlap(1, ran, &overlapped_s), 1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(ran[i].status, i == 2 ? TUNE_BUILD_FAIL : TUNE_OK);
    assert_true(quiet_s >= 1.45);
    assert_true(overlapped_s < quiet_s);
}

static void test_median(void **state)
{
    (void)state;
    double a[] = {3, 1, 2};
    assert_float_equal(tune_median(a, 3), 2, 0);
    double b[] = {4, 1, 3, 2};
    assert_float_equal(tune_median(b, 4), 2.5, 0);
    double c[] = {7};
    assert_float_equal(tune_median(c, 1), 7, 0);
    assert_true(isnan(tune_median(c, 0)));
}

static void test_parse_run(void **state)
{
    (void)state;
    TuneRunResult r;
    tune_parse_run("warming up\nctvm-tune: check ok max_err=1.5e-06\n"
                   "ctvm-tune: ms 0.31 0.30 0.35 0.29 0.40\n",
                   0, 0, &r);
    assert_int_equal(r.status, TUNE_OK);
    assert_float_equal(r.median_ms, 0.31, 1e-12);
    assert_float_equal(r.max_err, 1.5e-6, 1e-18);
    assert_int_equal(r.n_runs, 5);
    assert_float_equal(r.runs_ms[4], 0.40, 0); /* in the order printed */
    assert_string_equal(r.error, "");

    tune_parse_run("ctvm-tune: check wrong max_err=0.5\nctvm-tune: ms 0.1\n", 0, 0, &r);
    assert_int_equal(r.status, TUNE_WRONG);
    assert_non_null(strstr(r.error, "max_err=0.5"));

    tune_parse_run("ctvm-tune: check ok max_err=0\n", 0, 0, &r);
    assert_int_equal(r.status, TUNE_RUN_FAIL);
    assert_non_null(strstr(r.error, "no 'ctvm-tune: ms' line"));

    tune_parse_run("ctvm-tune: check ok max_err=0\nctvm-tune: ms 0.1 fast\n", 0, 0, &r);
    assert_int_equal(r.status, TUNE_RUN_FAIL);
    tune_parse_run("ctvm-tune: check ok max_err=0\nctvm-tune: ms \n", 0, 0, &r);
    assert_int_equal(r.status, TUNE_RUN_FAIL);

    tune_parse_run("garbage\n\x01\x02 more garbage", 0, 0, &r);
    assert_int_equal(r.status, TUNE_RUN_FAIL);
    assert_non_null(strstr(r.error, "no 'ctvm-tune: check' line"));

    tune_parse_run("ctvm-tune: check ok max_err=0\nctvm-tune: ms 1\nSegfault in line 3\n\n", 4,
                   0, &r);
    assert_int_equal(r.status, TUNE_RUN_FAIL);
    assert_string_equal(r.error, "exit status 4; last output: Segfault in line 3");

    tune_parse_run("", 137, 1, &r);
    assert_int_equal(r.status, TUNE_TIMEOUT);
}

static void test_run_candidate(void **state)
{
    (void)state;
    TuneRunResult r;
    char *prog[] = {"-c", "echo \"ctvm-tune: check ok max_err=0\"; echo \"ctvm-tune: ms 3 1 2\"", NULL};
    assert_int_equal(tune_run_candidate(NULL, "/bin/sh", prog, 5, &r), 0);
    assert_int_equal(r.status, TUNE_OK);
    assert_float_equal(r.median_ms, 2, 0);

    /* The runner prefix really runs the program: here it sets the timing. */
    unsetenv("CTVM_X");
    char *env_prog[] = {"-c", "echo \"ctvm-tune: check ok max_err=0\"; echo \"ctvm-tune: ms $CTVM_X\"", NULL};
    assert_int_equal(tune_run_candidate("env CTVM_X=7.5", "/bin/sh", env_prog, 5, &r), 0);
    assert_float_equal(r.median_ms, 7.5, 0);
    assert_int_equal(tune_run_candidate("", "/bin/sh", env_prog, 5, &r), -1);
    assert_int_equal(r.status, TUNE_RUN_FAIL);

    /* A crash, a path with a space and a quote, a hang. */
    assert_int_equal(tune_run_candidate(NULL, "sh", (char *[]){"-c", "echo about to crash; kill -SEGV $$", NULL},
                                        5, &r),
                     -1);
    assert_int_equal(r.status, TUNE_RUN_FAIL);
    assert_non_null(strstr(r.error, "killed by signal 11"));

    assert_int_equal(tune_run_candidate(NULL, "/nonexistent/it's a candidate", NULL, 5, &r), -1);
    assert_int_equal(r.status, TUNE_RUN_FAIL);
    assert_int_equal(r.exit_code, -1); /* could not be started */
    assert_non_null(strstr(r.error, "cannot run '/nonexistent/it's a candidate': No such file"));

    double t0 = now_s();
    assert_int_equal(tune_run_candidate(NULL, "sleep", (char *[]){"30", NULL}, 0.3, &r), -1);
    assert_int_equal(r.status, TUNE_TIMEOUT);
    assert_true(now_s() - t0 < 0.8);
}

/* Options split on blanks into argv words; nothing in them interpreted, and
   a child sees every word as it was (no shell between). */
static void test_spawn_argv_no_shell(void **state)
{
    (void)state;
    ArgList l = {0};
    arglist_add_words(&l, "  ccache\tgcc  -O2\n'-DX=a b' $(id) ; * ");
    arglist_add_words(&l, NULL);
    arglist_add_words(&l, " \t ");
    const char *want[] = {"ccache", "gcc", "-O2", "'-DX=a", "b'", "$(id)", ";", "*"};
    assert_int_equal(l.n, 8);
    for (int i = 0; i < 8; i++)
        assert_string_equal(l.argv[i], want[i]);
    assert_null(l.argv[8]);
    arglist_free(&l);

    char dir[] = "/tmp/ctvm_spawn_XXXXXX", pwned[64], pay1[128], pay2[128], pay3[128];
    assert_non_null(mkdtemp(dir));
    snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
    snprintf(pay1, sizeof pay1, "x';touch %s;'", pwned);
    snprintf(pay2, sizeof pay2, "$(touch %s)", pwned);
    snprintf(pay3, sizeof pay3, "`touch %s`", pwned);
    char *argv[] = {"printf", "[%s]", pay1, pay2, pay3, NULL}, out[1024], expect[1024];
    int code = -1, timed_out = -1;
    assert_int_equal(tune_spawn(argv, 5, out, sizeof out, &code, &timed_out), 0);
    assert_int_equal(code, 0);
    snprintf(expect, sizeof expect, "[%s][%s][%s]", pay1, pay2, pay3);
    assert_string_equal(out, expect);
    char *text = NULL;
    assert_int_equal(spawn_capture(argv, &text), 0);
    assert_string_equal(text, expect);
    free(text);
    /* the runner's words come before the program, the program is one word */
    TuneRunResult r;
    assert_int_equal(tune_run_candidate("printf [%s]", pay1, (char *[]){pay2, NULL}, 5, &r), -1);
    snprintf(expect, sizeof expect, "[%s][%s]", pay1, pay2);
    assert_non_null(strstr(r.error, expect));
    assert_int_equal(access(pwned, F_OK), -1);
    assert_int_equal(rmdir(dir), 0);

    /* spawn_capture: stderr merged, exit status, signals, a missing program */
    assert_int_equal(spawn_capture(SH("echo out; echo err >&2; exit 3"), &text), 3);
    assert_string_equal(text, "out\nerr\n");
    free(text);
    assert_int_equal(spawn_capture(SH("kill -SEGV $$"), &text), 128 + SIGSEGV);
    free(text);
    assert_int_equal(spawn_capture((char *[]){"/nonexistent/cc", "-c", NULL}, &text), -1);
    assert_non_null(strstr(text, "cannot run '/nonexistent/cc': No such file or directory"));
    free(text);
    /* more output than the first buffer holds is all kept */
    assert_int_equal(spawn_capture(SH("head -c 300000 /dev/zero | tr '\\0' x"), &text), 0);
    assert_int_equal(strlen(text), 300000);
    free(text);
}

/* tune_records_choose: with the default confirmed, knob sets are compared
   by the median of their measurements and must beat the default by more
   than min_gain; a single lucky measurement never wins. */
static void test_records_choose(void **state)
{
    (void)state;
    static const int dflt[4] = {0, 0, 0, 0}, lucky[4] = {3, 1, 0, 0}, good[4] = {2, 2, 0, 0};
    TuneRecordSet s = {0};
    double dms[3] = {1.0, 1.1, 0.9}, gms[3] = {0.8, 0.85, 0.82};
    TuneRecord r = make_record("w", "t", dflt, TUNE_OK, 1.0);
    assert_int_equal(tune_records_add(&s, &r), 0);
    r = make_record("w", "t", lucky, TUNE_OK, 0.5); /* once only */
    assert_int_equal(tune_records_add(&s, &r), 0);
    /* default measured once: the single fastest record */
    assert_memory_equal(tune_records_choose(&s, "w", 2, 0.02)->knobs, lucky, sizeof lucky);
    for (int i = 1; i < 3; i++) {
        r = make_record("w", "t", dflt, TUNE_OK, dms[i]);
        assert_int_equal(tune_records_add(&s, &r), 0);
    }
    /* confirmed default, nothing else confirmed: the default */
    assert_memory_equal(tune_records_choose(&s, "w", 2, 0.02)->knobs, dflt, sizeof dflt);
    for (int i = 0; i < 3; i++) {
        r = make_record("w", "t", good, TUNE_OK, gms[i]);
        assert_int_equal(tune_records_add(&s, &r), 0);
    }
    /* median 0.82 against 1.0: the confirmed faster set */
    assert_memory_equal(tune_records_choose(&s, "w", 2, 0.02)->knobs, good, sizeof good);
    /* unless the gain asked for is larger */
    assert_memory_equal(tune_records_choose(&s, "w", 2, 0.25)->knobs, dflt, sizeof dflt);
    assert_null(tune_records_choose(&s, "other", 2, 0.02));
    tune_records_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_record_json_line),
        cmocka_unit_test(test_records_roundtrip),
        cmocka_unit_test(test_records_choose),
        cmocka_unit_test(test_records_base_target),
        cmocka_unit_test(test_records_bad_lines),
        cmocka_unit_test(test_records_missing_and_empty),
        cmocka_unit_test(test_search_bowl),
        cmocka_unit_test(test_search_rugged),
        cmocka_unit_test(test_search_deterministic),
        cmocka_unit_test(test_search_initial_first),
        cmocka_unit_test(test_search_never_picks_failed),
        cmocka_unit_test(test_search_resume),
        cmocka_unit_test(test_search_stops),
        cmocka_unit_test(test_spawn_timeout_kills_group),
        cmocka_unit_test(test_spawn_output_and_status),
        cmocka_unit_test(test_build_many),
        cmocka_unit_test(test_build_and_run),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_parse_run),
        cmocka_unit_test(test_run_candidate),
        cmocka_unit_test(test_spawn_argv_no_shell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
