/* graph.h - the dataflow graph every stage reads and the passes rewrite.
 *
 * Values and nodes live in growable arrays and are named by index (ids stay
 * valid when the arrays grow; pointers do not). After the frontend, nodes are
 * in topological order and every node's op is set from ir/op_table.h. Passes
 * mark nodes dead rather than delete them; graph_compact() drops them.
 *
 * Constants carry their bytes in Value.data. After pass "fuse" each runtime
 * node is either an anchor (fused_into == -1), an epilogue fused into an
 * anchor, or a zero-copy view. After pass "plan_memory" every runtime value
 * has a storage class and, in the arena, a byte offset. */
#ifndef CTVM_IR_GRAPH_H
#define CTVM_IR_GRAPH_H

#include <stdint.h>

#include "arena.h"
#include "dtype.h"
#include "op_attrs.h"
#include "op_table.h"
#include "shape.h"
#include "tensor.h"

struct Target;

/* The default cap on the bytes of constants one compile may fold
 * (Graph.max_fold_bytes, --max-fold-bytes): 1 GiB plus 8 times the model's
 * own constant bytes (Graph.fold_base), so that a file of a few bytes cannot
 * fold into gigabytes while real models pass: torch exports fold copies of
 * shared weights (Identity: 2.6x a BERT's weights), and int8 weights
 * dequantized to float32 and then transposed take 8x. */
#define CTVM_FOLD_MAX_BYTES_DEFAULT ((int64_t)1 << 30)
#define CTVM_FOLD_BASE_FACTOR 8

typedef enum AttrKind {
    ATTR_FLOAT, ATTR_INT, ATTR_STRING, ATTR_TENSOR,
    ATTR_FLOATS, ATTR_INTS, ATTR_STRINGS,
    ATTR_GRAPH,  /* a subgraph (If branches, Loop/Scan bodies) */
    ATTR_OTHER,  /* sparse tensors, type protos, tensor lists: kept, unused */
} AttrKind;

struct Graph;

typedef struct Attr {
    const char *name;
    AttrKind kind;
    float f;             /* ATTR_FLOAT */
    int64_t i;           /* ATTR_INT */
    const char *s;       /* ATTR_STRING */
    Tensor *t;           /* ATTR_TENSOR */
    int n;               /* element count of floats/ints/strings */
    float *floats;
    int64_t *ints;
    const char **strings;
    struct Graph *graph; /* ATTR_GRAPH: the body, sharing the enclosing graph's arena */
} Attr;

typedef enum Storage {
    STORE_NONE = 0, /* not materialised: fused away, dead, or not planned yet */
    STORE_CONST,    /* weights: Value.data, emitted as constant data */
    STORE_INPUT,    /* caller's input pointer number io_index */
    STORE_OUTPUT,   /* caller's output pointer number io_index */
    STORE_ARENA,    /* workspace + offset */
    STORE_VIEW,     /* same bytes as value view_of */
    STORE_OUTDIMS,  /* the caller's shape array of dynamic graph output io_index */
} Storage;

typedef struct Value {
    const char *name;
    DType dtype;
    Shape shape;
    const char *dim_param[CTVM_MAX_RANK]; /* symbolic dim names, or NULL */
    void *data;      /* constant contents (numel * dtype_size) or NULL */
    int producer;    /* node id, or -1 for inputs and constants */
    int n_uses;      /* node inputs naming this value (graph_count_uses) */
    int is_input;    /* runtime graph input (caller provides it) */
    int is_output;   /* graph output */
    int is_outer;    /* in a subgraph: a value of an enclosing graph, read by name */
    /* data-dependent shape (NonZero, Unique, Compress, NonMaxSuppression):
     * `shape` holds upper bounds and the actual dims are known at run time
     * only, written by the producer into value dyn_dims (int64[rank]) */
    int dyn;
    int dyn_dims;    /* with dyn: set by pass "hidden" for graph outputs, else -1 */
    int io_index;    /* position among graph inputs or outputs */
    /* memory plan */
    Storage storage;
    int view_of;     /* STORE_VIEW: the value whose bytes these are */
    int64_t offset;  /* STORE_ARENA: byte offset in the workspace */
} Value;

typedef struct Node {
    const char *name;     /* never NULL: the frontend invents "<op>_<index>" */
    const char *op_type;  /* ONNX name as written in the model */
    const char *domain;   /* "" for the default domain */
    OpKind op;
    int version;          /* the operator version in force at the model's opset (0: internal) */
    int n_in, n_out;
    int *in;              /* value ids; -1 for an omitted optional input */
    int *out;
    int n_attrs;
    Attr *attrs;          /* the ONNX attributes, normalised by infer (for the dump) */
    OpAttrs at;           /* typed attributes of the node's family (ir/op_attrs.h) */
    NodeScratch scratch;  /* kernel scratch buffer (ir/op_attrs.h) */
    NodeDyn dyn;          /* run-time output dims (ops/dynprop.c) */
    int dead;             /* removed by a pass */
    int bf16_operands;    /* MatMul / Gemm whose A and B are both exactly bfloat16 values in
                             the model (pass promote_half), so their products are exact in
                             float32 and a bfloat16 dot product computes them (pack_matmul) */
    /* fusion */
    int fused_into;       /* anchor node id if this is a fused epilogue, else -1 */
    int is_view;          /* output shares its input's bytes; emits no code */
    int n_epi;            /* anchors: fused epilogue node ids, in order */
    int *epi;
} Node;

typedef struct Graph {
    Arena *arena;
    const char *path;     /* model file, for diagnostics */
    const char *name;
    int64_t opset;        /* default-domain opset version */
    Value *values;
    int n_values, cap_values;
    Node *nodes;
    int n_nodes, cap_nodes;
    int *inputs;          /* runtime input value ids, in model order */
    int n_inputs;
    int *outputs;         /* output value ids, in model order */
    int n_outputs;
    int64_t arena_bytes;  /* workspace size from plan_memory */
    /* constant folding's budget (ops/op_util.h opu_fold_reserve): bytes of
     * constants folded so far; the model's own constant bytes (initializers,
     * bound inputs, tensor attributes; set by pass infer_fold); the cap
     * (--max-fold-bytes; 0: the default above) */
    int64_t fold_bytes;
    int64_t fold_base;
    int64_t max_fold_bytes;
} Graph;

Graph *graph_new(const char *path);
/* A subgraph (a control-flow body) allocated in parent's arena; freed with it. */
Graph *graph_new_sub(Graph *parent);
void graph_free(Graph *g);

/* A new value named `name` (copied), dtype undefined, shape unknown. */
int graph_add_value(Graph *g, const char *name);
/* Value id by name or -1 (linear search; names are unique). */
int graph_find_value(const Graph *g, const char *name);
/* A new constant value holding a copy of data. */
int graph_add_const(Graph *g, const char *name, DType t, Shape s, const void *data);
/* A new node; ins/outs are copied. Returns the node id. */
int graph_add_node(Graph *g, const char *op_type, const char *name,
                   int n_in, const int *ins, int n_out, const int *outs);
void graph_add_input(Graph *g, int value_id);
void graph_add_output(Graph *g, int value_id);
/* Move nodes [from, n_nodes) to index pos (< from), shifting the others up,
 * and recompute producers. Only valid before fusion (node ids are then
 * referenced by Value.producer alone). */
void graph_move_nodes(Graph *g, int from, int pos);
/* Recompute Value.n_uses and Value.producer from the live nodes. */
void graph_count_uses(Graph *g);
/* Replace every use of value `from` (node inputs, graph outputs) by `to`. */
void graph_replace_uses(Graph *g, int from, int to);
/* Bytes of a value with a static shape; 0 if unknown or overflowing. */
int value_bytes(const Value *v, int64_t *bytes);
int value_is_const(const Value *v);

/* Attribute access by name; defaults when absent. */
const Attr *node_attr(const Node *n, const char *name);
int64_t attr_int(const Node *n, const char *name, int64_t def);
float attr_float(const Node *n, const char *name, float def);
const char *attr_string(const Node *n, const char *name, const char *def);
/* Pointer to the ints (count in *n_out), or NULL when absent. */
const int64_t *attr_ints(const Node *n, const char *name, int *n_out);
/* Set or replace an attribute (used to normalise attributes during inference). */
void node_set_int(Graph *g, int node, const char *name, int64_t v);
void node_set_ints(Graph *g, int node, const char *name, const int64_t *v, int n);
void node_set_float(Graph *g, int node, const char *name, float v);
void node_set_string(Graph *g, int node, const char *name, const char *v); /* copied */

/* Input value i of node, or NULL when absent or omitted. */
Value *node_input(Graph *g, const Node *n, int i);

#endif
