/* graph_dump.c - graph_dump(): the stable text form printed by
 * --dump-after and compared by the pass tests.
 *
 *   graph "name" opset 13
 *   input %x : float32[1,3,224,224]
 *   %y = Conv(%x, %w[64,3,7,7], %b[64]) {group=1, pads=[3,3,3,3], ...} : float32[1,64,112,112]
 *   output %y : float32[1,64,112,112]
 *
 * One line per live node in node order. Constant inputs show their shape
 * after the name, and small ones (<= 8 elements) their values too:
 * %shape[2]={1,-1}. Omitted inputs/outputs print as _. Attributes are sorted
 * by name; floats print with %.9g. Fused epilogues and views get a trailing
 * "# fused into 'anchor'" / "# view" note. The fields ctvm invented (typed
 * attributes, ir/op_attrs.h) follow in brackets: [coerce2d=1]. Everything
 * is deterministic. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

static void put_type(FILE *f, const Value *v)
{
    char buf[160];
    fprintf(f, "%s%s", dtype_name(v->dtype), shape_str(&v->shape, buf, (int)sizeof buf));
}

static void put_elem(FILE *f, const Value *v, int64_t i)
{
    if (v->dtype == DT_FLOAT32 || v->dtype == DT_FLOAT64 || v->dtype == DT_FLOAT16)
        fprintf(f, "%.9g", tensor_get_f64(v->dtype, v->data, i));
    else
        fprintf(f, "%" PRId64, tensor_get_i64(v->dtype, v->data, i));
}

static void put_input(FILE *f, const Graph *g, int id)
{
    if (id < 0) {
        fputs("_", f);
        return;
    }
    const Value *v = &g->values[id];
    fprintf(f, "%%%s", v->name);
    if (!value_is_const(v))
        return;
    char buf[160];
    fputs(shape_str(&v->shape, buf, (int)sizeof buf), f);
    int64_t n;
    if (shape_numel(&v->shape, &n) && n <= 8) {
        fputs("={", f);
        for (int64_t i = 0; i < n; i++) {
            if (i)
                fputc(',', f);
            put_elem(f, v, i);
        }
        fputc('}', f);
    }
}

static void put_attr(FILE *f, const Attr *a)
{
    char buf[160];
    fprintf(f, "%s=", a->name);
    switch (a->kind) {
    case ATTR_FLOAT: fprintf(f, "%.9g", a->f); break;
    case ATTR_INT: fprintf(f, "%" PRId64, a->i); break;
    case ATTR_STRING: fprintf(f, "\"%s\"", a->s ? a->s : ""); break;
    case ATTR_TENSOR:
        if (a->t)
            fprintf(f, "<%s%s>", dtype_name(a->t->dtype), shape_str(&a->t->shape, buf, (int)sizeof buf));
        else
            fputs("<tensor>", f);
        break;
    case ATTR_FLOATS:
    case ATTR_INTS:
    case ATTR_STRINGS:
        fputc('[', f);
        for (int i = 0; i < a->n; i++) {
            if (i)
                fputc(',', f);
            if (a->kind == ATTR_FLOATS)
                fprintf(f, "%.9g", a->floats[i]);
            else if (a->kind == ATTR_INTS)
                fprintf(f, "%" PRId64, a->ints[i]);
            else
                fprintf(f, "\"%s\"", a->strings[i] ? a->strings[i] : "");
        }
        fputc(']', f);
        break;
    default: fputs("<other>", f); break;
    }
}

static void put_typed(FILE *f, const Graph *g, const Node *n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    op_attrs_print(m, g, n);
    fclose(m);
    if (len > 2) /* ", name=value..." */
        fprintf(f, " [%s]", buf + 2);
    free(buf);
}

static void put_attrs(FILE *f, const Node *n)
{
    if (n->n_attrs == 0)
        return;
    enum { MAX_SORT = 64 };
    const Attr *order[MAX_SORT];
    int cnt = n->n_attrs < MAX_SORT ? n->n_attrs : MAX_SORT;
    for (int i = 0; i < cnt; i++) { /* insertion sort by name */
        const Attr *a = &n->attrs[i];
        int j = i;
        while (j > 0 && strcmp(order[j - 1]->name, a->name) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = a;
    }
    fputs(" {", f);
    for (int i = 0; i < cnt; i++) {
        if (i)
            fputs(", ", f);
        put_attr(f, order[i]);
    }
    fputc('}', f);
}

void graph_dump(const Graph *g, FILE *f)
{
    fprintf(f, "graph \"%s\" opset %" PRId64 "\n", g->name ? g->name : "", g->opset);
    for (int k = 0; k < g->n_inputs; k++) {
        const Value *v = &g->values[g->inputs[k]];
        fprintf(f, "input %%%s : ", v->name);
        put_type(f, v);
        fputc('\n', f);
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_out; k++) {
            if (k)
                fputs(", ", f);
            if (n->out[k] < 0)
                fputs("_", f);
            else
                fprintf(f, "%%%s", g->values[n->out[k]].name);
        }
        fprintf(f, " = %s(", n->op_type);
        for (int k = 0; k < n->n_in; k++) {
            if (k)
                fputs(", ", f);
            put_input(f, g, n->in[k]);
        }
        fputc(')', f);
        put_attrs(f, n);
        put_typed(f, g, n);
        fputs(" :", f);
        for (int k = 0; k < n->n_out; k++) {
            fputs(k ? ", " : " ", f);
            if (n->out[k] < 0)
                fputs("_", f);
            else
                put_type(f, &g->values[n->out[k]]);
        }
        if (n->fused_into >= 0 && n->fused_into < g->n_nodes)
            fprintf(f, "  # fused into '%s'", g->nodes[n->fused_into].name);
        else if (n->is_view)
            fputs("  # view", f);
        fputc('\n', f);
    }
    for (int k = 0; k < g->n_outputs; k++) {
        const Value *v = &g->values[g->outputs[k]];
        fprintf(f, "output %%%s : ", v->name);
        put_type(f, v);
        if (value_is_const(v))
            fputs(" (constant)", f);
        fputc('\n', f);
    }
}
