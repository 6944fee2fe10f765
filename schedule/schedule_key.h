/* schedule_key.h - the workload of a tunable stage, and the knobs chosen
 * for workloads (ctvm-tune's records, applied by schedule_group).
 *
 * A workload names what a tuned schedule depends on: the schedule family,
 * the extents of the stage's axes and reduction axes, and a structural hash
 * of what it computes (index arithmetic, body, fused epilogue, element
 * types; buffers by order of appearance with their types and sizes, not
 * their names). Two stages with the same workload get the same loop nest
 * for the same knobs, in any model. Target and thread count are kept beside
 * it in the records. */
#ifndef CTVM_SCHEDULE_SCHEDULE_KEY_H
#define CTVM_SCHEDULE_SCHEDULE_KEY_H

#include <stddef.h>

#include "ops/compute.h"

/* "conv 1x32x7x7x16 r32x16x3x3 #0123456789abcdef" into buf; 0 when the
 * stage's schedule has no knobs (SCHED_DEFAULT), else its length. */
int schedule_workload(const ComputeStage *st, char *buf, size_t cap);

/* Knobs per workload, from ctvm-emit --tuning-records or a tuning
 * candidate; schedule_group sets a stage's knobs from the entry of its
 * workload and counts the use. */
typedef struct SchedTuning {
    int n;
    const char **workload;
    int (*knobs)[4];
    int *used;         /* per entry: stages it was applied to */
    int record, cap;   /* record = 1: a workload not in the table is added
                          (up to cap entries, zero knobs, used 1): listing tasks */
} SchedTuning;

#endif
