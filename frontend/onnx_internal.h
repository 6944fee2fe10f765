/* onnx_internal.h - pieces of the ONNX loader shared between its files:
 * a name-to-value hash table, attribute decoding, and runtime inputs.
 * Not part of the frontend's public API (that is onnx_load.h). */
#ifndef CTVM_FRONTEND_ONNX_INTERNAL_H
#define CTVM_FRONTEND_ONNX_INTERNAL_H

#include "ir/diag.h"
#include "ir/graph.h"
#include "onnx/onnx.pb-c.h"
#include "onnx_load.h"

/* Open-addressing table from value name to value id, in g->arena. Keys are
 * the names stored in g->values, so a value must not be renamed while the
 * table is in use. */
typedef struct NameMap {
    Graph *g;
    int *slots; /* value id, or -1 when empty */
    int cap;    /* power of two */
    int count;
} NameMap;

void namemap_init(NameMap *m, Graph *g, int expected);
int namemap_get(const NameMap *m, const char *name); /* value id or -1 */
void namemap_put(NameMap *m, int value_id);          /* name must be new */

/* Context of a load: the graph, its names, the model's folder (or NULL). */
typedef struct OnnxLoadCtx {
    Graph *g;
    NameMap names;
    const char *base_dir;
    Diag *d;
    int is_subgraph;  /* names not defined here are values of an enclosing graph */
    int depth;        /* subgraph nesting depth */
    int64_t ms_opset; /* the com.microsoft opset the model imports, 0 if none */
} OnnxLoadCtx;

/* onnx_load.c: the body of a control-flow attribute as a Graph in the
 * enclosing graph's arena (see onnx_load.h). */
int onnx_subgraph_load(OnnxLoadCtx *parent, int node_id, const Onnx__GraphProto *gp, Graph **out);

/* onnx_attr.c: node->attrs of node `node_id` from np's attributes. */
int onnx_attrs_decode(OnnxLoadCtx *c, int node_id, const Onnx__NodeProto *np);

/* onnx_inputs.c: runtime inputs (graph inputs that are not initializers),
 * the --input-shapes overrides, and the check that every shape is static. */
int onnx_inputs_add(OnnxLoadCtx *c, const Onnx__GraphProto *gp, const OnnxLoadOptions *opt);
int onnx_inputs_override(OnnxLoadCtx *c, const OnnxLoadOptions *opt);
int onnx_inputs_check_static(OnnxLoadCtx *c);

/* onnx_declared.c: the declared shape of vi (named `what` in messages:
 * "input", "graph output"...) within ctvm's rank and dimension limits;
 * strict also refuses negative dims other than -1. And that check for every
 * output and value_info of gp. 0 ok, -1 after a diag_error. */
int onnx_declared_check(OnnxLoadCtx *c, const char *what, const Onnx__ValueInfoProto *vi,
                        int strict);
int onnx_declared_check_all(OnnxLoadCtx *c, const Onnx__GraphProto *gp);

/* onnx_bind.c: --bind. The entry naming `name` or NULL; making value `id`
 * (a graph input, its declared type and shape set) the bound constant; the
 * check that every --bind names a runtime input of gp. */
const OnnxBind *onnx_bind_find(const OnnxLoadOptions *opt, const char *name);
int onnx_bind_apply(OnnxLoadCtx *c, int id, const OnnxBind *b);
int onnx_bind_check_used(OnnxLoadCtx *c, const OnnxLoadOptions *opt, const Onnx__GraphProto *gp);

#endif
