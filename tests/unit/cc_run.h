/* cc_run.h - test helper: write C text to a file in a fresh mkdtemp
 * directory, compile it with `gcc -std=c99 -Wall -Wextra -pedantic -Werror`,
 * run it and capture its stdout; everything is removed afterwards. The _ex
 * forms take another compiler (clang, cross gcc), extra flags, and a runner
 * prefix (qemu-user).
 * Header-only (static) like graph_build.h. */
#ifndef CTVM_TESTS_CC_RUN_H
#define CTVM_TESTS_CC_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* Writes text and compiles it with compiler command cc (e.g. "gcc",
 * "clang", "aarch64-linux-gnu-gcc") and extra flags (e.g. "-O2 -mavx2"),
 * always under -std=c99 -Wall -Wextra -pedantic -Werror; -c only when
 * compile_only. Returns the compiler's status; the log is in c->log and is
 * copied to stderr on failure when show_log. */
static inline int cc_compile_ex(CcDir *c, const char *text, const char *cc, const char *flags,
                                int compile_only, int show_log)
{
    FILE *f = fopen(c->src, "w");
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    char cmd[1024];
    if (compile_only)
        snprintf(cmd, sizeof cmd, "%s -std=c99 -Wall -Wextra -pedantic -Werror %s -c -o %s/t.o %s > %s 2>&1",
                 cc, flags, c->dir, c->src, c->log);
    else
        snprintf(cmd, sizeof cmd, "%s -std=c99 -Wall -Wextra -pedantic -Werror %s -o %s %s -lm > %s 2>&1", cc,
                 flags, c->exe, c->src, c->log);
    int rc = system(cmd);
    if (rc != 0 && show_log)
        cc_show_log(c);
    return rc;
}

/* Writes text, compiles (-c only when compile_only), returns gcc's status. */
static inline int cc_compile(CcDir *c, const char *text, int compile_only)
{
    return cc_compile_ex(c, text, "gcc", "", compile_only, 1);
}

/* The compiler log (malloc'd, NUL-terminated; "" if none). */
static inline char *cc_read_log(const CcDir *c)
{
    FILE *f = fopen(c->log, "r");
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    if (f) {
        n = fread(out, 1, cap - 1, f);
        fclose(f);
    }
    out[n] = 0;
    return out;
}

/* Runs `prefix exe` (prefix "" or e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu");
 * returns its stdout (malloc'd, also when it fails) and its exit status in
 * *status (-1 if it could not be started or did not exit normally). */
static inline char *cc_run_ex(CcDir *c, const char *prefix, int *status)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s%s%s", prefix, *prefix ? " " : "", c->exe);
    *status = -1;
    FILE *p = popen(cmd, "r");
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
    int st = pclose(p);
    if (st != -1 && WIFEXITED(st))
        *status = WEXITSTATUS(st);
    return out;
}

/* Runs the compiled program; returns its stdout (malloc'd) or NULL. */
static inline char *cc_run(CcDir *c)
{
    int status;
    char *out = cc_run_ex(c, "", &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* 1 when the command (e.g. "aarch64-linux-gnu-gcc") is on the PATH. */
static inline int cc_have(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s > /dev/null 2>&1", tool);
    return system(cmd) == 0;
}

#endif
