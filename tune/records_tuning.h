/* records_tuning.h - tuning records into the knobs the schedules apply: per
 * workload, the record tune_records_choose picks (ctvm-emit --tuning-records,
 * and the records fuzz target). */
#ifndef CTVM_TUNE_RECORDS_TUNING_H
#define CTVM_TUNE_RECORDS_TUNING_H

#include "records.h"
#include "schedule/schedule_key.h"

/* Fills t (zeroed) from the records of set for `threads` threads; the
   workload strings point into set. *other_threads counts the records of
   another thread count (not used). 0, or -1 when out of memory. */
int tune_records_tuning(const TuneRecordSet *set, int threads, SchedTuning *t, int *other_threads);

/* Frees what tune_records_tuning allocated in t. */
void tune_tuning_free(SchedTuning *t);

#endif
