/* measure.c - child processes for builds and candidate runs (see measure.h).
 *
 * One event loop step (children_step) serves tune_spawn (one child) and
 * tune_build_and_run (up to `jobs` builds, and a candidate's run beside
 * them; tune_build_many is it without runs): poll() on every child's
 * output pipe, short sleeps only while a child has closed its output but
 * not exited.
 * A child's exit is seen with waitid(WNOWAIT) before it is reaped, so its
 * process group can still be killed safely (the zombie keeps the id from
 * being reused): whatever the program left running in its group dies
 * with it, and the pipe reaches end-of-file. Children are started from
 * argument vectors (tune/spawn.h), never through a shell. */
#include "measure.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WAITING, RUNNING, DONE };

typedef struct Child {
    int state;
    pid_t pid;
    int fd;          /* read end of the output pipe; -1 after end-of-file */
    char *out;       /* captured output, cap bytes with the NUL */
    size_t cap, len;
    double start, deadline, ended; /* monotonic seconds; deadline 0 = none */
    int exited;      /* waitid saw it exit (not reaped yet) */
    int killed;      /* the timeout's SIGKILL was sent */
    int timed_out;
    int exit_code;
} Child;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Starts argv in a new process group with stdout and stderr on a pipe
 * (spawn_piped). On failure the child is DONE with exit_code -1 and the
 * reason in its output. */
static void child_start(Child *c, char *const argv[], double timeout_s)
{
    char why[512];
    c->fd = -1;
    c->start = now_s();
    c->deadline = timeout_s > 0 ? c->start + timeout_s : 0;
    if (spawn_piped(argv, 1, &c->pid, &c->fd, why, sizeof why) != 0) {
        if (c->cap)
            snprintf(c->out, c->cap, "%s", why);
        c->pid = 0;
        c->fd = -1;
        c->state = DONE;
        c->exit_code = -1;
        c->ended = c->start;
        return;
    }
    fcntl(c->fd, F_SETFL, O_NONBLOCK);
    c->state = RUNNING;
}

/* Reads what the pipe holds; keeps the first cap-1 bytes, drops the rest. */
static void child_read(Child *c)
{
    char drop[4096];
    for (;;) {
        int keep = c->len + 1 < c->cap;
        char *dst = keep ? c->out + c->len : drop;
        size_t room = keep ? c->cap - 1 - c->len : sizeof drop;
        ssize_t k = read(c->fd, dst, room);
        if (k > 0) {
            if (keep)
                c->len += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        close(c->fd); /* end-of-file, or an error that ends the capture */
        c->fd = -1;
        return;
    }
}

/* Exit and timeout handling at time t; marks the child DONE when it is
 * reaped and its output is complete (or 2 s after its exit, if something
 * outside its group still holds the pipe). */
static void child_check(Child *c, double t)
{
    if (!c->exited) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int w = waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT);
        if (w == 0 && si.si_pid == c->pid) {
            c->exited = 1;
            c->ended = t;
            c->exit_code = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
            kill(-c->pid, SIGKILL); /* leftovers of its group would hold the pipe */
            waitpid(c->pid, NULL, 0);
        } else if (w < 0 && errno == ECHILD) { /* reaped elsewhere (SIGCHLD ignored?) */
            c->exited = 1;
            c->ended = t;
            c->exit_code = -1;
        }
    }
    if (!c->exited && !c->killed && c->deadline > 0 && t >= c->deadline) {
        c->timed_out = 1;
        c->killed = 1;
        kill(-c->pid, SIGKILL);
    }
    if (c->exited && (c->fd < 0 || t > c->ended + 2.0)) {
        if (c->fd >= 0)
            close(c->fd);
        c->fd = -1;
        if (c->cap)
            c->out[c->len] = '\0';
        c->state = DONE;
    }
}

/* One round of the event loop over the RUNNING children among act[0..na-1]:
 * waits for output, an exit or the nearest deadline (at most 50 ms), reads
 * and checks them (a child whose output and exit are in becomes DONE). pf
 * and who hold na. */
static void children_step(Child *const *act, int na, struct pollfd *pf, int *who)
{
    double t = now_s();
    int np = 0, wait_ms = 50;
    for (int i = 0; i < na; i++) {
        Child *c = act[i];
        if (c->state != RUNNING)
            continue;
        if (c->fd >= 0) {
            pf[np] = (struct pollfd){.fd = c->fd, .events = POLLIN};
            who[np++] = i;
        } else {
            wait_ms = 2; /* output closed: poll for its exit */
        }
        if (c->deadline > 0 && !c->killed) {
            double ms = ceil((c->deadline - t) * 1000.0);
            if (ms < wait_ms)
                wait_ms = ms > 0 ? (int)ms : 0;
        }
    }
    if (poll(pf, (nfds_t)np, wait_ms) > 0)
        for (int k = 0; k < np; k++)
            if (pf[k].revents)
                child_read(act[who[k]]);
    t = now_s();
    for (int i = 0; i < na; i++)
        if (act[i]->state == RUNNING)
            child_check(act[i], t);
}

int tune_spawn(char *const argv[], double timeout_s, char *out, size_t outcap,
               int *exit_code, int *timed_out)
{
    Child c = {.out = outcap ? out : NULL, .cap = out ? outcap : 0}, *act = &c;
    struct pollfd pf;
    int who;
    if (c.cap)
        out[0] = '\0';
    child_start(&c, argv, timeout_s);
    while (c.state == RUNNING)
        children_step(&act, 1, &pf, &who);
    if (exit_code)
        *exit_code = c.exit_code;
    if (timed_out)
        *timed_out = c.timed_out;
    return c.pid > 0 ? 0 : -1;
}

int tune_build_many(int n, char **const *argvs, int jobs, double timeout_s, TuneSpawnResult *res)
{
    return tune_build_and_run(n, argvs, NULL, NULL, NULL, jobs, 0, timeout_s, res, NULL);
}

/* ---- the candidate protocol ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tune_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The last non-blank line of out, without its end, at most cap-1 bytes. */
static void last_line(const char *out, char *dst, size_t cap)
{
    const char *end = out + strlen(out);
    while (end > out && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
        end--;
    const char *start = end;
    while (start > out && start[-1] != '\n')
        start--;
    size_t n = (size_t)(end - start);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, start, n);
    dst[n] = '\0';
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Parses "<t1> <t2> ..." up to the end of the line into ms (at most cap);
 * returns the count, or -1 if a value is not a time >= 0. */
static int parse_times(const char *s, double *ms, int cap)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0' || *s == '\n' || *s == '\r')
            return n;
        char *end;
        double t = strtod(s, &end);
        if (end == s || !isfinite(t) || t < 0 ||
            (*end != ' ' && *end != '\t' && *end != '\n' && *end != '\r' && *end != '\0'))
            return -1;
        if (n < cap)
            ms[n++] = t;
        s = end;
    }
}

enum { MAX_TIMES = 1024 };

void tune_parse_run(const char *out, int exit_code, int timed_out, TuneRunResult *r)
{
    memset(r, 0, sizeof *r);
    r->median_ms = NAN;
    r->max_err = NAN;
    r->exit_code = exit_code;
    r->status = TUNE_RUN_FAIL;
    char last[160];
    last_line(out, last, sizeof last);
    if (timed_out) {
        r->status = TUNE_TIMEOUT;
        snprintf(r->error, sizeof r->error, "timed out; last output: %s", last);
        return;
    }
    if (exit_code > 128 && exit_code < 128 + 65) {
        snprintf(r->error, sizeof r->error, "killed by signal %d (%s); last output: %s",
                 exit_code - 128, strsignal(exit_code - 128), last);
        return;
    }
    if (exit_code != 0) {
        snprintf(r->error, sizeof r->error, "exit status %d; last output: %s", exit_code, last);
        return;
    }
    int check = 0, n_ms = -2; /* check: 1 ok, 2 wrong; n_ms -2: no line, -1: bad */
    double ms[MAX_TIMES];
    for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        const char *e = NULL;
        if (starts_with(l, "ctvm-tune: check ok"))
            check = 1, e = l + strlen("ctvm-tune: check ok");
        else if (starts_with(l, "ctvm-tune: check wrong"))
            check = 2, e = l + strlen("ctvm-tune: check wrong");
        else if (starts_with(l, "ctvm-tune: ms "))
            n_ms = parse_times(l + strlen("ctvm-tune: ms "), ms, MAX_TIMES);
        if (e && starts_with(e, " max_err="))
            r->max_err = strtod(e + strlen(" max_err="), NULL);
    }
    if (check == 0) {
        snprintf(r->error, sizeof r->error, "no 'ctvm-tune: check' line; last output: %s", last);
    } else if (check == 2) {
        r->status = TUNE_WRONG;
        snprintf(r->error, sizeof r->error, "output differs from the reference (max_err=%g)",
                 r->max_err);
    } else if (n_ms <= 0) {
        snprintf(r->error, sizeof r->error, "%s; last output: %s",
                 n_ms == -2  ? "no 'ctvm-tune: ms' line"
                 : n_ms == 0 ? "no timings on the 'ctvm-tune: ms' line"
                             : "a timing on the 'ctvm-tune: ms' line is not a number >= 0",
                 last);
    } else {
        r->status = TUNE_OK;
        r->n_runs = n_ms < TUNE_MAX_RUNS ? n_ms : TUNE_MAX_RUNS;
        memcpy(r->runs_ms, ms, (size_t)r->n_runs * sizeof *ms);
        r->median_ms = tune_median(ms, n_ms);
    }
}

/* [runner words] exe [args] into l (empty first); -1 when out of memory. */
static int candidate_argv(ArgList *l, const char *runner, const char *exe, char *const *args)
{
    arglist_free(l);
    arglist_add_words(l, runner);
    arglist_add(l, exe);
    arglist_add_all(l, args);
    return l->failed ? -1 : 0;
}

static void run_not_started(TuneRunResult *r, TuneStatus st, const char *why)
{
    memset(r, 0, sizeof *r);
    r->status = st;
    r->median_ms = r->max_err = NAN;
    r->exit_code = -1;
    snprintf(r->error, sizeof r->error, "%.*s", (int)sizeof r->error - 1, why);
}

enum { RUN_OUT_CAP = 65536 };

int tune_run_candidate(const char *runner, const char *exe, char *const *args, double timeout_s,
                       TuneRunResult *r)
{
    ArgList cmd = {0};
    char *out = malloc(RUN_OUT_CAP);
    if (candidate_argv(&cmd, runner, exe, args) != 0 || !out) {
        arglist_free(&cmd);
        free(out);
        char why[600];
        snprintf(why, sizeof why, "cannot run %s: out of memory", exe);
        run_not_started(r, TUNE_RUN_FAIL, why);
        return -1;
    }
    int code = -1, timed_out = 0;
    double t0 = now_s();
    int rc = tune_spawn(cmd.argv, timeout_s, out, RUN_OUT_CAP, &code, &timed_out);
    double seconds = now_s() - t0;
    if (rc != 0)
        run_not_started(r, TUNE_RUN_FAIL, out);
    else
        tune_parse_run(out, code, timed_out, r);
    r->seconds = seconds;
    arglist_free(&cmd);
    free(out);
    return r->status == TUNE_OK ? 0 : -1;
}

int tune_build_and_run(int n, char **const *build_argvs, const char *runner, char *const *exes,
                       char *const *args, int jobs, int overlap, double timeout_s,
                       TuneSpawnResult *built, TuneRunResult *ran)
{
    if (n <= 0)
        return 0;
    jobs = jobs > 0 ? jobs : 1;
    overlap = overlap < 0 ? 0 : overlap < jobs ? overlap : jobs;
    Child *bs = calloc((size_t)n, sizeof *bs), run = {0}, **act = calloc((size_t)n + 1, sizeof *act);
    struct pollfd *pf = calloc((size_t)n + 1, sizeof *pf);
    int *who = calloc((size_t)n + 1, sizeof *who);
    char *run_out = malloc(RUN_OUT_CAP);
    /* ran_state: 0 not yet, 1 running (in `run`), 2 finished or never to run */
    int *ran_state = calloc((size_t)n, sizeof *ran_state);
    if (!bs || !act || !pf || !who || !run_out || !ran_state) {
        for (int i = 0; i < n; i++) {
            built[i] = (TuneSpawnResult){.exit_code = -1};
            snprintf(built[i].out, sizeof built[i].out, "cannot run '%s': out of memory", build_argvs[i][0]);
            if (ran)
                run_not_started(&ran[i], TUNE_BUILD_FAIL, built[i].out);
        }
        free(bs), free(act), free(pf), free(who), free(run_out), free(ran_state);
        return n;
    }
    for (int i = 0; i < n; i++) {
        bs[i].out = built[i].out;
        bs[i].cap = sizeof built[i].out;
        built[i].out[0] = '\0';
        if (ran)
            run_not_started(&ran[i], TUNE_BUILD_FAIL, "not built");
    }
    int next_build = 0, run_i = -1, failed = 0;
    ArgList run_cmd = {0};
    for (;;) {
        int building = 0;
        for (int i = 0; i < next_build; i++)
            building += bs[i].state == RUNNING;
        /* a built candidate is timed first, when no more than `overlap`
           builds are going on beside it */
        if (exes && run_i < 0 && building <= overlap) {
            for (int i = 0; i < next_build && run_i < 0; i++) {
                if (bs[i].state != DONE || ran_state[i] != 0)
                    continue;
                if (bs[i].exit_code != 0 || bs[i].timed_out) {
                    ran_state[i] = 2;
                    continue;
                }
                int oom = candidate_argv(&run_cmd, runner, exes[i], args) != 0;
                run = (Child){.out = run_out, .cap = RUN_OUT_CAP};
                run_out[0] = '\0';
                if (!oom)
                    child_start(&run, run_cmd.argv, timeout_s);
                if (oom || run.state != RUNNING) {
                    run_not_started(&ran[i], TUNE_RUN_FAIL, oom ? "out of memory" : run_out);
                    ran_state[i] = 2;
                    continue;
                }
                ran_state[i] = 1;
                run_i = i;
            }
        }
        int limit = run_i >= 0 ? overlap : jobs;
        while (building < limit && next_build < n) {
            child_start(&bs[next_build], build_argvs[next_build], timeout_s);
            building += bs[next_build].state == RUNNING;
            next_build++;
        }
        int na = 0;
        for (int i = 0; i < next_build; i++)
            if (bs[i].state == RUNNING)
                act[na++] = &bs[i];
        if (run_i >= 0)
            act[na++] = &run;
        if (na == 0) {
            int pending = 0;
            for (int i = 0; i < n && exes; i++)
                pending += ran_state[i] == 0;
            if (next_build == n && !pending)
                break;
            continue; /* something built and not yet run, or builds not started */
        }
        children_step(act, na, pf, who);
        if (run_i >= 0 && run.state == DONE) {
            tune_parse_run(run.out, run.exit_code, run.timed_out, &ran[run_i]);
            ran[run_i].seconds = run.ended - run.start;
            ran_state[run_i] = 2;
            run_i = -1;
        }
    }
    for (int i = 0; i < n; i++) {
        built[i].exit_code = bs[i].exit_code;
        built[i].timed_out = bs[i].timed_out;
        built[i].seconds = bs[i].ended - bs[i].start;
        failed += bs[i].exit_code != 0 || bs[i].timed_out;
    }
    arglist_free(&run_cmd);
    free(bs), free(act), free(pf), free(who), free(run_out), free(ran_state);
    return failed;
}
