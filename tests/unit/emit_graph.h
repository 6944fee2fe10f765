/* emit_graph.h - test helper: a graph that went through the passes,
 * lowered (lower/lower.h) and printed (emit_c/emit.h), as ctvm-emit does. */
#ifndef CTVM_TESTS_EMIT_GRAPH_H
#define CTVM_TESTS_EMIT_GRAPH_H

#include "emit_c/emit.h"
#include "ir/target.h"
#include "lower/lower.h"

static inline int emit_graph(Graph *g, const char *target, int threads, struct SchedTuning *tuning,
                             const EmitOptions *o, FILE *out, Diag *d)
{
    CodegenOptions cg = {.target = target_find(target), .threads = threads, .tuning = tuning};
    Module *m = lower_model(g, &cg, d);
    if (!m)
        return -1;
    int rc = emit_module(m, o, out, NULL, d);
    module_free(m);
    return rc;
}

#endif
