/* loop_pass_list.c - the order of the loop passes (loop_passes.h). Order
 * matters: unrolling first gives constant indices to the register
 * accumulators and lanes; partitioning cuts guarded copies where their
 * bounds change, before tail splitting gives their loops whole vectors;
 * tail splitting leaves loops of extent 1 and
 * decided guards that simplify removes; vectorize rewrites the loops of the vector width
 * before indices take their canonical form; registers need the vector
 * accesses final, and a register tile's epilogue is found among them; the
 * team's phases are cut last, around everything,
 * and the barriers between independent phases dropped after them. */
#include <string.h>

#include "loop_passes.h"

const LoopPassInfo CTVM_LOOP_PASSES[] = {
    {"unroll", lp_unroll},
    {"partition", lp_partition},
    {"tail_split", lp_tail_split},
    {"simplify", lp_simplify},
    {"vectorize", lp_vectorize},
    {"canon_index", lp_canon_index},
    {"registers", lp_registers},
    {"dead_locals", lp_dead_locals},
    {"tile_consts", lp_tile_consts},
    {"fresh_bcast", lp_fresh_bcast},
    {"threads", lp_threads},
    {"barriers", lp_barriers},
    {"names", lp_names},
};
const int CTVM_N_LOOP_PASSES = (int)(sizeof CTVM_LOOP_PASSES / sizeof CTVM_LOOP_PASSES[0]);

int loop_pass_known(const char *name)
{
    if (strcmp(name, "all") == 0)
        return 1;
    for (int i = 0; i < CTVM_N_LOOP_PASSES; i++)
        if (strcmp(CTVM_LOOP_PASSES[i].name, name) == 0)
            return 1;
    return 0;
}

int loop_passes_run(Module *m, const CodegenOptions *o, Diag *d)
{
    for (int p = 0; p < CTVM_N_LOOP_PASSES; p++) {
        for (int k = 0; k < m->n_kernels; k++)
            if (CTVM_LOOP_PASSES[p].run(m, &m->kernels[k], d) != 0)
                return -1;
        if (o->dump_after && o->dump &&
            (strcmp(o->dump_after, "all") == 0 || strcmp(o->dump_after, CTVM_LOOP_PASSES[p].name) == 0)) {
            fprintf(o->dump, "== after loop pass %s\n", CTVM_LOOP_PASSES[p].name);
            module_dump(m, o->dump);
        }
    }
    lp_barriers_between(m);
    return 0;
}
