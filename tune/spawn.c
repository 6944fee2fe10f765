/* spawn.c - argument vectors and child processes without a shell (see
 * spawn.h): posix_spawnp with the pipe wired by file actions, so the
 * parent never runs code between fork and exec. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void arglist_add(ArgList *l, const char *word)
{
    if (l->failed)
        return;
    if (l->n + 2 > l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->argv, (size_t)cap * sizeof *v);
        if (!v) {
            l->failed = 1;
            return;
        }
        l->argv = v;
        l->cap = cap;
    }
    char *w = strdup(word);
    if (!w) {
        l->failed = 1;
        return;
    }
    l->argv[l->n++] = w;
    l->argv[l->n] = NULL;
}

void arglist_add_words(ArgList *l, const char *words)
{
    static const char blanks[] = " \t\n\r\f\v";
    for (const char *p = words ? words : ""; *(p += strspn(p, blanks));) {
        size_t len = strcspn(p, blanks);
        char *w = strndup(p, len);
        if (!w) {
            l->failed = 1;
            return;
        }
        arglist_add(l, w);
        free(w);
        p += len;
    }
}

void arglist_add_all(ArgList *l, char *const *words)
{
    for (int i = 0; words && words[i]; i++)
        arglist_add(l, words[i]);
}

void arglist_free(ArgList *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->argv[i]);
    free(l->argv);
    *l = (ArgList){0};
}

int spawn_piped(char *const argv[], int own_group, pid_t *pid, int *out_fd, char *why,
                size_t whycap)
{
    const char *name = argv && argv[0] ? argv[0] : "";
    int p[2] = {-1, -1}, err;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    if (!argv || !argv[0]) {
        snprintf(why, whycap, "cannot run an empty command");
        return -1;
    }
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(why, whycap, "cannot run '%s': %s", name, strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    /* stdin /dev/null; stdout and stderr the pipe (dup2 clears its
       close-on-exec); both pipe ends close at exec */
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (own_group) {
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(&at, 0);
    }
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setflags(&at, flags);
    err = posix_spawnp(pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[1]);
    if (err != 0) {
        close(p[0]);
        snprintf(why, whycap, "cannot run '%s': %s", name, strerror(err));
        return -1;
    }
    *out_fd = p[0];
    return 0;
}

int spawn_capture(char *const argv[], char **out)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    *out = buf;
    if (!buf)
        return -1;
    buf[0] = '\0';
    pid_t pid;
    int fd;
    if (spawn_piped(argv, 0, &pid, &fd, buf, cap) != 0)
        return -1;
    char drop[4096];
    int full = 0;
    for (;;) { /* to the end, so a long profile never blocks the child */
        if (!full && cap - n < 4096) {
            char *b = realloc(buf, cap * 2);
            if (b)
                buf = b, cap *= 2;
            else
                full = 1; /* keep what we have; the rest is read and dropped */
        }
        ssize_t k = full ? read(fd, drop, sizeof drop) : read(fd, buf + n, cap - n - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (!full)
            n += (size_t)k;
    }
    buf[n] = '\0';
    *out = buf;
    close(fd);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}
