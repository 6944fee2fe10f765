/* emit_loop.c - printing loop IR as C99 (see emit_loop.h). */
#include "emit_loop.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

void emit_expr(FILE *f, const Expr *e)
{
    static const char *const FN[] = {"expf", "sqrtf", "tanhf", "ctvm_sigmoidf", "-", "fabsf", "(float)"};
    switch (e->kind) {
    case EX_INT: fprintf(f, e->i < 0 ? "(%lld)" : "%lld", (long long)e->i); break;
    case EX_FLOAT: emit_float(f, e->f); break;
    case EX_VAR: fprintf(f, "%s_%d", e->var->name, e->var->id); break;
    case EX_LOAD:
        emit_buf_name(f, e->buf);
        fputc('[', f);
        emit_expr(f, e->a);
        fputc(']', f);
        break;
    case EX_BIN:
        if (e->op == BO_MIN || e->op == BO_MAX) {
            const char *fn = e->a->type == LT_FLOAT ? (e->op == BO_MIN ? "ctvm_minf" : "ctvm_maxf")
                                                    : (e->op == BO_MIN ? "ctvm_mini" : "ctvm_maxi");
            fprintf(f, "%s(", fn);
            emit_expr(f, e->a);
            fputs(", ", f);
            emit_expr(f, e->b);
            fputc(')', f);
        } else {
            fputc('(', f);
            emit_expr(f, e->a);
            fprintf(f, " %s ", bin_c(e->op));
            emit_expr(f, e->b);
            fputc(')', f);
        }
        break;
    case EX_CALL:
        fprintf(f, "%s(", FN[e->fn]);
        emit_expr(f, e->a);
        fputc(')', f);
        break;
    case EX_SELECT:
        fputc('(', f);
        emit_expr(f, e->c);
        fputs(" ? ", f);
        emit_expr(f, e->a);
        fputs(" : ", f);
        emit_expr(f, e->b);
        fputc(')', f);
        break;
    }
}

void emit_stmt(FILE *f, const Stmt *s, int ind)
{
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR:
        fprintf(f, "%*sfor (int %s_%d = 0; %s_%d < %lld; ++%s_%d) {\n", ind, "", s->var->name, s->var->id,
                s->var->name, s->var->id, (long long)s->extent, s->var->name, s->var->id);
        emit_stmt(f, s->body, ind + 4);
        fprintf(f, "%*s}\n", ind, "");
        break;
    case ST_STORE:
        fprintf(f, "%*s", ind, "");
        emit_buf_name(f, s->buf);
        fputc('[', f);
        emit_expr(f, s->index);
        fputs("] = ", f);
        emit_expr(f, s->value);
        fputs(";\n", f);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            emit_stmt(f, s->items[i], ind);
        break;
    case ST_IF:
        fprintf(f, "%*sif (", ind, "");
        emit_expr(f, s->cond);
        fputs(") {\n", f);
        emit_stmt(f, s->body, ind + 4);
        fprintf(f, "%*s}\n", ind, "");
        break;
    case ST_ALLOC:
        fprintf(f, "%*s{\n%*sfloat ", ind, "", ind + 4, "");
        emit_buf_name(f, s->buf);
        fprintf(f, "[%lld];\n", (long long)s->buf->numel);
        emit_stmt(f, s->body, ind + 4);
        fprintf(f, "%*s}\n", ind, "");
        break;
    }
}

void emit_kernel(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p)
{
    fprintf(f, "/* %s */\nstatic void %s(", comment, name);
    for (int i = 0; i < p->n; i++) {
        fprintf(f, "%s%sfloat *CTVM_RESTRICT ", i ? ", " : "", p->written[i] ? "" : "const ");
        emit_buf_name(f, p->buf[i]);
    }
    if (p->n == 0)
        fputs("void", f);
    fputs(")\n{\n", f);
    emit_stmt(f, body, 4);
    fputs("}\n\n", f);
}
