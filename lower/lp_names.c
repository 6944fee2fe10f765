/* lp_names.c - loop pass: C identifiers from the model's names. Every
 * buffer a kernel passes (a value of the graph) gets the sanitized name of
 * its value, unique in the module (name_supply.h); local arrays and
 * register variables get their hint (acc, sum, ...) and slot, loop
 * variables their hint (oc, p, ...), unique in the kernel and apart from
 * its buffers. Runs last, on the final nest, whose buffers become the
 * kernel's parameters. */
#include <stdio.h>

#include "ir/loop_vec.h"
#include "loop_passes.h"
#include "name_supply.h"

static void name_locals(NameSupply *ns, Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case ST_ALLOC:
        if (!s->buf->cname)
            s->buf->cname = name_supply_take(ns, s->buf->name);
        name_locals(ns, s->body);
        break;
    case ST_DECL:
        for (int i = 0; i < s->n_vars; i++) {
            LVar *v = s->vars[i];
            if (v->id < 0)
                continue; /* named before (a nest shared by two kernels) */
            char raw[96];
            snprintf(raw, sizeof raw, "%.80s%d", v->name, v->id);
            v->name = name_supply_take(ns, raw);
            v->id = -1; /* printed as its name alone */
        }
        name_locals(ns, s->body);
        break;
    case ST_FOR:
        if (s->var->id >= 0) {
            s->var->name = name_supply_take(ns, s->var->name);
            s->var->id = -1;
        }
        name_locals(ns, s->body);
        break;
    case ST_SINGLE: name_locals(ns, s->body); break;
    case ST_IF:
        name_locals(ns, s->body);
        name_locals(ns, s->else_body);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            name_locals(ns, s->items[i]);
        break;
    default: break;
    }
}

int lp_names(Module *m, Kernel *k, Diag *d)
{
    /* the parameters of the final nest: a buffer the passes proved unused
       (under a guard that never holds) is no longer one */
    if (kernel_collect_params(k->body, &k->params) != 0)
        return diag_error(d, NULL, -1, "kernel %s needs more than %d buffers", k->name, KERNEL_MAX_PARAMS);
    if (!m->names)
        m->names = name_supply_new(m->lb.arena);
    for (int i = 0; i < k->params.n; i++)
        if (!k->params.buf[i]->cname)
            k->params.buf[i]->cname = name_supply_take(m->names, k->params.buf[i]->name);
    name_locals(name_supply_child(m->names), k->body);
    return 0;
}
