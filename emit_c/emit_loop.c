/* emit_loop.c - printing loop IR as C99 (see emit_loop.h). */
#include "emit_loop.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/call_prims.h"
#include "ir/loop_lower.h"

static void add_param(KernelParams *p, LBuf *b, int written)
{
    if (b->kind == LB_LOCAL)
        return;
    for (int i = 0; i < p->n && i < EMIT_MAX_PARAMS; i++) /* n counts on past the cap: an error later */
        if (p->buf[i] == b) {
            p->written[i] |= written;
            return;
        }
    if (p->n < EMIT_MAX_PARAMS) {
        p->buf[p->n] = b;
        p->written[p->n] = written;
    }
    p->n++;
}

static void collect_expr(const Expr *e, KernelParams *p)
{
    if (!e)
        return;
    if (e->kind == EX_LOAD)
        add_param(p, e->buf, 0);
    collect_expr(e->a, p);
    collect_expr(e->b, p);
    collect_expr(e->c, p);
}

static void collect_stmt(const Stmt *s, KernelParams *p)
{
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC: collect_stmt(s->body, p); break;
    case ST_IF:
        collect_expr(s->cond, p);
        collect_stmt(s->body, p);
        collect_stmt(s->else_body, p);
        break;
    case ST_STORE:
        collect_expr(s->index, p);
        collect_expr(s->value, p);
        add_param(p, s->buf, 1);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            collect_stmt(s->items[i], p);
        break;
    case ST_CALL:
        for (int i = 0; i < s->n_bufs; i++)
            if (s->bufs[i])
                add_param(p, s->bufs[i], s->buf_written[i]);
        break;
    }
}

int emit_collect_params(const Stmt *s, KernelParams *p)
{
    memset(p, 0, sizeof *p);
    collect_stmt(s, p);
    return p->n > EMIT_MAX_PARAMS ? -1 : 0;
}

void emit_buf_name(FILE *f, const LBuf *b)
{
    fprintf(f, "%s%d", b->kind == LB_LOCAL ? "t" : "b", b->id);
}

static void emit_float(FILE *f, double v, LType t)
{
    const char *cast = t == LT_F64 ? "(double)" : "";
    if (isinf(v)) {
        fprintf(f, v < 0 ? "(-%sINFINITY)" : "(%sINFINITY)", cast);
        return;
    }
    if (isnan(v)) { /* C99 <math.h> NAN; "nanf" would not be a literal */
        fprintf(f, "(%sNAN)", cast);
        return;
    }
    char buf[64];
    if (t == LT_F64)
        snprintf(buf, sizeof buf, "%.17g", v);
    else
        snprintf(buf, sizeof buf, "%.9g", (double)(float)v);
    if (!strpbrk(buf, ".en"))
        strcat(buf, ".0");
    const char *suf = t == LT_F64 ? "" : "f";
    fprintf(f, v < 0 || signbit(v) ? "(%s%s)" : "%s%s", buf, suf);
}

static void emit_int(FILE *f, int64_t v, LType t)
{
    switch (t) {
    case LT_IDX:
    case LT_BOOL: fprintf(f, v < 0 ? "(%lld)" : "%lld", (long long)v); break;
    case LT_I64:
        if (v == INT64_MIN)
            fputs("((int64_t)(-9223372036854775807LL - 1))", f);
        else
            fprintf(f, "((int64_t)%lldLL)", (long long)v);
        break;
    case LT_U64: fprintf(f, "((uint64_t)%lluULL)", (unsigned long long)(uint64_t)v); break;
    case LT_I32:
        if (v == INT32_MIN)
            fputs("((int32_t)(-2147483647 - 1))", f);
        else
            fprintf(f, "((int32_t)%lld)", (long long)v);
        break;
    case LT_U32: fprintf(f, "((uint32_t)%lluU)", (unsigned long long)v); break;
    default: fprintf(f, "((%s)%lld)", lt_c_type(t), (long long)v); break;
    }
}

/* ---- emitter state: configuration and the storage of local buffers ---- */

enum { LM_MEM, LM_SREG, LM_VREG }; /* local array, scalar registers, vector registers */
#define MAX_REG_SLOTS 64
#define MAX_SCOPES 64

typedef struct LocalScope {
    const LBuf *buf;
    int mode;
    uint64_t used; /* register slots referenced */
} LocalScope;

typedef struct Em {
    FILE *f;
    EmitCfg cfg;
    LocalScope scope[MAX_SCOPES];
    int n_scope;
    int n_team_if; /* conditions of team ifs numbered in a kernel */
} Em;

static const LocalScope *scope_of(const Em *m, const LBuf *b)
{
    for (int i = m->n_scope - 1; i >= 0; i--)
        if (m->scope[i].buf == b)
            return &m->scope[i];
    return NULL;
}

static int local_mode(const Em *m, const LBuf *b)
{
    const LocalScope *s = b->kind == LB_LOCAL ? scope_of(m, b) : NULL;
    return s ? s->mode : LM_MEM;
}

static int can_vectorize_loops(const Em *m)
{
    return m->cfg.vl > 1 && m->cfg.lb;
}

/* index with v = 0 (the first lane's index), in canonical form */
static Expr *lane0(const Em *m, const Expr *index, const LVar *v)
{
    return lx_canon_index(m->cfg.lb, lx_subst(m->cfg.lb, (Expr *)index, v, lx_int(m->cfg.lb, 0)));
}

static const Expr *canon(const Em *m, const Expr *index)
{
    return m->cfg.lb ? lx_canon_index(m->cfg.lb, (Expr *)index) : index;
}

/* ---- the vector API's coverage ---- */

/* ctvm_v* function of a call the vector API has, or NULL (ir/call_prims.h) */
static const char *vcall_name(CallOp fn) { return call_prim(fn)->vec; }

static const char *vbin_name(BinOp op)
{
    switch (op) {
    case BO_ADD: return "ctvm_vadd";
    case BO_SUB: return "ctvm_vsub";
    case BO_MUL: return "ctvm_vmul";
    case BO_DIV: return "ctvm_vdiv";
    case BO_MIN: return "ctvm_vmin";
    case BO_MAX: return "ctvm_vmax";
    default: return NULL;
    }
}

/* ---- the vectorizability test ---- */

static int vexpr_ok(const Em *m, const Expr *e, const LVar *v);

static int contiguous(const Expr *index, const LVar *v)
{
    int64_t c;
    return lx_affine(index, v, &c) && c == 1;
}

static int vmask_ok(const Em *m, const Expr *e, const LVar *v)
{
    if (e->kind != EX_BIN)
        return 0;
    if (e->op == BO_AND)
        return vmask_ok(m, e->a, v) && vmask_ok(m, e->b, v);
    if (e->op == BO_LT || e->op == BO_LE || e->op == BO_GE || e->op == BO_EQ || e->op == BO_GT)
        return e->a->type == LT_F32 && vexpr_ok(m, e->a, v) && vexpr_ok(m, e->b, v);
    return 0;
}

static int vexpr_ok(const Em *m, const Expr *e, const LVar *v)
{
    if (!lx_uses_var(e, v))
        return e->type == LT_F32; /* uniform: broadcast */
    switch (e->kind) {
    case EX_LOAD: return e->buf->dtype == DT_FLOAT32 && contiguous(e->a, v);
    case EX_BIN:
        if (e->type != LT_F32 || !vbin_name(e->op))
            return 0;
        return vexpr_ok(m, e->a, v) && vexpr_ok(m, e->b, v);
    case EX_CALL: return e->type == LT_F32 && vcall_name(e->fn) && vexpr_ok(m, e->a, v);
    case EX_SELECT:
        if (e->type != LT_F32 || (lx_uses_var(e->c, v) && !vmask_ok(m, e->c, v)))
            return 0;
        return vexpr_ok(m, e->a, v) && vexpr_ok(m, e->b, v);
    default: return 0;
    }
}

static int vstmt_ok(const Em *m, const Stmt *s, const LVar *v)
{
    switch (s->kind) {
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (!vstmt_ok(m, s->items[i], v))
                return 0;
        return 1;
    case ST_STORE:
        return s->buf->dtype == DT_FLOAT32 && s->value->type == LT_F32 && contiguous(s->index, v) &&
               vexpr_ok(m, s->value, v);
    case ST_IF: return !s->else_body && !lx_uses_var(s->cond, v) && vstmt_ok(m, s->body, v);
    default: return 0;
    }
}

static int is_vector_loop(const Em *m, const Stmt *s)
{
    return s->kind == ST_FOR && s->loop == LOOP_VECTORIZE && can_vectorize_loops(m) &&
           s->extent == m->cfg.vl && vstmt_ok(m, s->body, s->var);
}

/* ---- choosing the storage of a local buffer ---- */

typedef struct ScanState {
    const LBuf *buf;
    int vec, scal, bad;
    uint64_t used;
} ScanState;

static void scan_access(const Em *m, ScanState *st, const Expr *index, const LVar *v)
{
    if (v) {
        Expr *base = lane0(m, index, v);
        if (!contiguous(index, v) || base->kind != EX_INT || base->i % m->cfg.vl ||
            base->i / m->cfg.vl >= MAX_REG_SLOTS) {
            st->bad = 1;
            return;
        }
        st->vec = 1;
        st->used |= 1ull << (base->i / m->cfg.vl);
    } else {
        if (index->kind != EX_INT || index->i < 0 || index->i >= MAX_REG_SLOTS) {
            st->bad = 1;
            return;
        }
        st->scal = 1;
        st->used |= 1ull << index->i;
    }
}

static void scan_expr(const Em *m, ScanState *st, const Expr *e, const LVar *v)
{
    if (!e)
        return;
    if (e->kind == EX_LOAD && e->buf == st->buf)
        scan_access(m, st, e->a, v);
    scan_expr(m, st, e->a, v);
    scan_expr(m, st, e->b, v);
    scan_expr(m, st, e->c, v);
}

static void scan_stmt(const Em *m, ScanState *st, const Stmt *s, const LVar *v)
{
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR:
        scan_stmt(m, st, s->body, !v && is_vector_loop(m, s) ? s->var : v);
        break;
    case ST_ALLOC: scan_stmt(m, st, s->body, v); break;
    case ST_IF:
        scan_expr(m, st, s->cond, v);
        scan_stmt(m, st, s->body, v);
        scan_stmt(m, st, s->else_body, v);
        break;
    case ST_STORE:
        if (s->buf == st->buf)
            scan_access(m, st, s->index, v);
        scan_expr(m, st, s->index, v);
        scan_expr(m, st, s->value, v);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            scan_stmt(m, st, s->items[i], v);
        break;
    case ST_CALL:
        for (int i = 0; i < s->n_bufs; i++)
            if (s->bufs[i] == st->buf)
                st->bad = 1;
        break;
    }
}

/* ---- scalar printing ---- */

static void pexpr(Em *m, const Expr *e);
static void vexpr(Em *m, const Expr *e, const LVar *v);

static void local_ref(Em *m, const LBuf *b, const Expr *index, const LVar *v)
{
    FILE *f = m->f;
    const LocalScope *sc = scope_of(m, b);
    if (sc && sc->mode == LM_VREG) {
        Expr *base = lane0(m, index, v);
        emit_buf_name(f, b);
        fprintf(f, "_%lld", (long long)(base->i / m->cfg.vl));
    } else {
        emit_buf_name(f, b);
        fprintf(f, "_%lld", (long long)index->i);
    }
}

/* How a stored element of a storage type becomes its compute value and
 * back: "fn(" ... ")" around the element (float16, bfloat16, float8), or an
 * accessor taking the array and the index (packed sub-byte types). */
typedef struct StorageIO {
    const char *load;   /* decode the element: fn(b[i]) */
    const char *store;  /* encode the value: b[i] = fn(v) (may take ", 1)" etc.) */
    const char *store_args; /* extra arguments after v, e.g. ", 1" (saturate) */
    const char *pload;  /* packed: fn(b, i) */
    const char *pstore; /* packed: fn(b, i, v) */
} StorageIO;

static StorageIO storage_io(DType t)
{
    StorageIO io = {0};
    switch (t) {
    case DT_FLOAT16: io.load = "ctvm_f16_to_f32"; io.store = "ctvm_f32_to_f16"; break;
    case DT_BFLOAT16: io.load = "ctvm_bf16_to_f32"; io.store = "ctvm_f32_to_bf16"; break;
    case DT_FLOAT8E4M3FN: io.load = "ctvm_f8e4m3fn_to_f32"; io.store = "ctvm_f32_to_f8e4m3fn"; io.store_args = ", 1"; break;
    case DT_FLOAT8E4M3FNUZ: io.load = "ctvm_f8e4m3fnuz_to_f32"; io.store = "ctvm_f32_to_f8e4m3fnuz"; io.store_args = ", 1"; break;
    case DT_FLOAT8E5M2: io.load = "ctvm_f8e5m2_to_f32"; io.store = "ctvm_f32_to_f8e5m2"; io.store_args = ", 1"; break;
    case DT_FLOAT8E5M2FNUZ: io.load = "ctvm_f8e5m2fnuz_to_f32"; io.store = "ctvm_f32_to_f8e5m2fnuz"; io.store_args = ", 1"; break;
    case DT_FLOAT8E8M0: io.load = "ctvm_f8e8m0_to_f32"; io.store = "ctvm_f32_to_f8e8m0"; io.store_args = ", 1, 0"; break;
    case DT_FLOAT4E2M1: io.pload = "ctvm_ld_f4e2m1"; io.pstore = "ctvm_st_f4e2m1"; break;
    case DT_INT4: io.pload = "ctvm_ld_i4"; io.pstore = "ctvm_st_4"; break;
    case DT_UINT4: io.pload = "ctvm_ld_u4"; io.pstore = "ctvm_st_4"; break;
    case DT_INT2: io.pload = "ctvm_ld_i2"; io.pstore = "ctvm_st_2"; break;
    case DT_UINT2: io.pload = "ctvm_ld_u2"; io.pstore = "ctvm_st_2"; break;
    default: break;
    }
    return io;
}

static void pload(Em *m, const Expr *e)
{
    FILE *f = m->f;
    if (local_mode(m, e->buf) == LM_SREG) {
        local_ref(m, e->buf, e->a, NULL);
        return;
    }
    StorageIO io = e->buf->kind == LB_LOCAL ? (StorageIO){0} : storage_io(e->buf->dtype);
    if (io.pload) {
        fprintf(f, "%s(", io.pload);
        emit_buf_name(f, e->buf);
        fputs(", ", f);
        pexpr(m, canon(m, e->a));
        fputc(')', f);
        return;
    }
    if (io.load)
        fprintf(f, "%s(", io.load);
    emit_buf_name(f, e->buf);
    fputc('[', f);
    pexpr(m, canon(m, e->a));
    fputc(']', f);
    if (io.load)
        fputc(')', f);
}

/* Unsigned type integer arithmetic of type t wraps in. */
static const char *wrap_type(LType t)
{
    return lt_bits(t) == 64 ? "uint64_t" : "uint32_t";
}

static void pbin_int(Em *m, const Expr *e)
{
    FILE *f = m->f;
    LType t = e->type;
    const char *ct = lt_c_type(t), *ut = wrap_type(t);
    int uns = !lt_is_signed_int(t);
    switch (e->op) {
    case BO_ADD:
    case BO_SUB:
    case BO_MUL:
    case BO_AND:
    case BO_OR:
    case BO_XOR:
        fprintf(f, "((%s)((%s)", ct, ut);
        pexpr(m, e->a);
        fprintf(f, " %s (%s)", lx_bin_name(e->op), ut);
        pexpr(m, e->b);
        fputs("))", f);
        return;
    case BO_DIV:
    case BO_MOD:
    case BO_MIN:
    case BO_MAX:
    case BO_POW: {
        static const char *const FN[] = {[BO_DIV] = "div", [BO_MOD] = "mod", [BO_MIN] = "min", [BO_MAX] = "max",
                                         [BO_POW] = "pow"};
        const char *wide = uns ? "uint64_t" : "int64_t";
        fprintf(f, "((%s)ctvm_%s_%s((%s)", ct, FN[e->op], uns ? "u64" : "i64", wide);
        pexpr(m, e->a);
        fprintf(f, ", (%s)", wide);
        pexpr(m, e->b);
        fputs("))", f);
        return;
    }
    case BO_SHL:
    case BO_SHR:
        /* a shift by the width or more gives 0 (or -1 for a negative value shifted right) */
        fputs("((uint64_t)(", f);
        pexpr(m, e->b);
        fprintf(f, ") >= %d ? ", lt_bits(t));
        if (e->op == BO_SHR && !uns) {
            fputs("(", f);
            pexpr(m, e->a);
            fprintf(f, " < 0 ? (%s)-1 : (%s)0)", ct, ct);
        } else {
            fprintf(f, "(%s)0", ct);
        }
        fprintf(f, " : (%s)(", ct);
        if (e->op == BO_SHL) {
            fprintf(f, "(%s)", ut);
            pexpr(m, e->a);
            fputs(" << ", f);
        } else {
            pexpr(m, e->a);
            fputs(" >> ", f);
        }
        pexpr(m, e->b);
        fputs("))", f);
        return;
    default: /* comparisons */
        fputc('(', f);
        pexpr(m, e->a);
        fprintf(f, " %s ", lx_bin_name(e->op));
        pexpr(m, e->b);
        fputc(')', f);
        return;
    }
}

static void pcall2(Em *m, const char *fn, const Expr *a, const Expr *b)
{
    fprintf(m->f, "%s(", fn);
    pexpr(m, a);
    fputs(", ", m->f);
    pexpr(m, b);
    fputc(')', m->f);
}

static void pbin(Em *m, const Expr *e)
{
    FILE *f = m->f;
    LType t = e->a->type;
    if (lt_is_int(t)) { /* wrapping arithmetic, safe division, comparisons */
        pbin_int(m, e);
        return;
    }
    if (lt_is_float(t)) {
        int d = t == LT_F64;
        if (e->op == BO_MIN || e->op == BO_MAX) {
            pcall2(m, e->op == BO_MIN ? (d ? "ctvm_mind" : "ctvm_minf") : (d ? "ctvm_maxd" : "ctvm_maxf"), e->a, e->b);
            return;
        }
        if (e->op == BO_POW || e->op == BO_MOD) {
            pcall2(m, e->op == BO_POW ? (d ? "pow" : "powf") : (d ? "fmod" : "fmodf"), e->a, e->b);
            return;
        }
    }
    if (t == LT_IDX && (e->op == BO_MIN || e->op == BO_MAX)) {
        pcall2(m, e->op == BO_MIN ? "ctvm_mini" : "ctvm_maxi", e->a, e->b);
        return;
    }
    const char *op = lx_bin_name(e->op);
    if (lt_is_cond(e->type) && e->op == BO_AND)
        op = "&&";
    else if (lt_is_cond(e->type) && e->op == BO_OR)
        op = "||";
    if (lt_is_cond(e->type) && e->op == BO_XOR) {
        fputs("(!", f);
        pexpr(m, e->a);
        fputs(" != !", f);
        pexpr(m, e->b);
        fputc(')', f);
        return;
    }
    fputc('(', f);
    pexpr(m, e->a);
    fprintf(f, " %s ", op);
    pexpr(m, e->b);
    fputc(')', f);
}

static void pcall(Em *m, const Expr *e)
{
    FILE *f = m->f;
    LType t = e->a->type;
    const char *n = call_prim_c_name(e->fn, t); /* the C function of a float call (ir/call_prims.h) */
    if (n) {
        fprintf(f, "%s(", n);
        pexpr(m, e->a);
        fputc(')', f);
        return;
    }
    switch (e->fn) {
    case CO_NEG:
        if (lt_is_int(t)) {
            fprintf(f, "((%s)(0u - (%s)", lt_c_type(t), wrap_type(t));
            pexpr(m, e->a);
            fputs("))", f);
            return;
        }
        fputs("(-", f);
        break;
    case CO_ABS:
        fprintf(f, "((%s)ctvm_abs_i64((int64_t)", lt_c_type(t));
        pexpr(m, e->a);
        fputs("))", f);
        return;
    case CO_NOT:
        if (lt_is_int(t))
            fprintf(f, "((%s)~", lt_c_type(t));
        else
            fputs("(!", f);
        break;
    case CO_RND_F16: fputs("ctvm_f16_to_f32(ctvm_f32_to_f16(", f); pexpr(m, e->a); fputs("))", f); return;
    case CO_RND_BF16: fputs("ctvm_bf16_to_f32(ctvm_f32_to_bf16(", f); pexpr(m, e->a); fputs("))", f); return;
    case CO_ISNAN: fputs("(isnan(", f); pexpr(m, e->a); fputs(") != 0)", f); return;
    case CO_ISINF: fputs("(isinf(", f); pexpr(m, e->a); fputs(") != 0)", f); return;
    case CO_ISPOSINF:
    case CO_ISNEGINF:
        fputs("(isinf(", f);
        pexpr(m, e->a);
        fputs(") && ", f);
        pexpr(m, e->a);
        fputs(e->fn == CO_ISPOSINF ? " > 0)" : " < 0)", f);
        return;
    default: fputs("?(", f); break;
    }
    pexpr(m, e->a);
    fputc(')', f);
}

static void pcast(Em *m, const Expr *e)
{
    FILE *f = m->f;
    LType to = e->type, from = e->a->type;
    if (to == LT_BOOL) {
        fputs("(", f);
        pexpr(m, e->a);
        fputs(" != 0)", f);
        return;
    }
    if (lt_is_float(from) && (lt_is_int(to) || to == LT_IDX) && lt_bits(to) < 64) {
        /* through int64, so out-of-range values wrap as numpy does on x86 */
        fprintf(f, "((%s)(int64_t)", lt_c_type(to));
        pexpr(m, e->a);
        fputc(')', f);
        return;
    }
    fprintf(f, "((%s)", lt_c_type(to));
    pexpr(m, e->a);
    fputc(')', f);
}

static void pexpr(Em *m, const Expr *e)
{
    FILE *f = m->f;
    switch (e->kind) {
    case EX_INT: emit_int(f, e->i, e->type); break;
    case EX_FLOAT: emit_float(f, e->f, e->type); break;
    case EX_VAR: fprintf(f, "%s_%d", e->var->name, e->var->id); break;
    case EX_LOAD: pload(m, e); break;
    case EX_BIN: pbin(m, e); break;
    case EX_CALL: pcall(m, e); break;
    case EX_CAST: pcast(m, e); break;
    case EX_SELECT:
        fputc('(', f);
        pexpr(m, e->c);
        fputs(" ? ", f);
        pexpr(m, e->a);
        fputs(" : ", f);
        pexpr(m, e->b);
        fputc(')', f);
        break;
    }
}

/* ---- vector printing ---- */

static void vcall2(Em *m, const char *fn, const Expr *a, const Expr *b, const LVar *v)
{
    fprintf(m->f, "%s(", fn);
    vexpr(m, a, v);
    fputs(", ", m->f);
    vexpr(m, b, v);
    fputc(')', m->f);
}

static void vmask(Em *m, const Expr *e, const LVar *v)
{
    static const char *const CMP[] = {[BO_LT] = "ctvm_vlt", [BO_LE] = "ctvm_vle", [BO_GE] = "ctvm_vge",
                                      [BO_EQ] = "ctvm_veq"};
    if (e->op == BO_AND) {
        fputs("ctvm_vmand(", m->f);
        vmask(m, e->a, v);
        fputs(", ", m->f);
        vmask(m, e->b, v);
        fputc(')', m->f);
    } else if (e->op == BO_GT) {
        vcall2(m, "ctvm_vlt", e->b, e->a, v);
    } else {
        vcall2(m, CMP[e->op], e->a, e->b, v);
    }
}

static int is_fmul(const Expr *e)
{
    return e->kind == EX_BIN && e->op == BO_MUL && e->type == LT_F32;
}

static void vexpr(Em *m, const Expr *e, const LVar *v)
{
    FILE *f = m->f;
    if (!lx_uses_var(e, v)) {
        if (e->kind == EX_FLOAT && e->f == 0.0 && !signbit(e->f)) {
            fputs("ctvm_vzero()", f);
            return;
        }
        fputs("ctvm_vset1(", f);
        pexpr(m, e);
        fputc(')', f);
        return;
    }
    switch (e->kind) {
    case EX_LOAD:
        if (local_mode(m, e->buf) == LM_VREG) {
            local_ref(m, e->buf, e->a, v);
        } else {
            fputs("ctvm_vload(&", f);
            emit_buf_name(f, e->buf);
            fputc('[', f);
            pexpr(m, lane0(m, e->a, v));
            fputs("])", f);
        }
        break;
    case EX_BIN:
        if (e->op == BO_ADD && (is_fmul(e->a) || is_fmul(e->b))) {
            const Expr *mul = is_fmul(e->b) ? e->b : e->a, *add = mul == e->b ? e->a : e->b;
            fputs("ctvm_vfma(", f);
            vexpr(m, mul->a, v);
            fputs(", ", f);
            vexpr(m, mul->b, v);
            fputs(", ", f);
            vexpr(m, add, v);
            fputc(')', f);
        } else {
            vcall2(m, vbin_name(e->op), e->a, e->b, v);
        }
        break;
    case EX_CALL:
        fprintf(f, "%s(", vcall_name(e->fn));
        vexpr(m, e->a, v);
        fputc(')', f);
        break;
    case EX_SELECT:
        if (lx_uses_var(e->c, v)) {
            fputs("ctvm_vselect(", f);
            vmask(m, e->c, v);
            fputs(", ", f);
        } else {
            fputc('(', f);
            pexpr(m, e->c);
            fputs(" ? ", f);
        }
        vexpr(m, e->a, v);
        fputs(lx_uses_var(e->c, v) ? ", " : " : ", f);
        vexpr(m, e->b, v);
        fputc(')', f);
        break;
    default: fputs("?", f); break; /* excluded by vexpr_ok */
    }
}

/* ---- statements ---- */

static void pstmt(Em *m, const Stmt *s, int ind, const LVar *v);

static void pstore(Em *m, const Stmt *s, int ind, const LVar *v)
{
    FILE *f = m->f;
    fprintf(f, "%*s", ind, "");
    int mode = local_mode(m, s->buf);
    if (v) {
        if (mode == LM_VREG) {
            local_ref(m, s->buf, s->index, v);
            fputs(" = ", f);
            vexpr(m, s->value, v);
            fputs(";\n", f);
        } else {
            fputs("ctvm_vstore(&", f);
            emit_buf_name(f, s->buf);
            fputc('[', f);
            pexpr(m, lane0(m, s->index, v));
            fputs("], ", f);
            vexpr(m, s->value, v);
            fputs(");\n", f);
        }
        return;
    }
    if (mode == LM_SREG) {
        local_ref(m, s->buf, s->index, NULL);
        fputs(" = ", f);
        pexpr(m, s->value);
        fputs(";\n", f);
        return;
    }
    StorageIO io = s->buf->kind == LB_LOCAL ? (StorageIO){0} : storage_io(s->buf->dtype);
    if (io.pstore) {
        fprintf(f, "%s(", io.pstore);
        emit_buf_name(f, s->buf);
        fputs(", ", f);
        pexpr(m, canon(m, s->index));
        fputs(", ", f);
        pexpr(m, s->value);
        fputs(");\n", f);
        return;
    }
    emit_buf_name(f, s->buf);
    fputc('[', f);
    pexpr(m, canon(m, s->index));
    fputs("] = ", f);
    if (io.store)
        fprintf(f, "%s(", io.store);
    else if (s->buf->dtype == DT_BOOL)
        fputs("(uint8_t)", f);
    pexpr(m, s->value);
    if (io.store && io.store_args && s->buf->dtype == DT_FLOAT8E8M0)
        fprintf(f, ", %d, %d)", !s->store_nosat, s->store_round);
    else if (io.store && io.store_args)
        fprintf(f, ", %d)", !s->store_nosat);
    else if (io.store)
        fputc(')', f);
    fputs(";\n", f);
}

static void palloc(Em *m, const Stmt *s, int ind, const LVar *v)
{
    FILE *f = m->f;
    ScanState st = {.buf = s->buf};
    if (m->cfg.lb)
        scan_stmt(m, &st, s->body, v);
    int mode = LM_MEM;
    if (m->cfg.lb && !st.bad && st.vec != st.scal && !v)
        mode = st.vec ? LM_VREG : LM_SREG;
    const char *ct = lt_c_type(lt_of_dtype(s->buf->dtype)); /* locals hold compute values */
    fprintf(f, "%*s{\n%*s", ind, "", ind + 4, "");
    if (mode == LM_MEM) {
        fprintf(f, "%s ", ct);
        emit_buf_name(f, s->buf);
        fprintf(f, "[%lld];\n", (long long)s->buf->numel);
    } else {
        fprintf(f, "%s ", mode == LM_VREG ? "ctvm_vf" : ct);
        int first = 1;
        for (int k = 0; k < MAX_REG_SLOTS; k++)
            if (st.used >> k & 1) {
                fputs(first ? "" : ", ", f);
                emit_buf_name(f, s->buf);
                fprintf(f, "_%d", k);
                first = 0;
            }
        fputs(";\n", f);
    }
    if (mode == LM_MEM) { /* a local the body only writes (or never touches) */
        fprintf(f, "%*s(void)", ind + 4, "");
        emit_buf_name(f, s->buf);
        fputs(";\n", f);
    }
    if (m->n_scope < MAX_SCOPES)
        m->scope[m->n_scope++] = (LocalScope){s->buf, mode, st.used};
    pstmt(m, s->body, ind + 4, v);
    m->n_scope--;
    if (mode != LM_MEM) /* after the body, where every slot has been set */
        for (int k = 0; k < MAX_REG_SLOTS; k++)
            if (st.used >> k & 1) {
                fprintf(f, "%*s(void)", ind + 4, "");
                emit_buf_name(f, s->buf);
                fprintf(f, "_%d;\n", k);
            }
    fprintf(f, "%*s}\n", ind, "");
}

/* fn((void *const[]){bufs}, (const int64_t[]){iargs}, (const double[]){fargs}):
 * the one calling convention of runtime kernels (ir/loop_kernels.h) */
static void pcallstmt(Em *m, const Stmt *s, int ind)
{
    FILE *f = m->f;
    fprintf(f, "%*s%s(", ind, "", s->fn);
    if (s->n_bufs) {
        fputs("(void *const[]){", f);
        for (int i = 0; i < s->n_bufs; i++) {
            fputs(i ? ", (void *)" : "(void *)", f);
            if (s->bufs[i])
                emit_buf_name(f, s->bufs[i]);
            else
                fputc('0', f);
        }
        fputs("}, ", f);
    } else {
        fputs("(void *const *)0, ", f);
    }
    if (s->n_iargs) {
        fputs("(const int64_t[]){", f);
        for (int i = 0; i < s->n_iargs; i++) {
            if (s->iexpr && i == s->iexpr_at)
                pexpr(m, s->iexpr);
            else
                emit_int(f, s->iargs[i], LT_I64);
            fputs(i + 1 < s->n_iargs ? ", " : "", f);
        }
        fputs("}, ", f);
    } else {
        fputs("(const int64_t *)0, ", f);
    }
    if (s->n_fargs) {
        fputs("(const double[]){", f);
        for (int i = 0; i < s->n_fargs; i++) {
            emit_float(f, s->fargs[i], LT_F64);
            fputs(i + 1 < s->n_fargs ? ", " : "", f);
        }
        fputs("});\n", f);
    } else {
        fputs("(const double *)0);\n", f);
    }
}

static void collect_calls(const Stmt *s, const char **names, int *n, int cap)
{
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC: collect_calls(s->body, names, n, cap); break;
    case ST_IF:
        collect_calls(s->body, names, n, cap);
        collect_calls(s->else_body, names, n, cap);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            collect_calls(s->items[i], names, n, cap);
        break;
    case ST_CALL: {
        for (int i = 0; i < *n; i++)
            if (strcmp(names[i], s->fn) == 0)
                return;
        if (*n < cap)
            names[(*n)++] = s->fn;
        break;
    }
    case ST_STORE: break;
    }
}

static int expr_rounds(const Expr *e)
{
    if (!e)
        return 0;
    if (e->kind == EX_CALL && (e->fn == CO_RND_F16 || e->fn == CO_RND_BF16))
        return 1;
    return expr_rounds(e->a) || expr_rounds(e->b) || expr_rounds(e->c);
}

int emit_uses_rounding(const Stmt *s)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC: return emit_uses_rounding(s->body);
    case ST_IF: return expr_rounds(s->cond) || emit_uses_rounding(s->body) || emit_uses_rounding(s->else_body);
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (emit_uses_rounding(s->items[i]))
                return 1;
        return 0;
    case ST_STORE: return expr_rounds(s->index) || expr_rounds(s->value);
    case ST_CALL: return 0;
    }
    return 0;
}

int emit_collect_calls(const Stmt *s, const char **names, int n, int cap)
{
    collect_calls(s, names, &n, cap);
    return n;
}

static void pstmt(Em *m, const Stmt *s, int ind, const LVar *v)
{
    FILE *f = m->f;
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR:
        if (!v && is_vector_loop(m, s)) {
            pstmt(m, s->body, ind, s->var);
            break;
        }
        fprintf(f, "%*sfor (int %s_%d = 0; %s_%d < %lld; ++%s_%d) {\n", ind, "", s->var->name, s->var->id,
                s->var->name, s->var->id, (long long)s->extent, s->var->name, s->var->id);
        pstmt(m, s->body, ind + 4, v);
        fprintf(f, "%*s}\n", ind, "");
        break;
    case ST_STORE: pstore(m, s, ind, v); break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            pstmt(m, s->items[i], ind, v);
        break;
    case ST_IF:
        fprintf(f, "%*sif (", ind, "");
        pexpr(m, s->cond);
        fputs(") {\n", f);
        pstmt(m, s->body, ind + 4, v);
        if (s->else_body) {
            fprintf(f, "%*s} else {\n", ind, "");
            pstmt(m, s->else_body, ind + 4, v);
        }
        fprintf(f, "%*s}\n", ind, "");
        break;
    case ST_ALLOC: palloc(m, s, ind, v); break;
    case ST_CALL: pcallstmt(m, s, ind); break;
    }
}

static const EmitCfg SCALAR_CFG = {1, 1, NULL};

int emit_has_parallel(const Stmt *s)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case ST_FOR: return s->loop == LOOP_PARALLEL || emit_has_parallel(s->body);
    case ST_IF: return emit_has_parallel(s->body) || emit_has_parallel(s->else_body);
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (emit_has_parallel(s->items[i]))
                return 1;
        return 0;
    case ST_ALLOC: /* a local declared outside a parallel loop would be each
                      thread's own: the whole block runs on thread 0 */
    case ST_STORE:
    case ST_CALL: return 0;
    }
    return 0;
}

/* Statements s[0..n) without parallel loops as one serial phase: thread 0
   runs them, then the team waits. */
static void pserial(Em *m, Stmt *const *s, int n, int ind)
{
    fprintf(m->f, "%*sif (ctvm_c->tid == 0) {\n", ind, "");
    for (int i = 0; i < n; i++)
        pstmt(m, s[i], ind + 4, NULL);
    fprintf(m->f, "%*s}\n%*sctvm_sync(ctvm_c);\n", ind, "", ind, "");
}

/* A kernel's body run by every thread of the team (templates/ctvm_team.h):
   a parallel loop gives each thread its share of the iterations, serial
   statements run on thread 0, a barrier ends every phase. Control around
   parallel loops runs on every thread: loop extents are constants, and an
   if's condition is evaluated by all before any phase may change it. */
static void pteam(Em *m, const Stmt *s, int ind)
{
    FILE *f = m->f;
    if (!emit_has_parallel(s)) {
        pserial(m, (Stmt *const *)&s, 1, ind);
        return;
    }
    switch (s->kind) {
    case ST_FOR: {
        const char *vn = s->var->name;
        int id = s->var->id;
        if (s->loop == LOOP_PARALLEL) {
            fprintf(f, "%*s{\n%*sint ctvm_lo, ctvm_hi;\n%*sctvm_split(%lld, ctvm_c, &ctvm_lo, &ctvm_hi);\n", ind, "",
                    ind + 4, "", ind + 4, "", (long long)s->extent);
            fprintf(f, "%*sfor (int %s_%d = ctvm_lo; %s_%d < ctvm_hi; ++%s_%d) {\n", ind + 4, "", vn, id, vn, id, vn, id);
            pstmt(m, s->body, ind + 8, NULL);
            fprintf(f, "%*s}\n%*s}\n%*sctvm_sync(ctvm_c);\n", ind + 4, "", ind, "", ind, "");
        } else {
            fprintf(f, "%*sfor (int %s_%d = 0; %s_%d < %lld; ++%s_%d) {\n", ind, "", vn, id, vn, id,
                    (long long)s->extent, vn, id);
            pteam(m, s->body, ind + 4);
            fprintf(f, "%*s}\n", ind, "");
        }
        break;
    }
    case ST_SEQ:
        for (int i = 0; i < s->n;) {
            int j = i;
            while (j < s->n && !emit_has_parallel(s->items[j]))
                j++;
            if (j > i)
                pserial(m, s->items + i, j - i, ind);
            else
                pteam(m, s->items[j++], ind);
            i = j;
        }
        break;
    case ST_IF: {
        int k = m->n_team_if++;
        fprintf(f, "%*s{\n%*sint ctvm_if%d = (", ind, "", ind + 4, "", k);
        pexpr(m, s->cond);
        fprintf(f, ") != 0;\n%*sctvm_sync(ctvm_c);\n%*sif (ctvm_if%d) {\n", ind + 4, "", ind + 4, "", k);
        pteam(m, s->body, ind + 8);
        if (s->else_body) {
            fprintf(f, "%*s} else {\n", ind + 4, "");
            pteam(m, s->else_body, ind + 8);
        }
        fprintf(f, "%*s}\n%*s}\n", ind + 4, "", ind, "");
        break;
    }
    default: break; /* without parallel loops: above */
    }
}

void emit_expr(FILE *f, const Expr *e)
{
    Em m = {.f = f, .cfg = SCALAR_CFG};
    pexpr(&m, e);
}

void emit_stmt(FILE *f, const Stmt *s, int ind)
{
    Em m = {.f = f, .cfg = SCALAR_CFG};
    pstmt(&m, s, ind, NULL);
}

void emit_kernel_cfg(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p,
                     const EmitCfg *cfg)
{
    Em m = {.f = f, .cfg = cfg ? *cfg : SCALAR_CFG};
    int team = emit_kernel_is_team(body, &m.cfg);
    fprintf(f, "/* %s */\nstatic void %s(", comment, name);
    for (int i = 0; i < p->n; i++) {
        fprintf(f, "%s%s%s *CTVM_RESTRICT ", i ? ", " : "", p->written[i] ? "" : "const ",
                dtype_c_storage(p->buf[i]->dtype));
        emit_buf_name(f, p->buf[i]);
    }
    if (team)
        fputs(p->n ? ", const ctvm_ctx *ctvm_c" : "const ctvm_ctx *ctvm_c", f);
    else if (p->n == 0)
        fputs("void", f);
    fputs(")\n{\n", f);
    if (m.cfg.lb)
        body = loop_expand_unrolled(m.cfg.lb, (Stmt *)body);
    if (team)
        pteam(&m, body, 4);
    else
        pstmt(&m, body, 4, NULL);
    fputs("}\n\n", f);
}

int emit_kernel_is_team(const Stmt *body, const EmitCfg *cfg)
{
    return cfg && cfg->threads > 1 && emit_has_parallel(body);
}

void emit_kernel(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p)
{
    emit_kernel_cfg(f, name, comment, body, p, NULL);
}
