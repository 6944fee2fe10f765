/* loop_passes.h - the loop passes: rewrites of each kernel's loop nest
 * between scheduling and printing, run in the order of loop_pass_list.c.
 *
 * Each pass is `int lp_x(Module *, Kernel *, Diag *)`: it replaces
 * k->body (and may set k->team), 0 on success, -1 after a diagnostic. The
 * schedules mark loops (LOOP_UNROLL, LOOP_VECTORIZE, LOOP_PARALLEL); these
 * passes carry the marks out, so a printer meets only what it prints:
 * serial loops, vector nodes, register variables and the team's phases.
 * `ctvm-emit --dump-after=NAME` prints the module after loop pass NAME. */
#ifndef CTVM_LOWER_LOOP_PASSES_H
#define CTVM_LOWER_LOOP_PASSES_H

#include "ir/codegen.h"
#include "ir/diag.h"
#include "ir/module.h"

int lp_unroll(Module *m, Kernel *k, Diag *d);      /* LOOP_UNROLL loops expanded (ir/loop_lower.h) */
int lp_partition(Module *m, Kernel *k, Diag *d);  /* guarded stores cut where their bounds change, unswitched */
int lp_tail_split(Module *m, Kernel *k, Diag *d);  /* long vector loops -> whole vectors + a serial tail */
int lp_simplify(Module *m, Kernel *k, Diag *d);    /* extent-1 loops, x/N, x%N, decided guards (ir/loop_simplify.h) */
int lp_vectorize(Module *m, Kernel *k, Diag *d);   /* LOOP_VECTORIZE loops of the vector width -> vector nodes */
int lp_canon_index(Module *m, Kernel *k, Diag *d); /* scalar indices as sums of terms + a constant */
int lp_registers(Module *m, Kernel *k, Diag *d);   /* locals indexed by constants -> register variables */
int lp_dead_locals(Module *m, Kernel *k, Diag *d); /* locals and registers never read dropped */
int lp_tile_consts(Module *m, Kernel *k, Diag *d); /* a register tile's epilogue broadcasts its constants late */
int lp_fresh_bcast(Module *m, Kernel *k, Diag *d); /* dot-product input bytes later steps read again: read in place */
int lp_threads(Module *m, Kernel *k, Diag *d);     /* parallel loops in chunks for the team, phases, barriers */
int lp_barriers(Module *m, Kernel *k, Diag *d);    /* barriers between independent phases dropped */
int lp_names(Module *m, Kernel *k, Diag *d);
/* after the loop passes: a team kernel's last barrier dropped when the next
   kernel's buffers do not conflict with it (lp_barriers.c) */
void lp_barriers_between(Module *m);       /* C identifiers from the model's value names */

/* 1 when lp_vectorize can turn a vector loop over v with this body into
   vector code (lp_vectorize.c) */
int lp_vector_legal(const Stmt *body, const LVar *v);

typedef struct LoopPassInfo {
    const char *name; /* as in --dump-after */
    int (*run)(Module *, Kernel *, Diag *);
} LoopPassInfo;

extern const LoopPassInfo CTVM_LOOP_PASSES[];
extern const int CTVM_N_LOOP_PASSES;

/* 1 when name is a loop pass (or "all") */
int loop_pass_known(const char *name);
/* Every loop pass over every kernel, in order; dumps the module to o->dump
   after pass o->dump_after. */
int loop_passes_run(Module *m, const CodegenOptions *o, Diag *d);

#endif
