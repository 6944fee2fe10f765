/* diag.c - formatting and printing of diagnostics (see diag.h). */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

#include "graph.h"

int diag_error(Diag *d, const Graph *g, int node_id, const char *fmt, ...)
{
    char reason[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    const char *tool = d->tool ? d->tool : "ctvm";
    const char *file = d->file ? d->file : (g ? g->path : "<input>");
    if (g && node_id >= 0 && node_id < g->n_nodes) {
        const Node *n = &g->nodes[node_id];
        snprintf(d->last, sizeof d->last, "%s: %s: node '%s' (%s): %s", tool, file, n->name,
                 n->op_type, reason);
    } else {
        snprintf(d->last, sizeof d->last, "%s: %s: %s", tool, file, reason);
    }
    /* names in the message come from the model file: no terminal control
       sequences (ESC, CR, ...) reach the user's terminal */
    for (char *c = d->last; *c; c++)
        if ((unsigned char)*c < 0x20 ? *c != '\n' && *c != '\t' : *c == 0x7f)
            *c = '?';
    d->n_errors++;
    if (!d->quiet)
        fprintf(stderr, "%s\n", d->last);
    return -1;
}
