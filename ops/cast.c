/* cast.c - type conversion: Cast (versions 1..28) and CastLike (15..25).
 *
 * Every numeric type converts to every other (strings are refused):
 * float to float rounds to nearest (float8 formats saturate unless
 * saturate = 0), float to integer truncates toward zero, integer to a
 * narrower integer keeps the low bits, anything to bool is "!= 0", bool to
 * a number is 0/1. The element conversion is the loop IR's cast followed by
 * the output buffer's storage conversion, so folding and generated code
 * agree bit for bit.
 *
 * Attributes after infer:
 *   "to"          int, the ONNX type code of the output (Cast version 1's
 *                 string such as "FLOAT" is translated; CastLike takes it
 *                 from its second input)
 *   "saturate"    int 0/1 (default 1; read from version 19 on)
 *   "round_mode"  int CTVM_ROUND_UP/DOWN/NEAREST (default up; read from
 *                 version 24 on, used for float8e8m0 targets only)
 * A float8 target with saturate = 0, or float8e8m0 with another rounding
 * than "up", stores through a flat loop whose store carries the variant
 * (Stmt.store_nosat / store_round); everything else is one stage. */
#include <string.h>
#include <strings.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime_min/ctvm_types.h"

/* Cast version 1 names its target type with a string. */
static int onnx_code_of_name(const char *s)
{
    static const struct { const char *name; int code; } T[] = {
        {"FLOAT", 1}, {"UINT8", 2}, {"INT8", 3}, {"UINT16", 4}, {"INT16", 5}, {"INT32", 6},
        {"INT64", 7}, {"STRING", 8}, {"BOOL", 9}, {"FLOAT16", 10}, {"DOUBLE", 11},
        {"UINT32", 12}, {"UINT64", 13}, {"COMPLEX64", 14}, {"COMPLEX128", 15}, {"BFLOAT16", 16},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (!strcasecmp(s, T[i].name))
            return T[i].code;
    return -1;
}

static int check_type(Graph *g, int node, Diag *d, DType t, const char *what)
{
    if (t == DT_UNDEFINED || !dtype_supported(t))
        return diag_error(d, g, node, "%s type %s is not supported (strings, complex and "
                          "float6 tensors cannot be held)", what,
                          t == DT_UNDEFINED ? "(unknown)" : dtype_name(t));
    return 0;
}

int op_cast_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int like = n->op == OP_CASTLIKE;
    if (opu_check_arity(g, node, d, like ? 2 : 1, like ? 2 : 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (check_type(g, node, d, x->dtype, "input"))
        return -1;
    DType to;
    if (like) {
        to = opu_in(g, node, 1)->dtype;
    } else {
        const Attr *a = node_attr(n, "to");
        int64_t code = -1;
        if (a && a->kind == ATTR_INT)
            code = a->i;
        else if (a && a->kind == ATTR_STRING && a->s)
            code = onnx_code_of_name(a->s);
        if (code < 0)
            return diag_error(d, g, node, "attribute 'to' is missing or names no ONNX type");
        to = dtype_from_onnx((int)code);
        if (to == DT_UNDEFINED)
            return diag_error(d, g, node, "cast to ONNX type %lld is not supported", (long long)code);
    }
    if (check_type(g, node, d, to, "target"))
        return -1;
    int64_t sat = n->version >= 19 ? attr_int(n, "saturate", 1) : 1;
    int round = CTVM_ROUND_UP;
    if (n->version >= 24) {
        const char *rm = attr_string(n, "round_mode", "up");
        if (!strcmp(rm, "up"))
            round = CTVM_ROUND_UP;
        else if (!strcmp(rm, "down"))
            round = CTVM_ROUND_DOWN;
        else if (!strcmp(rm, "nearest"))
            round = CTVM_ROUND_NEAREST;
        else
            return diag_error(d, g, node, "round_mode '%s' is not up, down or nearest", rm);
    }
    if (!like)
        node_set_int(g, node, "to", dtype_to_onnx(to));
    if (n->version >= 19)
        node_set_int(g, node, "saturate", sat != 0);
    n->at.cast.saturate = sat != 0;
    n->at.cast.round_mode = round;
    opu_set_out(g, node, 0, to, x->shape);
    return 0;
}

/* The converted value of x (of x's compute type) in the compute type of
 * `to`; the store then applies the storage conversion. */
static Expr *convert(LoopBuilder *lb, Expr *x, DType to)
{
    if (to == DT_BOOL)
        return lx_cast(lb, LT_BOOL, x);
    return lx_cast(lb, lt_of_dtype(to), x);
}

static int is_f8(DType t)
{
    return t == DT_FLOAT8E4M3FN || t == DT_FLOAT8E4M3FNUZ || t == DT_FLOAT8E5M2 ||
           t == DT_FLOAT8E5M2FNUZ || t == DT_FLOAT8E8M0;
}

int compute_cast(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    LBuf *xb = cx->buf_of(cx, n->in[0]), *yb = cx->buf_of(cx, n->out[0]);
    int nosat = !n->at.cast.saturate;
    int round = y->dtype == DT_FLOAT8E8M0 ? n->at.cast.round_mode : 0;
    if (is_f8(y->dtype) && (nosat || round)) {
        int64_t cnt;
        if (!shape_numel(&y->shape, &cnt))
            return compute_fail(cx, node, "output has no static size");
        LVar *i = lv_new(lb, "i");
        Expr *v = convert(lb, lx_load(lb, xb, lx_var(lb, i)), y->dtype);
        Stmt *st = ls_store(lb, yb, lx_var(lb, i), v);
        st->store_nosat = nosat;
        st->store_round = round;
        def->custom = ls_for(lb, i, cnt, LOOP_SERIAL, st);
        return 0;
    }
    ComputeStage *s = compute_stage_new(cx, def, n->name, yb, &y->shape);
    s->out_is_node_output = 1;
    s->body = convert(lb, lx_load(lb, xb, s->out_index), y->dtype);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(cast)
