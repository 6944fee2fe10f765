/* space.h - the knob space of a tuning task, from its workload key
 * (schedule/schedule_key.h) and the target's vector registers: which
 * values each knob of the conv and GEMM schedules may take, and which
 * combinations fit the register file. The knobs mean what the schedules
 * say (schedule/schedule_conv.h, schedule/schedule_gemm.h); 0 is "the
 * schedule's own choice", so the untuned schedule is the point 0,0,0,0. */
#ifndef CTVM_TUNE_SPACE_H
#define CTVM_TUNE_SPACE_H

#include "tune/search.h"

/* The space of workload `key` for n_vregs registers; -1 when the key
 * names no tunable schedule. */
int tune_space_for(const char *key, int n_vregs, TuneSpace *sp);
/* 1 when the knobs fit the registers (accumulators + operands), else 0
 * with the reason in why (not measured: it would spill). */
int tune_space_valid(const char *key, int n_vregs, const int *knobs, char *why, size_t cap);

#endif
