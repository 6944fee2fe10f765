/* lp_unroll.c - loop pass: LOOP_UNROLL loops (up to LOOP_MAX_UNROLL)
 * expanded into copies of their body with the variable a constant, and
 * vector loops of extent 1 into their body (ir/loop_lower.h). */
#include "ir/loop_lower.h"
#include "loop_passes.h"

int lp_unroll(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->body = loop_expand_unrolled(&m->lb, k->body);
    return 0;
}
