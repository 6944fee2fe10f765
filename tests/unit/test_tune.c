/* test_tune.c - the tuner's library: records (JSON lines written, read
 * back, filtered, bad lines reported by line number). */
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
#include <unistd.h>

#include <cmocka.h>

#include "tune/records.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_record_json_line),
        cmocka_unit_test(test_records_roundtrip),
        cmocka_unit_test(test_records_bad_lines),
        cmocka_unit_test(test_records_missing_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
