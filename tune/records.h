/* records.h - tuning records: one measured candidate (workload, target,
 * knobs, status, timings) per JSON line, written and read with jansson.
 *
 * A records file is append-only: every measurement is appended as one
 * compact line and flushed, so an interrupted tuning run loses at most the
 * line being written, and a later run resumes from what is in the file.
 * The line format is documented field by field in docs/TUNING.md. */
#ifndef CTVM_TUNE_RECORDS_H
#define CTVM_TUNE_RECORDS_H

#include <stddef.h>

#define TUNE_MAX_KNOBS 4
#define TUNE_FORMAT_VERSION 1 /* the "v" field; bump when a field changes meaning */
#define TUNE_MAX_RUNS 16      /* timings kept per record */

typedef enum TuneStatus {
    TUNE_OK,         /* built, ran, checked against the reference, timed */
    TUNE_BUILD_FAIL, /* the compiler failed or timed out on the candidate */
    TUNE_RUN_FAIL,   /* non-zero exit, signal, or no protocol lines */
    TUNE_TIMEOUT,    /* the candidate ran longer than the timeout */
    TUNE_WRONG,      /* ran but its output differs from the reference */
} TuneStatus;

/* "ok", "build_fail", "run_fail", "timeout", "wrong"; "?" for others. */
const char *tune_status_name(TuneStatus s);
/* The inverse of tune_status_name: 0 and *out set, or -1 if unknown. */
int tune_status_parse(const char *name, TuneStatus *out);

typedef struct TuneRecord {
    char workload[512];    /* the task key, e.g. "conv2d:n1:c64:h56:w56:k64:r3:s1" */
    char target[64];       /* "x86_64-avx512" */
    char ctvm_version[32]; /* the ctvm that generated and measured the code */
    int threads;
    int knobs[TUNE_MAX_KNOBS]; /* unused knobs are 0 */
    TuneStatus status;
    double median_ms;          /* meaningful only when status == TUNE_OK */
    double gflops;             /* 0 when unknown */
    int n_runs;                /* entries of runs_ms in use */
    double runs_ms[TUNE_MAX_RUNS];
    char error[256];           /* why it failed; "" when OK */
    long long timestamp;       /* unix seconds when measured; 0 = unknown (not written) */
} TuneRecord;

/* Appends r as one JSON line to path (created if missing) and flushes it.
 * If the file ends in a partial line (an interrupted write), a newline is
 * written first so the new record stays on a line of its own. 0, or -1 with
 * err = "cannot append to PATH: reason". */
int tune_record_append(const char *path, const TuneRecord *r, char *err, size_t errcap);

/* Record as one compact JSON text without the newline (malloc'd, the caller
 * frees it); NULL with err set if a field cannot be written. */
char *tune_record_to_json(const TuneRecord *r, char *err, size_t errcap);

/* Parses one JSON line into r; 0, or -1 with err = the reason. */
int tune_record_from_json(const char *line, TuneRecord *r, char *err, size_t errcap);

typedef struct TuneRecordSet {
    TuneRecord *rec; /* malloc'd, n used, cap allocated */
    int n, cap;
    int skipped_version; /* other format version or other ctvm version */
    int skipped_target;  /* another target */
    int skipped_bad;     /* not JSON or a field missing or of the wrong type */
} TuneRecordSet;

void tune_records_free(TuneRecordSet *s);

/* Reads every line of path into out (which must be zeroed or freed first).
 * Keeps records of format TUNE_FORMAT_VERSION whose ctvm version is
 * `version` (any when NULL) and whose target is `target` or the target it
 * extends (Target.base: x86_64-avx512 for x86_64-avx512-vnni; any when NULL).
 * Blank lines are ignored. On success returns 0 and err holds the warnings
 * about bad lines, one per line ("PATH:LINE: not a tuning record (reason)"),
 * truncated with "..." when they do not fit; "" when there were none. A
 * missing or unreadable file returns -1 with err = "cannot open PATH:
 * reason"; an empty file gives 0 records. */
int tune_records_load(const char *path, const char *target, const char *version,
                      TuneRecordSet *out, char *err, size_t errcap);

/* In-memory append of a copy of r; 0, or -1 when out of memory. */
/* tune_records_load that reports to stderr as tool ("ctvm-emit"): the
 * error, each unreadable line, and one warning counting the records of
 * another version or target and the unreadable ones. Adds the records to
 * `into` (zeroed or holding records already). 0, or -1 after the error. */
int tune_records_load_report(const char *tool, const char *path, const char *target, const char *version,
                             TuneRecordSet *into);

int tune_records_add(TuneRecordSet *s, const TuneRecord *r);

/* The TUNE_OK record with the lowest median_ms for workload and threads
 * (the first one on ties); never a failed record; NULL if there is none. */
const TuneRecord *tune_records_best(const TuneRecordSet *s, const char *workload, int threads);

/* Index of the first record of workload/threads with these knobs (any
 * status: a failed candidate is measured too), or -1; knobs holds
 * TUNE_MAX_KNOBS values. */
/* The record whose knobs to apply: when the default knobs (all 0) were
 * measured at least twice (ctvm-tune's confirmation rounds), the knob set
 * measured at least twice with the lowest median of its records' medians,
 * if that beats the default's by more than min_gain (relative), else a
 * default record; without confirmation, tune_records_best. NULL if no OK
 * record. One lucky measurement of a noisy kernel then never wins. */
const TuneRecord *tune_records_choose(const TuneRecordSet *s, const char *workload, int threads, double min_gain);

int tune_records_find(const TuneRecordSet *s, const char *workload, int threads,
                      const int *knobs);

#endif
