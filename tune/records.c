/* records.c - tuning records as JSON lines through jansson (see records.h).
 *
 * Writing: one compact object per line, keys in a fixed order, appended
 * with a single write(2) on an O_APPEND descriptor, so concurrent or
 * interrupted runs never interleave half lines; only to a regular file or
 * a new one (out_open_append). Reading: every line is
 * checked field by field; what is not a record is counted and reported
 * with its line number instead of stopping the load. */
#include "records.h"
#include "ir/target.h"
#include "measure.h"
#include "frontend/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const STATUS_NAMES[] = {
    [TUNE_OK] = "ok",           [TUNE_BUILD_FAIL] = "build_fail", [TUNE_RUN_FAIL] = "run_fail",
    [TUNE_TIMEOUT] = "timeout", [TUNE_WRONG] = "wrong",
};
enum { N_STATUS = sizeof STATUS_NAMES / sizeof STATUS_NAMES[0] };

const char *tune_status_name(TuneStatus s)
{
    return (unsigned)s < N_STATUS ? STATUS_NAMES[s] : "?";
}

int tune_status_parse(const char *name, TuneStatus *out)
{
    for (int i = 0; i < N_STATUS; i++)
        if (name && strcmp(name, STATUS_NAMES[i]) == 0) {
            *out = (TuneStatus)i;
            return 0;
        }
    return -1;
}

static int fail(char *err, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errcap, const char *fmt, ...)
{
    if (err && errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errcap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- writing ---- */

/* A JSON number, or null for NaN/infinity (which JSON cannot hold). */
static json_t *json_number_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* The error text as a JSON string; bytes that are not valid UTF-8 (a
 * truncated compiler message) become '?'. */
static json_t *json_error_text(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char ascii[sizeof ((TuneRecord *)0)->error];
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof ascii; i++)
        ascii[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
    ascii[i] = '\0';
    return json_string(ascii);
}

static int put(json_t *o, const char *key, json_t *v, char *err, size_t errcap)
{
    if (!v || json_object_set_new(o, key, v) != 0)
        return fail(err, errcap, "field \"%s\" cannot be written (not UTF-8?)", key);
    return 0;
}

#define TERMINATED(field) (strnlen((field), sizeof(field)) < sizeof(field))

char *tune_record_to_json(const TuneRecord *r, char *err, size_t errcap)
{
    if (!TERMINATED(r->workload) || !TERMINATED(r->target) || !TERMINATED(r->ctvm_version) ||
        !TERMINATED(r->error)) {
        fail(err, errcap, "a string field of the record is not NUL-terminated");
        return NULL;
    }
    if (r->n_runs < 0 || r->n_runs > TUNE_MAX_RUNS) {
        fail(err, errcap, "n_runs %d is outside 0..%d", r->n_runs, TUNE_MAX_RUNS);
        return NULL;
    }
    if (r->status == TUNE_OK && !(isfinite(r->median_ms) && r->median_ms >= 0)) {
        fail(err, errcap, "an ok record needs a finite median_ms >= 0, not %g", r->median_ms);
        return NULL;
    }
    json_t *o = json_object(), *knobs = json_array(), *runs = json_array();
    int rc = o && knobs && runs ? 0 : fail(err, errcap, "out of memory");
    for (int i = 0; rc == 0 && i < TUNE_MAX_KNOBS; i++)
        if (json_array_append_new(knobs, json_integer(r->knobs[i])) != 0)
            rc = fail(err, errcap, "out of memory");
    for (int i = 0; rc == 0 && i < r->n_runs; i++)
        if (json_array_append_new(runs, json_number_or_null(r->runs_ms[i])) != 0)
            rc = fail(err, errcap, "out of memory");
    if (rc == 0)
        rc = put(o, "v", json_integer(TUNE_FORMAT_VERSION), err, errcap) ||
             put(o, "ctvm", json_string(r->ctvm_version), err, errcap) ||
             put(o, "target", json_string(r->target), err, errcap) ||
             put(o, "workload", json_string(r->workload), err, errcap) ||
             put(o, "threads", json_integer(r->threads), err, errcap) ||
             put(o, "knobs", json_incref(knobs), err, errcap) ||
             put(o, "status", json_string(tune_status_name(r->status)), err, errcap) ||
             put(o, "median_ms", json_number_or_null(r->median_ms), err, errcap) ||
             put(o, "gflops", json_number_or_null(r->gflops), err, errcap) ||
             put(o, "runs_ms", json_incref(runs), err, errcap) ||
             put(o, "error", json_error_text(r->error), err, errcap) ||
             (r->timestamp != 0 && put(o, "time", json_integer(r->timestamp), err, errcap))
                 ? -1
                 : 0;
    char *text = NULL;
    if (rc == 0) {
        text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
        if (!text)
            fail(err, errcap, "cannot format the record as JSON");
    }
    json_decref(knobs);
    json_decref(runs);
    json_decref(o);
    return text;
}

/* 1 if the file is non-empty and does not end in '\n', 0 if it does or is
 * empty, -1 on a read error. */
static int ends_in_partial_line(int fd)
{
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0)
        return -1;
    if (size == 0)
        return 0;
    char last;
    if (pread(fd, &last, 1, size - 1) != 1)
        return -1;
    return last != '\n';
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int tune_record_append(const char *path, const TuneRecord *r, char *err, size_t errcap)
{
    char why[256];
    char *text = tune_record_to_json(r, why, sizeof why);
    if (!text)
        return fail(err, errcap, "cannot append to %s: %s", path, why);
    size_t len = strlen(text);
    char *line = malloc(len + 3);
    if (!line) {
        free(text);
        return fail(err, errcap, "cannot append to %s: out of memory", path);
    }
    int fd = out_open_append(path, why, sizeof why); /* a regular file or a new one only */
    int rc = 0;
    if (fd < 0) {
        rc = fail(err, errcap, "cannot append to %s: %s", path, why);
    } else {
        int partial = ends_in_partial_line(fd);
        size_t n = 0;
        if (partial > 0)
            line[n++] = '\n';
        memcpy(line + n, text, len);
        n += len;
        line[n++] = '\n';
        if (partial < 0 || write_all(fd, line, n) != 0)
            rc = fail(err, errcap, "cannot append to %s: %s", path, strerror(errno));
        if (close(fd) != 0 && rc == 0)
            rc = fail(err, errcap, "cannot append to %s: %s", path, strerror(errno));
    }
    free(line);
    free(text);
    return rc;
}

/* ---- reading ---- */

static int get_string(json_t *o, const char *key, char *dst, size_t cap, int required,
                      char *err, size_t errcap)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        dst[0] = '\0';
        return required ? fail(err, errcap, "no \"%s\"", key) : 0;
    }
    if (!json_is_string(v))
        return fail(err, errcap, "\"%s\" is not a string", key);
    if (json_string_length(v) >= cap)
        return fail(err, errcap, "\"%s\" is longer than %zu bytes", key, cap - 1);
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    return 0;
}

static int get_int(json_t *o, const char *key, long long lo, long long hi, long long *dst,
                   int required, char *err, size_t errcap)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return required ? fail(err, errcap, "no \"%s\"", key) : 0;
    if (!json_is_integer(v))
        return fail(err, errcap, "\"%s\" is not an integer", key);
    long long x = json_integer_value(v);
    if (x < lo || x > hi)
        return fail(err, errcap, "\"%s\" = %lld is outside %lld..%lld", key, x, lo, hi);
    *dst = x;
    return 0;
}

/* A number, or null (NaN); missing gives NaN too. */
static int get_number(json_t *o, const char *key, double *dst, char *err, size_t errcap)
{
    json_t *v = json_object_get(o, key);
    *dst = NAN;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return fail(err, errcap, "\"%s\" is not a number", key);
    *dst = json_number_value(v);
    return 0;
}

/* 0: r filled; 1: a record of another format version (*version set);
 * -1: not a record, err says why. */
static int parse_record(json_t *o, TuneRecord *r, long long *version, char *err, size_t errcap)
{
    memset(r, 0, sizeof *r);
    if (!json_is_object(o))
        return fail(err, errcap, "not a JSON object");
    if (get_int(o, "v", 0, 1000000, version, 1, err, errcap) != 0)
        return -1;
    if (*version != TUNE_FORMAT_VERSION)
        return 1;
    long long threads = 0, stamp = 0;
    char status[32];
    if (get_string(o, "ctvm", r->ctvm_version, sizeof r->ctvm_version, 1, err, errcap) ||
        get_string(o, "target", r->target, sizeof r->target, 1, err, errcap) ||
        get_string(o, "workload", r->workload, sizeof r->workload, 1, err, errcap) ||
        get_int(o, "threads", 0, 1 << 20, &threads, 1, err, errcap) ||
        get_string(o, "status", status, sizeof status, 1, err, errcap) ||
        get_number(o, "median_ms", &r->median_ms, err, errcap) ||
        get_number(o, "gflops", &r->gflops, err, errcap) ||
        get_string(o, "error", r->error, sizeof r->error, 0, err, errcap) ||
        get_int(o, "time", 0, (long long)1 << 62, &stamp, 0, err, errcap))
        return -1;
    r->threads = (int)threads;
    r->timestamp = stamp;
    if (tune_status_parse(status, &r->status) != 0)
        return fail(err, errcap, "unknown status \"%s\"", status);
    if (r->status == TUNE_OK && !(isfinite(r->median_ms) && r->median_ms >= 0))
        return fail(err, errcap, "status ok without a median_ms >= 0");
    if (isnan(r->gflops))
        r->gflops = 0;

    json_t *knobs = json_object_get(o, "knobs");
    size_t nk = json_array_size(knobs);
    if (!json_is_array(knobs) || nk < 1 || nk > TUNE_MAX_KNOBS)
        return fail(err, errcap, "\"knobs\" is not an array of 1..%d integers", TUNE_MAX_KNOBS);
    for (size_t i = 0; i < nk; i++) {
        json_t *k = json_array_get(knobs, i);
        if (!json_is_integer(k) || json_integer_value(k) < -(1LL << 31) + 1 ||
            json_integer_value(k) > (1LL << 31) - 1)
            return fail(err, errcap, "knob %zu is not an int", i);
        r->knobs[i] = (int)json_integer_value(k);
    }

    json_t *runs = json_object_get(o, "runs_ms");
    if (runs && !json_is_array(runs))
        return fail(err, errcap, "\"runs_ms\" is not an array");
    for (size_t i = 0; i < json_array_size(runs) && i < TUNE_MAX_RUNS; i++) {
        json_t *t = json_array_get(runs, i);
        if (!json_is_number(t))
            return fail(err, errcap, "runs_ms[%zu] is not a number", i);
        r->runs_ms[r->n_runs++] = json_number_value(t);
    }
    return 0;
}

int tune_record_from_json(const char *line, TuneRecord *r, char *err, size_t errcap)
{
    json_error_t je;
    json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &je);
    if (!o)
        return fail(err, errcap, "invalid JSON at column %d: %s", je.column, je.text);
    long long v = 0;
    int rc = parse_record(o, r, &v, err, errcap);
    json_decref(o);
    if (rc == 1)
        return fail(err, errcap, "format version %lld, this ctvm reads %d", v,
                    TUNE_FORMAT_VERSION);
    return rc;
}

/* Appends "msg\n" to the warnings in buf; once full, ends them with "...\n". */
static void add_warning(char *buf, size_t cap, const char *msg)
{
    if (!buf || cap == 0)
        return;
    size_t len = strlen(buf), m = strlen(msg);
    if (len >= 4 && strcmp(buf + len - 4, "...\n") == 0)
        return;
    if (len + m + 2 + 4 <= cap)
        snprintf(buf + len, cap - len, "%s\n", msg);
    else if (len + 5 <= cap)
        snprintf(buf + len, cap - len, "...\n");
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return 0;
    return 1;
}

/* A record made for rec_target applies to target: the same name, or the
 * target this one extends (Target.base: x86_64-avx512's records apply to
 * x86_64-avx512-vnni and x86_64-avx512-bf16, whose header, width and registers are
 * the same). */
static int target_applies(const char *target, const char *rec_target)
{
    if (strcmp(rec_target, target) == 0)
        return 1;
    const Target *t = target_find(target);
    return t && t->base && strcmp(t->base, rec_target) == 0;
}

int tune_records_load(const char *path, const char *target, const char *version,
                      TuneRecordSet *out, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errcap, "cannot open %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t linecap = 0;
    int lineno = 0, rc = 0;
    while (getline(&line, &linecap, f) >= 0) {
        lineno++;
        if (blank(line))
            continue;
        char why[256], msg[512];
        TuneRecord r;
        long long v = 0;
        json_error_t je;
        json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &je);
        int kind = o ? parse_record(o, &r, &v, why, sizeof why) : -1;
        if (!o)
            snprintf(why, sizeof why, "invalid JSON at column %d: %s", je.column, je.text);
        json_decref(o);
        if (kind < 0) {
            out->skipped_bad++;
            snprintf(msg, sizeof msg, "%s:%d: not a tuning record (%s)", path, lineno, why);
            add_warning(err, errcap, msg);
        } else if (kind == 1 || (version && strcmp(r.ctvm_version, version) != 0)) {
            out->skipped_version++;
        } else if (target && !target_applies(target, r.target)) {
            out->skipped_target++;
        } else if (tune_records_add(out, &r) != 0) {
            rc = fail(err, errcap, "%s:%d: out of memory", path, lineno);
            break;
        }
    }
    if (rc == 0 && ferror(f))
        rc = fail(err, errcap, "cannot read %s: %s", path, strerror(errno));
    free(line);
    fclose(f);
    return rc;
}

void tune_records_free(TuneRecordSet *s)
{
    free(s->rec);
    memset(s, 0, sizeof *s);
}

int tune_records_load_report(const char *tool, const char *path, const char *target, const char *version,
                             TuneRecordSet *into)
{
    TuneRecordSet one = {0};
    char err[1024] = "";
    if (tune_records_load(path, target, version, &one, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", tool, err);
        return -1;
    }
    if (err[0]) /* the unreadable lines, one each */
        fputs(err, stderr);
    if (one.skipped_version || one.skipped_target || one.skipped_bad)
        fprintf(stderr, "%s: warning: %s: ignored %d records of another ctvm version, %d of another target than %s, "
                        "%d unreadable\n",
                tool, path, one.skipped_version, one.skipped_target, target ? target : "any", one.skipped_bad);
    int rc = 0;
    for (int k = 0; k < one.n && rc == 0; k++)
        rc = tune_records_add(into, &one.rec[k]);
    tune_records_free(&one);
    return rc;
}

int tune_records_add(TuneRecordSet *s, const TuneRecord *r)
{
    if (s->n == s->cap) {
        if (s->cap > (1 << 24))
            return -1;
        int cap = s->cap ? 2 * s->cap : 16;
        TuneRecord *p = realloc(s->rec, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        s->rec = p;
        s->cap = cap;
    }
    s->rec[s->n++] = *r;
    return 0;
}

const TuneRecord *tune_records_best(const TuneRecordSet *s, const char *workload, int threads)
{
    const TuneRecord *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const TuneRecord *r = &s->rec[i];
        if (r->status == TUNE_OK && r->threads == threads && strcmp(r->workload, workload) == 0 &&
            (!best || r->median_ms < best->median_ms))
            best = r;
    }
    return best;
}

/* the OK records of one knob set: count and median of their medians */
static int knob_stats(const TuneRecordSet *s, const char *workload, int threads, const int *knobs, double *med)
{
    double v[256];
    int n = 0;
    for (int i = 0; i < s->n && n < 256; i++) {
        const TuneRecord *r = &s->rec[i];
        if (r->status == TUNE_OK && r->threads == threads && !strcmp(r->workload, workload) &&
            !memcmp(r->knobs, knobs, sizeof r->knobs))
            v[n++] = r->median_ms;
    }
    *med = n ? tune_median(v, n) : HUGE_VAL;
    return n;
}

const TuneRecord *tune_records_choose(const TuneRecordSet *s, const char *workload, int threads, double min_gain)
{
    static const int zero[TUNE_MAX_KNOBS] = {0};
    double dmed;
    if (knob_stats(s, workload, threads, zero, &dmed) < 2) /* not confirmed: one measurement each */
        return tune_records_best(s, workload, threads);
    const TuneRecord *best = NULL, *dflt = NULL;
    double best_med = HUGE_VAL;
    for (int i = 0; i < s->n; i++) {
        const TuneRecord *r = &s->rec[i];
        if (r->status != TUNE_OK || r->threads != threads || strcmp(r->workload, workload))
            continue;
        if (!memcmp(r->knobs, zero, sizeof zero) && !dflt)
            dflt = r;
        double m;
        if (knob_stats(s, workload, threads, r->knobs, &m) >= 2 && m < best_med) {
            best_med = m;
            best = r;
        }
    }
    return best && best_med < dmed * (1.0 - min_gain) ? best : dflt;
}

int tune_records_find(const TuneRecordSet *s, const char *workload, int threads,
                      const int *knobs)
{
    for (int i = 0; i < s->n; i++) {
        const TuneRecord *r = &s->rec[i];
        if (r->threads == threads && strcmp(r->workload, workload) == 0 &&
            memcmp(r->knobs, knobs, sizeof r->knobs) == 0)
            return i;
    }
    return -1;
}
