/* ops_fold.h - when a node can be evaluated at compile time.
 *
 * A live node can be folded when every present input is a constant, or when
 * it is Shape and its input's shape is static (Shape never reads the data).
 * ops_eval may still decline (return 0) for cases it does not fold. */
#ifndef CTVM_OPS_OPS_FOLD_H
#define CTVM_OPS_OPS_FOLD_H

#include "ir/graph.h"

int ops_can_fold(const Graph *g, const Node *n);

#endif
