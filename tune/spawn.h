/* spawn.h - starting compilers and programs from argument vectors, never
 * through a shell: ctvm-run (its builds and runs) and ctvm-tune
 * (tune/measure.c) both start their children here.
 *
 * An option that carries several words (--cc "ccache gcc", --cflags
 * "-O2 -march=native", --runner "qemu-aarch64 -L /x", $CC, a target's
 * flags) is split on blanks (space, tab, newline) into argv words;
 * nothing in it is interpreted: no quotes, globbing, variables or
 * command substitution. */
#ifndef CTVM_TUNE_SPAWN_H
#define CTVM_TUNE_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* A growing, NULL-terminated argv whose words are copies. After an
 * allocation failure `failed` is 1 and nothing more is added. */
typedef struct ArgList {
    char **argv; /* argv[n] == NULL once anything was added */
    int n, cap;
    int failed;
} ArgList;

void arglist_add(ArgList *l, const char *word);
/* Each blank-separated word of words (NULL and "" add nothing). */
void arglist_add_words(ArgList *l, const char *words);
/* Every word of a NULL-terminated array (NULL adds nothing). */
void arglist_add_all(ArgList *l, char *const *words);
void arglist_free(ArgList *l);

/* Starts argv[0] (searched in PATH when it has no '/') with argv, stdin
 * from /dev/null, stdout and stderr both on one pipe whose read end
 * (close-on-exec) is *out_fd; with own_group in a new process group whose
 * id is its pid (set before it runs), else in ours. Returns 0, or -1 when
 * it could not be started, with the reason in why ("cannot run 'cc': No
 * such file or directory"). */
int spawn_piped(char *const argv[], int own_group, pid_t *pid, int *out_fd, char *why,
                size_t whycap);

/* Runs argv to its end in our process group (Ctrl-C stops it with us) and
 * reads all it prints on stdout and stderr into *out (malloc'd,
 * NUL-terminated; NULL only when out of memory). Returns the exit status,
 * 128+signal when a signal ended it, or -1 when it could not be started
 * (*out then says why). */
int spawn_capture(char *const argv[], char **out);

#endif
