/* driver.c - load -> passes -> emit, writing model.c/model.h through
 * frontend/out_file.h (driver.h). */
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/out_file.h"
#include "ir/target.h"
#include "lower/loop_passes.h"
#include "lower/lower.h"
#include "passes/passes.h"

static int hash_file(const char *path, char *hex, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint64_t h = 1469598103934665603ull;
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ull;
    fclose(f);
    snprintf(hex, cap, "%016llx", (unsigned long long)h);
    return 0;
}

int driver_parse_max_fold_bytes(const char *tool, const char *val, CompileOptions *o)
{
    char *end;
    errno = 0;
    long long n = strtoll(val, &end, 10);
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
              : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift)
        end++;
    if (errno || end == val || *end || n < 1 || n > (INT64_MAX >> shift)) {
        fprintf(stderr, "%s: --max-fold-bytes takes a positive byte count such as 4000000000, "
                        "512M or 4G, not '%s'\n", tool, val);
        return -1;
    }
    o->max_fold_bytes = (int64_t)n << shift;
    return 0;
}

char *driver_join_args(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 3;
    char *s = calloc(1, len), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < argc; i++) {
        int quote = strpbrk(argv[i], " '\"[]*?") != NULL;
        /* as typed: emit_c/c_text.h escapes it for the stamp */
        p += sprintf(p, "%s%s%s%s", i ? " " : "", quote ? "'" : "", argv[i], quote ? "'" : "");
    }
    return s;
}

Graph *driver_prepare(const CompileOptions *o, CodegenOptions *cg, Diag *d)
{
    memset(cg, 0, sizeof *cg);
    cg->target = target_find(o->target ? o->target : "generic");
    cg->threads = o->threads > 0 ? o->threads : 1;
    cg->tuning = o->tuning;
    if (o->dump_after && loop_pass_known(o->dump_after)) {
        cg->dump_after = o->dump_after;
        cg->dump = stdout;
    }
    if (!cg->target) {
        diag_error(d, NULL, -1, "unknown target '%s'", o->target ? o->target : "");
        return NULL;
    }
    Graph *g = onnx_load(o->model, &o->load, d);
    if (!g)
        return NULL;
    g->max_fold_bytes = o->max_fold_bytes;
    if (passes_run(g, cg, d, o->dump_after, stdout) != 0) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* The outputs can be written: each a regular file or new (out_file.h), and
 * not both the same file. Checked before the model is even loaded. */
static int check_outputs(const CompileOptions *o, Diag *d)
{
    const char *outs[3] = {o->out_c, o->out_h, o->describe};
    const char *flag[3] = {"-o", "--header", "--describe"};
    for (int i = 0; i < 3; i++)
        if (outs[i] && out_check(outs[i], d) != 0)
            return -1;
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (outs[i] && outs[j] && out_same_target(outs[i], outs[j]))
                return diag_error(d, NULL, -1, "%s '%s' and %s '%s' name the same file", flag[i], outs[i], flag[j],
                                  outs[j]);
    return 0;
}

int driver_compile(const CompileOptions *o, Diag *d)
{
    if (check_outputs(o, d) != 0)
        return -1;
    CodegenOptions cg;
    Graph *g = driver_prepare(o, &cg, d);
    if (!g)
        return -1;
    Module *m = lower_model(g, &cg, d);
    if (!m) {
        graph_free(g);
        return -1;
    }
    char hash[32] = "";
    hash_file(o->model, hash, sizeof hash);
    EmitOptions eo = o->emit;
    eo.model_hash = hash;
    OutFile out[3] = {{.slot = -1}, {.slot = -1}, {.slot = -1}};
    const char *path[3] = {o->out_c, o->out_h, o->describe};
    OutFile *open_[3];
    int n = 0, rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++)
        if (path[i]) {
            rc = out_open(&out[i], path[i], d);
            if (rc == 0)
                open_[n++] = &out[i];
        }
    if (rc == 0)
        rc = emit_module(m, &eo, out[0].f, o->out_h ? out[1].f : NULL, d);
    if (rc == 0 && o->describe)
        rc = emit_describe(m, &eo, out[2].f, d);
    if (rc == 0)
        rc = out_commit_all(open_, n, d);
    else
        for (int i = 0; i < n; i++)
            out_drop(open_[i]);
    module_free(m);
    graph_free(g);
    return rc;
}
