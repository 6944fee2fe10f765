/* promote_half.c - pass_promote_half: float16 and bfloat16 arithmetic
 * computed in float32, as ONNX Runtime's CPU provider computes it.
 *
 * float16 / bfloat16 are storage types in ctvm (ir/dtype.h): an operator on
 * them loads each element through a conversion, computes in float32 and
 * rounds on store, inside the plain schedules (no blocked convolution, no
 * packed GEMM panels, no layout pass, a conversion per element read). This
 * pass retypes the arithmetic itself to float32, so a half model takes
 * exactly the float32 path:
 *   - a node of an operator listed in promotable() that reads or writes a
 *     half value is retyped: its half outputs become float32 values (same
 *     name), its half inputs are read as float32;
 *   - a half constant read by such a node is converted at compile time
 *     (exactly: every half value is a float32), in place when only promoted
 *     nodes read it, else into a new constant "<name>_f32";
 *   - a half graph input, or a half value made by an operator that stays
 *     (Cast, ConstantOfShape, ...), is widened by a Cast node before its
 *     first promoted reader;
 *   - a half graph output made by a promoted node keeps its name and type:
 *     the node writes "<name>_f32" and a Cast rounds it into the output;
 *     an operator that stays and reads a promoted value reads it rounded
 *     back to its half type by a Cast ("<name>_f16"), so Cast, BitCast and
 *     friends see exactly the model's half values.
 *   - a Cast between float32 and a half type is an Identity on float32
 *     (as ORT removes float32 -> half -> float32 pairs; see below).
 * Between promoted nodes nothing is rounded to half. This is what ONNX
 * Runtime does: its CPU provider has no half kernels for these operators,
 * inserts Casts to float32 around each, and RemoveDuplicateCastTransformer
 * then drops every float32 -> float16 -> float32 pair (float16 and float are
 * one "type group" there), so resnet18 in float16 runs with two Casts, one
 * after the input and one before the output (docs/ARCHITECTURE.md).
 * Runs right after the first infer_fold, so every later pass (BatchNorm
 * folding, LayerNorm / GELU matching, packing, layout) sees a float32 graph;
 * the new nodes are inferred here. Ends with graph_count_uses. */
#include <stdlib.h>
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "runtime_min/ctvm_types.h"

static int is_half(DType t)
{
    return t == DT_FLOAT16 || t == DT_BFLOAT16;
}

/* Operators whose float32 form computes what their half form computes
 * before the final rounding: arithmetic (computed in float32 anyway) and
 * data movement. Not here: Cast, CastLike, BitCast and the operators whose
 * output type comes from an attribute, the quantization operators, and
 * anything not listed (they keep their half values, through Casts). */
static int promotable(OpKind op)
{
    switch (op) {
    case OP_CONV: case OP_CONVTRANSPOSE: case OP_MAXPOOL: case OP_AVGPOOL: case OP_LPPOOL:
    case OP_GLOBALAVGPOOL: case OP_GLOBALMAXPOOL: case OP_GLOBALLPPOOL:
    case OP_ABS: case OP_NEG: case OP_RELU: case OP_EXP: case OP_LOG: case OP_SQRT: case OP_TANH:
    case OP_SIGMOID: case OP_ERF: case OP_SIN: case OP_COS: case OP_TAN: case OP_ASIN: case OP_ACOS:
    case OP_ATAN: case OP_SINH: case OP_COSH: case OP_ASINH: case OP_ACOSH: case OP_ATANH:
    case OP_FLOOR: case OP_CEIL: case OP_ROUND: case OP_RECIPROCAL: case OP_SIGN:
    case OP_LEAKYRELU: case OP_PRELU: case OP_ELU: case OP_SELU: case OP_CELU: case OP_HARDSIGMOID:
    case OP_HARDSWISH: case OP_SOFTPLUS: case OP_SOFTSIGN: case OP_MISH: case OP_THRESHOLDEDRELU:
    case OP_SHRINK: case OP_GELU: case OP_SWISH: case OP_CLIP:
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_POW: case OP_MAX: case OP_MIN:
    case OP_SUM: case OP_MEAN: case OP_WHERE:
    case OP_EQUAL: case OP_LESS: case OP_GREATER: case OP_LESSOREQUAL: case OP_GREATEROREQUAL:
    case OP_BATCHNORM: case OP_INSTANCENORM: case OP_LAYERNORM: case OP_GROUPNORM: case OP_RMSNORM:
    case OP_MVN: case OP_LPNORM: case OP_LRN:
    case OP_REDUCEMEAN: case OP_REDUCESUM: case OP_REDUCEMAX: case OP_REDUCEMIN: case OP_REDUCEPROD:
    case OP_REDUCEL1: case OP_REDUCEL2: case OP_REDUCELOGSUM: case OP_REDUCELOGSUMEXP:
    case OP_REDUCESUMSQUARE:
    case OP_SOFTMAX: case OP_LOGSOFTMAX: case OP_HARDMAX: case OP_ARGMAX: case OP_ARGMIN:
    case OP_CUMSUM: case OP_TOPK:
    case OP_GEMM: case OP_MATMUL: case OP_EINSUM:
    case OP_RESHAPE: case OP_FLATTEN: case OP_SQUEEZE: case OP_UNSQUEEZE: case OP_IDENTITY:
    case OP_DROPOUT: case OP_EXPAND: case OP_CONCAT: case OP_SPLIT: case OP_SLICE: case OP_TRANSPOSE:
    case OP_PAD: case OP_GATHER: case OP_GATHERELEMENTS: case OP_GATHERND: case OP_TILE:
    case OP_DEPTHTOSPACE: case OP_SPACETODEPTH: case OP_RESIZE: case OP_UPSAMPLE:
    case OP_RNN: case OP_GRU: case OP_LSTM:
        return 1;
    default:
        return 0;
    }
}

typedef struct Promote {
    Graph *g;
    Diag *d;
    char *promoted; /* per node id: computed in float32 */
    int *f32_of;    /* per value id: its float32 twin (itself once retyped), or -1 */
    int *half_of;   /* per value id: for a retyped value, its half twin, or -1 */
    DType *was;     /* per value id: the type it had before the pass */
    int cap;        /* length of the arrays (values made here are appended) */
} Promote;

static int grow(Promote *p)
{
    if (p->g->n_values <= p->cap)
        return 0;
    int cap = p->g->n_values * 2;
    int *f = realloc(p->f32_of, (size_t)cap * sizeof *f), *h;
    if (f)
        p->f32_of = f;
    h = realloc(p->half_of, (size_t)cap * sizeof *h);
    if (h)
        p->half_of = h;
    DType *w = realloc(p->was, (size_t)cap * sizeof *w);
    if (w)
        p->was = w;
    if (!f || !h || !w)
        return diag_error(p->d, p->g, -1, "out of memory");
    for (int v = p->cap; v < cap; v++) {
        p->f32_of[v] = p->half_of[v] = -1;
        p->was[v] = v < p->g->n_values ? p->g->values[v].dtype : DT_UNDEFINED;
    }
    p->cap = cap;
    return 0;
}

/* A Cast of value x to type `to` at node position pos, into a new value
 * named name; inferred. Returns the new value, or -1 after an error. The
 * node at pos (and after) moves up by one. */
static int insert_cast(Promote *p, int pos, int x, DType to, const char *name)
{
    Graph *g = p->g;
    int y = graph_add_value(g, pass_unique_name(g, name));
    if (grow(p))
        return -1;
    int node = pass_insert_node(g, pos, "Cast", arena_printf(g->arena, "%s_cast", g->values[y].name), 1, &x,
                                1, &y);
    node_set_int(g, node, "to", dtype_to_onnx(to));
    char *pr = realloc(p->promoted, (size_t)g->n_nodes);
    if (!pr)
        return diag_error(p->d, g, node, "out of memory");
    memmove(pr + pos + 1, pr + pos, (size_t)(g->n_nodes - 1 - pos));
    pr[pos] = 0;
    p->promoted = pr;
    if (ops_infer(g, node, p->d))
        return -1;
    p->was[y] = g->values[y].dtype;
    return y;
}

/* Every live reader of value v is promoted and v is no graph output. */
static int only_promoted_readers(const Promote *p, int v)
{
    const Graph *g = p->g;
    if (g->values[v].is_output)
        return 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || p->promoted[i])
            continue;
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] == v)
                return 0;
    }
    return 1;
}

/* Half constant v as float32 data, in place or into a new constant. */
static int const_to_f32(Promote *p, int v, int node)
{
    Graph *g = p->g;
    Value *val = &g->values[v];
    int64_t numel;
    if (!shape_numel(&val->shape, &numel))
        return diag_error(p->d, g, node, "constant '%s' has no static size", val->name);
    if (opu_fold_reserve(g, node, p->d, numel * 4))
        return -1;
    float *f = arena_alloc(g->arena, numel ? (size_t)numel * 4 : 1);
    const uint16_t *h = val->data;
    for (int64_t i = 0; i < numel; i++)
        f[i] = val->dtype == DT_FLOAT16 ? ctvm_f16_to_f32(h[i]) : ctvm_bf16_to_f32(h[i]);
    if (only_promoted_readers(p, v)) {
        val->data = f;
        val->dtype = DT_FLOAT32;
        return v;
    }
    int c = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_f32", val->name)), DT_FLOAT32,
                            val->shape, f);
    if (grow(p))
        return -1;
    p->was[c] = DT_FLOAT32;
    return c;
}

/* The float32 form of half value v for the promoted node at *pos (which
 * moves up when a Cast goes in before it). */
static int f32_value(Promote *p, int v, int *pos)
{
    if (p->f32_of[v] >= 0)
        return p->f32_of[v];
    Graph *g = p->g;
    int r;
    if (value_is_const(&g->values[v]) && g->values[v].data)
        r = const_to_f32(p, v, *pos);
    else {
        r = insert_cast(p, *pos, v, DT_FLOAT32, arena_printf(g->arena, "%s_f32", g->values[v].name));
        if (r >= 0)
            (*pos)++;
    }
    if (r >= 0)
        p->f32_of[v] = r;
    return r;
}

/* The half form of retyped value v for the node that stays at *pos. */
static int half_value(Promote *p, int v, int *pos)
{
    if (p->half_of[v] >= 0)
        return p->half_of[v];
    Graph *g = p->g;
    int r = insert_cast(p, *pos, v, p->was[v], arena_printf(g->arena, "%s_f16", g->values[v].name));
    if (r >= 0) {
        (*pos)++;
        p->half_of[v] = r;
    }
    return r;
}

/* Node *pos computed in float32; *pos ends at the node's new index. */
static int promote_node(Promote *p, int *pos)
{
    Graph *g = p->g;
    for (int k = 0; k < g->nodes[*pos].n_in; k++) {
        int v = g->nodes[*pos].in[k];
        if (v < 0 || !is_half(g->values[v].dtype))
            continue;
        int f = f32_value(p, v, pos);
        if (f < 0)
            return -1;
        g->nodes[*pos].in[k] = f;
    }
    for (int k = 0; k < g->nodes[*pos].n_out; k++) {
        int v = g->nodes[*pos].out[k];
        if (v < 0 || !is_half(g->values[v].dtype))
            continue;
        if (!g->values[v].is_output) {
            g->values[v].dtype = DT_FLOAT32;
            p->f32_of[v] = v;
            continue;
        }
        /* a graph output keeps its name and half type: rounded by a Cast */
        int w = graph_add_value(g, pass_unique_name(g, arena_printf(g->arena, "%s_f32", g->values[v].name)));
        if (grow(p))
            return -1;
        g->values[w].dtype = DT_FLOAT32;
        g->values[w].shape = g->values[v].shape;
        p->was[w] = DT_FLOAT32;
        g->nodes[*pos].out[k] = w;
        g->values[v].producer = -1;
        g->values[w].producer = *pos;
        /* the Cast takes v as its output: made by hand, not insert_cast */
        int c = pass_insert_node(g, *pos + 1, "Cast", arena_printf(g->arena, "%s_round", g->values[v].name),
                                 1, &w, 1, &v);
        node_set_int(g, c, "to", dtype_to_onnx(p->was[v]));
        char *pr = realloc(p->promoted, (size_t)g->n_nodes);
        if (!pr)
            return diag_error(p->d, g, c, "out of memory");
        memmove(pr + c + 1, pr + c, (size_t)(g->n_nodes - 1 - c));
        pr[c] = 0;
        p->promoted = pr;
        if (ops_infer(g, c, p->d))
            return -1;
        p->f32_of[v] = w;
    }
    return ops_infer(g, *pos, p->d);
}

/* Node *pos keeps its types: every retyped input read rounded back. */
static int keep_node(Promote *p, int *pos)
{
    Graph *g = p->g;
    for (int k = 0; k < g->nodes[*pos].n_in; k++) {
        int v = g->nodes[*pos].in[k];
        if (v < 0 || p->f32_of[v] != v || !is_half(p->was[v]))
            continue;
        int h = half_value(p, v, pos);
        if (h < 0)
            return -1;
        g->nodes[*pos].in[k] = h;
    }
    return 0;
}

static int has_half(const Graph *g, const Node *n)
{
    for (int k = 0; k < n->n_in; k++)
        if (n->in[k] >= 0 && is_half(g->values[n->in[k]].dtype))
            return 1;
    for (int k = 0; k < n->n_out; k++)
        if (n->out[k] >= 0 && is_half(g->values[n->out[k]].dtype))
            return 1;
    return 0;
}

/* A Cast between float32 and a half type becomes an Identity (which then
 * reads and writes float32, and which drop_identity removes): ORT drops
 * such a Cast with its partner (keep_io_types models: input float32 ->
 * Cast to float16 -> ... -> Cast to float32 -> output). */
static void cast_as_identity(Graph *g, int node)
{
    Node *n = &g->nodes[node];
    if (n->dead || n->op != OP_CAST || n->n_in != 1 || n->n_out != 1 || n->in[0] < 0 || n->out[0] < 0)
        return;
    DType from = g->values[n->in[0]].dtype, to = g->values[n->out[0]].dtype;
    if (!(from == DT_FLOAT32 && is_half(to)) && !(is_half(from) && to == DT_FLOAT32))
        return;
    n->op = OP_IDENTITY;
    n->op_type = "Identity";
    n->n_attrs = 0;
    pass_modern_version(g, node);
}

/* Value v holds exactly bfloat16 values: a bfloat16 value, a Cast of one to
 * float32, or a float32 constant every element of which is a bfloat16
 * number (folded bfloat16 weights). */
static int bf16_exact(const Graph *g, int v)
{
    const Value *x = &g->values[v];
    if (x->dtype == DT_BFLOAT16)
        return 1;
    if (x->dtype != DT_FLOAT32)
        return 0;
    if (x->data) {
        int64_t n;
        if (!shape_numel(&x->shape, &n))
            return 0;
        const uint32_t *u = x->data;
        for (int64_t i = 0; i < n; i++)
            if (u[i] & 0xffffu)
                return 0;
        return 1;
    }
    const Node *c = x->producer >= 0 ? &g->nodes[x->producer] : NULL;
    return c && !c->dead && c->op == OP_CAST && c->n_in == 1 && c->in[0] >= 0 &&
           g->values[c->in[0]].dtype == DT_BFLOAT16;
}

/* Marks the MatMuls and Gemms whose two operands are exactly bfloat16 in
 * the model (Node.bf16_operands), before promotion hides it: their products
 * are exact in float32, so pass pack_matmul may compute them with a
 * bfloat16 dot product (vdpbf16ps) on a target that has one, rounding A to
 * bfloat16 where the model declares it bfloat16 but ctvm computes it in
 * float32. A float32 activation (the zoo's bfloat16-weight models) is
 * never marked. */
static void mark_bf16_products(Graph *g)
{
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = &g->nodes[i];
        if (n->dead || (n->op != OP_MATMUL && n->op != OP_GEMM) || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0)
            continue;
        n->bf16_operands = bf16_exact(g, n->in[0]) && bf16_exact(g, n->in[1]);
    }
}

int pass_promote_half(Graph *g, Diag *d)
{
    int any = 0;
    mark_bf16_products(g);
    for (int i = 0; i < g->n_nodes && !any; i++)
        any = !g->nodes[i].dead && promotable(g->nodes[i].op) && has_half(g, &g->nodes[i]);
    if (!any)
        return 0;
    for (int i = 0; i < g->n_nodes; i++)
        cast_as_identity(g, i);
    graph_count_uses(g);
    Promote p = {g, d, calloc((size_t)g->n_nodes + 1, 1), NULL, NULL, NULL, 0};
    int rc = p.promoted ? grow(&p) : diag_error(d, g, -1, "out of memory");
    for (int i = 0; i < g->n_nodes && !rc; i++)
        p.promoted[i] = !g->nodes[i].dead && promotable(g->nodes[i].op) && has_half(g, &g->nodes[i]);
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        if (g->nodes[i].dead)
            continue;
        rc = p.promoted[i] ? promote_node(&p, &i) : keep_node(&p, &i);
    }
    free(p.promoted);
    free(p.f32_of);
    free(p.half_of);
    free(p.was);
    graph_count_uses(g);
    return rc ? -1 : 0;
}
