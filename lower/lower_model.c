/* lower_model.c - a graph that went through the passes to a Module
 * (lower.h): groups scheduled into kernels, weight blob and buffers laid
 * out, entry point described, loop passes run. */
#include <stdio.h>
#include <string.h>

#include "ir/c_text.h"
#include "ir/call_prims.h"
#include "ir/embedded.h"
#include "ir/exec_order.h"
#include "ir/loop_kernels.h"
#include "ir/target.h"
#include "lower.h"
#include "lower_ctx.h"
#include "loop_passes.h"
#include "schedule/schedule.h"

/* ComputeCtx.buf_of: one buffer per root value, created on first use;
   a constant's bytes go into the blob then. */
static LBuf *buf_of(ComputeCtx *cx, int vid)
{
    LowerCtx *e = cx->user;
    Graph *g = cx->g;
    int r = value_root(g, vid);
    if (e->by_value[r])
        return e->by_value[r];
    Value *v = &g->values[r];
    int64_t numel = 0;
    shape_numel(&v->shape, &numel);
    if (v->storage == STORE_NONE && v->producer >= 0 &&
        (g->nodes[v->producer].n_epi > 0 || g->nodes[v->producer].fused_into >= 0)) {
        /* written by a group whose epilogues redirect the store */
        LBuf *b = lbuf_new(&e->lb, v->name, LB_ARENA, numel);
        b->virtual_ = 1;
        return e->by_value[r] = b;
    }
    BufKind kind = LB_ARENA;
    switch (v->storage) {
    case STORE_OUTDIMS: kind = LB_OUTDIMS; break;
    case STORE_INPUT: kind = LB_INPUT; break;
    case STORE_OUTPUT: kind = LB_OUTPUT; break;
    case STORE_CONST: kind = LB_CONST; break;
    case STORE_ARENA: kind = LB_ARENA; break;
    default:
        diag_error(cx->d, g, v->producer, "value '%s' has no storage (internal error)", v->name);
        e->failed = 1;
        break;
    }
    if (!dtype_supported(v->dtype)) {
        diag_error(cx->d, g, v->producer, "value '%s' is of type %s, which ctvm does not support at run time",
                   v->name, dtype_name(v->dtype));
        e->failed = 1;
    }
    LBuf *b = lbuf_new_typed(&e->lb, v->name, kind, v->dtype, numel);
    b->io_index = v->io_index;
    if (kind == LB_ARENA)
        b->offset = v->offset;
    int64_t bytes = 0;
    if (kind == LB_CONST && v->data && value_bytes(v, &bytes))
        b->offset = weights_add_typed(&e->blob, v->data, bytes, dtype_c_storage(v->dtype));
    e->by_value[r] = b;
    return b;
}

void lower_ctx_init(LowerCtx *e, Graph *g, const CodegenOptions *o, Diag *d)
{
    memset(e, 0, sizeof *e);
    e->lb.arena = g->arena;
    e->cx.lb = &e->lb;
    e->cx.g = g;
    e->cx.d = d;
    e->cx.buf_of = buf_of;
    e->cx.user = e;
    e->cx.tuning = o ? o->tuning : NULL;
    e->cx.target = o ? o->target : NULL;
    e->cx.threads = o && o->threads > 1 ? o->threads : 1;
    e->cx.reg_tile = sched_reg_tile;
    e->by_value = arena_array(g->arena, (size_t)g->n_values + 1, sizeof(LBuf *));
}

Stmt *lower_schedule_group(LowerCtx *e, int anchor, KernelParams *params)
{
    Graph *g = e->cx.g;
    Stmt *k = schedule_group(&e->cx, anchor);
    if (!k || e->failed)
        return NULL;
    if (kernel_collect_params(k, params) != 0) {
        diag_error(e->cx.d, g, anchor, "kernel needs more than %d buffers", KERNEL_MAX_PARAMS);
        return NULL;
    }
    for (int i = 0; i < params->n; i++)
        if (params->buf[i]->virtual_) {
            diag_error(e->cx.d, g, anchor, "kernel uses fused-away value '%s' (internal error)", params->buf[i]->name);
            return NULL;
        }
    return k;
}

double lower_group_flops(const Graph *g, int anchor)
{
    const Node *n = &g->nodes[anchor];
    int64_t ny = 0, nw = 0;
    shape_numel(&g->values[n->out[0]].shape, &ny);
    if (n->op == OP_CONV_NCHWC || n->op == OP_CONV) {
        const Shape *w = &g->values[n->in[1]].shape;
        shape_numel(w, &nw);
        int64_t per = n->op == OP_CONV ? w->dims[0] : w->dims[0] * w->dims[w->rank - 1];
        return per ? 2.0 * (double)ny * (double)(nw / per) : 0.0;
    }
    if (n->op == OP_QCONV_NCHWC) { /* weights [OCb, ICb, KH, KW, IB/4, B*4] or depthwise [OCb, 1, KH, KW, 1, B] */
        const Shape *w = &g->values[n->in[1]].shape, *y = &g->values[n->out[0]].shape;
        shape_numel(w, &nw);
        int64_t per = y->rank == 5 ? w->dims[0] * y->dims[4] : 0;
        return per ? 2.0 * (double)ny * (double)(nw / per) : 0.0;
    }
    if (n->op == OP_MAXPOOL || n->op == OP_AVGPOOL || n->op == OP_LPPOOL) { /* one operation a tap */
        double taps = 1.0;
        for (int i = 0; i < n->at.pool.win.n; i++)
            taps *= (double)n->at.pool.win.kernel[i];
        return (double)ny * taps;
    }
    if (n->op == OP_WINOGRAD_CONV) { /* the direct 3x3 convolution's count, for comparison */
        const Shape *u = &g->values[n->in[1]].shape;
        return 2.0 * (double)ny * 9.0 * (double)u->dims[1];
    }
    if (n->op == OP_GEMM || n->op == OP_MATMUL || n->op == OP_BF16MATMUL) {
        const Shape *a = &g->values[n->in[0]].shape;
        int64_t k = n->op == OP_GEMM && n->at.gemm.trans_a ? a->dims[0] : a->dims[a->rank - 1];
        return 2.0 * (double)ny * (double)k;
    }
    return 0.0;
}

static void describe_io(ModuleIO *io, const Value *v)
{
    io->name = v->name;
    io->dtype = v->dtype;
    io->shape = v->shape;
    io->dyn = v->dyn;
    shape_numel(&v->shape, &io->numel);
    value_bytes(v, &io->bytes);
}

static void origin_of(KernelOrigin *o, const Graph *g, int node)
{
    const Node *n = &g->nodes[node];
    o->name = n->name;
    o->op_type = n->op_type;
    if (n->n_out > 0 && n->out[0] >= 0) {
        o->dtype = g->values[n->out[0]].dtype;
        o->shape = g->values[n->out[0]].shape;
    }
}

/* Storage types without a C type (float16, bfloat16, float8, packed
   sub-byte types) among the graph's values: ctvm_types.h converts those. */
static int narrow_types(const Graph *g)
{
    for (int v = 0; v < g->n_values; v++) {
        DType t = g->values[v].dtype;
        if (dtype_supported(t) && dtype_compute(t) != t)
            return 1;
    }
    return 0;
}

/* 1 when a runtime kernel m calls is written on the vector API */
static int calls_use_vec(const Module *m)
{
    for (int i = 0; i < m->n_calls; i++) {
        const char *file = loop_kernel_file(m->calls[i]), *text = file ? ctvm_embedded_find(file) : NULL;
        if (text && strstr(text, "ctvm_vload("))
            return 1;
    }
    return 0;
}

/* The module-wide facts the printer needs, from the final kernels. */
void lower_module_flags(Module *m)
{
    m->n_calls = 0;
    m->uses_vec = 0;
    for (int k = 0; k < m->n_kernels; k++) {
        Stmt *s = m->kernels[k].body;
        m->n_calls = loop_collect_calls(s, m->calls, m->n_calls, 64);
        m->uses_rounding |= loop_uses_rounding(s);
        m->uses_vec |= loop_uses_vectors(s);
        m->uses_vec_math |= loop_uses_math(s);
    }
    for (int i = 0; i < m->n_calls && !m->uses_vec_math; i++) { /* or a runtime kernel they call */
        const char *file = loop_kernel_file(m->calls[i]), *text = file ? ctvm_embedded_find(file) : NULL;
        m->uses_vec_math = text && call_prims_text_uses_math(text);
    }
    if (m->target && m->target->vl > 1 && !m->uses_vec) /* ctvm_expf is lane 0 of the target's ctvm_vexp */
        m->uses_vec = m->uses_vec_math || calls_use_vec(m);
}

static int check_graph(Graph *g, Diag *d)
{
    for (int v = 0; v < g->n_values; v++) { /* the C code indexes with int */
        int64_t numel;
        if (shape_is_static(&g->values[v].shape) &&
            (!shape_numel(&g->values[v].shape, &numel) || numel > CTVM_MAX_NUMEL))
            return diag_error(d, g, g->values[v].producer, "value '%s' has 2^31 or more elements",
                              g->values[v].name);
    }
    for (int i = 0; i < g->n_inputs; i++)
        if (!dtype_supported(g->values[g->inputs[i]].dtype))
            return diag_error(d, g, -1, "input '%s' is of type %s, which ctvm does not support",
                              g->values[g->inputs[i]].name, dtype_name(g->values[g->inputs[i]].dtype));
    return 0;
}

Module *lower_model(Graph *g, const CodegenOptions *o, Diag *d)
{
    if (check_graph(g, d) != 0)
        return NULL;
    Module *m = arena_alloc(g->arena, sizeof *m);
    m->target = o->target ? o->target : target_find("generic");
    m->threads = o->threads > 1 ? o->threads : 1;
    LowerCtx e;
    lower_ctx_init(&e, g, o, d);

    m->n_inputs = g->n_inputs;
    m->n_outputs = g->n_outputs;
    m->inputs = arena_array(g->arena, (size_t)g->n_inputs + 1, sizeof(ModuleIO));
    m->outputs = arena_array(g->arena, (size_t)g->n_outputs + 1, sizeof(ModuleIO));
    for (int i = 0; i < g->n_inputs; i++)
        describe_io(&m->inputs[i], &g->values[g->inputs[i]]);
    for (int i = 0; i < g->n_outputs; i++)
        describe_io(&m->outputs[i], &g->values[g->outputs[i]]);
    m->workspace_bytes = g->arena_bytes;
    for (int v = 0; v < g->n_values; v++) {
        int64_t b;
        if (g->values[v].storage == STORE_ARENA && value_bytes(&g->values[v], &b))
            m->activation_bytes += b;
    }
    m->narrow_types = narrow_types(g);

    int *order = arena_array(g->arena, (size_t)g->n_nodes + 1, sizeof(int));
    int steps = graph_exec_order(g, order);
    m->n_kernels = steps;
    m->kernels = arena_array(g->arena, (size_t)steps + 1, sizeof(Kernel));
    for (int s = 0; s < steps; s++) {
        Kernel *k = &m->kernels[s];
        const Node *n = &g->nodes[order[s]];
        k->body = lower_schedule_group(&e, order[s], &k->params);
        if (!k->body) {
            weights_free(&e.blob);
            return NULL;
        }
        char name[96], safe[64];
        const char *label = c_text(safe, sizeof safe, n->name, C_IDENT);
        while (*label == '_') /* "/stem/Conv" reads as k1_stem_Conv */
            label++;
        snprintf(name, sizeof name, "k%d_%s", s, label);
        k->name = arena_strdup(g->arena, name);
        k->label = n->name;
        k->n_origin = 1 + n->n_epi;
        k->origin = arena_array(g->arena, (size_t)k->n_origin, sizeof(KernelOrigin));
        origin_of(&k->origin[0], g, order[s]);
        for (int i = 0; i < n->n_epi; i++)
            origin_of(&k->origin[1 + i], g, n->epi[i]);
        k->flops = lower_group_flops(g, order[s]);
    }
    m->blob = e.blob;
    m->lb = e.lb;
    m->n_values = g->n_values;
    m->value_buf = e.by_value;
    if (loop_passes_run(m, o, d) != 0) {
        module_free(m);
        return NULL;
    }
    lower_module_flags(m);
    return m;
}
