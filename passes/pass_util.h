/* pass_util.h - small graph edits shared by the passes in this folder:
 * inserting a node at a position (keeping topological order), making a
 * value name that is not yet taken, and building the nodes that replace
 * one (PassBuild: the rewriting passes lower_conv, pack_matmul and
 * lower_attention). */
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

/* Appends value v to node's outputs (a hidden output: scratch, dims), which
 * makes node its producer; the memory plan then places it like any output. */
void pass_append_output(Graph *g, int node, int v);

/* Give node `node` room for n_in inputs (new slots are -1 / omitted). */
void pass_grow_inputs(Graph *g, int node, int n_in);

/* Pattern matching (match_layernorm, match_gelu). The node producing value v
 * if it is live and of operator op, else -1. */
int pass_producer(const Graph *g, int v, OpKind op);
/* The only node reading value v (read once, v not a graph output), or -1. */
int pass_sole_consumer(const Graph *g, int v);
/* 1 and *out when v is a float32 constant of one element. */
int pass_const_scalar(const Graph *g, int v, double *out);
/* The operand of binary node `node` that is not value v, or -1 when v is not
 * exactly one of its two operands. */
int pass_other_operand(const Graph *g, int node, int v);

/* Marks the n nodes ids[] dead and puts node op(ins) -> out where the last
 * of them stood (named after it); returns the new node's id. */
int pass_replace_nodes(Graph *g, const int *ids, int n, const char *op, int n_in, const int *ins, int out);

/* Building a replacement for a node: new nodes go in at `pos` (before the
 * node being replaced, which moves up), named after `base`. */
typedef struct PassBuild {
    Graph *g;
    int pos;
    const char *base;
} PassBuild;

/* A new value "<base>_<what>" (unique), dtype and shape left to inference. */
int pb_value(PassBuild *b, const char *what);
/* Node op(ins) -> out at b->pos (which then moves past it); its id. */
int pb_node(PassBuild *b, const char *op, int n_in, const int *ins, int out);
/* A constant 1-D int64 tensor of n values. */
int pb_ints(PassBuild *b, const char *what, int n, const int64_t *v);
/* Reshape / Transpose of x into out (a new value when out < 0); the output. */
int pb_reshape(PassBuild *b, int x, int rank, const int64_t *dims, int out);
int pb_transpose(PassBuild *b, int x, int rank, const int64_t *perm, int out);
/* A binary node op(a, x) into a new value. */
int pb_binary(PassBuild *b, const char *op, int a, int x);

/* 1 when Quantize/DequantizeLinear n has one constant scale and zero point
 * for the whole tensor and computes in float32 (the form that stays blocked
 * and fuses into an integer convolution's epilogue). */
int pass_quant_per_tensor(const Graph *g, const Node *n);
/* The same with a constant float32 scale (and zero point) per element of
 * one axis (qmode 1): fuses as well (the parameters are vectors indexed by
 * that axis); or per tensor. */
int pass_quant_per_channel(const Graph *g, const Node *n);

#endif
