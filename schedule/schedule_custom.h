/* schedule_custom.h - loop kinds for the custom nests of compute
 * definitions: the roles a definition states (ir/loop.h LoopRole) become
 * vectorized, unrolled and parallel loops for the target's vector width and
 * the thread count (schedule_custom.c says how). */
#ifndef CTVM_SCHEDULE_SCHEDULE_CUSTOM_H
#define CTVM_SCHEDULE_SCHEDULE_CUSTOM_H

#include "ops/compute.h"

/* Rewrites custom nest s in place (and returns it). */
Stmt *schedule_custom(ComputeCtx *cx, Stmt *s);

#endif
