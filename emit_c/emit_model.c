/* emit_model.c - assembly of the generated model.c / model.h (see emit.h). */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "emit_internal.h"
#include "emit_loop.h"
#include "emit_weights.h"
#include "ir/loop_kernels.h"
#include "ir/target.h"



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

static void emit_shape_macro(FILE *f, const char *P, const char *kind, int i, const ModuleIO *v)
{
    int64_t numel = v->numel, bytes = v->bytes;
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

void emit_io_params(FILE *f, const Module *m, const char *first)
{
    int k = *first != 0;
    fputs(first, f);
    for (int i = 0; i < m->n_inputs; i++)
        fprintf(f, "%sconst %s *in%d", k++ ? ", " : "", dtype_c_storage(m->inputs[i].dtype), i);
    for (int i = 0; i < m->n_outputs; i++)
        fprintf(f, "%s%s *out%d", k++ ? ", " : "", dtype_c_storage(m->outputs[i].dtype), i);
    for (int i = 0; i < m->n_outputs; i++)
        if (m->outputs[i].dyn)
            fprintf(f, "%sint64_t *out%d_shape", k++ ? ", " : "", i);
    if (!k)
        fputs("void", f);
}

void emit_params(FILE *f, const Module *m, int with_ws)
{
    fputc('(', f);
    emit_io_params(f, m, with_ws ? "void *workspace" : "");
    fputc(')', f);
}

/* The API block: shared verbatim by model.h and model.c. */
static void emit_api(FILE *f, const Module *m, const char *P, int arena_caller, int threads)
{
    fprintf(f, "#ifndef %s_CTVM_API\n#define %s_CTVM_API\n#include <stdint.h>\n", P, P);
    fprintf(f, "/* Bytes of workspace %s_run_ws needs, 8-byte aligned (64 is fastest), e.g.\n"
               "   static double ws[%s_WORKSPACE_SIZE / 8 + 1]; or %s_WORKSPACE_SIZE bytes from the heap. */\n",
            P, P, P);
    fprintf(f, "#define %s_WORKSPACE_SIZE %lld\n", P, (long long)m->workspace_bytes);
    fprintf(f, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", P, m->n_inputs, P, m->n_outputs);
    for (int i = 0; i < m->n_inputs; i++)
        emit_shape_macro(f, P, "INPUT", i, &m->inputs[i]);
    for (int i = 0; i < m->n_outputs; i++)
        emit_shape_macro(f, P, "OUTPUT", i, &m->outputs[i]);
    if (!arena_caller) {
        fprintf(f, "/* Runs the model; in<i>/out<i> hold %s_INPUT<i>_SIZE / %s_OUTPUT<i>_SIZE elements\n"
                   "   of the type %s_INPUT<i>_DTYPE / _OUTPUT<i>_DTYPE names (%s_..._BYTES bytes).\n"
                   "   Returns 0, or 1 when a pointer is NULL. Not reentrant: uses a static workspace. */\n",
                P, P, P, P);
        fprintf(f, "int %s_run", P);
        emit_params(f, m, 0);
        fprintf(f, ";\n/* Reentrant form: the caller provides %s_WORKSPACE_SIZE bytes of workspace. */\n", P);
    } else {
        fprintf(f, "/* Runs the model (emitted with --arena caller: there is no static workspace).\n"
                   "   in<i>/out<i> hold %s_INPUT<i>_SIZE / %s_OUTPUT<i>_SIZE elements; the caller\n"
                   "   provides %s_WORKSPACE_SIZE bytes of workspace. Returns 0, or 1 when a\n"
                   "   pointer is NULL. Reentrant. */\n",
                P, P, P);
    }
    fprintf(f, "int %s_run_ws", P);
    emit_params(f, m, 1);
    fputs(";\n", f);
    if (threads > 1)
        emit_team_api(f, m, P);
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

void emit_banner_file(FILE *f, const char *path)
{
    const char *text = ctvm_embedded_find(path);
    fprintf(f, "/**** Begin %s ****/\n%s/**** End %s ****/\n\n", path, text ? text : "", path);
}

/* "uint8_t x[ELEMS + 1]" sized by element count, or by bytes for packed types */
static void emit_io_buffer(FILE *f, const char *P, const char *kind, const char *lower, int i, const ModuleIO *v)
{
    fprintf(f, "static %s ctvm_main_%s%d[%s_%s%d_%s + 1];\n", dtype_c_storage(v->dtype), lower, i, P, kind, i,
            dtype_is_packed(v->dtype) ? "BYTES" : "SIZE");
}

static void emit_harness(FILE *f, const Module *m, const char *P, int arena_caller, int threads)
{
    fputs("#ifdef CTVM_MAIN\n", f);
    fprintf(f, "#define CTVM_MAIN_NIN %d\n#define CTVM_MAIN_NOUT %d\n", m->n_inputs, m->n_outputs);
    for (int i = 0; i < m->n_inputs; i++)
        emit_io_buffer(f, P, "INPUT", "in", i, &m->inputs[i]);
    for (int i = 0; i < m->n_outputs; i++)
        emit_io_buffer(f, P, "OUTPUT", "out", i, &m->outputs[i]);
    fputs("static void *const ctvm_main_in[] = {", f);
    for (int i = 0; i < m->n_inputs; i++)
        fprintf(f, "ctvm_main_in%d, ", i);
    fputs("0};\nstatic void *const ctvm_main_out[] = {", f);
    for (int i = 0; i < m->n_outputs; i++)
        fprintf(f, "ctvm_main_out%d, ", i);
    fputs("0};\nstatic const long ctvm_main_in_bytes[] = {", f);
    for (int i = 0; i < m->n_inputs; i++)
        fprintf(f, "%s_INPUT%d_BYTES, ", P, i);
    fputs("0};\nstatic const long ctvm_main_out_bytes[] = {", f);
    for (int i = 0; i < m->n_outputs; i++)
        fprintf(f, "%s_OUTPUT%d_BYTES, ", P, i);
    fputs("0};\n", f);
    /* data-dependent outputs: the actual dims the run writes */
    for (int i = 0; i < m->n_outputs; i++)
        if (m->outputs[i].dyn)
            fprintf(f, "static int64_t ctvm_main_out%d_shape[%s_OUTPUT%d_RANK + 1];\n", i, P, i);
    fputs("static int64_t *const ctvm_main_out_shape[] = {", f);
    for (int i = 0; i < m->n_outputs; i++)
        fprintf(f, m->outputs[i].dyn ? "ctvm_main_out%d_shape, " : "0, ", i);
    fputs("0};\nstatic const int ctvm_main_out_rank[] = {", f);
    for (int i = 0; i < m->n_outputs; i++)
        fprintf(f, "%s_OUTPUT%d_RANK, ", P, i);
    fputs("0};\nstatic const int ctvm_main_out_bits[] = {", f);
    for (int i = 0; i < m->n_outputs; i++)
        fprintf(f, "%d, ", dtype_bits(m->outputs[i].dtype));
    fputs("0};\n", f);
    if (arena_caller)
        fprintf(f, "static double ctvm_main_ws[%s_WORKSPACE_SIZE / 8 + 1];\n", P);
    if (threads > 1)
        emit_team_harness(f, m, P, arena_caller);
    fputs("static int ctvm_main_invoke(void)\n{\n", f);
    if (threads > 1)
        fputs("#ifdef CTVM_MAIN_TEAM\n    return ctvm_main_team_invoke();\n#endif\n", f);
    fprintf(f, "    return %s_run%s(", P, arena_caller ? "_ws" : "");
    emit_pass_args_named(f, m, arena_caller ? "ctvm_main_ws" : "", "ctvm_main_");
    fputs(");\n}\n", f);
    emit_banner_file(f, "templates/main_harness.c");
    fputs("#endif /* CTVM_MAIN */\n", f);
}

/* `if (a NULL pointer) return CTVM_ERR_NULL;` of the entry points */
void emit_null_check(FILE *out, const Module *m, const char *P)
{
    fprintf(out, "    if ((!workspace && %s_WORKSPACE_SIZE > 0)", P);
    for (int i = 0; i < m->n_inputs; i++)
        fprintf(out, " || !in%d", i);
    for (int i = 0; i < m->n_outputs; i++)
        fprintf(out, m->outputs[i].dyn ? " || !out%d || !out%d_shape" : " || !out%d", i, i);
    fputs(")\n        return CTVM_ERR_NULL;\n", out);
}

/* The arguments of an entry point passed on: first, then in0.., out0..,
   out0_shape.. each named with prefix ("ctvm_main_in0"), comma-separated
   (no comma before the first when first is empty) */
void emit_pass_args_named(FILE *out, const Module *m, const char *first, const char *prefix)
{
    int k = *first != 0;
    fputs(first, out);
    for (int i = 0; i < m->n_inputs; i++)
        fprintf(out, "%s%sin%d", k++ ? ", " : "", prefix, i);
    for (int i = 0; i < m->n_outputs; i++)
        fprintf(out, "%s%sout%d", k++ ? ", " : "", prefix, i);
    for (int i = 0; i < m->n_outputs; i++)
        if (m->outputs[i].dyn)
            fprintf(out, "%s%sout%d_shape", k++ ? ", " : "", prefix, i);
}

void emit_pass_args(FILE *out, const Module *m, const char *first)
{
    emit_pass_args_named(out, m, first, "");
}

int emit_uses_ws(const Module *m)
{
    for (int s = 0; s < m->n_kernels; s++)
        for (int i = 0; i < m->kernels[s].params.n; i++)
            if (m->kernels[s].params.buf[i]->kind == LB_ARENA)
                return 1;
    return 0;
}

/* One kernel call of the run sequence; a team kernel takes the context. */
void emit_step_call(FILE *out, const Module *m, int s)
{
    const Kernel *k = &m->kernels[s];
    fprintf(out, "    CTVM_PROF(%d, %s(", s, k->name);
    for (int i = 0; i < k->params.n; i++) {
        if (i)
            fputs(", ", out);
        emit_call_arg(out, k->params.buf[i], &m->blob);
    }
    fputs(k->team ? (k->params.n ? ", ctvm_c));\n" : "ctvm_c));\n") : "));\n", out);
}

int emit_kernel_headers(FILE *out, const Module *m, Diag *d)
{
    const Target *tg = m->target;
    emit_banner_file(out, "runtime_min/ctvm_runtime.h");
    if (m->narrow_types || m->uses_rounding)
        emit_banner_file(out, "runtime_min/ctvm_types.h");
    if (tg->vl == 1) /* the scalar header's ctvm_vfma fuses as constant folding assumed */
        fprintf(out, "#define CTVM_VFMA_FUSED %d\n", tg->fma);
    if (tg->ext && (m->uses_vec || tg->vl == 1)) { /* the extension the target names: the header enables it */
        fputs("#define CTVM_EXT_", out);
        for (const char *c = tg->ext; *c; c++)
            fputc(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c, out);
        fputs(" 1\n", out);
    }
    emit_banner_file(out, m->uses_vec || tg->vl == 1 ? tg->header : "templates/ctvm_vec_scalar.h");
    if (m->uses_vec_math)
        emit_banner_file(out, "templates/ctvm_vec_math.h");
    if (m->threads > 1)
        emit_banner_file(out, "templates/ctvm_team.h");
    if (m->n_calls) /* the runtime kernels called, once each */
        emit_banner_file(out, "templates/kernel_util.h");
    for (int i = 0; i < m->n_calls; i++) {
        const char *file = loop_kernel_file(m->calls[i]);
        if (!file || !ctvm_embedded_find(file))
            return diag_error(d, NULL, -1, "runtime kernel %s has no template file (internal error)", m->calls[i]);
        emit_banner_file(out, file);
    }
    return 0;
}

/* The comment above a kernel: each ONNX node it computes with the type
   and shape of its output, and its floating-point operations. */
static void kernel_comment(FILE *out, const Kernel *k)
{
    fprintf(out, "/* %s:", k->name);
    for (int o = 0; o < k->n_origin; o++) {
        const KernelOrigin *g = &k->origin[o];
        fputs(o ? "\n *   + " : " ", out);
        c_text_print(out, g->op_type, C_COMMENT);
        fputs(" '", out);
        c_text_print(out, g->name, C_COMMENT);
        fprintf(out, "' -> %s [", dtype_name(g->dtype));
        for (int d = 0; d < g->shape.rank; d++)
            fprintf(out, "%s%lld", d ? ", " : "", (long long)g->shape.dims[d]);
        fputc(']', out);
    }
    if (k->flops > 0)
        fprintf(out, "\n *   %.4g MFLOP", k->flops / 1e6);
    fputs(" */\n", out);
}

void emit_kernels(FILE *out, const Module *m)
{
    for (int s = 0; s < m->n_kernels; s++) {
        const Kernel *k = &m->kernels[s];
        kernel_comment(out, k);
        emit_kernel_text(out, k->name, NULL, k->body, &k->params, k->team);
    }
}

int emit_module(const Module *m, const EmitOptions *o, FILE *out, FILE *hout, Diag *d)
{
    const char *P = o->prefix ? o->prefix : "model";
    const Target *tg = m->target;
    int threads = m->threads;

    fprintf(out, "/* Generated by ctvm %s - do not edit.\n * command: ", CTVM_VERSION);
    c_text_print(out, o->command_line ? o->command_line : "", C_COMMENT);
    fprintf(out, "\n * model hash (FNV-1a 64): %s\n"
                 " * target: %s; API prefix: %s\n *\n"
                 " * Self-contained C99: no malloc, no I/O (except the optional CTVM_MAIN harness).\n"
                 " * Build: %s -O2 %s%s-c this_file.c   (define CTVM_MAIN for a test/bench main)\n",
            o->model_hash ? o->model_hash : "",
            tg->name, P, tg->cc, tg->isa_in_file ? "" : tg->cflags, !tg->isa_in_file && *tg->cflags ? " " : "");
    if (m->uses_vec && tg->isa_in_file && *tg->cflags)
        fprintf(out, " * Vector ISA: %s%s%s, which the file enables itself (templates/ctvm_vec_%s.h)\n"
                     " * when not given %s or -march=native; the code runs only on a\n"
                     " * CPU with %s%s%s (called on another: illegal instruction, SIGILL).\n",
                tg->isa, tg->ext ? " + " : "", tg->ext ? tg->ext : "", tg->isa, tg->cflags, tg->isa,
                tg->ext ? " + " : "", tg->ext ? tg->ext : "");
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
    emit_api(out, m, P, o->arena_caller, threads);
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
    if (emit_kernel_headers(out, m, d) != 0)
        return -1;
    WeightBlob blob = m->blob; /* the text form is the printer's choice */
    blob.raw_text = o->weights_text == 2 || (o->weights_text == 0 && blob.size >= CTVM_RAW_TEXT_MIN);
    weights_emit(out, &blob);
    emit_kernels(out, m);
    /* per-kernel timing, compiled in only under CTVM_PROFILE (with CTVM_MAIN) */
    fprintf(out, "#if defined(CTVM_PROFILE) && defined(CTVM_MAIN)\n#include <time.h>\n"
                 "#define CTVM_PROF_N %d\nstatic double ctvm_prof_ms[CTVM_PROF_N];\n"
                 "static const char *const ctvm_prof_name[CTVM_PROF_N] = {\n", m->n_kernels);
    for (int s = 0; s < m->n_kernels; s++)
        fprintf(out, "    \"%s\",\n", m->kernels[s].name);
    fputs("};\nstatic const double ctvm_prof_flop[CTVM_PROF_N] = {", out);
    for (int s = 0; s < m->n_kernels; s++)
        fprintf(out, "%s%.0f", s ? ", " : "", m->kernels[s].flops);
    fputs("};\nstatic double ctvm_prof_now(void)\n{\n    struct timespec ts;\n"
          "    clock_gettime(CLOCK_MONOTONIC, &ts);\n    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;\n}\n", out);
    /* threaded: thread 0 keeps the time (a team kernel's ends at its last barrier) */
    fprintf(out, "#define CTVM_PROF(i, call) do { double t_ = ctvm_prof_now(); call; "
                 "%sctvm_prof_ms[i] += ctvm_prof_now() - t_; } while (0)\n"
                 "#else\n#define CTVM_PROF(i, call) call\n#endif\n\n",
            threads > 1 ? "if (ctvm_c->tid == 0) " : "");
    /* entry points */
    if (threads > 1) {
        emit_team_steps(out, m, P);
        emit_team_entries(out, m, P);
    } else {
        fprintf(out, "int %s_run_ws", P);
        emit_params(out, m, 1);
        fputs(emit_uses_ws(m) ? "\n{\n    char *ws = (char *)workspace;\n" : "\n{\n", out);
        emit_null_check(out, m, P);
        for (int s = 0; s < m->n_kernels; s++)
            emit_step_call(out, m, s);
        fputs("    return CTVM_OK;\n}\n\n", out);
    }
    if (!o->arena_caller) {
        /* a union, so the static workspace is storage of each type its regions hold */
        fprintf(out, "static union {\n    float f[%s_WORKSPACE_SIZE / 4 + 1];\n    double d[%s_WORKSPACE_SIZE / 8 + 1];\n"
                     "    int64_t i[%s_WORKSPACE_SIZE / 8 + 1];\n} ctvm_arena CTVM_DATA_ALIGN CTVM_ARENA_SECTION;\n\n",
                P, P, P);
        fprintf(out, "int %s_run", P);
        emit_params(out, m, 0);
        fprintf(out, "\n{\n    return %s_run_ws(", P);
        emit_pass_args(out, m, "&ctvm_arena");
        fputs(");\n}\n\n", out);
    }
    if (m->uses_vec) /* the region the vector header opened, if it did: kernels and entry points */
        fputs("/* End of the code compiled for the target's vector ISA (see the vector API header). */\n"
              "#ifdef CTVM_ISA_END\nCTVM_ISA_END\n#endif\n\n",
              out);
    emit_harness(out, m, P, o->arena_caller, threads);

    if (hout) {
        fprintf(hout, "/* Generated by ctvm %s - API of the model compiled into %s_run. */\n", CTVM_VERSION, P);
        fprintf(hout, "#ifndef %s_H\n#define %s_H\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n", P, P);
        emit_api(hout, m, P, o->arena_caller, threads);
        fputs("#ifdef __cplusplus\n}\n#endif\n#endif\n", hout);
    }
    if (o->verbose) {
        int64_t sum = m->activation_bytes;
        fprintf(stderr, "ctvm-emit: %d kernels, weights %lld bytes, arena %lld bytes "
                        "(sum of arena activations %lld bytes, %.1f%%)\n",
                m->n_kernels, (long long)m->blob.size, (long long)m->workspace_bytes, (long long)sum,
                sum ? 100.0 * (double)m->workspace_bytes / (double)sum : 0.0);
    }
    return 0;
}
