/* measure.h - builds and candidate benchmarks in child processes, each
 * in its own process group, with output captured and a timeout that kills
 * the whole group; and the parser of the candidate programs' output.
 *
 * The candidate program protocol (docs/TUNING.md) is three things on
 * stdout/stderr, then exit status 0:
 *   ctvm-tune: check ok max_err=<g>      (or: check wrong max_err=<g>)
 *   ctvm-tune: ms <t1> <t2> ... <tk>     (one timing per repeat) */
#ifndef CTVM_TUNE_MEASURE_H
#define CTVM_TUNE_MEASURE_H

#include <stddef.h>

#include "tune/records.h"

#define TUNE_OUT_CAP 8192 /* captured output kept per build */

/* Runs argv (argv[0] searched in PATH; no shell: tune/spawn.h) with stdin
 * from /dev/null, stdout and stderr merged into out (the first outcap-1 bytes, NUL-terminated; the rest is
 * read and dropped so the child never blocks on a full pipe). After
 * timeout_s seconds (none when <= 0) the whole process group is killed
 * with SIGKILL and *timed_out is 1. When the program exits, anything it left
 * running in its group is killed too. *exit_code is the exit status, or
 * 128+signal when killed by a signal. Returns 0 when the command ran
 * (whatever its status), -1 when it could not be started (out says why). */
int tune_spawn(char *const argv[], double timeout_s, char *out, size_t outcap,
               int *exit_code, int *timed_out);

typedef struct TuneSpawnResult {
    int exit_code;  /* exit status, 128+signal, or -1 when it could not start */
    int timed_out;  /* 1 if killed at the timeout */
    double seconds; /* wall time from start to reaping */
    char out[TUNE_OUT_CAP]; /* merged stdout+stderr, truncated, NUL-terminated */
} TuneSpawnResult;

/* Runs the n commands argvs[i] (NULL-terminated argument vectors), at
 * most `jobs` at once (at least 1), each
 * under its own timeout, and fills res[0..n-1]. Returns how many failed
 * (non-zero exit, signal, timeout, or could not start); 0 if all succeeded. */
int tune_build_many(int n, char **const *argvs, int jobs, double timeout_s, TuneSpawnResult *res);

typedef struct TuneRunResult {
    TuneStatus status;   /* OK, RUN_FAIL, TIMEOUT or WRONG */
    double median_ms;    /* median of all timings; NAN unless OK */
    int n_runs;          /* timings kept (the first TUNE_MAX_RUNS) */
    double runs_ms[TUNE_MAX_RUNS];
    double max_err;      /* from the check line; NAN when missing */
    int exit_code;       /* as tune_spawn reports it */
    double seconds;      /* wall time of the whole run */
    char error[256];     /* why it is not OK; "" when OK */
} TuneRunResult;

/* Runs `[runner words] exe [args]` with the timeout, without a shell: the
 * runner is split on blanks into argv words (tune/spawn.h; nothing in it is
 * interpreted), exe is one word and args a NULL-terminated array (or NULL),
 * and parses the protocol:
 * timeout -> TUNE_TIMEOUT; non-zero exit, a signal, or a missing or
 * malformed protocol line -> TUNE_RUN_FAIL with the last output line in
 * error; "check wrong" -> TUNE_WRONG; else TUNE_OK with the median time.
 * Returns 0 when r->status is TUNE_OK, else -1. */
int tune_run_candidate(const char *runner, const char *exe, char *const *args, double timeout_s,
                       TuneRunResult *r);

/* Builds n candidates and times each one that built, in one event loop:
 * build_argvs[i] (at most `jobs` at once) makes exes[i], which then runs as
 * tune_run_candidate(runner, exes[i], args) would, one run at a time. While
 * a candidate is being timed at most `overlap` builds go on beside it (0:
 * a run starts only when no build is going on); a candidate whose build
 * ended is timed before another build starts. Fills built[0..n-1] and
 * ran[0..n-1] (TUNE_BUILD_FAIL for those that did not build). With exes
 * NULL (and ran NULL) it only builds: tune_build_many. Returns how many
 * builds failed. */
int tune_build_and_run(int n, char **const *build_argvs, const char *runner, char *const *exes,
                       char *const *args, int jobs, int overlap, double timeout_s,
                       TuneSpawnResult *built, TuneRunResult *ran);

/* Fills r from a finished run's output and status (what
 * tune_run_candidate does after running); exposed for tests. */
void tune_parse_run(const char *out, int exit_code, int timed_out, TuneRunResult *r);

/* Median of v[0..n-1] (mean of the two middle values when n is even);
 * sorts v in place. NAN when n <= 0. */
double tune_median(double *v, int n);

#endif
