/* lower_tasks.c - ctvm-tune's side of lowering (lower.h): the tunable
 * workloads of a graph, and one candidate with its reference as a module
 * of two kernels. */
#include <string.h>

#include "ir/exec_order.h"
#include "ir/target.h"
#include "lower.h"
#include "lower_ctx.h"
#include "loop_passes.h"
#include "schedule/schedule_key.h"

int lower_tasks(Graph *g, const CodegenOptions *o, LowerTask *tasks, int cap, Diag *d)
{
    LowerCtx e;
    lower_ctx_init(&e, g, o, d);
    const char **keys = arena_array(g->arena, (size_t)cap + 1, sizeof(char *));
    int(*knobs)[4] = arena_array(g->arena, (size_t)cap + 1, sizeof *knobs);
    int *used = arena_array(g->arena, (size_t)cap + 1, sizeof(int));
    SchedTuning rec = {.workload = keys, .knobs = knobs, .used = used, .record = 1, .cap = cap};
    e.cx.tuning = &rec;
    int *order = arena_array(g->arena, (size_t)g->n_nodes + 1, sizeof(int));
    int steps = graph_exec_order(g, order), n = 0;
    for (int s = 0; s < steps; s++) {
        int before = rec.n;
        for (int i = 0; i < rec.n; i++)
            used[i] = 0;
        KernelParams kp;
        if (!lower_schedule_group(&e, order[s], &kp)) {
            weights_free(&e.blob);
            return -1;
        }
        int all_f32 = 1;
        for (int i = 0; i < kp.n && all_f32; i++)
            all_f32 = kp.buf[i]->dtype == DT_FLOAT32;
        for (int i = 0; i < rec.n; i++) {
            if (!used[i])
                continue;
            if (i < before) { /* seen before: one more group of it */
                for (int t = 0; t < n; t++)
                    if (strcmp(tasks[t].workload, keys[i]) == 0)
                        tasks[t].count++;
                continue;
            }
            if (!all_f32 || n >= cap) /* candidates are timed on float32 buffers only */
                continue;
            LowerTask *t = &tasks[n++];
            memset(t, 0, sizeof *t);
            t->step = s;
            t->count = 1;
            snprintf(t->workload, sizeof t->workload, "%s", keys[i]);
            snprintf(t->node, sizeof t->node, "%s", g->nodes[order[s]].name);
            t->flops = lower_group_flops(g, order[s]);
        }
    }
    weights_free(&e.blob);
    return n;
}

Module *lower_kernel_bench(Graph *g, const CodegenOptions *o, const LowerTask *task, const int knobs[4], Diag *d)
{
    LowerCtx e;
    lower_ctx_init(&e, g, o, d);
    const char *key = task->workload;
    int kn[1][4], used[1] = {0};
    memcpy(kn[0], knobs, sizeof kn[0]);
    SchedTuning one = {.n = 1, .workload = &key, .knobs = kn, .used = used};
    int *order = arena_array(g->arena, (size_t)g->n_nodes + 1, sizeof(int));
    int steps = graph_exec_order(g, order);
    if (task->step < 0 || task->step >= steps) {
        diag_error(d, g, -1, "tuning task step %d out of range (internal error)", task->step);
        return NULL;
    }
    int anchor = order[task->step];
    Module *m = arena_alloc(g->arena, sizeof *m);
    m->target = o->target ? o->target : target_find("generic");
    m->threads = o->threads > 1 ? o->threads : 1;
    m->n_kernels = 2;
    m->kernels = arena_array(g->arena, 2, sizeof(Kernel));
    e.cx.tuning = &one;
    Kernel *cand = &m->kernels[0], *ref = &m->kernels[1];
    cand->body = lower_schedule_group(&e, anchor, &cand->params);
    e.cx.tuning = NULL;
    e.cx.naive = 1;
    ref->body = cand->body ? lower_schedule_group(&e, anchor, &ref->params) : NULL;
    weights_free(&e.blob); /* the program holds every buffer as a static array */
    if (!cand->body || !ref->body)
        return NULL;
    if (!used[0]) {
        diag_error(d, g, anchor, "workload %s not found in its group (internal error)", key);
        return NULL;
    }
    cand->name = "ctvm_cand";
    ref->name = "ctvm_ref";
    m->lb = e.lb;
    m->n_kernels = 1; /* the loop passes for the candidate only: the reference stays the plain nest */
    CodegenOptions po = *o;
    po.dump_after = NULL;
    if (loop_passes_run(m, &po, d) != 0)
        return NULL;
    m->n_kernels = 2;
    if (lp_names(m, ref, d) != 0) /* its C names, apart from the candidate's buffers */
        return NULL;
    lower_module_flags(m);
    return m;
}
