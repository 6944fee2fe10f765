/* loop_interp.c - a tree-walking interpreter of the loop IR (see
 * loop_interp.h). Values are kept as int64 (integers, bool, index; uint64
 * by its bits) or double (floats, float32 ones already rounded). */
#include "loop_interp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_prims.h"
#include "loop_kernels.h"
#include "tensor.h"
#include "runtime_min/ctvm_types.h"

typedef struct Val {
    int64_t i;
    double f;
} Val;

typedef struct Interp {
    LoopMemFn mem;
    void *user;
    int64_t *vars; /* by LVar id */
    int n_vars;
    void **locals; /* by LBuf id */
    int n_locals;
    char *err;
    size_t cap;
    int failed;
    int fma; /* the target fuses ctvm_vfma: call_prim's f32[1] */
} Interp;

static int fail(Interp *in, const char *fmt, ...)
{
    if (!in->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(in->err, in->cap, fmt, ap);
        va_end(ap);
    }
    in->failed = 1;
    return -1;
}

static int grow(void **arr, int *n, int need, size_t elem)
{
    if (need < *n)
        return 0;
    int nn = need * 2 + 16;
    void *p = realloc(*arr, (size_t)nn * elem);
    if (!p)
        return -1;
    memset((char *)p + (size_t)*n * elem, 0, (size_t)(nn - *n) * elem);
    *arr = p;
    *n = nn;
    return 0;
}

static void *buf_mem(Interp *in, const LBuf *b)
{
    if (b->kind == LB_LOCAL)
        return b->id < in->n_locals ? in->locals[b->id] : NULL;
    return in->mem(in->user, b);
}

static Val eval(Interp *in, const Expr *e);

static int64_t eval_index(Interp *in, const LBuf *b, const Expr *index)
{
    int64_t i = eval(in, index).i;
    if (!in->failed && (i < 0 || i >= b->numel))
        fail(in, "index %lld out of bounds of buffer '%s' (%lld elements)", (long long)i, b->name,
             (long long)b->numel);
    return i;
}

static Val load(Interp *in, const Expr *e)
{
    Val v = {0, 0};
    int64_t i = eval_index(in, e->buf, e->a);
    void *p = buf_mem(in, e->buf);
    if (in->failed)
        return v;
    if (!p) {
        fail(in, "buffer '%s' has no memory", e->buf->name);
        return v;
    }
    if (lt_is_float(e->type))
        v.f = tensor_get_f64(e->buf->dtype, p, i);
    else if (e->type == LT_U64)
        v.i = (int64_t)((const uint64_t *)p)[i];
    else
        v.i = tensor_get_i64(e->buf->dtype, p, i);
    return v;
}

static double round_to(LType t, double x)
{
    return t == LT_F32 ? (double)(float)x : x;
}

static Val eval_bin(Interp *in, const Expr *e)
{
    Val r = {0, 0};
    LType t = e->a->type;
    if (e->op == BO_AND && lt_is_cond(e->type)) { /* short-circuit, as C && */
        if (!eval(in, e->a).i)
            return r;
        r.i = eval(in, e->b).i != 0;
        return r;
    }
    if (e->op == BO_OR && lt_is_cond(e->type)) {
        if (eval(in, e->a).i) {
            r.i = 1;
            return r;
        }
        r.i = eval(in, e->b).i != 0;
        return r;
    }
    Val a = eval(in, e->a), b = eval(in, e->b);
    if (in->failed)
        return r;
    if (lt_is_float(t)) {
        double x = a.f, y = b.f;
        switch (e->op) {
        case BO_LT: r.i = x < y; return r;
        case BO_LE: r.i = x <= y; return r;
        case BO_GE: r.i = x >= y; return r;
        case BO_GT: r.i = x > y; return r;
        case BO_EQ: r.i = x == y; return r;
        case BO_NE: r.i = x != y; return r;
        case BO_MOD: r.f = t == LT_F32 ? (double)fmodf((float)x, (float)y) : fmod(x, y); return r;
        case BO_POW: r.f = t == LT_F32 ? (double)powf((float)x, (float)y) : pow(x, y); return r;
        default:
            if (!loop_float_op(t, e->op, x, y, &r.f))
                fail(in, "operator %s does not apply to %s", lx_bin_name(e->op), lt_name(t));
            return r;
        }
    }
    if (t == LT_IDX && (e->op == BO_DIV || e->op == BO_MOD) && b.i == 0) {
        fail(in, "index division by zero");
        return r;
    }
    LType it = e->b->type != t && lt_is_cond(t) && lt_is_cond(e->b->type) ? LT_BOOL : t;
    if (!loop_int_op(it, e->op, a.i, b.i, &r.i))
        fail(in, "operator %s does not apply to %s", lx_bin_name(e->op), lt_name(t));
    return r;
}

static Val eval_call(Interp *in, const Expr *e)
{
    Val a = eval(in, e->a), r = {0, 0};
    LType t = e->a->type;
    if (in->failed)
        return r;
    if (lt_is_float(t)) {
        switch (e->fn) {
        case CO_ISNAN: r.i = isnan(a.f) != 0; return r;
        case CO_ISINF: r.i = isinf(a.f) != 0; return r;
        case CO_ISPOSINF: r.i = isinf(a.f) && a.f > 0; return r;
        case CO_ISNEGINF: r.i = isinf(a.f) && a.f < 0; return r;
        case CO_NOT: fail(in, "not of a float"); return r;
        default: {
            const CallPrim *p = call_prim(e->fn);
            if (t == LT_F32 && p->f32[in->fma])
                r.f = p->f32[in->fma]((float)a.f);
            else if (t == LT_F64 && p->f64)
                r.f = p->f64(a.f);
            else
                fail(in, "call %s on %s", lx_call_name(e->fn), lt_name(t));
            return r;
        }
        }
    }
    switch (e->fn) {
    case CO_NEG: r.i = loop_wrap_int(t, (int64_t)(0 - (uint64_t)a.i)); return r;
    case CO_ABS: r.i = loop_wrap_int(t, a.i < 0 && lt_is_signed_int(t) ? (int64_t)(0 - (uint64_t)a.i) : a.i); return r;
    case CO_NOT: r.i = lt_is_cond(t) ? !a.i : loop_wrap_int(t, ~a.i); return r;
    case CO_ISNAN:
    case CO_ISINF:
    case CO_ISPOSINF:
    case CO_ISNEGINF: return r;
    default: fail(in, "call %s on %s", lx_call_name(e->fn), lt_name(t)); return r;
    }
}

static Val eval_cast(Interp *in, const Expr *e)
{
    Val a = eval(in, e->a), r = {0, 0};
    LType to = e->type, from = e->a->type;
    if (to == LT_BOOL) {
        r.i = lt_is_float(from) ? a.f != 0 : a.i != 0;
    } else if (lt_is_float(to)) {
        double x = lt_is_float(from) ? a.f : from == LT_U64 ? (double)(uint64_t)a.i : (double)a.i;
        r.f = round_to(to, x);
    } else if (lt_is_float(from)) {
        /* as the generated C: through int64 for narrower targets */
        double x = a.f;
        if (isnan(x))
            r.i = to == LT_I64 || lt_bits(to) < 64 ? loop_wrap_int(to, INT64_MIN) : 0;
        else if (to == LT_U64 && x >= 9223372036854775808.0)
            r.i = x >= 18446744073709551616.0 ? -1 : (int64_t)(uint64_t)x;
        else
            r.i = loop_wrap_int(to, x >= 9.2233720368547758e18 ? INT64_MIN : x < -9.2233720368547758e18
                                                                               ? INT64_MIN : (int64_t)x);
    } else {
        r.i = loop_wrap_int(to, a.i);
    }
    return r;
}

static Val eval(Interp *in, const Expr *e)
{
    Val r = {0, 0};
    if (in->failed)
        return r;
    switch (e->kind) {
    case EX_INT: r.i = e->i; return r;
    case EX_FLOAT: r.f = e->f; return r;
    case EX_VAR:
        if (e->var->id >= in->n_vars) {
            fail(in, "variable %s_%d is not bound", e->var->name, e->var->id);
            return r;
        }
        r.i = in->vars[e->var->id];
        return r;
    case EX_LOAD: return load(in, e);
    case EX_BIN: return eval_bin(in, e);
    case EX_CALL: return eval_call(in, e);
    case EX_CAST: return eval_cast(in, e);
    case EX_SELECT: return eval(in, e->c).i ? eval(in, e->a) : eval(in, e->b);
    default: break; /* vector nodes are made after folding, never run here */
    }
    return r;
}

static int store(Interp *in, const Stmt *s)
{
    int64_t i = eval_index(in, s->buf, s->index);
    Val v = eval(in, s->value);
    void *p = buf_mem(in, s->buf);
    if (in->failed)
        return -1;
    if (!p)
        return fail(in, "buffer '%s' has no memory", s->buf->name);
    if (lt_is_float(s->value->type) && (s->store_nosat || s->store_round))
        tensor_set_f64_mode(s->buf->dtype, p, i, v.f, !s->store_nosat, s->store_round);
    else if (lt_is_float(s->value->type))
        tensor_set_f64(s->buf->dtype, p, i, v.f);
    else if (s->buf->dtype == DT_UINT64)
        ((uint64_t *)p)[i] = (uint64_t)v.i;
    else
        tensor_set_i64(s->buf->dtype, p, i, v.i);
    return 0;
}

static int run(Interp *in, const Stmt *s);

static int run_call(Interp *in, const Stmt *s)
{
    LoopKernelFn fn = loop_kernel_find(s->fn);
    if (!fn)
        return fail(in, "runtime kernel %s is not available to the compiler", s->fn);
    void *bufs[LOOP_CALL_MAX_BUFS];
    for (int i = 0; i < s->n_bufs; i++) {
        bufs[i] = s->bufs[i] ? buf_mem(in, s->bufs[i]) : NULL;
        if (s->bufs[i] && !bufs[i])
            return fail(in, "buffer '%s' has no memory", s->bufs[i]->name);
    }
    int64_t iargs[LOOP_CALL_MAX_ARGS + 1];
    for (int i = 0; i < s->n_iargs; i++)
        iargs[i] = s->iexpr && i == s->iexpr_at ? eval(in, s->iexpr).i : s->iargs[i];
    fn(bufs, iargs, s->fargs);
    return 0;
}

static int run(Interp *in, const Stmt *s)
{
    if (!s || in->failed)
        return in->failed ? -1 : 0;
    switch (s->kind) {
    case ST_FOR:
        if (grow((void **)&in->vars, &in->n_vars, s->var->id, sizeof(int64_t)))
            return fail(in, "out of memory");
        for (int64_t i = 0; i < s->extent; i++) {
            in->vars[s->var->id] = i;
            if (run(in, s->body))
                return -1;
        }
        return 0;
    case ST_STORE: return store(in, s);
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (run(in, s->items[i]))
                return -1;
        return 0;
    case ST_IF: {
        Val c = eval(in, s->cond);
        if (in->failed)
            return -1;
        return run(in, c.i ? s->body : s->else_body);
    }
    case ST_ALLOC: {
        int64_t bytes;
        if (!dtype_bytes(s->buf->dtype, s->buf->numel, &bytes) || bytes > ((int64_t)1 << 32))
            return fail(in, "local buffer '%s' is too large", s->buf->name);
        if (grow((void **)&in->locals, &in->n_locals, s->buf->id, sizeof(void *)))
            return fail(in, "out of memory");
        void *old = in->locals[s->buf->id];
        in->locals[s->buf->id] = calloc(1, (size_t)bytes + 8);
        if (!in->locals[s->buf->id])
            return fail(in, "out of memory");
        int rc = run(in, s->body);
        free(in->locals[s->buf->id]);
        in->locals[s->buf->id] = old;
        return rc;
    }
    case ST_CALL: return run_call(in, s);
    default: break; /* the loop passes' nodes are made after folding */
    }
    return 0;
}

int loop_interp_run(const Stmt *s, LoopMemFn mem, void *user, char *err, size_t cap)
{
    return loop_interp_run_for(s, NULL, mem, user, err, cap);
}

int loop_interp_run_for(const Stmt *s, const Target *tg, LoopMemFn mem, void *user, char *err, size_t cap)
{
    Interp in = {.mem = mem, .user = user, .err = err, .cap = cap, .fma = tg && tg->fma};
    if (cap)
        err[0] = 0;
    int rc = run(&in, s);
    free(in.vars);
    free(in.locals);
    return rc;
}
