/* search.h - the tuner's search over a discrete knob space: model-guided
 * evolutionary search (mutation and crossover of the best measured points,
 * ranked by a k-nearest-neighbour model of log(time), plus random
 * exploration), with early stopping and resume. docs/TUNING.md says why.
 *
 * Deterministic: the same space, options, seed and measurements give the
 * same sequence of candidates. Measurement is the caller's job, through a
 * batch callback, so candidates of one batch can be built in parallel. */
#ifndef CTVM_TUNE_SEARCH_H
#define CTVM_TUNE_SEARCH_H

#include <stdint.h>

#include "tune/records.h"

#define TUNE_MAX_VALUES 64

/* Knob k takes one of values[k][0..n_values[k]-1]; neighbouring entries are
 * close (the search moves knobs by one step). Knobs from n_knobs on are
 * passed to the measure callback as 0. */
typedef struct TuneSpace {
    int n_knobs;                  /* 1..TUNE_MAX_KNOBS */
    int n_values[TUNE_MAX_KNOBS]; /* 1..TUNE_MAX_VALUES each */
    int values[TUNE_MAX_KNOBS][TUNE_MAX_VALUES];
} TuneSpace;

/* Measures knobs[0..n-1]: ms_out[i] is the time (lower is better) when
 * status_out[i] is TUNE_OK; any other status marks the candidate failed,
 * and a failed candidate never becomes the best. */
typedef void (*TuneMeasureBatch)(void *user, int n, const int (*knobs)[TUNE_MAX_KNOBS],
                                 double *ms_out, TuneStatus *status_out);

typedef struct TuneSearchOpts {
    uint64_t seed;
    int max_trials; /* new measurements at most; <= 0: the size of the space */
    int patience;   /* stop after this many trials without a gain; <= 0: never */
    int batch;      /* candidates per measure call; <= 0: 8 */
    int n_initial;  /* points measured first, e.g. the schedule's default knobs */
    const int (*initial)[TUNE_MAX_KNOBS];
    /* Prior measurements (resume): never measured again, but they feed the
     * model and may be the best. Points outside the space are ignored. */
    const int (*measured)[TUNE_MAX_KNOBS];
    const double *measured_ms;
    const TuneStatus *measured_status;
    int n_measured;
    double min_gain; /* relative gain that counts as an improvement, e.g. 0.01 */
    /* Called after every batch with the trials so far and the best time
     * (HUGE_VAL while nothing succeeded); user is tune_search's user. May be NULL. */
    void (*progress)(void *user, int trials, double best_ms);
} TuneSearchOpts;

/* Searches sp, measuring through measure(user, ...). Returns the number of
 * new measurements and sets best_knobs/best_ms to the fastest OK point
 * (prior or new; the first measured on ties), or returns -1 when no point
 * succeeded or the space or options are invalid (best_knobs untouched).
 * Stops at max_trials, when the space is exhausted, or when `patience`
 * trials in a row did not beat the best by more than min_gain (checked
 * after each batch). Never measures a point twice. */
int tune_search(const TuneSpace *sp, const TuneSearchOpts *o, TuneMeasureBatch measure,
                void *user, int best_knobs[TUNE_MAX_KNOBS], double *best_ms);

#endif
