/* loop.c - types, builders, simplification, substitution and dump of the
 * loop IR (see loop.h). */
#include "loop.h"
#include "loop_vec.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "call_prims.h"

/* ---- types ---- */

static const struct {
    DType dt;
    const char *c, *name;
    int bits;
} LT_INFO[LT_COUNT] = {
    [LT_IDX] = {DT_INT32, "int", "idx", 32},       [LT_BOOL] = {DT_BOOL, "int", "bool", 1},
    [LT_I8] = {DT_INT8, "int8_t", "i8", 8},        [LT_I16] = {DT_INT16, "int16_t", "i16", 16},
    [LT_I32] = {DT_INT32, "int32_t", "i32", 32},   [LT_I64] = {DT_INT64, "int64_t", "i64", 64},
    [LT_U8] = {DT_UINT8, "uint8_t", "u8", 8},      [LT_U16] = {DT_UINT16, "uint16_t", "u16", 16},
    [LT_U32] = {DT_UINT32, "uint32_t", "u32", 32}, [LT_U64] = {DT_UINT64, "uint64_t", "u64", 64},
    [LT_F32] = {DT_FLOAT32, "float", "f32", 32},   [LT_F64] = {DT_FLOAT64, "double", "f64", 64},
    [LT_F16] = {DT_FLOAT16, "uint16_t", "f16", 16}, [LT_BF16] = {DT_BFLOAT16, "uint16_t", "bf16", 16},
};

LType lt_of_dtype(DType t)
{
    DType c = dtype_compute(t);
    for (int i = LT_BOOL; i < LT_COUNT; i++)
        if (LT_INFO[i].dt == c)
            return (LType)i;
    return LT_F32;
}

DType lt_dtype(LType t) { return LT_INFO[t].dt; }
const char *lt_c_type(LType t) { return LT_INFO[t].c; }
const char *lt_name(LType t) { return LT_INFO[t].name; }
int lt_is_float(LType t) { return t == LT_F32 || t == LT_F64; }
int lt_is_int(LType t) { return t >= LT_I8 && t <= LT_U64; }
int lt_is_signed_int(LType t) { return t >= LT_I8 && t <= LT_I64; }
int lt_bits(LType t) { return LT_INFO[t].bits; }
int lt_is_cond(LType t) { return t == LT_IDX || t == LT_BOOL; }

/* v reduced to the values of type t: wrapped to its width, sign- or
 * zero-extended back to 64 bits (LT_U64 keeps its bits; bool is 0/1). */
int64_t loop_wrap_int(LType t, int64_t v)
{
    switch (t) {
    case LT_BOOL: return v != 0;
    case LT_I8: return (int8_t)(uint8_t)v;
    case LT_I16: return (int16_t)(uint16_t)v;
    case LT_IDX:
    case LT_I32: return (int32_t)(uint32_t)v;
    case LT_U8: return (uint8_t)v;
    case LT_U16: return (uint16_t)v;
    case LT_U32: return (uint32_t)v;
    default: return v;
    }
}

static Expr *expr_new(LoopBuilder *lb, ExprKind k, LType t)
{
    Expr *e = arena_alloc(lb->arena, sizeof *e);
    e->kind = k;
    e->type = t;
    return e;
}

static Stmt *stmt_new(LoopBuilder *lb, StmtKind k)
{
    Stmt *s = arena_alloc(lb->arena, sizeof *s);
    s->kind = k;
    return s;
}

LVar *lv_new_typed(LoopBuilder *lb, const char *hint, LType type)
{
    LVar *v = arena_alloc(lb->arena, sizeof *v);
    v->name = arena_strdup(lb->arena, hint);
    v->id = lb->next_var++;
    v->type = type;
    return v;
}

LVar *lv_new(LoopBuilder *lb, const char *hint)
{
    return lv_new_typed(lb, hint, LT_IDX);
}

LBuf *lbuf_new_typed(LoopBuilder *lb, const char *hint, BufKind kind, DType dtype, int64_t numel)
{
    LBuf *b = arena_alloc(lb->arena, sizeof *b);
    b->name = arena_strdup(lb->arena, hint);
    b->kind = kind;
    b->dtype = dtype;
    b->numel = numel;
    b->io_index = -1;
    b->id = lb->next_buf++;
    return b;
}

LBuf *lbuf_new(LoopBuilder *lb, const char *hint, BufKind kind, int64_t numel)
{
    return lbuf_new_typed(lb, hint, kind, DT_FLOAT32, numel);
}

Expr *lx_const_i(LoopBuilder *lb, LType t, int64_t v)
{
    if (lt_is_float(t))
        return lx_const_f(lb, t, (double)v);
    Expr *e = expr_new(lb, EX_INT, t);
    e->i = loop_wrap_int(t, v);
    return e;
}

Expr *lx_const_f(LoopBuilder *lb, LType t, double v)
{
    if (!lt_is_float(t)) {
        if (t == LT_BOOL)
            return lx_const_i(lb, t, v != 0);
        if (isnan(v))
            return lx_const_i(lb, t, 0);
        if (t == LT_U64 && v >= 9223372036854775808.0)
            return lx_const_i(lb, t, (int64_t)(uint64_t)v);
        return lx_const_i(lb, t, v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v);
    }
    Expr *e = expr_new(lb, EX_FLOAT, t);
    e->f = t == LT_F32 ? (double)(float)v : v;
    return e;
}

Expr *lx_int(LoopBuilder *lb, int64_t v)
{
    Expr *e = expr_new(lb, EX_INT, LT_IDX);
    e->i = v;
    return e;
}

Expr *lx_float(LoopBuilder *lb, double v) { return lx_const_f(lb, LT_F32, v); }
Expr *lx_zero(LoopBuilder *lb, LType t) { return lx_const_i(lb, t, 0); }
Expr *lx_one(LoopBuilder *lb, LType t) { return lx_const_i(lb, t, 1); }

Expr *lx_lowest(LoopBuilder *lb, LType t)
{
    if (lt_is_float(t))
        return lx_const_f(lb, t, -INFINITY);
    if (t == LT_BOOL || (!lt_is_signed_int(t) && t != LT_IDX))
        return lx_const_i(lb, t, 0);
    return lx_const_i(lb, t, t == LT_I64 ? INT64_MIN : -((int64_t)1 << (lt_bits(t) - 1)));
}

Expr *lx_highest(LoopBuilder *lb, LType t)
{
    if (lt_is_float(t))
        return lx_const_f(lb, t, INFINITY);
    if (t == LT_BOOL)
        return lx_const_i(lb, t, 1);
    if (t == LT_U64)
        return lx_const_i(lb, t, -1);
    if (t == LT_I64)
        return lx_const_i(lb, t, INT64_MAX);
    int b = lt_bits(t);
    return lx_const_i(lb, t, lt_is_signed_int(t) || t == LT_IDX ? ((int64_t)1 << (b - 1)) - 1 : ((int64_t)1 << b) - 1);
}

Expr *lx_var(LoopBuilder *lb, LVar *v)
{
    Expr *e = expr_new(lb, EX_VAR, v->type);
    e->var = v;
    return e;
}

Expr *lx_load(LoopBuilder *lb, LBuf *buf, Expr *index)
{
    Expr *e = expr_new(lb, EX_LOAD, lt_of_dtype(buf->dtype));
    e->buf = buf;
    e->a = index;
    return e;
}

static int is_int(const Expr *e, int64_t v)
{
    return e->kind == EX_INT && e->i == v;
}

static int is_cmp(BinOp op)
{
    return op == BO_LT || op == BO_LE || op == BO_GE || op == BO_EQ || op == BO_GT || op == BO_NE;
}

int loop_int_op(LType t, BinOp op, int64_t a, int64_t b, int64_t *out)
{
    int uns = t == LT_U64;
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    int bits = t == LT_BOOL ? 8 : lt_bits(t);
    switch (op) {
    case BO_ADD: *out = (int64_t)(ua + ub); break;
    case BO_SUB: *out = (int64_t)(ua - ub); break;
    case BO_MUL: *out = (int64_t)(ua * ub); break;
    case BO_DIV:
        if (b == 0 && t == LT_IDX)
            return 0; /* index arithmetic: left to the C compiler */
        if (b == 0)
            *out = 0;
        else if (uns)
            *out = (int64_t)(ua / ub);
        else if (a == INT64_MIN && b == -1)
            *out = a;
        else
            *out = a / b;
        break;
    case BO_MOD:
        if (b == 0 && t == LT_IDX)
            return 0;
        if (b == 0)
            *out = 0;
        else if (uns)
            *out = (int64_t)(ua % ub);
        else if (b == -1)
            *out = 0;
        else
            *out = a % b;
        break;
    case BO_MIN: *out = (uns ? ua < ub : a < b) ? a : b; break;
    case BO_MAX: *out = (uns ? ua > ub : a > b) ? a : b; break;
    case BO_LT: *out = uns ? ua < ub : a < b; return 1;
    case BO_LE: *out = uns ? ua <= ub : a <= b; return 1;
    case BO_GE: *out = uns ? ua >= ub : a >= b; return 1;
    case BO_GT: *out = uns ? ua > ub : a > b; return 1;
    case BO_EQ: *out = a == b; return 1;
    case BO_NE: *out = a != b; return 1;
    case BO_AND: *out = lt_is_cond(t) ? (a && b) : (a & b); break;
    case BO_OR: *out = lt_is_cond(t) ? (a || b) : (a | b); break;
    case BO_XOR: *out = lt_is_cond(t) ? (!a != !b) : (a ^ b); break;
    case BO_SHL: *out = ub >= (uint64_t)bits ? 0 : (int64_t)(ua << ub); break;
    case BO_POW: {
        if (t == LT_IDX || t == LT_BOOL)
            return 0;
        uint64_t r = 1, p = ua;
        if (!uns && b < 0) {
            *out = a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
            break;
        }
        for (uint64_t e = ub; e; e >>= 1) {
            if (e & 1)
                r *= p;
            p *= p;
        }
        *out = (int64_t)r;
        break;
    }
    case BO_SHR:
        if (ub >= (uint64_t)bits)
            *out = lt_is_signed_int(t) && a < 0 ? -1 : 0;
        else if (lt_is_signed_int(t) || t == LT_IDX)
            *out = a < 0 ? ~(~a >> ub) : a >> ub;
        else
            *out = (int64_t)(ua >> ub);
        break;
    default: return 0;
    }
    *out = loop_wrap_int(t, *out);
    return 1;
}

int loop_float_op(LType t, BinOp op, double a, double b, double *out)
{
    switch (op) {
    case BO_ADD: *out = a + b; break;
    case BO_SUB: *out = a - b; break;
    case BO_MUL: *out = a * b; break;
    case BO_DIV: *out = a / b; break;
    case BO_MIN: *out = a < b ? a : b; break;
    case BO_MAX: *out = a > b ? a : b; break;
    default: return 0;
    }
    if (t == LT_F32)
        *out = (double)(float)*out;
    return 1;
}

static Expr *bin_node(LoopBuilder *lb, BinOp op, LType t, Expr *a, Expr *b)
{
    Expr *e = expr_new(lb, EX_BIN, t);
    e->op = op;
    e->a = a;
    e->b = b;
    return e;
}

/* The simplifications of LT_IDX index arithmetic (see lx_bin). */
static Expr *simplify_idx(LoopBuilder *lb, BinOp op, Expr *a, Expr *b)
{
    switch (op) {
    case BO_ADD:
        if (is_int(a, 0)) return b;
        if (is_int(b, 0)) return a;
        /* (x + c1) + c2 -> x + (c1 + c2) */
        if (b->kind == EX_INT && a->kind == EX_BIN && a->op == BO_ADD && a->b->kind == EX_INT)
            return lx_bin(lb, BO_ADD, a->a, lx_int(lb, a->b->i + b->i));
        if (a->kind == EX_INT) /* constants to the right */
            return lx_bin(lb, BO_ADD, b, a);
        break;
    case BO_SUB:
        if (is_int(b, 0)) return a;
        if (b->kind == EX_INT)
            return lx_bin(lb, BO_ADD, a, lx_int(lb, -b->i));
        break;
    case BO_MUL:
        if (is_int(a, 0) || is_int(b, 0)) return lx_int(lb, 0);
        if (is_int(a, 1)) return b;
        if (is_int(b, 1)) return a;
        if (a->kind == EX_INT)
            return lx_bin(lb, BO_MUL, b, a);
        break;
    case BO_DIV:
        if (is_int(b, 1)) return a;
        break;
    case BO_MOD:
        if (is_int(b, 1)) return lx_int(lb, 0);
        break;
    case BO_AND:
        if (is_int(a, 1)) return b;
        if (is_int(b, 1)) return a;
        if (is_int(a, 0) || is_int(b, 0)) return lx_int(lb, 0);
        break;
    default:
        break;
    }
    return NULL;
}

Expr *lx_bin(LoopBuilder *lb, BinOp op, Expr *a, Expr *b)
{
    LType t = a->type;
    if (a->type != b->type) {
        /* conditions mix LT_IDX and LT_BOOL; shift counts may be any integer */
        int ok = (lt_is_cond(a->type) && lt_is_cond(b->type)) || op == BO_SHL || op == BO_SHR;
        assert(ok && "lx_bin: operand types differ");
        (void)ok;
        if (op != BO_SHL && op != BO_SHR)
            t = LT_BOOL;
        if (op == BO_SHL || op == BO_SHR)
            b = lx_cast(lb, a->type, b);
    }
    LType rt = is_cmp(op) ? (t == LT_IDX ? LT_IDX : LT_BOOL) : t;
    if (a->kind == EX_INT && b->kind == EX_INT && !lt_is_float(t)) {
        int64_t r;
        if (loop_int_op(t, op, a->i, b->i, &r))
            return lx_const_i(lb, rt, r);
    }
    if (a->kind == EX_FLOAT && b->kind == EX_FLOAT) {
        double r;
        if (is_cmp(op)) {
            int c = op == BO_LT ? a->f < b->f : op == BO_LE ? a->f <= b->f : op == BO_GE ? a->f >= b->f
                  : op == BO_GT ? a->f > b->f : op == BO_EQ ? a->f == b->f : a->f != b->f;
            return lx_const_i(lb, LT_BOOL, c);
        }
        if (loop_float_op(t, op, a->f, b->f, &r))
            return lx_const_f(lb, t, r);
    }
    if (t == LT_IDX) {
        Expr *s = simplify_idx(lb, op, a, b);
        if (s)
            return s;
    } else if (lt_is_int(t)) {
        if (op == BO_ADD && is_int(b, 0)) return a;
        if (op == BO_ADD && is_int(a, 0)) return b;
        if (op == BO_SUB && is_int(b, 0)) return a;
        if (op == BO_MUL && is_int(b, 1)) return a;
        if (op == BO_MUL && is_int(a, 1)) return b;
        /* loads and arithmetic have no side effects, so a product by the
         * constant 0 is 0 (a zero point of 0 times a sum) */
        if (op == BO_MUL && (is_int(a, 0) || is_int(b, 0))) return lx_const_i(lb, rt, 0);
        if (op == BO_DIV && is_int(b, 1)) return a;
    } else if (lt_is_float(t)) {
        /* x / 1 is x exactly in IEEE arithmetic (NaN, infinities, -0 too):
         * QuantizeLinear by a scale of 1 after ORT's requantization order */
        if (op == BO_DIV && b->kind == EX_FLOAT && b->f == 1.0)
            return a;
        if (op == BO_ADD && b->kind == EX_FLOAT && b->f == 0.0)
            return a;
        if (op == BO_MUL && b->kind == EX_FLOAT && b->f == 1.0)
            return a;
        if (op == BO_ADD && a->kind == EX_FLOAT && a->f == 0.0)
            return b;
        if (op == BO_MUL && a->kind == EX_FLOAT && a->f == 1.0)
            return b;
    } else if (t == LT_BOOL && (op == BO_AND || op == BO_OR)) {
        if (a->kind == EX_INT)
            return (op == BO_AND) == (a->i != 0) ? b : a;
        if (b->kind == EX_INT)
            return (op == BO_AND) == (b->i != 0) ? a : b;
    }
    return bin_node(lb, op, rt, a, b);
}

static LType call_type(CallOp fn, LType a)
{
    switch (fn) {
    case CO_ITOF: return LT_F32;
    case CO_ISNAN:
    case CO_ISINF:
    case CO_ISPOSINF:
    case CO_ISNEGINF: return LT_BOOL;
    default: return a;
    }
}

Expr *lx_call(LoopBuilder *lb, CallOp fn, Expr *a)
{
    if (fn == CO_ITOF)
        return lx_cast(lb, LT_F32, a);
    if (fn == CO_NEG && a->kind == EX_FLOAT)
        return lx_const_f(lb, a->type, -a->f);
    if (fn == CO_NEG && a->kind == EX_INT && a->type != LT_BOOL)
        return lx_const_i(lb, a->type, (int64_t)(0 - (uint64_t)a->i));
    if (fn == CO_NOT && a->kind == EX_INT)
        return lx_const_i(lb, a->type, lt_is_cond(a->type) ? !a->i : ~a->i);
    Expr *e = expr_new(lb, EX_CALL, call_type(fn, a->type));
    e->fn = fn;
    e->a = a;
    return e;
}

Expr *lx_select(LoopBuilder *lb, Expr *cond, Expr *a, Expr *b)
{
    if (cond->kind == EX_INT)
        return cond->i ? a : b;
    assert(a->type == b->type && "lx_select: branch types differ");
    Expr *e = expr_new(lb, EX_SELECT, a->type);
    e->c = cond;
    e->a = a;
    e->b = b;
    return e;
}

Expr *lx_cast(LoopBuilder *lb, LType t, Expr *a)
{
    if (a->type == t)
        return a;
    if (a->kind == EX_INT && !lt_is_float(t)) {
        /* a U64 constant converts through its bits; others by value */
        return lx_const_i(lb, t, a->i);
    }
    if (a->kind == EX_INT && lt_is_float(t))
        return lx_const_f(lb, t, a->type == LT_U64 ? (double)(uint64_t)a->i : (double)a->i);
    if (a->kind == EX_FLOAT && lt_is_float(t))
        return lx_const_f(lb, t, a->f);
    Expr *e = expr_new(lb, EX_CAST, t);
    e->a = a;
    return e;
}

Expr *lx_add(LoopBuilder *lb, Expr *a, Expr *b) { return lx_bin(lb, BO_ADD, a, b); }
Expr *lx_sub(LoopBuilder *lb, Expr *a, Expr *b) { return lx_bin(lb, BO_SUB, a, b); }
Expr *lx_mul(LoopBuilder *lb, Expr *a, Expr *b) { return lx_bin(lb, BO_MUL, a, b); }
Expr *lx_div(LoopBuilder *lb, Expr *a, Expr *b) { return lx_bin(lb, BO_DIV, a, b); }
Expr *lx_muli(LoopBuilder *lb, Expr *a, int64_t k) { return lx_bin(lb, BO_MUL, a, lx_int(lb, k)); }

int lx_uses_var(const Expr *e, const LVar *var)
{
    if (!e)
        return 0;
    if (e->kind == EX_VAR)
        return e->var == var;
    return lx_uses_var(e->a, var) || lx_uses_var(e->b, var) || lx_uses_var(e->c, var);
}

int lx_loads_buf(const Expr *e, const LBuf *b)
{
    if (!e)
        return 0;
    if (e->kind == EX_LOAD && e->buf == b)
        return 1;
    return lx_loads_buf(e->a, b) || lx_loads_buf(e->b, b) || lx_loads_buf(e->c, b);
}

Expr *lx_subst(LoopBuilder *lb, Expr *e, const LVar *var, Expr *r)
{
    if (!e || !lx_uses_var(e, var))
        return e;
    switch (e->kind) {
    case EX_VAR: return r;
    case EX_LOAD: return lx_load(lb, e->buf, lx_subst(lb, e->a, var, r));
    case EX_BIN: return lx_bin(lb, e->op, lx_subst(lb, e->a, var, r), lx_subst(lb, e->b, var, r));
    case EX_CALL: return lx_call(lb, e->fn, lx_subst(lb, e->a, var, r));
    case EX_CAST: return lx_cast(lb, e->type, lx_subst(lb, e->a, var, r));
    case EX_SELECT:
        return lx_select(lb, lx_subst(lb, e->c, var, r), lx_subst(lb, e->a, var, r),
                         lx_subst(lb, e->b, var, r));
    default: return e;
    }
}

Stmt *ls_for(LoopBuilder *lb, LVar *var, int64_t extent, LoopKind kind, Stmt *body)
{
    Stmt *s = stmt_new(lb, ST_FOR);
    s->var = var;
    s->extent = extent;
    s->loop = kind;
    s->body = body;
    return s;
}

Stmt *ls_role(Stmt *s, LoopRole role, int64_t work)
{
    if (s) {
        s->role = role;
        s->work = work;
    }
    return s;
}

Stmt *ls_store(LoopBuilder *lb, LBuf *buf, Expr *index, Expr *value)
{
    Stmt *s = stmt_new(lb, ST_STORE);
    s->buf = buf;
    s->index = index;
    s->value = lx_cast(lb, lt_of_dtype(buf->dtype), value);
    return s;
}

Stmt *ls_seq(LoopBuilder *lb, int n, Stmt **items)
{
    Stmt *s = stmt_new(lb, ST_SEQ);
    s->items = arena_array(lb->arena, (size_t)(n ? n : 1), sizeof(Stmt *));
    for (int i = 0; i < n; i++)
        if (items[i])
            s->items[s->n++] = items[i];
    return s;
}

Stmt *ls_seq2(LoopBuilder *lb, Stmt *a, Stmt *b)
{
    Stmt *items[2] = {a, b};
    return ls_seq(lb, 2, items);
}

Stmt *ls_if(LoopBuilder *lb, Expr *cond, Stmt *then_s)
{
    return ls_if_else(lb, cond, then_s, NULL);
}

Stmt *ls_if_else(LoopBuilder *lb, Expr *cond, Stmt *then_s, Stmt *else_s)
{
    if (cond->kind == EX_INT)
        return cond->i ? then_s : else_s ? else_s : ls_seq(lb, 0, NULL);
    Stmt *s = stmt_new(lb, ST_IF);
    s->cond = cond;
    s->body = then_s;
    s->else_body = else_s;
    return s;
}

Stmt *ls_alloc(LoopBuilder *lb, LBuf *local, Stmt *body)
{
    Stmt *s = stmt_new(lb, ST_ALLOC);
    s->buf = local;
    s->body = body;
    return s;
}

Stmt *ls_call(LoopBuilder *lb, const char *fn, int n_bufs, LBuf *const *bufs, const int *written, int n_iargs,
              const int64_t *iargs, int n_fargs, const double *fargs)
{
    assert(n_bufs <= LOOP_CALL_MAX_BUFS && n_iargs <= LOOP_CALL_MAX_ARGS && n_fargs <= LOOP_CALL_MAX_ARGS);
    Stmt *s = stmt_new(lb, ST_CALL);
    s->fn = arena_strdup(lb->arena, fn);
    s->n_bufs = n_bufs;
    s->n_iargs = n_iargs;
    s->n_fargs = n_fargs;
    s->bufs = arena_array(lb->arena, (size_t)n_bufs + 1, sizeof(LBuf *));
    s->buf_written = arena_array(lb->arena, (size_t)n_bufs + 1, sizeof(int));
    s->iargs = arena_array(lb->arena, (size_t)n_iargs + 1, sizeof(int64_t));
    s->fargs = arena_array(lb->arena, (size_t)n_fargs + 1, sizeof(double));
    for (int i = 0; i < n_bufs; i++) {
        s->bufs[i] = bufs[i];
        s->buf_written[i] = written ? written[i] : 0;
    }
    for (int i = 0; i < n_iargs; i++)
        s->iargs[i] = iargs[i];
    for (int i = 0; i < n_fargs; i++)
        s->fargs[i] = fargs[i];
    return s;
}

Stmt *ls_call_iarg(LoopBuilder *lb, const Stmt *s, int at, Expr *e)
{
    assert(s->kind == ST_CALL && at >= 0 && at < s->n_iargs);
    Stmt *c = stmt_new(lb, ST_CALL);
    *c = *s;
    c->iexpr = e;
    c->iexpr_at = at;
    return c;
}

Stmt *ls_subst(LoopBuilder *lb, Stmt *s, const LVar *var, Expr *r)
{
    if (!s)
        return NULL;
    Stmt *c = stmt_new(lb, s->kind);
    *c = *s;
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: c->body = ls_subst(lb, s->body, var, r); break;
    case ST_ASSIGN: c->value = lx_subst(lb, s->value, var, r); break;
    case ST_BARRIER: break;
    case ST_IF:
        c->cond = lx_subst(lb, s->cond, var, r);
        c->body = ls_subst(lb, s->body, var, r);
        c->else_body = ls_subst(lb, s->else_body, var, r);
        break;
    case ST_STORE:
        c->index = lx_subst(lb, s->index, var, r);
        c->value = lx_subst(lb, s->value, var, r);
        break;
    case ST_SEQ:
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = ls_subst(lb, s->items[i], var, r);
        break;
    case ST_CALL: c->iexpr = s->iexpr ? lx_subst(lb, s->iexpr, var, r) : NULL; break;
    }
    return c;
}

const char *lx_bin_name(BinOp op)
{
    static const char *const S[BO_COUNT] = {"+", "-", "*", "/", "%", "min", "max", "<", "<=", ">=", "==",
                                            "&", "|", "^", "<<", ">>", "pow", ">", "!="};
    return op < BO_COUNT ? S[op] : "?";
}

const char *lx_call_name(CallOp fn) { return call_prim(fn)->name; }

void loop_print_expr(FILE *f, const Expr *e)
{
    if (e->kind == EX_BCAST || e->kind == EX_FMA || e->kind == EX_DOT || e->kind == EX_MLA16 || e->kind == EX_LANEMASK ||
        e->kind == EX_HREDUCE || (e->kind == EX_LOAD && e->lanes > 1) ||
        (e->kind == EX_VAR && e->var->type != LT_IDX)) {
        loop_print_vec_expr(f, e);
        return;
    }
    if (e->lanes > 1)
        fprintf(f, "<%d x>", e->lanes);
    switch (e->kind) {
    case EX_INT: fprintf(f, "%lld", (long long)e->i); break;
    case EX_FLOAT: fprintf(f, e->type == LT_F32 ? "%.9gf" : "%.17g", e->f); break;
    case EX_VAR:
        if (e->var->id < 0)
            fputs(e->var->name, f);
        else
            fprintf(f, "%s_%d", e->var->name, e->var->id);
        break;
    case EX_LOAD:
        fprintf(f, "%s[", e->buf->name);
        loop_print_expr(f, e->a);
        fprintf(f, "]");
        break;
    case EX_BIN:
        if (e->op == BO_MIN || e->op == BO_MAX || e->op == BO_POW) {
            fprintf(f, "%s(", lx_bin_name(e->op));
            loop_print_expr(f, e->a);
            fprintf(f, ", ");
            loop_print_expr(f, e->b);
            fprintf(f, ")");
        } else {
            fprintf(f, "(");
            loop_print_expr(f, e->a);
            fprintf(f, " %s ", e->op == BO_AND && lt_is_cond(e->type) ? "&&"
                               : e->op == BO_OR && lt_is_cond(e->type) ? "||" : lx_bin_name(e->op));
            loop_print_expr(f, e->b);
            fprintf(f, ")");
        }
        break;
    case EX_CALL:
        fprintf(f, "%s(", lx_call_name(e->fn));
        loop_print_expr(f, e->a);
        fprintf(f, ")");
        break;
    case EX_CAST:
        fprintf(f, "%s(", lt_name(e->type));
        loop_print_expr(f, e->a);
        fprintf(f, ")");
        break;
    case EX_SELECT:
        fprintf(f, "select(");
        loop_print_expr(f, e->c);
        fprintf(f, ", ");
        loop_print_expr(f, e->a);
        fprintf(f, ", ");
        loop_print_expr(f, e->b);
        fprintf(f, ")");
        break;
    default: break; /* vector nodes: above */
    }
}

void loop_print(FILE *f, const Stmt *s, int indent)
{
    static const char *const KIND[] = {"for", "unroll", "vectorize", "parallel", "team"};
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR:
        fprintf(f, "%*s%s %s_%d in 0..%lld", indent, "", KIND[s->loop], s->var->name, s->var->id,
                (long long)s->extent);
        if (s->loop == LOOP_TEAM)
            fprintf(f, " in %d chunks", s->chunks);
        fprintf(f, " {\n");
        loop_print(f, s->body, indent + 2);
        fprintf(f, "%*s}\n", indent, "");
        break;
    case ST_STORE:
        fprintf(f, "%*s%s[", indent, "", s->buf->name);
        loop_print_expr(f, s->index);
        fprintf(f, "] = ");
        loop_print_expr(f, s->value);
        fprintf(f, "\n");
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            loop_print(f, s->items[i], indent);
        break;
    case ST_IF:
        fprintf(f, "%*sif ", indent, "");
        loop_print_expr(f, s->cond);
        fprintf(f, " {\n");
        loop_print(f, s->body, indent + 2);
        if (s->else_body) {
            fprintf(f, "%*s} else {\n", indent, "");
            loop_print(f, s->else_body, indent + 2);
        }
        fprintf(f, "%*s}\n", indent, "");
        break;
    case ST_ALLOC:
        fprintf(f, "%*salloc %s %s[%lld] {\n", indent, "", dtype_name(s->buf->dtype), s->buf->name,
                (long long)s->buf->numel);
        loop_print(f, s->body, indent + 2);
        fprintf(f, "%*s}\n", indent, "");
        break;
    case ST_CALL:
        fprintf(f, "%*scall %s(", indent, "", s->fn);
        for (int i = 0; i < s->n_bufs; i++)
            fprintf(f, "%s%s", i ? ", " : "", s->bufs[i] ? s->bufs[i]->name : "null");
        for (int i = 0; i < s->n_iargs; i++) {
            if (s->iexpr && i == s->iexpr_at) {
                fputs(", ", f);
                loop_print_expr(f, s->iexpr);
            } else
                fprintf(f, ", %lld", (long long)s->iargs[i]);
        }
        for (int i = 0; i < s->n_fargs; i++)
            fprintf(f, ", %.9g", s->fargs[i]);
        fprintf(f, ")\n");
        break;
    case ST_DECL:
        fprintf(f, "%*sregisters", indent, "");
        for (int i = 0; i < s->n_vars; i++)
            fprintf(f, "%s %s<%s x %d>", i ? "," : "", s->vars[i]->name, lt_name(s->vars[i]->type),
                    s->vars[i]->lanes > 1 ? s->vars[i]->lanes : 1);
        fprintf(f, " {\n");
        loop_print(f, s->body, indent + 2);
        fprintf(f, "%*s}\n", indent, "");
        break;
    case ST_ASSIGN:
        fprintf(f, "%*s%s = ", indent, "", s->var->name);
        loop_print_expr(f, s->value);
        fprintf(f, "\n");
        break;
    case ST_SINGLE:
        fprintf(f, "%*sone thread {\n", indent, "");
        loop_print(f, s->body, indent + 2);
        fprintf(f, "%*s}\n", indent, "");
        break;
    case ST_BARRIER: fprintf(f, "%*sbarrier\n", indent, ""); break;
    }
}
