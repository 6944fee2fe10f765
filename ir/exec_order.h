/* exec_order.h - the order in which fused groups run.
 *
 * A group (an anchor and the epilogues fused into it) runs at the position
 * of its last node, so every operand of its epilogues (e.g. the other side
 * of a residual Add) has been computed. Views and fused nodes are not steps. */
#ifndef CTVM_IR_EXEC_ORDER_H
#define CTVM_IR_EXEC_ORDER_H

#include "graph.h"

/* Fills order[] (capacity g->n_nodes) with anchor node ids in run order;
 * returns the count. */
int graph_exec_order(const Graph *g, int *order);
/* The node id whose position a group runs at. */
int group_last_node(const Graph *g, int anchor);
/* Follow STORE_VIEW links to the value that owns the bytes. */
int value_root(const Graph *g, int vid);

#endif
