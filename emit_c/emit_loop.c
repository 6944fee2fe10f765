/* emit_loop.c - printing loop IR as C99 (see emit_loop.h). */
#include "emit_loop.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ir/loop_lower.h"

static void add_param(KernelParams *p, LBuf *b, int written)
{
    if (b->kind == LB_LOCAL)
        return;
    for (int i = 0; i < p->n; i++)
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

static void emit_float(FILE *f, double v)
{
    if (isinf(v)) {
        fprintf(f, v < 0 ? "(-INFINITY)" : "INFINITY");
        return;
    }
    if (isnan(v)) { /* C99 <math.h> NAN; "nanf" would not be a literal */
        fputs("NAN", f);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.9g", (double)(float)v);
    if (!strpbrk(buf, ".en"))
        strcat(buf, ".0");
    fprintf(f, v < 0 ? "(%sf)" : "%sf", buf);
}

static const char *bin_c(BinOp op)
{
    switch (op) {
    case BO_ADD: return "+";
    case BO_SUB: return "-";
    case BO_MUL: return "*";
    case BO_DIV: return "/";
    case BO_MOD: return "%";
    case BO_LT: return "<";
    case BO_LE: return "<=";
    case BO_GE: return ">=";
    case BO_EQ: return "==";
    case BO_AND: return "&&";
    default: return "?";
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
    if (e->op == BO_LT || e->op == BO_LE || e->op == BO_GE || e->op == BO_EQ)
        return e->a->type == LT_FLOAT && vexpr_ok(m, e->a, v) && vexpr_ok(m, e->b, v);
    return 0;
}

static int vexpr_ok(const Em *m, const Expr *e, const LVar *v)
{
    if (!lx_uses_var(e, v))
        return 1; /* uniform: broadcast */
    switch (e->kind) {
    case EX_LOAD: return contiguous(e->a, v);
    case EX_BIN:
        if (e->type != LT_FLOAT)
            return 0;
        return e->op <= BO_MAX && e->op != BO_MOD && vexpr_ok(m, e->a, v) && vexpr_ok(m, e->b, v);
    case EX_CALL: return e->fn != CO_ITOF && vexpr_ok(m, e->a, v);
    case EX_SELECT:
        if (lx_uses_var(e->c, v) && !vmask_ok(m, e->c, v))
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
    case ST_STORE: return s->value->type == LT_FLOAT && contiguous(s->index, v) && vexpr_ok(m, s->value, v);
    case ST_IF: return !lx_uses_var(s->cond, v) && vstmt_ok(m, s->body, v);
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
    }
}

/* ---- printing ---- */

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

static void pexpr(Em *m, const Expr *e)
{
    static const char *const FN[] = {"expf", "sqrtf", "tanhf", "ctvm_sigmoidf", "-", "fabsf", "(float)"};
    FILE *f = m->f;
    switch (e->kind) {
    case EX_INT: fprintf(f, e->i < 0 ? "(%lld)" : "%lld", (long long)e->i); break;
    case EX_FLOAT: emit_float(f, e->f); break;
    case EX_VAR: fprintf(f, "%s_%d", e->var->name, e->var->id); break;
    case EX_LOAD:
        if (local_mode(m, e->buf) == LM_SREG) {
            local_ref(m, e->buf, e->a, NULL);
            break;
        }
        emit_buf_name(f, e->buf);
        fputc('[', f);
        pexpr(m, canon(m, e->a));
        fputc(']', f);
        break;
    case EX_BIN:
        if (e->op == BO_MIN || e->op == BO_MAX) {
            const char *fn = e->a->type == LT_FLOAT ? (e->op == BO_MIN ? "ctvm_minf" : "ctvm_maxf")
                                                    : (e->op == BO_MIN ? "ctvm_mini" : "ctvm_maxi");
            fprintf(f, "%s(", fn);
            pexpr(m, e->a);
            fputs(", ", f);
            pexpr(m, e->b);
            fputc(')', f);
        } else {
            fputc('(', f);
            pexpr(m, e->a);
            fprintf(f, " %s ", bin_c(e->op));
            pexpr(m, e->b);
            fputc(')', f);
        }
        break;
    case EX_CALL:
        fprintf(f, "%s(", FN[e->fn]);
        pexpr(m, e->a);
        fputc(')', f);
        break;
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
    } else {
        vcall2(m, CMP[e->op], e->a, e->b, v);
    }
}

static int is_fmul(const Expr *e)
{
    return e->kind == EX_BIN && e->op == BO_MUL && e->type == LT_FLOAT;
}

static void vexpr(Em *m, const Expr *e, const LVar *v)
{
    static const char *const VFN[] = {"ctvm_vexp", "ctvm_vsqrt", "ctvm_vtanh", "ctvm_vsigmoid", "ctvm_vneg",
                                      "ctvm_vabs", "?"};
    static const char *const VBIN[] = {"ctvm_vadd", "ctvm_vsub", "ctvm_vmul", "ctvm_vdiv",
                                       "?",         "ctvm_vmin", "ctvm_vmax"};
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
            vcall2(m, VBIN[e->op], e->a, e->b, v);
        }
        break;
    case EX_CALL:
        fprintf(f, "%s(", VFN[e->fn]);
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
    } else {
        emit_buf_name(f, s->buf);
        fputc('[', f);
        pexpr(m, canon(m, s->index));
        fputc(']', f);
    }
    fputs(" = ", f);
    pexpr(m, s->value);
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
    fprintf(f, "%*s{\n%*s", ind, "", ind + 4, "");
    if (mode == LM_MEM) {
        fputs("float ", f);
        emit_buf_name(f, s->buf);
        fprintf(f, "[%lld];\n", (long long)s->buf->numel);
    } else {
        fputs(mode == LM_VREG ? "ctvm_vf " : "float ", f);
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
    if (m->n_scope < MAX_SCOPES)
        m->scope[m->n_scope++] = (LocalScope){s->buf, mode, st.used};
    pstmt(m, s->body, ind + 4, v);
    m->n_scope--;
    fprintf(f, "%*s}\n", ind, "");
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
        if (s->loop == LOOP_PARALLEL && m->cfg.threads > 1)
            fprintf(f, "#ifdef _OPENMP\n#pragma omp parallel for schedule(static) num_threads(CTVM_THREADS)\n#endif\n");
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
        fprintf(f, "%*s}\n", ind, "");
        break;
    case ST_ALLOC: palloc(m, s, ind, v); break;
    }
}

static const EmitCfg SCALAR_CFG = {1, 1, NULL};

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
    fprintf(f, "/* %s */\nstatic void %s(", comment, name);
    for (int i = 0; i < p->n; i++) {
        fprintf(f, "%s%sfloat *CTVM_RESTRICT ", i ? ", " : "", p->written[i] ? "" : "const ");
        emit_buf_name(f, p->buf[i]);
    }
    if (p->n == 0)
        fputs("void", f);
    fputs(")\n{\n", f);
    if (m.cfg.lb)
        body = loop_expand_unrolled(m.cfg.lb, (Stmt *)body);
    pstmt(&m, body, 4, NULL);
    fputs("}\n\n", f);
}

void emit_kernel(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p)
{
    emit_kernel_cfg(f, name, comment, body, p, NULL);
}
