/* emit_model.c - assembly of the generated model.c / model.h (see emit.h). */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "emit_internal.h"
#include "emit_loop.h"
#include "emit_weights.h"
#include "ir/call_prims.h"
#include "ir/exec_order.h"
#include "ir/loop_kernels.h"
#include "ir/target.h"
#include "schedule/schedule.h"


int emit_target_known(const char *name)
{
    return target_find(name) != NULL;
}

/* ComputeCtx.buf_of: one buffer per root value, created on first use. */
static LBuf *buf_of(ComputeCtx *cx, int vid)
{
    EmitCtx *e = cx->user;
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

void emit_ctx_init(EmitCtx *e, Graph *g, Diag *d)
{
    memset(e, 0, sizeof *e);
    e->lb.arena = g->arena;
    e->cx.lb = &e->lb;
    e->cx.g = g;
    e->cx.d = d;
    e->cx.buf_of = buf_of;
    e->cx.user = e;
    e->by_value = arena_array(g->arena, (size_t)g->n_values + 1, sizeof(LBuf *));
}

/* Floating-point operations of a group's anchor (2 per multiply-add of
 * Conv, ConvNCHWc (padded channels included), Gemm and MatMul; 0 for the
 * rest), for the CTVM_PROFILE table. */
double emit_group_flops(const Graph *g, int anchor)
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
    if (n->op == OP_WINOGRAD_CONV) { /* the direct 3x3 convolution's count, for comparison */
        const Shape *u = &g->values[n->in[1]].shape;
        return 2.0 * (double)ny * 9.0 * (double)u->dims[1];
    }
    if (n->op == OP_GEMM || n->op == OP_MATMUL) {
        const Shape *a = &g->values[n->in[0]].shape;
        int64_t k = n->op == OP_GEMM && attr_int(n, "transA", 0) ? a->dims[0] : a->dims[a->rank - 1];
        return 2.0 * (double)ny * (double)k;
    }
    return 0.0;
}

void emit_call_arg(FILE *f, const LBuf *b, const WeightBlob *blob)
{
    switch (b->kind) {
    case LB_INPUT: fprintf(f, "in%d", b->io_index); break;
    case LB_OUTPUT: fprintf(f, "out%d", b->io_index); break;
    case LB_ARENA: /* offsets are 64-aligned; each storage type has its own region */
        if (b->dtype == DT_FLOAT32)
            fprintf(f, "(float *)(ws + %lld)", (long long)b->offset);
        else
            fprintf(f, "(%s *)(ws + %lld)", dtype_c_storage(b->dtype), (long long)b->offset);
        break;
    case LB_CONST: weights_print_ref(f, blob, weights_member_name(dtype_c_storage(b->dtype)), b->offset); break;
    case LB_LOCAL: fputs("0", f); break;
    case LB_OUTDIMS: fprintf(f, "out%d_shape", b->io_index); break;
    }
}

static void emit_shape_macro(FILE *f, const char *P, const char *kind, int i, const Value *v)
{
    int64_t numel = 0, bytes = 0;
    shape_numel(&v->shape, &numel);
    value_bytes(v, &bytes);
    fprintf(f, "#define %s_%s%d_NAME \"", P, kind, i);
    c_text_print(f, v->name, C_STRING);
    fputs("\"\n", f);
    fprintf(f, "#define %s_%s%d_DTYPE \"%s\"\n", P, kind, i, dtype_name(v->dtype));
    fprintf(f, "#define %s_%s%d_RANK %d\n", P, kind, i, v->shape.rank);
    fprintf(f, "#define %s_%s%d_SHAPE {", P, kind, i);
    for (int d = 0; d < v->shape.rank; d++)
        fprintf(f, "%s%lld", d ? ", " : "", (long long)v->shape.dims[d]);
    fprintf(f, "}\n#define %s_%s%d_SIZE %lld\n", P, kind, i, (long long)numel);
    if (v->dyn)
        fprintf(f, "/* data-dependent shape: _SHAPE, _SIZE and _BYTES are upper bounds; the run\n"
                   "   writes the actual dims to out%d_shape and the data compactly in that shape */\n"
                   "#define %s_%s%d_DYNAMIC 1\n", i, P, kind, i);
    fprintf(f, "#define %s_%s%d_BYTES %lld\n", P, kind, i, (long long)bytes);
}

void emit_io_params(FILE *f, const Graph *g, const char *first)
{
    int k = *first != 0;
    fputs(first, f);
    for (int i = 0; i < g->n_inputs; i++)
        fprintf(f, "%sconst %s *in%d", k++ ? ", " : "", dtype_c_storage(g->values[g->inputs[i]].dtype), i);
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(f, "%s%s *out%d", k++ ? ", " : "", dtype_c_storage(g->values[g->outputs[i]].dtype), i);
    for (int i = 0; i < g->n_outputs; i++)
        if (g->values[g->outputs[i]].dyn)
            fprintf(f, "%sint64_t *out%d_shape", k++ ? ", " : "", i);
    if (!k)
        fputs("void", f);
}

void emit_params(FILE *f, const Graph *g, int with_ws)
{
    fputc('(', f);
    emit_io_params(f, g, with_ws ? "void *workspace" : "");
    fputc(')', f);
}

/* The API block: shared verbatim by model.h and model.c. */
static void emit_api(FILE *f, const Graph *g, const char *P, int arena_caller, int threads)
{
    fprintf(f, "#ifndef %s_CTVM_API\n#define %s_CTVM_API\n#include <stdint.h>\n", P, P);
    fprintf(f, "/* Bytes of workspace %s_run_ws needs, 8-byte aligned (64 is fastest), e.g.\n"
               "   static double ws[%s_WORKSPACE_SIZE / 8 + 1]; or %s_WORKSPACE_SIZE bytes from the heap. */\n",
            P, P, P);
    fprintf(f, "#define %s_WORKSPACE_SIZE %lld\n", P, (long long)g->arena_bytes);
    fprintf(f, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", P, g->n_inputs, P, g->n_outputs);
    for (int i = 0; i < g->n_inputs; i++)
        emit_shape_macro(f, P, "INPUT", i, &g->values[g->inputs[i]]);
    for (int i = 0; i < g->n_outputs; i++)
        emit_shape_macro(f, P, "OUTPUT", i, &g->values[g->outputs[i]]);
    if (!arena_caller) {
        fprintf(f, "/* Runs the model; in<i>/out<i> hold %s_INPUT<i>_SIZE / %s_OUTPUT<i>_SIZE elements\n"
                   "   of the type %s_INPUT<i>_DTYPE / _OUTPUT<i>_DTYPE names (%s_..._BYTES bytes).\n"
                   "   Returns 0, or 1 when a pointer is NULL. Not reentrant: uses a static workspace. */\n",
                P, P, P, P);
        fprintf(f, "int %s_run", P);
        emit_params(f, g, 0);
        fprintf(f, ";\n/* Reentrant form: the caller provides %s_WORKSPACE_SIZE bytes of workspace. */\n", P);
    } else {
        fprintf(f, "/* Runs the model (emitted with --arena caller: there is no static workspace).\n"
                   "   in<i>/out<i> hold %s_INPUT<i>_SIZE / %s_OUTPUT<i>_SIZE elements; the caller\n"
                   "   provides %s_WORKSPACE_SIZE bytes of workspace. Returns 0, or 1 when a\n"
                   "   pointer is NULL. Reentrant. */\n",
                P, P, P);
    }
    fprintf(f, "int %s_run_ws", P);
    emit_params(f, g, 1);
    fputs(";\n", f);
    if (threads > 1)
        emit_team_api(f, g, P);
    fprintf(f, "#endif /* %s_CTVM_API */\n", P);
}

/* `#ifndef macro` guarding its definition as __attribute__((attr)) under
 * GCC/clang and, for other compilers, as empty or an #error with
 * other_error; just empty when attr is NULL. -D at build time overrides.
 * Used for CTVM_WEIGHTS_SECTION / CTVM_ARENA_SECTION (--weights-section /
 * --arena-section; an #error elsewhere) and CTVM_DATA_ALIGN (SIMD targets
 * only, so the generic file stays ISO C). */
static void emit_attr_macro(FILE *f, const char *macro, const char *attr, const char *other_error)
{
    fprintf(f, "#ifndef %s\n", macro);
    if (attr) {
        fprintf(f, "#if defined(__GNUC__) || defined(__clang__)\n#define %s __attribute__((%s))\n#else\n", macro, attr);
        if (other_error)
            fprintf(f, "#error \"%s\"\n", other_error);
        else
            fprintf(f, "#define %s\n", macro);
        fputs("#endif\n", f);
    } else {
        fprintf(f, "#define %s\n", macro);
    }
    fputs("#endif\n", f);
}

static void emit_section_macro(FILE *f, const char *macro, const char *section)
{
    char attr[96], err[192];
    snprintf(attr, sizeof attr, "section(\"%s\")", section ? section : "");
    snprintf(err, sizeof err, "ctvm: define %s to place data in section %s with this compiler", macro,
             section ? section : "");
    emit_attr_macro(f, macro, section ? attr : NULL, err);
}

/* Whether a value is stored in a format the C compiler lacks (float16,
 * bfloat16, float8, packed sub-byte types): ctvm_types.h converts those. */
int emit_uses_narrow_types(const Graph *g)
{
    for (int v = 0; v < g->n_values; v++) {
        DType t = g->values[v].dtype;
        if (dtype_supported(t) && dtype_compute(t) != t)
            return 1;
    }
    return 0;
}

void emit_banner_file(FILE *f, const char *path)
{
    const char *text = ctvm_embedded_find(path);
    fprintf(f, "/**** Begin %s ****/\n%s/**** End %s ****/\n\n", path, text ? text : "", path);
}

/* "uint8_t x[ELEMS + 1]" sized by element count, or by bytes for packed types */
static void emit_io_buffer(FILE *f, const char *P, const char *kind, const char *lower, int i, const Value *v)
{
    fprintf(f, "static %s ctvm_main_%s%d[%s_%s%d_%s + 1];\n", dtype_c_storage(v->dtype), lower, i, P, kind, i,
            dtype_is_packed(v->dtype) ? "BYTES" : "SIZE");
}

static void emit_harness(FILE *f, const Graph *g, const char *P, int arena_caller, int threads)
{
    fputs("#ifdef CTVM_MAIN\n", f);
    fprintf(f, "#define CTVM_MAIN_NIN %d\n#define CTVM_MAIN_NOUT %d\n", g->n_inputs, g->n_outputs);
    for (int i = 0; i < g->n_inputs; i++)
        emit_io_buffer(f, P, "INPUT", "in", i, &g->values[g->inputs[i]]);
    for (int i = 0; i < g->n_outputs; i++)
        emit_io_buffer(f, P, "OUTPUT", "out", i, &g->values[g->outputs[i]]);
    fputs("static void *const ctvm_main_in[] = {", f);
    for (int i = 0; i < g->n_inputs; i++)
        fprintf(f, "ctvm_main_in%d, ", i);
    fputs("0};\nstatic void *const ctvm_main_out[] = {", f);
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(f, "ctvm_main_out%d, ", i);
    fputs("0};\nstatic const long ctvm_main_in_bytes[] = {", f);
    for (int i = 0; i < g->n_inputs; i++)
        fprintf(f, "%s_INPUT%d_BYTES, ", P, i);
    fputs("0};\nstatic const long ctvm_main_out_bytes[] = {", f);
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(f, "%s_OUTPUT%d_BYTES, ", P, i);
    fputs("0};\n", f);
    /* data-dependent outputs: the actual dims the run writes */
    for (int i = 0; i < g->n_outputs; i++)
        if (g->values[g->outputs[i]].dyn)
            fprintf(f, "static int64_t ctvm_main_out%d_shape[%s_OUTPUT%d_RANK + 1];\n", i, P, i);
    fputs("static int64_t *const ctvm_main_out_shape[] = {", f);
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(f, g->values[g->outputs[i]].dyn ? "ctvm_main_out%d_shape, " : "0, ", i);
    fputs("0};\nstatic const int ctvm_main_out_rank[] = {", f);
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(f, "%s_OUTPUT%d_RANK, ", P, i);
    fputs("0};\nstatic const int ctvm_main_out_bits[] = {", f);
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(f, "%d, ", dtype_bits(g->values[g->outputs[i]].dtype));
    fputs("0};\n", f);
    if (arena_caller)
        fprintf(f, "static double ctvm_main_ws[%s_WORKSPACE_SIZE / 8 + 1];\n", P);
    if (threads > 1)
        emit_team_harness(f, g, P, arena_caller);
    fputs("static int ctvm_main_invoke(void)\n{\n", f);
    if (threads > 1)
        fputs("#ifdef CTVM_MAIN_TEAM\n    return ctvm_main_team_invoke();\n#endif\n", f);
    fprintf(f, "    return %s_run%s(", P, arena_caller ? "_ws" : "");
    emit_pass_args_named(f, g, arena_caller ? "ctvm_main_ws" : "", "ctvm_main_");
    fputs(");\n}\n", f);
    emit_banner_file(f, "templates/main_harness.c");
    fputs("#endif /* CTVM_MAIN */\n", f);
}

/* `if (a NULL pointer) return CTVM_ERR_NULL;` of the entry points */
void emit_null_check(FILE *out, const Graph *g, const char *P)
{
    fprintf(out, "    if ((!workspace && %s_WORKSPACE_SIZE > 0)", P);
    for (int i = 0; i < g->n_inputs; i++)
        fprintf(out, " || !in%d", i);
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(out, g->values[g->outputs[i]].dyn ? " || !out%d || !out%d_shape" : " || !out%d", i, i);
    fputs(")\n        return CTVM_ERR_NULL;\n", out);
}

/* The arguments of an entry point passed on: first, then in0.., out0..,
   out0_shape.. each named with prefix ("ctvm_main_in0"), comma-separated
   (no comma before the first when first is empty) */
void emit_pass_args_named(FILE *out, const Graph *g, const char *first, const char *prefix)
{
    int k = *first != 0;
    fputs(first, out);
    for (int i = 0; i < g->n_inputs; i++)
        fprintf(out, "%s%sin%d", k++ ? ", " : "", prefix, i);
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(out, "%s%sout%d", k++ ? ", " : "", prefix, i);
    for (int i = 0; i < g->n_outputs; i++)
        if (g->values[g->outputs[i]].dyn)
            fprintf(out, "%s%sout%d_shape", k++ ? ", " : "", prefix, i);
}

void emit_pass_args(FILE *out, const Graph *g, const char *first)
{
    emit_pass_args_named(out, g, first, "");
}

/* One kernel call of the run sequence; a team kernel takes the context. */
void emit_step_call(FILE *out, const Graph *g, int s, int anchor, const KernelParams *kp, int team,
                    const WeightBlob *blob)
{
    char safe[64];
    c_text(safe, sizeof safe, g->nodes[anchor].name, C_IDENT);
    fprintf(out, "    CTVM_PROF(%d, k%d_%s(", s, s, safe);
    for (int i = 0; i < kp->n; i++) {
        if (i)
            fputs(", ", out);
        emit_call_arg(out, kp->buf[i], blob);
    }
    fputs(team ? (kp->n ? ", ctvm_c));\n" : "ctvm_c));\n") : "));\n", out);
}

const Target *emit_target(const Graph *g, const EmitOptions *o, Diag *d)
{
    const Target *tg = g->target ? g->target : target_find(o->target ? o->target : "generic");
    if (!tg)
        diag_error(d, NULL, -1, "unknown target '%s'", o->target);
    return tg;
}

/* The kernels, or runtime kernels they call, use templates/ctvm_vec_math.h
 * (exp, tanh, log... vector or scalar forms, ir/call_prims.h). */
static int uses_math(Stmt *const *kernels, int n, const char *ktext)
{
    if (call_prims_text_uses_math(ktext))
        return 1;
    for (int s = 0; s < n; s++) {
        const char *calls[64];
        int nc = emit_collect_calls(kernels[s], calls, 0, 64);
        for (int i = 0; i < nc; i++) {
            const char *file = loop_kernel_file(calls[i]), *text = file ? ctvm_embedded_find(file) : NULL;
            if (text && call_prims_text_uses_math(text))
                return 1;
        }
    }
    return 0;
}

int emit_uses_vec(const Target *tg, Stmt *const *kernels, int n, const char *ktext)
{
    if (tg->vl <= 1)
        return 0;
    /* scalar math too: ctvm_expf is lane 0 of the target's ctvm_vexp */
    if (strstr(ktext, "ctvm_v") || uses_math(kernels, n, ktext))
        return 1;
    /* or a runtime kernel they call is written on the vector API (kernel_sdpa.h) */
    for (int s = 0; s < n; s++) {
        const char *calls[64];
        int nc = emit_collect_calls(kernels[s], calls, 0, 64);
        for (int i = 0; i < nc; i++) {
            const char *file = loop_kernel_file(calls[i]), *text = file ? ctvm_embedded_find(file) : NULL;
            if (text && strstr(text, "ctvm_vload("))
                return 1;
        }
    }
    return 0;
}

int emit_kernel_headers(FILE *out, const Graph *g, const Target *tg, Stmt *const *kernels, int n, const char *ktext,
                        int uses_vec, int threads, Diag *d)
{
    emit_banner_file(out, "runtime_min/ctvm_runtime.h");
    int need_types = emit_uses_narrow_types(g);
    for (int s = 0; s < n && !need_types; s++)
        need_types = emit_uses_rounding(kernels[s]);
    if (need_types)
        emit_banner_file(out, "runtime_min/ctvm_types.h");
    if (tg->vl == 1) /* the scalar header's ctvm_vfma fuses as constant folding assumed */
        fprintf(out, "#define CTVM_VFMA_FUSED %d\n", tg->fma);
    emit_banner_file(out, uses_vec || tg->vl == 1 ? tg->header : "templates/ctvm_vec_scalar.h");
    if (uses_math(kernels, n, ktext))
        emit_banner_file(out, "templates/ctvm_vec_math.h");
    if (threads > 1)
        emit_banner_file(out, "templates/ctvm_team.h");
    /* the runtime kernels called, once each */
    const char *calls[64];
    int n_calls = 0;
    for (int s = 0; s < n; s++)
        n_calls = emit_collect_calls(kernels[s], calls, n_calls, 64);
    if (n_calls)
        emit_banner_file(out, "templates/kernel_util.h");
    for (int i = 0; i < n_calls; i++) {
        const char *file = loop_kernel_file(calls[i]);
        if (!file || !ctvm_embedded_find(file))
            return diag_error(d, g, -1, "runtime kernel %s has no template file (internal error)", calls[i]);
        emit_banner_file(out, file);
    }
    return 0;
}

int emit_model(Graph *g, const EmitOptions *o, FILE *out, FILE *hout, Diag *d)
{
    const char *P = o->prefix ? o->prefix : "model";
    const Target *tg = emit_target(g, o, d);
    if (!tg)
        return -1;
    int threads = o->threads > 1 ? o->threads : 1;
    EmitCtx e;
    emit_ctx_init(&e, g, d);
    e.cx.tuning = o->tuning;

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

    /* 1. schedule every group (this also lays out the weight blob) */
    int *order = arena_array(g->arena, (size_t)g->n_nodes + 1, sizeof(int));
    int steps = graph_exec_order(g, order);
    Stmt **kernels = arena_array(g->arena, (size_t)steps + 1, sizeof(Stmt *));
    int *team = arena_array(g->arena, (size_t)steps + 1, sizeof(int));
    KernelParams *params = arena_array(g->arena, (size_t)steps + 1, sizeof(KernelParams));
    for (int s = 0; s < steps; s++) {
        kernels[s] = schedule_group(&e.cx, order[s]);
        if (!kernels[s] || e.failed) {
            weights_free(&e.blob);
            return -1;
        }
        if (emit_collect_params(kernels[s], &params[s]) != 0) {
            weights_free(&e.blob);
            return diag_error(d, g, order[s], "kernel needs more than %d buffers", EMIT_MAX_PARAMS);
        }
        for (int i = 0; i < params[s].n; i++)
            if (params[s].buf[i]->virtual_) {
                weights_free(&e.blob);
                return diag_error(d, g, order[s], "kernel uses fused-away value '%s' (internal error)",
                                  params[s].buf[i]->name);
            }
    }

    /* 2. the kernels, first into memory: a model none of whose loops became
       vector code gets the scalar vector-API header, so building it does not
       parse the ISA's intrinsics headers (<immintrin.h> alone costs gcc
       ~0.5 s, most of the build of a small model), and its stamp names no
       ISA. */
    char *ktext = NULL;
    size_t klen = 0;
    FILE *kf = open_memstream(&ktext, &klen);
    if (!kf) {
        weights_free(&e.blob);
        return diag_error(d, g, -1, "out of memory writing the kernels");
    }
    for (int s = 0; s < steps; s++) {
        const KernelParams *kp = &params[s];
        const Node *n = &g->nodes[order[s]];
        char name[96], safe[64], comment[256];
        c_text(safe, sizeof safe, n->name, C_IDENT);
        snprintf(name, sizeof name, "k%d_%s", s, safe);
        size_t k = strlen(c_text(comment, sizeof comment, n->op_type, C_COMMENT));
        for (int m = 0; m < n->n_epi && k + 32 < sizeof comment; m++) {
            memcpy(comment + k, " + ", 4);
            k += 3 + strlen(c_text(comment + k + 3, sizeof comment - k - 3, g->nodes[n->epi[m]].op_type, C_COMMENT));
        }
        EmitCfg cfg = {tg->vl, threads, &e.lb};
        team[s] = emit_kernel_is_team(kernels[s], &cfg);
        emit_kernel_cfg(kf, name, comment, kernels[s], kp, &cfg);
    }
    fclose(kf);
    int uses_vec = emit_uses_vec(tg, kernels, steps, ktext);

    /* 3. the file */
    fprintf(out, "/* Generated by ctvm %s - do not edit.\n * command: ", CTVM_VERSION);
    c_text_print(out, o->command_line ? o->command_line : "", C_COMMENT);
    fprintf(out, "\n * model hash (FNV-1a 64): %s\n"
                 " * target: %s; API prefix: %s\n *\n"
                 " * Self-contained C99: no malloc, no I/O (except the optional CTVM_MAIN harness).\n"
                 " * Build: %s -O2 %s%s-c this_file.c   (define CTVM_MAIN for a test/bench main)\n",
            o->model_hash ? o->model_hash : "",
            tg->name, P, tg->cc, tg->isa_in_file ? "" : tg->cflags, !tg->isa_in_file && *tg->cflags ? " " : "");
    if (uses_vec && tg->isa_in_file && *tg->cflags)
        fprintf(out, " * Vector ISA: %s, which the file enables itself (templates/ctvm_vec_%s.h)\n"
                     " * when not given %s or -march=native; the code runs only on a\n"
                     " * CPU with %s (called on another: illegal instruction, SIGILL).\n",
                tg->isa, tg->isa, tg->cflags, tg->isa);
    fputs(" */\n", out);
    if (tg->bare_metal) /* gcc -O2 turns copy and fill loops into memmove/memcpy/memset calls */
        fputs("/* Bare metal: no C library, so gcc must not turn copy or fill loops into\n"
              "   memmove/memcpy/memset calls; the object then needs only libgcc and libm. */\n"
              "#if defined(__GNUC__) && !defined(__clang__)\n"
              "#pragma GCC optimize(\"no-tree-loop-distribute-patterns\")\n#endif\n",
              out);
    if (threads > 1)
        fprintf(out, "/* Built with -fopenmp, %s_run/_run_ws run on a team of CTVM_THREADS threads;\n"
                     "   %s_run_thread runs on threads the application owns (see the API). */\n"
                     "#ifndef CTVM_THREADS\n#define CTVM_THREADS %d\n#endif\n", P, P, threads);
    if (o->main_mode)
        fputs("#ifndef CTVM_MAIN\n#define CTVM_MAIN 1\n#endif\n", out);
    fputs("#if defined(CTVM_MAIN) && !defined(_POSIX_C_SOURCE)\n#define _POSIX_C_SOURCE 200112L\n#endif\n", out);
    fputs("#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && "
          "__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__\n"
          "#error \"ctvm: weights were emitted little-endian; this target is big-endian\"\n#endif\n\n",
          out);
    emit_api(out, g, P, o->arena_caller, threads);
    fputc('\n', out);
    fputs("/* Linker placement of the weights and the static workspace (ctvm-emit\n"
          "   --weights-section / --arena-section, or -D these macros when building). */\n", out);
    emit_section_macro(out, "CTVM_WEIGHTS_SECTION", o->weights_section);
    emit_section_macro(out, "CTVM_ARENA_SECTION", o->arena_section);
    fputc('\n', out);
    if (tg->vl > 1) /* SIMD targets: whole cache lines for vector loads */
        fputs("/* 64-byte alignment of the weights and the static workspace: vector loads\n"
              "   then never straddle a cache line at the start of a tensor. */\n",
              out);
    emit_attr_macro(out, "CTVM_DATA_ALIGN", tg->vl > 1 ? "aligned(64)" : NULL, NULL);
    fputc('\n', out);
    if (emit_kernel_headers(out, g, tg, kernels, steps, ktext, uses_vec, threads, d) != 0) {
        weights_free(&e.blob);
        free(ktext);
        return -1;
    }
    e.blob.raw_text = o->weights_text == 2 || (o->weights_text == 0 && e.blob.size >= CTVM_RAW_TEXT_MIN);
    weights_emit(out, &e.blob);
    fwrite(ktext, 1, klen, out);
    free(ktext);
    /* per-kernel timing, compiled in only under CTVM_PROFILE (with CTVM_MAIN) */
    fprintf(out, "#if defined(CTVM_PROFILE) && defined(CTVM_MAIN)\n#include <time.h>\n"
                 "#define CTVM_PROF_N %d\nstatic double ctvm_prof_ms[CTVM_PROF_N];\n"
                 "static const char *const ctvm_prof_name[CTVM_PROF_N] = {\n", steps);
    for (int s = 0; s < steps; s++) {
        char safe[64];
        c_text(safe, sizeof safe, g->nodes[order[s]].name, C_IDENT);
        fprintf(out, "    \"k%d_%s\",\n", s, safe);
    }
    fputs("};\nstatic const double ctvm_prof_flop[CTVM_PROF_N] = {", out);
    for (int s = 0; s < steps; s++)
        fprintf(out, "%s%.0f", s ? ", " : "", emit_group_flops(g, order[s]));
    fputs("};\nstatic double ctvm_prof_now(void)\n{\n    struct timespec ts;\n"
          "    clock_gettime(CLOCK_MONOTONIC, &ts);\n    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;\n}\n", out);
    /* threaded: thread 0 keeps the time (a team kernel's ends at its last barrier) */
    fprintf(out, "#define CTVM_PROF(i, call) do { double t_ = ctvm_prof_now(); call; "
                 "%sctvm_prof_ms[i] += ctvm_prof_now() - t_; } while (0)\n"
                 "#else\n#define CTVM_PROF(i, call) call\n#endif\n\n",
            threads > 1 ? "if (ctvm_c->tid == 0) " : "");
    /* entry points */
    if (threads > 1) {
        emit_team_steps(out, g, P, steps, order, params, team, &e.blob);
        emit_team_entries(out, g, P);
    } else {
        fprintf(out, "int %s_run_ws", P);
        emit_params(out, g, 1);
        fputs("\n{\n    char *ws = (char *)workspace;\n    (void)ws;\n", out);
        emit_null_check(out, g, P);
        for (int s = 0; s < steps; s++)
            emit_step_call(out, g, s, order[s], &params[s], 0, &e.blob);
        fputs("    return CTVM_OK;\n}\n\n", out);
    }
    if (!o->arena_caller) {
        /* a union, so the static workspace is storage of each type its regions hold */
        fprintf(out, "static union {\n    float f[%s_WORKSPACE_SIZE / 4 + 1];\n    double d[%s_WORKSPACE_SIZE / 8 + 1];\n"
                     "    int64_t i[%s_WORKSPACE_SIZE / 8 + 1];\n} ctvm_arena CTVM_DATA_ALIGN CTVM_ARENA_SECTION;\n\n",
                P, P, P);
        fprintf(out, "int %s_run", P);
        emit_params(out, g, 0);
        fprintf(out, "\n{\n    return %s_run_ws(", P);
        emit_pass_args(out, g, "&ctvm_arena");
        fputs(");\n}\n\n", out);
    }
    if (uses_vec) /* the region the vector header opened, if it did: kernels and entry points */
        fputs("/* End of the code compiled for the target's vector ISA (see the vector API header). */\n"
              "#ifdef CTVM_ISA_END\nCTVM_ISA_END\n#endif\n\n",
              out);
    emit_harness(out, g, P, o->arena_caller, threads);

    if (hout) {
        fprintf(hout, "/* Generated by ctvm %s - API of the model compiled into %s_run. */\n", CTVM_VERSION, P);
        fprintf(hout, "#ifndef %s_H\n#define %s_H\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n", P, P);
        emit_api(hout, g, P, o->arena_caller, threads);
        fputs("#ifdef __cplusplus\n}\n#endif\n#endif\n", hout);
    }
    if (o->verbose) {
        int64_t sum = 0;
        for (int v = 0; v < g->n_values; v++) {
            int64_t b;
            if (g->values[v].storage == STORE_ARENA && value_bytes(&g->values[v], &b))
                sum += b;
        }
        fprintf(stderr, "ctvm-emit: %d kernels, weights %lld bytes, arena %lld bytes "
                        "(sum of arena activations %lld bytes, %.1f%%)\n",
                steps, (long long)e.blob.size, (long long)g->arena_bytes, (long long)sum,
                sum ? 100.0 * (double)g->arena_bytes / (double)sum : 0.0);
    }
    weights_free(&e.blob);
    return 0;
}
