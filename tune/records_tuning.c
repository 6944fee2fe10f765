/* records_tuning.c - the knobs per workload from tuning records (records_tuning.h). */
#include "records_tuning.h"

#include <stdlib.h>
#include <string.h>

int tune_records_tuning(const TuneRecordSet *set, int threads, SchedTuning *t, int *other_threads)
{
    *other_threads = 0;
    t->workload = calloc((size_t)set->n + 1, sizeof(char *));
    t->knobs = calloc((size_t)set->n + 1, sizeof *t->knobs);
    t->used = calloc((size_t)set->n + 1, sizeof(int));
    if (!t->workload || !t->knobs || !t->used)
        return -1;
    for (int i = 0; i < set->n; i++) {
        const TuneRecord *r = &set->rec[i];
        if (r->threads != threads) {
            (*other_threads)++;
            continue;
        }
        int seen = 0;
        for (int k = 0; k < t->n && !seen; k++)
            seen = !strcmp(t->workload[k], r->workload);
        const TuneRecord *best = seen ? NULL : tune_records_choose(set, r->workload, r->threads, 0.02);
        if (!best)
            continue;
        t->workload[t->n] = best->workload;
        memcpy(t->knobs[t->n], best->knobs, sizeof t->knobs[t->n]);
        t->n++;
    }
    return 0;
}

void tune_tuning_free(SchedTuning *t)
{
    free(t->workload);
    free(t->knobs);
    free(t->used);
    t->workload = NULL;
    t->knobs = NULL;
    t->used = NULL;
    t->n = 0;
}
