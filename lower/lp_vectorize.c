/* lp_vectorize.c - loop pass: a LOOP_VECTORIZE loop whose extent is the
 * target's vector width and whose body the vector API can express becomes
 * that body on vectors (ir/loop_vec.h): each store one vector store, each
 * load that moves with the loop variable one contiguous vector load,
 * everything that does not move a broadcast, a * b + c one fused
 * multiply-add. Indices are those of the first lane, in canonical form.
 * Other vector loops stay serial loops.
 *
 * Vectors are typed, and every vector has the lanes of the loop whatever
 * its element width (templates/ctvm_vec_<isa>.h, "typed part"). Values
 * compute in four classes: float32, float64, 32-bit integers and 64-bit
 * integers, plus lane masks for conditions and bool. A load of a narrower
 * storage type (int8/uint8/int16/uint16, float16/bfloat16, bool) is a
 * vector of that type followed by an explicit widening EX_CAST, a store
 * of one an explicit narrowing EX_CAST before it. Integers narrower than
 * 32 bits compute in 32-bit lanes holding their exact value: after an
 * operation that may leave their range (+ - * << neg) they are narrowed
 * and widened again, so comparisons, min/max and conversions see the
 * value the scalar code sees.
 *
 * What vectorizes: contiguous (or uniform) loads and stores of float32,
 * float64, every integer width, bool, float16 and bfloat16; float + - * /
 * min max and the calls with a vector form; integer + - * min max & | ^,
 * shifts by a constant, neg abs not; comparisons and their conjunctions;
 * selects; conversions between these types (float/int both ways, widen,
 * narrow, float32 <-> float64/float16/bfloat16); ifs whose condition does
 * not depend on the loop variable. Not: division of integers, pow, fmod,
 * 64-bit multiplies and compares, float8 and packed types. */
#include "ir/loop_lower.h"
#include "ir/loop_vec.h"
#include "ir/target.h"
#include "loop_passes.h"

typedef struct Vec {
    LoopBuilder *lb;
    int vl;
} Vec;

static int contiguous(const Expr *index, const LVar *v)
{
    int64_t c;
    return lx_affine(index, v, &c) && c == 1;
}

static int narrow_int(LType t)
{
    return t == LT_I8 || t == LT_U8 || t == LT_I16 || t == LT_U16;
}

/* the lane type a value of IR type t computes in (LT_COUNT: none) */
static LType rep(LType t)
{
    switch (t) {
    case LT_F32: case LT_F64: case LT_I32: case LT_U32: case LT_I64: case LT_U64: case LT_BOOL: return t;
    case LT_I8: case LT_U8: case LT_I16: case LT_U16: return LT_I32;
    default: return LT_COUNT;
    }
}

static int cls32(LType t) { return rep(t) == LT_I32 || t == LT_U32; }
static int cls64(LType t) { return t == LT_I64 || t == LT_U64; }

/* the lane type a buffer of dtype dt is loaded and stored as (LT_COUNT: none) */
static LType storage(DType dt)
{
    switch (dt) {
    case DT_FLOAT32: return LT_F32;
    case DT_FLOAT64: return LT_F64;
    case DT_FLOAT16: return LT_F16;
    case DT_BFLOAT16: return LT_BF16;
    case DT_INT8: return LT_I8;
    case DT_UINT8: return LT_U8;
    case DT_BOOL: return LT_U8; /* 0/1 bytes */
    case DT_INT16: return LT_I16;
    case DT_UINT16: return LT_U16;
    case DT_INT32: return LT_I32;
    case DT_UINT32: return LT_U32;
    case DT_INT64: return LT_I64;
    case DT_UINT64: return LT_U64;
    default: return LT_COUNT;
    }
}

/* call with a vector form of its float32 argument */
static int vcall_f32(CallOp fn)
{
    switch (fn) {
    case CO_EXP: case CO_SQRT: case CO_TANH: case CO_SIGMOID: case CO_NEG: case CO_ABS: case CO_ERF: case CO_EXPM1:
    case CO_FLOOR: case CO_CEIL: case CO_ROUND: case CO_RND_F16: case CO_RND_BF16:
        return 1;
    default: return 0;
    }
}

static int is_cmp(BinOp op)
{
    return op == BO_LT || op == BO_LE || op == BO_GE || op == BO_EQ || op == BO_GT || op == BO_NE;
}

static int const_shift(const Expr *e, LType t)
{
    return e->kind == EX_INT && e->i >= 0 && e->i < lt_bits(t) && e->i < 32;
}

/* can a conversion from IR type f to IR type t be vectorized */
static int cast_ok(LType f, LType t)
{
    if (rep(f) == LT_COUNT || rep(t) == LT_COUNT)
        return 0;
    if (t == LT_BOOL) /* x != 0 */
        return f != LT_BOOL && !cls64(f);
    if (f == LT_BOOL) /* 0 / 1 */
        return !cls64(t);
    if (cls64(f) || cls64(t)) /* 64-bit lanes: only to and from 32-bit integers */
        return (cls64(f) && cls32(t)) || (cls32(f) && cls64(t)) || (cls64(f) && cls64(t));
    if (t == LT_F64) /* exact only from float32 and integers of at most 24 bits */
        return f == LT_F32 || narrow_int(f);
    if (f == LT_F64)
        return t == LT_F32;
    return 1; /* float32 and the 32-bit class both ways */
}

/* ---- dot products (EX_DOT) ----
 * acc + x[i]*w[j] + x[i+1]*w[j+1] + x[i+2]*w[j+2] + x[i+3]*w[j+3] in int32,
 * x and w 8-bit loads widened to int32, x's index not moving with the lane
 * and w's moving by 4 a lane (the blocked integer conv and GEMM of
 * ops/qconvnchwc.c, weights packed 4 input channels to an output lane):
 * per lane one 4-way dot product of the broadcast group x[i..i+3] and the
 * lane's group of w, EX_DOT. The float32 form: acc + x[i]*w[j] +
 * x[i+1]*w[j+1], x and w bfloat16 loads, w moving by 2 a lane
 * (ctvm.BF16MatMul, B packed 2 k-values to an output lane): EX_DOT of
 * float32 type, ctvm_vdot_bf16 (vdpbf16ps). */
typedef struct Dot {
    const Expr *acc, *x, *w; /* acc: the other addend; x, w: the q = 0 loads */
    int g;                   /* products per lane: 4 (8-bit, int32) or 2 (bfloat16, float32) */
} Dot;

static const Expr *load8(const Expr *e)
{
    if (e->kind == EX_CAST && e->type == LT_I32)
        e = e->a;
    return e->kind == EX_LOAD && (e->buf->dtype == DT_UINT8 || e->buf->dtype == DT_INT8) ? e : NULL;
}

static const Expr *load_bf16(const Expr *e)
{
    return e->kind == EX_LOAD && e->type == LT_F32 && e->buf->dtype == DT_BFLOAT16 ? e : NULL;
}

static int flatten_sum(const Expr *e, LType t, const Expr **leaf, int *n)
{
    if (e->kind == EX_BIN && e->op == BO_ADD && e->type == t)
        return flatten_sum(e->a, t, leaf, n) && flatten_sum(e->b, t, leaf, n);
    if (*n >= 4)
        return 0;
    leaf[(*n)++] = e;
    return 1;
}

/* index b - index a, when a constant */
static int const_diff(LoopBuilder *lb, const Expr *a, const Expr *b, int64_t *d)
{
    Expr *c = lx_canon_index(lb, lx_sub(lb, (Expr *)b, (Expr *)a));
    if (c->kind != EX_INT)
        return 0;
    *d = c->i;
    return 1;
}

static int match_dot_sum(LoopBuilder *lb, const Expr *sum, const LVar *v, Dot *dot, LType t)
{
    const Expr *leaf[4];
    int n = 0, g = t == LT_F32 ? 2 : 4;
    if ((t == LT_F32 && !v) || !flatten_sum(sum, t, leaf, &n) || n != g)
        return 0;
    for (int q = 0; q < g; q++) {
        const Expr *p = leaf[q], *a, *b, *x, *w;
        int64_t c = 0, dx, dw;
        if (p->kind != EX_BIN || p->op != BO_MUL || p->type != t)
            return 0;
        if (t == LT_F32 ? !(a = load_bf16(p->a)) || !(b = load_bf16(p->b)) : !(a = load8(p->a)) || !(b = load8(p->b)))
            return 0;
        if (v) /* x: the operand the lane does not move */
            x = lx_uses_var(a->a, v) ? b : a;
        else /* VL 1: x the uint8 one, or either when both are int8 */
            x = b->buf->dtype == DT_INT8 ? a : b;
        w = x == a ? b : a;
        if ((t == LT_I32 && w->buf->dtype != DT_INT8) ||
            (v && (lx_uses_var(x->a, v) || !lx_affine(w->a, v, &c) || c != g)))
            return 0;
        if (q == 0) {
            dot->x = x;
            dot->w = w;
            continue;
        }
        if (x->buf != dot->x->buf || w->buf != dot->w->buf || !const_diff(lb, dot->x->a, x->a, &dx) ||
            !const_diff(lb, dot->w->a, w->a, &dw) || dx != q || dw != q)
            return 0;
    }
    dot->g = g;
    return 1;
}

static int match_dot(LoopBuilder *lb, const Expr *e, const LVar *v, Dot *dot)
{
    if (e->kind != EX_BIN || e->op != BO_ADD || (e->type != LT_I32 && e->type != LT_F32))
        return 0;
    if (match_dot_sum(lb, e->b, v, dot, e->type)) {
        dot->acc = e->a;
        return 1;
    }
    if (match_dot_sum(lb, e->a, v, dot, e->type)) {
        dot->acc = e->b;
        return 1;
    }
    return 0;
}

/* ---- 16-bit multiply-adds (EX_MLA16) ----
 * acc + x*w in int32 whose factors are known to fit in 16 bits, one of them
 * non-negative (the depthwise int8 conv: a uint8 input or its zero point
 * times an int8 weight, widened): per lane one product of the low halves,
 * which pmaddwd / vpdpwssd compute exactly (the high half of the
 * non-negative factor is 0) - cheaper than a 32-bit multiply and an add. */
static int int_range(const Expr *e, int64_t *lo, int64_t *hi)
{
    int64_t l2, h2;
    switch (e->type) {
    case LT_U8: *lo = 0, *hi = 255; return 1;
    case LT_I8: *lo = -128, *hi = 127; return 1;
    case LT_U16: *lo = 0, *hi = 65535; return 1;
    case LT_I16: *lo = -32768, *hi = 32767; return 1;
    default: break;
    }
    if (e->type != LT_I32)
        return 0;
    switch (e->kind) {
    case EX_INT: *lo = *hi = e->i; return 1;
    case EX_CAST: return int_range(e->a, lo, hi);
    case EX_SELECT:
        if (!int_range(e->a, lo, hi) || !int_range(e->b, &l2, &h2))
            return 0;
        *lo = l2 < *lo ? l2 : *lo;
        *hi = h2 > *hi ? h2 : *hi;
        return 1;
    default: return 0;
    }
}

/* e = acc + x*w (either order) with x in [0, 32767] and w in [-32768, 32767] */
static int match_mla16(const Expr *e, const Expr **acc, const Expr **x, const Expr **w)
{
    if (e->kind != EX_BIN || e->op != BO_ADD || e->type != LT_I32)
        return 0;
    for (int s = 0; s < 2; s++) {
        const Expr *m = s ? e->a : e->b;
        int64_t l0, h0, l1, h1;
        if (m->kind != EX_BIN || m->op != BO_MUL || m->type != LT_I32 || !int_range(m->a, &l0, &h0) ||
            !int_range(m->b, &l1, &h1))
            continue;
        int a_pos = l0 >= 0 && h0 <= 32767 && l1 >= -32768 && h1 <= 32767;
        int b_pos = l1 >= 0 && h1 <= 32767 && l0 >= -32768 && h0 <= 32767;
        if (!a_pos && !b_pos)
            continue;
        *acc = s ? e->b : e->a;
        *x = a_pos ? m->a : m->b;
        *w = a_pos ? m->b : m->a;
        return 1;
    }
    return 0;
}

/* ---- rounding conversions of clamped values (requantization) ----
 * (int32)min(max(round(y) + c, lo), hi), lo, hi and c integral float32
 * constants of magnitude <= 2^16 (c may be absent: 0) - QuantizeLinear's
 * saturate(round(x / s) + zp) as the int8 epilogues write it - is
 * rne(min(max(y, lo - c), hi - c)) + c in int32: the bounds are integers,
 * so the clamp commutes with the rounding (and round(y) + c is exact or
 * beyond the bounds either way); the clamped value is never NaN (max(NaN,
 * b) is b, as the IR's max and every ISA's) and within int32, so one
 * conversion without the saturation fixups (ctvm_vcvt_f32_i32_rne_in)
 * replaces round, the truncating conversion and its INT_MIN check. */
static int const_f32(const Expr *e, double *v)
{
    if (e->kind != EX_FLOAT || e->type != LT_F32 || e->lanes > 1 || !(e->f >= -65536.0 && e->f <= 65536.0) ||
        e->f != (double)(int64_t)e->f)
        return 0;
    *v = e->f;
    return 1;
}

static int match_clamp_round(const Expr *e, const Expr **y, double *lo, double *hi, double *c)
{
    if (e->kind != EX_BIN || e->op != BO_MIN || e->type != LT_F32 || !const_f32(e->b, hi))
        return 0;
    const Expr *mx = e->a, *r;
    if (mx->kind != EX_BIN || mx->op != BO_MAX || !const_f32(mx->b, lo) || *lo > *hi)
        return 0;
    r = mx->a;
    *c = 0;
    if (r->kind == EX_BIN && r->op == BO_ADD && const_f32(r->b, c))
        r = r->a;
    if (r->kind != EX_CALL || r->fn != CO_ROUND || r->type != LT_F32)
        return 0;
    *y = r->a;
    return 1;
}

/* a conversion to t of a float32 value holds it exactly when [lo, hi] is
   within t (int32 and the narrower integers, whose lanes are int32) */
static int clamp_fits(LType t, const Expr *from)
{
    return from->type == LT_F32 && (t == LT_I32 || t == LT_I16 || t == LT_U16 || t == LT_I8 || t == LT_U8);
}

static int clamp_fits_range(LType t, double lo, double hi)
{
    double tl = t == LT_U8 || t == LT_U16 ? 0 : t == LT_I8 ? -128 : t == LT_I16 ? -32768 : -2147483648.0;
    double th = t == LT_U8 ? 255 : t == LT_I8 ? 127 : t == LT_U16 ? 65535 : t == LT_I16 ? 32767 : 2147483647.0;
    return lo >= tl && hi <= th;
}

static int expr_ok(LoopBuilder *lb, const Expr *e, const LVar *v);

static int expr_ok(LoopBuilder *lb, const Expr *e, const LVar *v)
{
    if (!lx_uses_var(e, v)) /* uniform: broadcast (bools only as a select's condition) */
        return rep(e->type) != LT_COUNT && e->type != LT_BOOL;
    LType t = e->type;
    Dot dot;
    if (lb && match_dot(lb, e, v, &dot)) /* lb NULL: dots are not looked for */
        return expr_ok(lb, dot.acc, v);
    switch (e->kind) {
    case EX_LOAD:
        return storage(e->buf->dtype) != LT_COUNT && contiguous(e->a, v);
    case EX_BIN: {
        LType a = e->a->type;
        if (is_cmp(e->op)) {
            if (a == LT_BOOL || cls64(a) || rep(a) == LT_COUNT)
                return 0;
        } else if (t == LT_BOOL) {
            if (e->op != BO_AND && e->op != BO_OR && e->op != BO_XOR)
                return 0;
        } else if (t == LT_F32 || t == LT_F64) {
            if (e->op != BO_ADD && e->op != BO_SUB && e->op != BO_MUL && e->op != BO_DIV && e->op != BO_MIN &&
                e->op != BO_MAX)
                return 0;
        } else if (cls32(t)) {
            if (e->op == BO_SHL || e->op == BO_SHR) {
                if (!const_shift(e->b, t))
                    return 0;
            } else if (e->op != BO_ADD && e->op != BO_SUB && e->op != BO_MUL && e->op != BO_MIN && e->op != BO_MAX &&
                       e->op != BO_AND && e->op != BO_OR && e->op != BO_XOR) {
                return 0;
            }
        } else if (cls64(t)) {
            if (e->op != BO_ADD && e->op != BO_SUB && e->op != BO_AND && e->op != BO_OR && e->op != BO_XOR)
                return 0;
        } else {
            return 0;
        }
        /* a uniform bool operand would need a mask broadcast */
        if ((!lx_uses_var(e->a, v) && e->a->type == LT_BOOL) || (!lx_uses_var(e->b, v) && e->b->type == LT_BOOL))
            return 0;
        return expr_ok(lb, e->a, v) && expr_ok(lb, e->b, v);
    }
    case EX_CALL: {
        LType a = e->a->type;
        if (!expr_ok(lb, e->a, v))
            return 0;
        if (a == LT_F32)
            return vcall_f32(e->fn);
        if (a == LT_F64)
            return e->fn == CO_SQRT || e->fn == CO_NEG || e->fn == CO_ABS;
        if (cls32(a))
            return e->fn == CO_NEG || e->fn == CO_ABS || e->fn == CO_NOT;
        if (a == LT_BOOL)
            return e->fn == CO_NOT;
        return 0;
    }
    case EX_CAST: return cast_ok(e->a->type, t) && expr_ok(lb, e->a, v);
    case EX_SELECT:
        if (rep(t) == LT_COUNT || t == LT_BOOL)
            return 0;
        if (lx_uses_var(e->c, v) && !expr_ok(lb, e->c, v))
            return 0;
        return expr_ok(lb, e->a, v) && expr_ok(lb, e->b, v);
    default: return 0;
    }
}

static int stmt_ok(LoopBuilder *lb, const Stmt *s, const LVar *v)
{
    switch (s->kind) {
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (!stmt_ok(lb, s->items[i], v))
                return 0;
        return 1;
    case ST_STORE: {
        LType st = storage(s->buf->dtype);
        if (st == LT_COUNT || !contiguous(s->index, v) || s->store_nosat || s->store_round)
            return 0;
        if (s->buf->dtype == DT_BOOL && s->value->type != LT_BOOL)
            return 0;
        return lx_uses_var(s->value, v) ? expr_ok(lb, s->value, v) : rep(s->value->type) != LT_COUNT;
    }
    case ST_IF: return !s->else_body && !lx_uses_var(s->cond, v) && stmt_ok(lb, s->body, v);
    default: return 0;
    }
}

int lp_vector_legal(const Stmt *body, const LVar *v)
{
    return stmt_ok(NULL, body, v); /* (dot products only in loops of the vector width) */
}

/* index with v = 0 (the first lane's index), in canonical form */
static Expr *lane0(Vec *c, const Expr *index, const LVar *v)
{
    return lx_canon_index(c->lb, lx_subst(c->lb, (Expr *)index, v, lx_int(c->lb, 0)));
}

static int is_fmul(const Expr *e)
{
    return e->kind == EX_BIN && e->op == BO_MUL && (e->type == LT_F32 || e->type == LT_F64);
}

/* a 32-bit lane value x of IR type t, brought back into t's range */
static Expr *renorm(Vec *c, Expr *x, LType t)
{
    if (!narrow_int(t))
        return x;
    return lx_vcast(c->lb, LT_I32, lx_vcast(c->lb, t, x));
}

/* x (lanes of its rep type) converted to IR type t's rep */
static Expr *vconvert(Vec *c, Expr *x, LType from, LType t)
{
    LoopBuilder *lb = c->lb;
    if (t == LT_BOOL) { /* x != 0 */
        Expr *zero = lx_bcast(lb, from == LT_F32 || from == LT_F64 ? lx_const_f(lb, from, 0.0) : lx_const_i(lb, LT_I32, 0),
                              c->vl);
        zero->type = rep(from);
        return lx_vbin(lb, BO_NE, x, zero);
    }
    if (from == LT_BOOL) { /* mask -> 0/1 */
        Expr *b = lx_vcast(lb, LT_I32, lx_vcast(lb, LT_U8, x));
        return t == LT_F32 || t == LT_F64 ? lx_vcast(lb, t, b) : b;
    }
    LType rf = rep(from), rt = rep(t);
    if (rt == LT_F64 && rf == LT_I32) /* a narrow integer: exact in float32 */
        return lx_vcast(lb, LT_F64, lx_vcast(lb, LT_F32, x));
    if (rt == LT_F32 || rt == LT_F64 || cls64(rt))
        return lx_vcast(lb, rt, x);
    /* to the 32-bit class */
    Expr *r = rf == rt ? x : lx_vcast(lb, rt, x);
    if (t == LT_U32 && r->type == LT_I32)
        r = lx_vcast(lb, LT_U32, r); /* same bits, unsigned compares from here */
    return renorm(c, r, t);
}

static Expr *vexpr(Vec *c, Expr *e, const LVar *v);

static Expr *bcast(Vec *c, Expr *e)
{
    Expr *b = lx_bcast(c->lb, e, c->vl);
    b->type = rep(e->type);
    return b;
}

static Expr *vexpr(Vec *c, Expr *e, const LVar *v)
{
    LoopBuilder *lb = c->lb;
    if (!lx_uses_var(e, v))
        return bcast(c, e);
    LType t = e->type;
    Dot dot;
    const Expr *macc, *mx, *mw;
    if (match_dot(lb, e, v, &dot)) {
        Expr *xg = lx_vload(lb, dot.x->buf, lane0(c, dot.x->a, v), dot.g, storage(dot.x->buf->dtype));
        Expr *wq = lx_vload(lb, dot.w->buf, lane0(c, dot.w->a, v), dot.g * c->vl, dot.g == 2 ? LT_BF16 : LT_I8);
        return lx_dot(lb, vexpr(c, (Expr *)dot.acc, v), lx_bcast_group(lb, xg, dot.g * c->vl), wq);
    }
    if (match_mla16(e, &macc, &mx, &mw))
        return lx_mla16(lb, vexpr(c, (Expr *)macc, v), vexpr(c, (Expr *)mx, v), vexpr(c, (Expr *)mw, v));
    switch (e->kind) {
    case EX_LOAD: {
        LType st = storage(e->buf->dtype);
        Expr *x = lx_vload(lb, e->buf, lane0(c, e->a, v), c->vl, st);
        if (e->buf->dtype == DT_BOOL)
            return lx_vcast(lb, LT_BOOL, x);
        if (st == LT_F16 || st == LT_BF16)
            return lx_vcast(lb, LT_F32, x);
        return narrow_int(st) ? lx_vcast(lb, LT_I32, x) : x;
    }
    case EX_BIN: {
        if (e->op == BO_ADD && (is_fmul(e->a) || is_fmul(e->b))) {
            Expr *mul = is_fmul(e->b) ? e->b : e->a, *add = mul == e->b ? e->a : e->b;
            return lx_fma(lb, vexpr(c, mul->a, v), vexpr(c, mul->b, v), vexpr(c, add, v));
        }
        Expr *a = vexpr(c, e->a, v);
        if (e->op == BO_SHL || e->op == BO_SHR) { /* by a constant: the count stays scalar */
            Expr *r = lx_vbin(lb, e->op, a, e->b);
            r->b = e->b;
            r->type = a->type;
            return renorm(c, r, t);
        }
        Expr *b = vexpr(c, e->b, v);
        if (is_cmp(e->op) && e->a->type == LT_U32) /* unsigned compare */
            a->type = b->type = LT_U32;
        Expr *r = lx_vbin(lb, e->op, a, b);
        if (!is_cmp(e->op))
            r->type = rep(t) == LT_I32 && t == LT_U32 ? LT_U32 : rep(t);
        return e->op == BO_ADD || e->op == BO_SUB || e->op == BO_MUL ? renorm(c, r, t) : r;
    }
    case EX_CALL: {
        Expr *r = lx_vcall(lb, e->fn, vexpr(c, e->a, v));
        return e->fn == CO_NEG || e->fn == CO_ABS ? renorm(c, r, t) : r;
    }
    case EX_CAST: {
        const Expr *y;
        double lo, hi, k;
        if (clamp_fits(t, e->a) && match_clamp_round(e->a, &y, &lo, &hi, &k) && clamp_fits_range(t, lo, hi)) {
            Expr *vy = vexpr(c, (Expr *)y, v);
            Expr *cl = lx_vbin(lb, BO_MIN, lx_vbin(lb, BO_MAX, vy, bcast(c, lx_const_f(lb, LT_F32, lo - k))),
                               bcast(c, lx_const_f(lb, LT_F32, hi - k)));
            Expr *r = lx_vcvt_rne_in(lb, cl);
            return k != 0 ? lx_vbin(lb, BO_ADD, r, bcast(c, lx_const_i(lb, LT_I32, (int64_t)k))) : r;
        }
        return vconvert(c, vexpr(c, e->a, v), e->a->type, t);
    }
    case EX_SELECT: {
        Expr *a = vexpr(c, e->a, v), *b = vexpr(c, e->b, v);
        Expr *r = lx_vselect(lb, lx_uses_var(e->c, v) ? vexpr(c, e->c, v) : e->c, a, b);
        r->type = a->type;
        return r;
    }
    default: return e; /* excluded by expr_ok */
    }
}

/* value (lanes of its rep type) as the storage lanes of buf */
static Expr *to_storage(Vec *c, Expr *value, LType vt, const LBuf *buf)
{
    LType st = storage(buf->dtype);
    if (buf->dtype == DT_BOOL)
        return lx_vcast(c->lb, LT_U8, value); /* mask -> 0/1 bytes */
    if (st == LT_F16 || st == LT_BF16)
        return lx_vcast(c->lb, st, value);
    if (narrow_int(st))
        return lx_vcast(c->lb, st, value);
    (void)vt;
    if (st == LT_U32 && value->type == LT_I32)
        return lx_vcast(c->lb, LT_U32, value);
    return value;
}

static Stmt *vstmt(Vec *c, Stmt *s, const LVar *v)
{
    switch (s->kind) {
    case ST_SEQ: {
        Stmt **items = arena_array(c->lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            items[i] = vstmt(c, s->items[i], v);
        return ls_seq(c->lb, s->n, items);
    }
    case ST_STORE: {
        Expr *x = vexpr(c, s->value, v);
        return ls_vstore(c->lb, s->buf, lane0(c, s->index, v), to_storage(c, x, s->value->type, s->buf));
    }
    case ST_IF: return ls_if(c->lb, s->cond, vstmt(c, s->body, v));
    default: return s; /* excluded by stmt_ok */
    }
}

/* ---- partial vectors ----
 * A LOOP_VECTORIZE loop shorter than the vector width that the schedule
 * marked LR_LANES (the tail of a row of Softmax, LayerNorm, ...) runs as
 * the first `extent` lanes of one vector when every load that moves with
 * it and every store is float32: loads from memory of those lanes only
 * (the others read 0, ctvm_vload_n), stores to memory of those lanes only
 * (ctvm_vstore_n), and a local (a per-lane partial accumulator, whole
 * vectors elsewhere) keeps its other lanes: v = mask ? new : v, so it can
 * stay in a register. Instead of a scalar loop: Softmax rows of 197 do 12
 * vector exponentials and one partial vector instead of 12 and 5 scalar
 * ones. */
static int all_f32(const Expr *e, const LVar *v)
{
    if (!e || !lx_uses_var(e, v))
        return 1;
    if (e->kind == EX_LOAD && e->buf->dtype != DT_FLOAT32)
        return 0;
    return all_f32(e->a, v) && all_f32(e->b, v) && all_f32(e->c, v);
}

static int partial_ok(const Stmt *s, const LVar *v)
{
    switch (s->kind) {
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (!partial_ok(s->items[i], v))
                return 0;
        return 1;
    case ST_STORE: return s->buf->dtype == DT_FLOAT32 && all_f32(s->value, v);
    case ST_IF: return partial_ok(s->body, v);
    default: return 0;
    }
}

static void mark_partial_expr(Expr *e, int n)
{
    if (!e)
        return;
    if (e->kind == EX_LOAD && e->lanes > 1 && e->buf->kind != LB_LOCAL)
        e->partial = n;
    mark_partial_expr(e->a, n);
    mark_partial_expr(e->b, n);
    mark_partial_expr(e->c, n);
}

/* e with every partial load of buf at index replaced by v (the value a
   partial store just wrote there: a masked store does not forward to a
   load, a stall of some 20 cycles a row) */
static Expr *forward(LoopBuilder *lb, Expr *e, const LBuf *buf, const Expr *index, Expr *v)
{
    if (!e)
        return NULL;
    if (e->kind == EX_LOAD && e->partial && e->buf == buf && lx_equal(e->a, index))
        return v;
    Expr *a = forward(lb, e->a, buf, index, v), *b = forward(lb, e->b, buf, index, v),
         *c = forward(lb, e->c, buf, index, v);
    if (a == e->a && b == e->b && c == e->c)
        return e;
    Expr *r = lx_clone(lb, e);
    r->a = a, r->b = b, r->c = c;
    return r;
}

static int has_call(const Expr *e)
{
    return e && (e->kind == EX_CALL || has_call(e->a) || has_call(e->b) || has_call(e->c));
}

#define MAX_FORWARD_REGS 8

static void mark_partial(LoopBuilder *lb, Stmt *s, int n)
{
    switch (s->kind) {
    case ST_SEQ: {
        LVar *regs[MAX_FORWARD_REGS];
        int n_regs = 0;
        for (int i = 0; i < s->n; i++)
            mark_partial(lb, s->items[i], n);
        for (int i = 0; i < s->n; i++) {
            Stmt *st = s->items[i];
            /* the value is recomputed where it is forwarded: only while
               nothing it reads has been written (an RNN's gates overwrite
               their pre-activations in place: never). A value with a call
               in it (Softmax's exponential) is computed once into a
               register variable that the store and the readers share */
            if (st->kind != ST_STORE || !st->partial || lx_loads_buf(st->value, st->buf))
                continue;
            Expr *v = st->value, *bound = NULL;
            for (int j = i + 1; j < s->n && s->items[j]->kind == ST_STORE; j++) {
                Stmt *u = s->items[j];
                Expr *fw = forward(lb, u->value, st->buf, st->index, bound ? bound : v);
                if (!bound && fw != u->value && n_regs < MAX_FORWARD_REGS && has_call(v)) {
                    LVar *r = lv_new_reg(lb, "e", LT_F32, lx_lanes(v));
                    regs[n_regs++] = r;
                    bound = lx_reg(lb, r);
                    Stmt *store = ls_clone(lb, st);
                    store->value = bound;
                    s->items[i] = ls_seq2(lb, ls_assign(lb, r, v), store);
                    fw = forward(lb, u->value, st->buf, st->index, bound);
                }
                u->value = fw;
                if (u->buf == st->buf || lx_loads_buf(v, u->buf))
                    break;
            }
        }
        if (n_regs) {
            Stmt *inner = ls_clone(lb, s);
            *s = *ls_decl(lb, n_regs, regs, inner);
        }
        break;
    }
    case ST_STORE: {
        int lanes = lx_lanes(s->value);
        mark_partial_expr(s->value, n);
        if (lanes <= 1)
            break;
        if (s->buf->kind != LB_LOCAL) {
            s->partial = n;
            break;
        }
        Expr *old = lx_vload(lb, s->buf, s->index, lanes, LT_F32);
        Expr *sel = lx_vselect(lb, lx_lanemask(lb, n, lanes), s->value, old);
        sel->type = LT_F32;
        s->value = sel;
        break;
    }
    case ST_IF: mark_partial(lb, s->body, n); break;
    default: break;
    }
}

/* ---- lanes combined ----
 * The loop the schedule writes after per-lane partials, acc[k] = acc[k] op
 * part[l] for l over the vector width (LOOP_VECTORIZE, LR_LANES; op +, min
 * or max on float32), is acc[k] = acc[k] op (the lanes of the vector
 * part[0..] combined: ctvm_vhsum / vhmin / vhmax), so part stays a
 * register. */
static Stmt *hreduce(Vec *c, const Stmt *s)
{
    LoopBuilder *lb = c->lb;
    const Stmt *b = s->body;
    if (s->extent != c->vl || s->role != LR_LANES || !b || b->kind != ST_STORE || b->buf->dtype != DT_FLOAT32 ||
        lx_uses_var(b->index, s->var))
        return NULL;
    const Expr *v = b->value;
    if (v->kind != EX_BIN || (v->op != BO_ADD && v->op != BO_MIN && v->op != BO_MAX) || v->type != LT_F32 ||
        v->a->kind != EX_LOAD || v->a->buf != b->buf || !lx_equal(v->a->a, b->index) || v->b->kind != EX_LOAD ||
        v->b->buf->dtype != DT_FLOAT32 || !contiguous(v->b->a, s->var))
        return NULL;
    Expr *part = lx_vload(lb, v->b->buf, lane0(c, v->b->a, s->var), c->vl, LT_F32);
    return ls_store(lb, b->buf, b->index, lx_bin(lb, v->op, v->a, lx_hreduce(lb, v->op, part)));
}

static Stmt *walk(Vec *c, Stmt *s)
{
    if (!s)
        return NULL;
    switch (s->kind) {
    case ST_FOR:
        if (s->loop == LOOP_VECTORIZE) {
            if (c->vl > 1 && s->extent == c->vl && stmt_ok(c->lb, s->body, s->var))
                return vstmt(c, s->body, s->var);
            if (c->vl > 1 && s->extent > 1 && s->extent < c->vl && s->role == LR_LANES &&
                partial_ok(s->body, s->var) && stmt_ok(c->lb, s->body, s->var)) {
                Stmt *p = vstmt(c, s->body, s->var);
                mark_partial(c->lb, p, (int)s->extent);
                return p;
            }
            Stmt *h = c->vl > 1 ? hreduce(c, s) : NULL;
            if (h)
                return h;
            return ls_for(c->lb, s->var, s->extent, LOOP_SERIAL, walk(c, s->body));
        }
        return ls_for(c->lb, s->var, s->extent, s->loop, walk(c, s->body));
    case ST_ALLOC: return ls_alloc(c->lb, s->buf, walk(c, s->body));
    case ST_IF: return ls_if_else(c->lb, s->cond, walk(c, s->body), walk(c, s->else_body));
    case ST_SEQ: {
        Stmt **items = arena_array(c->lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            items[i] = walk(c, s->items[i]);
        return ls_seq(c->lb, s->n, items);
    }
    default: return s;
    }
}

/* ---- VL 1: scalar dot products ----
 * Scalar targets have no lanes, but the 4-term sum of the blocked integer
 * convolution (x[i..i+3] against w[j..j+3]) is still one 4-byte dot:
 * EX_DOT of one lane, ctvm_vdot_u8i8 / _i8i8 of templates/ctvm_vec_scalar.h
 * (two SMLADs on an Arm core with the DSP extension, plain C elsewhere).
 * Only integer sums of 8-bit products match: float code is unchanged. */
static Expr *scalar_dots_expr(LoopBuilder *lb, Expr *e)
{
    if (!e)
        return NULL;
    Dot dot;
    if (e->type == LT_I32 && lx_lanes(e) == 1 && match_dot(lb, e, NULL, &dot)) {
        Expr *xg = lx_vload(lb, dot.x->buf, dot.x->a, 4, storage(dot.x->buf->dtype));
        Expr *wq = lx_vload(lb, dot.w->buf, dot.w->a, 4, LT_I8);
        return lx_dot(lb, scalar_dots_expr(lb, (Expr *)dot.acc), xg, wq);
    }
    if (e->kind != EX_BIN && e->kind != EX_CALL && e->kind != EX_CAST && e->kind != EX_SELECT)
        return e;
    Expr *a = scalar_dots_expr(lb, e->a), *b = scalar_dots_expr(lb, e->b), *c = scalar_dots_expr(lb, e->c);
    if (a == e->a && b == e->b && c == e->c)
        return e;
    Expr *r = arena_alloc(lb->arena, sizeof *r);
    *r = *e;
    r->a = a;
    r->b = b;
    r->c = c;
    return r;
}

static Stmt *scalar_dots(LoopBuilder *lb, Stmt *s)
{
    if (!s)
        return NULL;
    switch (s->kind) {
    case ST_STORE:
        s->value = scalar_dots_expr(lb, s->value);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            s->items[i] = scalar_dots(lb, s->items[i]);
        break;
    case ST_IF: s->else_body = scalar_dots(lb, s->else_body); /* fall through */
    case ST_FOR:
    case ST_ALLOC:
        s->body = scalar_dots(lb, s->body);
        break;
    default: break;
    }
    return s;
}

int lp_vectorize(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    Vec c = {&m->lb, m->target ? m->target->vl : 1};
    k->body = walk(&c, k->body);
    if (c.vl == 1)
        k->body = scalar_dots(c.lb, k->body);
    return 0;
}
