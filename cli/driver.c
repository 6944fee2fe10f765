/* driver.c - load -> passes -> emit, with atomic output files (driver.h). */
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        len += strlen(argv[i]) * 2 + 3;
    char *s = calloc(1, len), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < argc; i++) {
        int quote = strpbrk(argv[i], " '\"[]*?") != NULL;
        p += sprintf(p, "%s%s", i ? " " : "", quote ? "'" : "");
        for (const char *c = argv[i]; *c; c++) /* no comment terminator in the stamp */
            *p++ = (c[0] == '*' && c[1] == '/') ? '+' : *c;
        p += sprintf(p, "%s", quote ? "'" : "");
    }
    return s;
}

/* Opens path.tmp next to path; the caller renames or removes it. */
static FILE *open_tmp(const char *path, char *tmp, size_t cap, Diag *d)
{
    snprintf(tmp, cap, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        diag_error(d, NULL, -1, "cannot write %s", path);
    return f;
}

static int finish(FILE *f, const char *tmp, const char *path, int ok, Diag *d)
{
    if (!f)
        return ok ? -1 : 0;
    int closed = fclose(f) == 0;
    if (ok && closed && rename(tmp, path) == 0)
        return 0;
    remove(tmp);
    if (ok)
        diag_error(d, NULL, -1, "cannot write %s", path);
    return -1;
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

int driver_compile(const CompileOptions *o, Diag *d)
{
    Graph *g = driver_prepare(o, d);
    if (!g)
        return -1;
    int rc = 0;
    if (rc == 0) {
        char hash[32] = "";
        hash_file(o->model, hash, sizeof hash);
        EmitOptions eo = o->emit;
        eo.model_hash = hash;
        char tmp_c[4200], tmp_h[4200];
        FILE *fc = open_tmp(o->out_c, tmp_c, sizeof tmp_c, d);
        FILE *fh = fc && o->out_h ? open_tmp(o->out_h, tmp_h, sizeof tmp_h, d) : NULL;
        if (!fc || (o->out_h && !fh))
            rc = -1;
        else
            rc = emit_model(g, &eo, fc, fh, d);
        if (fc && ferror(fc))
            rc = diag_error(d, NULL, -1, "error writing %s", o->out_c);
        int rc_c = finish(fc, tmp_c, o->out_c, rc == 0, d);
        int rc_h = o->out_h ? finish(fh, tmp_h, o->out_h, rc == 0 && rc_c == 0, d) : 0;
        if (rc == 0 && (rc_c || rc_h)) {
            remove(o->out_c);
            rc = -1;
        }
    }
    graph_free(g);
    return rc;
}
