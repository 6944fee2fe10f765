/* pass_util.h - small graph edits shared by the passes in this folder:
 * inserting a node at a position (keeping topological order) and making a
 * value name that is not yet taken. */
#ifndef CTVM_PASSES_PASS_UTIL_H
#define CTVM_PASSES_PASS_UTIL_H

#include "ir/graph.h"

/* A new node at index pos; nodes pos.. move up by one. Node ids stored in the
 * graph (Node.fused_into, Node.epi) are remapped and Value.producer/n_uses
 * recomputed (graph_count_uses). Returns pos. Node pointers taken before the
 * call are invalid afterwards. */
/* A node a pass builds (or rewrites into another operator) follows the
 * newest version ctvm implements, whatever the model's opset: its attributes
 * and broadcasting are written in today's terms (Mul-6 without `broadcast`
 * would refuse the [C,1,1] scale of a folded BatchNormalization). */
void pass_modern_version(Graph *g, int node);
int pass_insert_node(Graph *g, int pos, const char *op_type, const char *name, int n_in,
                     const int *ins, int n_out, const int *outs);

/* `base` if no value has that name, else base_1, base_2, ... (arena string). */
const char *pass_unique_name(Graph *g, const char *base);

/* Give node `node` room for n_in inputs (new slots are -1 / omitted). */
void pass_grow_inputs(Graph *g, int node, int n_in);

#endif
