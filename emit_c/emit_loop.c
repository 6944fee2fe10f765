/* emit_loop.c - printing loop IR as C99 (see emit_loop.h). Every decision
 * was made before (lower/): this file maps each node to its C text, the
 * vector nodes to the target's vector API (templates/ctvm_vec_<isa>.h). */
#include "emit_loop.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/call_prims.h"
#include "ir/loop_vec.h"

void emit_buf_name(FILE *f, const LBuf *b)
{
    if (b->cname)
        fputs(b->cname, f);
    else /* a nest printed without lowering (tests) */
        fprintf(f, "%s%d", b->kind == LB_LOCAL ? "t" : "b", b->id);
}

/* variables by their C name (pass names gave it: id -1); in a nest printed
 * without lowering (tests), as hint_id */
static const char *var_text(const LVar *v, char *buf, size_t cap)
{
    if (v->id < 0)
        return v->name;
    snprintf(buf, cap, "%s_%d", v->name, v->id);
    return buf;
}

static void var_name(FILE *f, const LVar *v)
{
    char buf[128];
    fputs(var_text(v, buf, sizeof buf), f);
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

typedef struct Em {
    FILE *f;
} Em;

static void pexpr(Em *m, const Expr *e);
static void vexpr(Em *m, const Expr *e);

/* ctvm_v* function of a call the vector API has, or NULL (ir/call_prims.h) */
static const char *vcall_name(CallOp fn) { return call_prim(fn)->vec; }

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
    StorageIO io = e->buf->kind == LB_LOCAL ? (StorageIO){0} : storage_io(e->buf->dtype);
    if (io.pload) {
        fprintf(f, "%s(", io.pload);
        emit_buf_name(f, e->buf);
        fputs(", ", f);
        pexpr(m, e->a);
        fputc(')', f);
        return;
    }
    if (io.load)
        fprintf(f, "%s(", io.load);
    emit_buf_name(f, e->buf);
    fputc('[', f);
    pexpr(m, e->a);
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

/* A float constant inside int32. */
static int int32_bound(const Expr *k)
{
    const double lim = 2147483520.0; /* the largest float below 2^31 */
    return k->kind == EX_FLOAT && k->f >= -lim && k->f <= lim;
}

static int float_minmax(const Expr *e)
{
    return e->kind == EX_BIN && (e->op == BO_MIN || e->op == BO_MAX) && lt_is_float(e->type);
}

/* e is min(max(x, lo), hi) or max(min(x, hi), lo) of a float with constant
 * bounds inside int32 (QuantizeLinear's saturation, Clip): its conversion to
 * an integer needs no int64 (a NaN x never gets through ctvm_minf/maxf). */
static int clamped_in_int32(const Expr *e)
{
    if (!float_minmax(e))
        return 0;
    const Expr *in = int32_bound(e->b) ? e->a : int32_bound(e->a) ? e->b : NULL;
    return in && float_minmax(in) && in->op != e->op && (int32_bound(in->a) || int32_bound(in->b));
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
    if (lt_is_float(from) && lt_is_int(to) && lt_bits(to) <= 32 && clamped_in_int32(e->a)) {
        /* in range: through int32 (one VCVT on a 32-bit FPU; int64 is a libgcc call) */
        fprintf(f, "((%s)(int32_t)", lt_c_type(to));
        pexpr(m, e->a);
        fputc(')', f);
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
    if (lx_lanes(e) > 1 || e->kind == EX_DOT) { /* a dot of one lane: VL-1 targets (lp_vectorize) */
        vexpr(m, e);
        return;
    }
    switch (e->kind) {
    case EX_INT: emit_int(f, e->i, e->type); break;
    case EX_FLOAT: emit_float(f, e->f, e->type); break;
    case EX_VAR: var_name(f, e->var); break;
    case EX_LOAD: pload(m, e); break;
    case EX_HREDUCE: /* the lanes of a vector combined */
        fprintf(f, "ctvm_vh%s(", e->op == BO_ADD ? "sum" : e->op == BO_MIN ? "min" : "max");
        vexpr(m, e->a);
        fputc(')', f);
        break;
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
    default: fputs("?", f); break; /* vector nodes have lanes > 1 */
    }
}

/* ---- vector printing: the typed vector API (templates/ctvm_vec_<isa>.h) ---- */

/* lanes of element type t in the vector API: its vector type, and the
   suffix of its functions ("" for float32, "_f64", "_i32", "_64", "_8", "_16") */
typedef struct VClass {
    const char *type, *sfx;
} VClass;

static VClass vclass(LType t)
{
    switch (t) {
    case LT_F64: return (VClass){"ctvm_vd", "_f64"};
    case LT_I32: case LT_U32: return (VClass){"ctvm_vi", "_i32"};
    case LT_I64: case LT_U64: return (VClass){"ctvm_vl", "_64"};
    case LT_I8: case LT_U8: return (VClass){"ctvm_vb", "_8"};
    case LT_I16: case LT_U16: case LT_F16: case LT_BF16: return (VClass){"ctvm_vh", "_16"};
    case LT_BOOL: return (VClass){"ctvm_vm", ""};
    default: return (VClass){"ctvm_vf", ""};
    }
}

static const char *vsuffix(LType t) { return vclass(t).sfx; }

static void vcall2(Em *m, const char *fn, const char *sfx, const Expr *a, const Expr *b)
{
    fprintf(m->f, "%s%s(", fn, sfx);
    vexpr(m, a);
    fputs(", ", m->f);
    vexpr(m, b);
    fputc(')', m->f);
}

/* &buf[index], as the pointer type the typed load or store takes */
static void vaddr(Em *m, const LBuf *b, const Expr *index, LType t)
{
    if (t == LT_I32 || t == LT_U32)
        fputs(b->kind == LB_LOCAL ? "(int32_t *)&" : "(int32_t *)&", m->f);
    else
        fputc('&', m->f);
    emit_buf_name(m->f, b);
    fputc('[', m->f);
    pexpr(m, index);
    fputc(']', m->f);
}

static void vbin(Em *m, const Expr *e)
{
    static const char *const CMP[] = {[BO_LT] = "ctvm_vlt", [BO_LE] = "ctvm_vle", [BO_GE] = "ctvm_vge",
                                      [BO_EQ] = "ctvm_veq", [BO_GT] = "ctvm_vgt", [BO_NE] = "ctvm_vne"};
    static const char *const MASK[] = {[BO_AND] = "ctvm_vmand", [BO_OR] = "ctvm_vmor", [BO_XOR] = "ctvm_vmxor"};
    static const char *const OP[] = {[BO_ADD] = "ctvm_vadd", [BO_SUB] = "ctvm_vsub", [BO_MUL] = "ctvm_vmul",
                                     [BO_DIV] = "ctvm_vdiv", [BO_MIN] = "ctvm_vmin", [BO_MAX] = "ctvm_vmax",
                                     [BO_AND] = "ctvm_vand", [BO_OR] = "ctvm_vor", [BO_XOR] = "ctvm_vxor",
                                     [BO_SHL] = "ctvm_vshl", [BO_SHR] = "ctvm_vshr"};
    LType a = e->a->type;
    if (e->type == LT_BOOL && a == LT_BOOL) { /* mask logic */
        vcall2(m, MASK[e->op], "", e->a, e->b);
        return;
    }
    if (e->type == LT_BOOL) { /* comparisons of lanes of a's type */
        int uns = a == LT_U32 && e->op != BO_EQ && e->op != BO_NE;
        vcall2(m, CMP[e->op], uns ? "_u32" : vsuffix(a), e->a, e->b);
        return;
    }
    if (e->op == BO_SHL || e->op == BO_SHR) { /* by a constant count */
        fprintf(m->f, "%s%s(", OP[e->op], e->op == BO_SHR && e->type == LT_U32 ? "_u32" : "_i32");
        vexpr(m, e->a);
        fprintf(m->f, ", %lld)", (long long)e->b->i);
        return;
    }
    int uns = e->type == LT_U32 && (e->op == BO_MIN || e->op == BO_MAX);
    vcall2(m, OP[e->op], uns ? "_u32" : vsuffix(e->type), e->a, e->b);
}

static void vcall(Em *m, const Expr *e)
{
    FILE *f = m->f;
    LType t = e->a->type;
    const char *fn = NULL;
    if (t == LT_F32) {
        switch (e->fn) {
        case CO_FLOOR: fn = "ctvm_vfloor"; break;
        case CO_CEIL: fn = "ctvm_vceil"; break;
        case CO_ROUND: fn = "ctvm_vround"; break;
        case CO_RND_F16:
        case CO_RND_BF16: /* to the narrow type's precision and back */
            fprintf(f, "ctvm_vcvt_%s_f32(ctvm_vcvt_f32_%s(", e->fn == CO_RND_F16 ? "f16" : "bf16",
                    e->fn == CO_RND_F16 ? "f16" : "bf16");
            vexpr(m, e->a);
            fputs("))", f);
            return;
        default: fn = vcall_name(e->fn); break;
        }
        fprintf(f, "%s(", fn);
    } else if (t == LT_BOOL) {
        fputs("ctvm_vmnot(", f); /* CO_NOT */
    } else {
        fprintf(f, "%s%s(", e->fn == CO_SQRT ? "ctvm_vsqrt" : e->fn == CO_ABS ? "ctvm_vabs" : e->fn == CO_NOT ? "ctvm_vnot" : "ctvm_vneg",
                vsuffix(t));
    }
    vexpr(m, e->a);
    fputc(')', f);
}

/* conversion between lane types (lp_vectorize makes only these) */
static void vcast(Em *m, const Expr *e)
{
    LType from = e->a->type, to = e->type;
    const char *fn = NULL;
    char buf[48];
    if ((from == LT_I32 && to == LT_U32) || (from == LT_U32 && to == LT_I32) || (from == LT_I64 && to == LT_U64) ||
        (from == LT_U64 && to == LT_I64)) { /* the same bits */
        vexpr(m, e->a);
        return;
    }
    if (to == LT_BOOL)
        fn = "ctvm_vmask_of_b";
    else if (from == LT_BOOL)
        fn = "ctvm_vb_of_mask";
    else if (to == LT_I32 && (from == LT_I8 || from == LT_U8 || from == LT_I16 || from == LT_U16))
        snprintf(buf, sizeof buf, "ctvm_vcvt_%s_i32", lt_name(from)), fn = buf;
    else if ((from == LT_I32 || from == LT_U32) && (to == LT_I8 || to == LT_U8))
        fn = "ctvm_vcvt_i32_8";
    else if ((from == LT_I32 || from == LT_U32) && (to == LT_I16 || to == LT_U16))
        fn = "ctvm_vcvt_i32_16";
    else if ((from == LT_I32 || from == LT_U32) && (to == LT_I64 || to == LT_U64))
        fn = from == LT_I32 ? "ctvm_vcvt_i32_64" : "ctvm_vcvt_u32_64";
    else if ((from == LT_I64 || from == LT_U64) && (to == LT_I32 || to == LT_U32))
        fn = "ctvm_vcvt_64_i32";
    else if (to == LT_F32 && (from == LT_I32 || from == LT_U32))
        fn = from == LT_I32 ? "ctvm_vcvt_i32_f32" : "ctvm_vcvt_u32_f32";
    else if (from == LT_F32 && (to == LT_I32 || to == LT_U32))
        fn = e->i == LX_CAST_RNE_IN ? "ctvm_vcvt_f32_i32_rne_in" : "ctvm_vcvt_f32_i32";
    else
        snprintf(buf, sizeof buf, "ctvm_vcvt_%s_%s", lt_name(from), lt_name(to)), fn = buf; /* f16/bf16/f64 <-> f32 */
    fprintf(m->f, "%s(", fn);
    vexpr(m, e->a);
    fputc(')', m->f);
}

/* an 8-bit operand of a dot product (ctvm_vq): a load of 4*VL bytes, or
   one 4-byte group broadcast (lx_bcast_group) */
static void dot_operand(Em *m, const Expr *e)
{
    if (e->kind == EX_BCAST && e->a->kind == EX_LOAD && (e->a->lanes == 4 || (e->a->lanes == 2 && e->a->type == LT_BF16))) {
        fputs(e->i == LX_BCAST_LATE ? "ctvm_vbcast4_q_late(" : "ctvm_vbcast4_q(", m->f);
        vaddr(m, e->a->buf, e->a->a, e->a->type);
        fputc(')', m->f);
    } else if (e->kind == EX_LOAD) {
        fputs("ctvm_vload_q(", m->f);
        vaddr(m, e->buf, e->a, e->type);
        fputc(')', m->f);
    } else {
        vexpr(m, e);
    }
}

/* "a, b, c)": the vector operands of a three-operand primitive */
static void vargs3(Em *m, const Expr *e)
{
    vexpr(m, e->a);
    fputs(", ", m->f);
    vexpr(m, e->b);
    fputs(", ", m->f);
    vexpr(m, e->c);
    fputc(')', m->f);
}

static void vexpr(Em *m, const Expr *e)
{
    FILE *f = m->f;
    switch (e->kind) {
    case EX_BCAST:
        if (e->i == LX_BCAST_LATE && (e->type == LT_F32 || e->type == LT_I32 || e->type == LT_U32)) {
            fputs(e->type == LT_F32 ? "ctvm_vset1_late(" : "ctvm_vset1_i32_late((int32_t)", f);
            pexpr(m, e->a);
            fputc(')', f);
            return;
        }
        if (e->type == LT_F32 && e->a->kind == EX_FLOAT && e->a->f == 0.0 && !signbit(e->a->f)) {
            fputs("ctvm_vzero()", f);
            return;
        }
        if (e->type == LT_F32)
            fputs("ctvm_vset1(", f);
        else if (e->type == LT_F64)
            fputs("ctvm_vset1_f64(", f);
        else
            fprintf(f, "ctvm_vset1%s((%s)", vsuffix(e->type), e->type == LT_I64 || e->type == LT_U64 ? "int64_t" : "int32_t");
        pexpr(m, e->a);
        fputc(')', f);
        return;
    case EX_VAR: var_name(f, e->var); return;
    case EX_LOAD:
        fprintf(f, "ctvm_vload%s(", e->partial ? "_n" : vsuffix(e->type));
        vaddr(m, e->buf, e->a, e->type);
        if (e->partial) /* the first lanes only (float32) */
            fprintf(f, ", %d", e->partial);
        fputc(')', f);
        return;
    case EX_FMA:
        fprintf(f, "ctvm_vfma%s(", vsuffix(e->type));
        vargs3(m, e);
        return;
    case EX_LANEMASK: fprintf(f, "ctvm_vmask_n(%d)", (int)e->i); return;
    case EX_MLA16:
        fputs("ctvm_vmla16_i32(", f);
        vargs3(m, e);
        return;
    case EX_DOT:
        fprintf(f, "ctvm_vdot_%s(", e->type == LT_F32 ? "bf16" : e->b->type == LT_U8 ? "u8i8" : "i8i8");
        if (lx_lanes(e) == 1)
            pexpr(m, e->a);
        else
            vexpr(m, e->a);
        fputs(", ", f);
        dot_operand(m, e->b);
        fputs(", ", f);
        dot_operand(m, e->c);
        fputc(')', f);
        return;
    case EX_BIN: vbin(m, e); return;
    case EX_CALL: vcall(m, e); return;
    case EX_CAST: vcast(m, e); return;
    case EX_SELECT:
        if (lx_lanes(e->c) > 1) {
            fprintf(f, "ctvm_vselect%s(", vsuffix(e->type));
            vexpr(m, e->c);
            fputs(", ", f);
            vexpr(m, e->a);
            fputs(", ", f);
        } else {
            fputc('(', f);
            pexpr(m, e->c);
            fputs(" ? ", f);
            vexpr(m, e->a);
            fputs(" : ", f);
        }
        vexpr(m, e->b);
        fputc(')', f);
        return;
    default: fputs("?", f); return;
    }
}

/* ---- statements ---- */

static void pstmt(Em *m, const Stmt *s, int ind);

static void pstore(Em *m, const Stmt *s, int ind)
{
    FILE *f = m->f;
    fprintf(f, "%*s", ind, "");
    if (lx_lanes(s->value) > 1) {
        fprintf(f, "ctvm_vstore%s(", s->partial ? "_n" : vsuffix(s->value->type));
        vaddr(m, s->buf, s->index, s->value->type);
        fputs(", ", f);
        vexpr(m, s->value);
        if (s->partial) /* the first lanes only (float32) */
            fprintf(f, ", %d", s->partial);
        fputs(");\n", f);
        return;
    }
    StorageIO io = s->buf->kind == LB_LOCAL ? (StorageIO){0} : storage_io(s->buf->dtype);
    if (io.pstore) {
        fprintf(f, "%s(", io.pstore);
        emit_buf_name(f, s->buf);
        fputs(", ", f);
        pexpr(m, s->index);
        fputs(", ", f);
        pexpr(m, s->value);
        fputs(");\n", f);
        return;
    }
    emit_buf_name(f, s->buf);
    fputc('[', f);
    pexpr(m, s->index);
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

static void palloc(Em *m, const Stmt *s, int ind)
{
    FILE *f = m->f;
    fprintf(f, "%*s{\n%*s%s ", ind, "", ind + 4, "", lt_c_type(lt_of_dtype(s->buf->dtype))); /* compute values */
    emit_buf_name(f, s->buf);
    fprintf(f, "[%lld];\n", (long long)s->buf->numel);
    pstmt(m, s->body, ind + 4);
    fprintf(f, "%*s}\n", ind, "");
}

/* the C type of a register variable */
static const char *reg_type(const LVar *v)
{
    return v->lanes > 1 ? vclass(v->type).type : lt_c_type(v->type);
}

static void pdecl(Em *m, const Stmt *s, int ind)
{
    FILE *f = m->f;
    fprintf(f, "%*s{\n", ind, "");
    /* one declaration per C type, in the order the types first appear */
    for (int i = 0; i < s->n_vars; i++) {
        const char *t = reg_type(s->vars[i]);
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(t, reg_type(s->vars[j])) == 0;
        if (seen)
            continue;
        fprintf(f, "%*s%s ", ind + 4, "", t);
        for (int j = i, first = 1; j < s->n_vars; j++) {
            if (strcmp(t, reg_type(s->vars[j])) != 0)
                continue;
            fputs(first ? "" : ", ", f);
            var_name(f, s->vars[j]);
            first = 0;
        }
        fputs(";\n", f);
    }
    pstmt(m, s->body, ind + 4);
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

static void pstmt(Em *m, const Stmt *s, int ind)
{
    FILE *f = m->f;
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR: {
        char buf[128];
        const char *vn = var_text(s->var, buf, sizeof buf);
        if (s->loop == LOOP_TEAM) { /* the chunks this thread takes (templates/ctvm_team.h) */
            long long e = (long long)s->extent, n = s->chunks > 0 ? s->chunks : 1;
            fprintf(f, "%*s{\n%*sint ctvm_k;\n%*swhile ((ctvm_k = ctvm_take(ctvm_c, %lld)) >= 0) {\n", ind, "",
                    ind + 4, "", ind + 4, "", n);
            if (n == e)
                fprintf(f, "%*sint %s = ctvm_k;\n%*s{\n", ind + 8, "", vn, ind + 8, "");
            else
                fprintf(f,
                        "%*sint ctvm_lo = (int)(%lldLL * ctvm_k / %lld), ctvm_hi = (int)(%lldLL * (ctvm_k + 1) / %lld);\n"
                        "%*sfor (int %s = ctvm_lo; %s < ctvm_hi; ++%s) {\n",
                        ind + 8, "", e, n, e, n, ind + 8, "", vn, vn, vn);
            pstmt(m, s->body, ind + 12);
            fprintf(f, "%*s}\n%*sctvm_done(ctvm_c);\n%*s}\n%*s}\n", ind + 8, "", ind + 8, "", ind + 4, "", ind, "");
            break;
        }
        fprintf(f, "%*sfor (int %s = 0; %s < %lld; ++%s) {\n", ind, "", vn, vn, (long long)s->extent, vn);
        pstmt(m, s->body, ind + 4);
        fprintf(f, "%*s}\n", ind, "");
        break;
    }
    case ST_STORE: pstore(m, s, ind); break;
    case ST_ASSIGN:
        fprintf(f, "%*s", ind, "");
        var_name(f, s->var);
        fputs(" = ", f);
        pexpr(m, s->value);
        fputs(";\n", f);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            pstmt(m, s->items[i], ind);
        break;
    case ST_IF:
        if (s->team_if) { /* every thread decides before any phase may change the condition */
            int k = s->team_if - 1;
            fprintf(f, "%*s{\n%*sint ctvm_if%d = (", ind, "", ind + 4, "", k);
            pexpr(m, s->cond);
            fprintf(f, ") != 0;\n%*sctvm_sync(ctvm_c);\n%*sif (ctvm_if%d) {\n", ind + 4, "", ind + 4, "", k);
            pstmt(m, s->body, ind + 8);
            if (s->else_body) {
                fprintf(f, "%*s} else {\n", ind + 4, "");
                pstmt(m, s->else_body, ind + 8);
            }
            fprintf(f, "%*s}\n%*s}\n", ind + 4, "", ind, "");
            break;
        }
        fprintf(f, "%*sif (", ind, "");
        pexpr(m, s->cond);
        fputs(") {\n", f);
        pstmt(m, s->body, ind + 4);
        if (s->else_body) {
            fprintf(f, "%*s} else {\n", ind, "");
            pstmt(m, s->else_body, ind + 4);
        }
        fprintf(f, "%*s}\n", ind, "");
        break;
    case ST_ALLOC: palloc(m, s, ind); break;
    case ST_DECL: pdecl(m, s, ind); break;
    case ST_CALL: pcallstmt(m, s, ind); break;
    case ST_SINGLE: /* a phase of one chunk: the first thread to come runs it */
        fprintf(f, "%*swhile (ctvm_take(ctvm_c, 1) >= 0) {\n", ind, "");
        pstmt(m, s->body, ind + 4);
        fprintf(f, "%*sctvm_done(ctvm_c);\n%*s}\n", ind + 4, "", ind, "");
        break;
    case ST_BARRIER: fprintf(f, "%*sctvm_wait(ctvm_c);\n", ind, ""); break;
    }
}

void emit_expr(FILE *f, const Expr *e)
{
    Em m = {f};
    pexpr(&m, e);
}

void emit_stmt(FILE *f, const Stmt *s, int ind)
{
    Em m = {f};
    pstmt(&m, s, ind);
}

void emit_kernel_text(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p, int team)
{
    Em m = {f};
    if (comment)
        fprintf(f, "/* %s */\n", comment);
    fprintf(f, "static void %s(", name);
    for (int i = 0; i < p->n; i++) {
        fprintf(f, "%s%s%s *CTVM_RESTRICT ", i ? ", " : "", p->written[i] ? "" : "const ",
                dtype_c_storage(p->buf[i]->dtype));
        emit_buf_name(f, p->buf[i]);
    }
    if (team)
        fputs(p->n ? ", ctvm_ctx *ctvm_c" : "ctvm_ctx *ctvm_c", f);
    else if (p->n == 0)
        fputs("void", f);
    fputs(")\n{\n", f);
    pstmt(&m, body, 4);
    fputs("}\n\n", f);
}
