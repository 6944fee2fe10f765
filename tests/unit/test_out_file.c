/* test_out_file.c - frontend/out_file.c: only regular files are replaced,
 * temporary files are private and never left behind (failure, SIGINT,
 * SIGTERM), and a failed pair of outputs leaves the user's files as they
 * were. Everything happens in a fresh folder under /tmp. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "frontend/out_file.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/ctvm_out_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *at(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static Diag quiet(void)
{
    Diag d;
    memset(&d, 0, sizeof d);
    d.tool = "test";
    d.quiet = 1;
    return d;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The whole file, or "" if it cannot be read (static buffer). */
static const char *slurp(const char *path)
{
    static char buf[256];
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    return buf;
}

static mode_t kind(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode & S_IFMT;
}

/* Entries of folder d other than . and .. */
static int entries(const char *d)
{
    DIR *p = opendir(d);
    assert_non_null(p);
    int n = 0;
    for (struct dirent *e; (e = readdir(p));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(p);
    return n;
}

/* Writes text to path through the module; its out_commit result. */
static int write_through(const char *path, const char *text, Diag *d)
{
    OutFile o;
    if (out_open(&o, path, d) != 0)
        return -1;
    fputs(text, o.f);
    return out_commit(&o, d);
}

static void test_new_and_replaced(void **state)
{
    (void)state;
    Diag d = quiet();
    mode_t mask = umask(022);
    assert_int_equal(write_through(at("m.c"), "new", &d), 0);
    assert_string_equal(slurp(at("m.c")), "new");
    struct stat st;
    assert_int_equal(stat(at("m.c"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* 0666 & ~umask, not mkstemp's 0600 */
    assert_int_equal(write_through(at("m.c"), "again", &d), 0);
    assert_string_equal(slurp(at("m.c")), "again");
    assert_int_equal(entries(dir), 1); /* no temporary file left */
    umask(mask);
}

/* path must be refused with `what` in the message and stay of type `type`. */
static void refused(const char *path, const char *what, mode_t type)
{
    Diag d = quiet();
    assert_int_equal(write_through(path, "x", &d), -1);
    if (!strstr(d.last, what) || !strstr(d.last, path))
        fail_msg("message '%s' lacks '%s' or the path", d.last, what);
    assert_int_equal(kind(path), type);
}

static void test_non_regular_refused(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("empty"), 0755), 0);
    refused(at("empty"), "it is a directory", S_IFDIR);
    assert_int_equal(entries(at("empty")), 0);
    assert_int_equal(mkfifo(at("fifo"), 0644), 0);
    refused(at("fifo"), "it is a FIFO", S_IFIFO);
    put(at("real.c"), "the user's");
    assert_int_equal(symlink("real.c", at("link.c")), 0);
    refused(at("link.c"), "it is a symbolic link", S_IFLNK);
    assert_string_equal(slurp(at("real.c")), "the user's");
    assert_int_equal(symlink("nowhere.c", at("dangling.c")), 0);
    refused(at("dangling.c"), "it is a symbolic link", S_IFLNK);
    assert_int_equal(access(at("nowhere.c"), F_OK), -1);
    if (mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0) { /* as root (CI) */
        refused(at("null"), "it is a character device", S_IFCHR);
        struct stat st;
        assert_int_equal(stat(at("null"), &st), 0);
        assert_true(st.st_rdev == makedev(1, 3));
    }
    /* the folder holds only what the test made: nothing left behind */
    assert_int_equal(entries(dir), 5 + (access(at("null"), F_OK) == 0));
}

static void test_temp_names_private(void **state)
{
    (void)state;
    Diag d = quiet();
    put(at("victim"), "untouched");
    char planted[256];
    snprintf(planted, sizeof planted, "%s.tmp%ld", at("m.c"), (long)getpid()); /* the old name */
    assert_int_equal(symlink(at("victim"), planted), 0);
    OutFile a, b;
    assert_int_equal(out_open(&a, at("m.c"), &d), 0);
    assert_int_equal(out_open(&b, at("m.c"), &d), 0);
    const char *ta = out_temp_path(&a), *tb = out_temp_path(&b);
    assert_non_null(ta);
    assert_non_null(tb);
    assert_string_not_equal(ta, tb);
    assert_string_not_equal(ta, planted);
    assert_int_equal(strncmp(ta, at("m.c"), strlen(at("m.c"))), 0); /* beside the target */
    assert_int_equal(kind(ta), S_IFREG);
    fputs("new", a.f);
    fputs("other", b.f);
    assert_int_equal(out_commit(&a, &d), 0);
    out_drop(&b);
    assert_string_equal(slurp(at("victim")), "untouched");
    assert_string_equal(slurp(at("m.c")), "new");
    assert_int_equal(kind(planted), S_IFLNK);
    assert_int_equal(entries(dir), 3); /* victim, planted link, m.c */
}

static void test_same_target(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("sub"), 0755), 0);
    assert_true(out_same_target(at("m.c"), at("m.c")));
    assert_true(out_same_target(at("m.c"), at("sub/../m.c")));
    assert_true(out_same_target("m.c", "./m.c"));
    assert_false(out_same_target(at("m.c"), at("m.h")));
    assert_false(out_same_target(at("m.c"), at("sub/m.c")));
}

/* Two outputs whose second cannot be placed: the first is swapped back. */
static void pair_fails(int c_existed)
{
    Diag d = quiet();
    if (c_existed)
        put(at("m.c"), "old model.c");
    assert_int_equal(mkdir(at("hdr"), 0755), 0);
    OutFile c, h;
    assert_int_equal(out_open(&c, at("m.c"), &d), 0);
    assert_int_equal(out_open(&h, at("hdr/m.h"), &d), 0);
    fputs("new model.c", c.f);
    fputs("new model.h", h.f);
    /* the header's folder moves away: its rename fails after model.c's */
    assert_int_equal(rename(at("hdr"), at("moved")), 0);
    OutFile *const both[2] = {&c, &h};
    assert_int_equal(out_commit_all(both, 2, &d), -1);
    assert_non_null(strstr(d.last, "m.h"));
    assert_non_null(strstr(d.last, "no file was changed"));
    if (c_existed)
        assert_string_equal(slurp(at("m.c")), "old model.c");
    else
        assert_int_equal(access(at("m.c"), F_OK), -1);
    /* left: m.c if it existed, moved/ with the header's orphaned temporary */
    assert_int_equal(entries(dir), 1 + c_existed);
}

static void test_pair_rolled_back(void **state)
{
    (void)state;
    pair_fails(1);
}

static void test_pair_rolled_back_new(void **state)
{
    (void)state;
    pair_fails(0);
}

static void test_target_turned_directory(void **state)
{
    (void)state;
    Diag d = quiet();
    put(at("m.c"), "old model.c");
    OutFile c, h;
    assert_int_equal(out_open(&c, at("m.c"), &d), 0);
    assert_int_equal(out_open(&h, at("m.h"), &d), 0);
    assert_int_equal(mkdir(at("m.h"), 0755), 0); /* appears while the model is emitted */
    OutFile *const both[2] = {&c, &h};
    assert_int_equal(out_commit_all(both, 2, &d), -1);
    assert_non_null(strstr(d.last, "it is a directory"));
    assert_string_equal(slurp(at("m.c")), "old model.c");
    assert_int_equal(kind(at("m.h")), S_IFDIR);
    assert_int_equal(entries(dir), 2);
}

static void test_drop(void **state)
{
    (void)state;
    Diag d = quiet();
    put(at("m.c"), "old");
    OutFile o;
    assert_int_equal(out_open(&o, at("m.c"), &d), 0);
    fputs("half", o.f);
    out_drop(&o);
    out_drop(&o); /* twice is harmless */
    assert_string_equal(slurp(at("m.c")), "old");
    assert_int_equal(entries(dir), 1);
}

/* A child killed by sig while writing: the temporary file is gone, the
 * old file is as it was and the child died of the signal. */
static void killed_by(int sig)
{
    put(at("m.c"), "old");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        Diag d = quiet();
        OutFile o;
        if (out_open(&o, at("m.c"), &d) != 0)
            _exit(10);
        fputs("half written", o.f);
        fflush(o.f);
        kill(getpid(), sig);
        _exit(11); /* not reached */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), sig);
    assert_string_equal(slurp(at("m.c")), "old");
    assert_int_equal(entries(dir), 1);
}

static void test_sigterm(void **state)
{
    (void)state;
    killed_by(SIGTERM);
}

static void test_sigint(void **state)
{
    (void)state;
    killed_by(SIGINT);
}

static void test_append(void **state)
{
    (void)state;
    char why[200];
    assert_int_equal(mkfifo(at("fifo"), 0644), 0);
    assert_int_equal(out_open_append(at("fifo"), why, sizeof why), -1); /* without blocking */
    assert_non_null(strstr(why, "FIFO"));
    put(at("real"), "a\n");
    assert_int_equal(symlink("real", at("link")), 0);
    assert_int_equal(out_open_append(at("link"), why, sizeof why), -1);
    assert_non_null(strstr(why, "symbolic link"));
    int fd = out_open_append(at("real"), why, sizeof why);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "b\n", 2), 2);
    close(fd);
    assert_string_equal(slurp(at("real")), "a\nb\n");
    fd = out_open_append(at("new"), why, sizeof why);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(kind(at("new")), S_IFREG);
}

int main(void)
{
    /* as in a terminal: a test run in the background starts with SIGINT
       ignored, which out_file.c rightly leaves ignored */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_new_and_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_non_regular_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_temp_names_private, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pair_rolled_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pair_rolled_back_new, setup, teardown),
        cmocka_unit_test_setup_teardown(test_target_turned_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigterm, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
