/* driver.c - load -> passes -> emit, writing model.c/model.h through
 * frontend/out_file.h (driver.h). */
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/out_file.h"
#include "ir/target.h"
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

Graph *driver_prepare(const CompileOptions *o, Diag *d)
{
    Graph *g = onnx_load(o->model, &o->load, d);
    if (!g)
        return NULL;
    g->target = target_find(o->emit.target);
    g->threads = o->emit.threads > 0 ? o->emit.threads : 1;
    g->max_fold_bytes = o->max_fold_bytes;
    if (!g->target) {
        diag_error(d, NULL, -1, "unknown target '%s'", o->emit.target ? o->emit.target : "");
        graph_free(g);
        return NULL;
    }
    if (passes_run(g, d, o->dump_after, stdout) != 0) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* The outputs can be written: each a regular file or new (out_file.h), and
 * not both the same file. Checked before the model is even loaded. */
static int check_outputs(const CompileOptions *o, Diag *d)
{
    const char *outs[2] = {o->out_c, o->out_h};
    for (int i = 0; i < 2 && outs[i]; i++)
        if (out_check(outs[i], d) != 0)
            return -1;
    if (o->out_h && out_same_target(o->out_c, o->out_h))
        return diag_error(d, NULL, -1, "-o '%s' and --header '%s' name the same file", o->out_c,
                          o->out_h);
    return 0;
}

int driver_compile(const CompileOptions *o, Diag *d)
{
    if (check_outputs(o, d) != 0)
        return -1;
    Graph *g = driver_prepare(o, d);
    if (!g)
        return -1;
    char hash[32] = "";
    hash_file(o->model, hash, sizeof hash);
    EmitOptions eo = o->emit;
    eo.model_hash = hash;
    OutFile c, h = {.slot = -1};
    int rc = out_open(&c, o->out_c, d);
    if (rc == 0 && o->out_h && out_open(&h, o->out_h, d) != 0) {
        out_drop(&c);
        rc = -1;
    }
    if (rc == 0) {
        rc = emit_model(g, &eo, c.f, o->out_h ? h.f : NULL, d);
        if (rc == 0) {
            OutFile *const both[2] = {&c, &h};
            rc = out_commit_all(both, o->out_h ? 2 : 1, d);
        } else {
            out_drop(&c);
            out_drop(&h);
        }
    }
    graph_free(g);
    return rc;
}
