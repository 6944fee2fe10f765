/* cc_run.h - test helper: write C text to a file in a fresh mkdtemp
 * directory, compile it with `gcc -std=c99 -Wall -Wextra -pedantic -Werror`,
 * run it and capture its stdout; everything is removed afterwards.
 * Header-only (static) like graph_build.h. */
#ifndef CTVM_TESTS_CC_RUN_H
#define CTVM_TESTS_CC_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct CcDir {
    char dir[64];
    char src[128], exe[128], log[128];
} CcDir;

static inline int cc_dir_open(CcDir *c)
{
    snprintf(c->dir, sizeof c->dir, "/tmp/ctvm_cc_XXXXXX");
    if (!mkdtemp(c->dir))
        return -1;
    snprintf(c->src, sizeof c->src, "%s/t.c", c->dir);
    snprintf(c->exe, sizeof c->exe, "%s/t", c->dir);
    snprintf(c->log, sizeof c->log, "%s/log", c->dir);
    return 0;
}

static inline void cc_dir_close(CcDir *c)
{
    unlink(c->src);
    unlink(c->exe);
    unlink(c->log);
    char obj[140];
    snprintf(obj, sizeof obj, "%s/t.o", c->dir);
    unlink(obj);
    rmdir(c->dir);
}

/* Prints the compiler log to stderr (for failure diagnosis). */
static inline void cc_show_log(const CcDir *c)
{
    FILE *f = fopen(c->log, "r");
    if (!f)
        return;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) && n++ < 40)
        fputs(line, stderr);
    fclose(f);
}

/* Writes text, compiles (-c only when compile_only), returns gcc's status. */
static inline int cc_compile(CcDir *c, const char *text, int compile_only)
{
    FILE *f = fopen(c->src, "w");
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    char cmd[600];
    if (compile_only)
        snprintf(cmd, sizeof cmd,
                 "gcc -std=c99 -Wall -Wextra -pedantic -Werror -c -o %s/t.o %s > %s 2>&1", c->dir,
                 c->src, c->log);
    else
        snprintf(cmd, sizeof cmd, "gcc -std=c99 -Wall -Wextra -pedantic -Werror -o %s %s -lm > %s 2>&1",
                 c->exe, c->src, c->log);
    int rc = system(cmd);
    if (rc != 0)
        cc_show_log(c);
    return rc;
}

/* Runs the compiled program; returns its stdout (malloc'd) or NULL. */
static inline char *cc_run(CcDir *c)
{
    FILE *p = popen(c->exe, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    size_t got;
    while ((got = fread(out + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (cap - n < 2) {
            cap *= 2;
            out = realloc(out, cap);
        }
    }
    out[n] = 0;
    if (pclose(p) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

#endif
