/* lp_simplify.c - loop pass: the range-aware simplifier (ir/loop_simplify.h)
 * on the unrolled nest: loops of extent 1 become their body, x/N and x%N
 * with 0 <= x < N fold, guards the loop bounds decide are dropped. */
#include "ir/loop_simplify.h"
#include "loop_passes.h"

int lp_simplify(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->body = loop_simplify(&m->lb, k->body);
    return 0;
}
