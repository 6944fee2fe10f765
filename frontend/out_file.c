/* out_file.c - checked targets, private temporary files, atomic renames and
 * cleanup on SIGINT/SIGTERM for every file ctvm writes (see out_file.h). */
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the temporary files a signal must remove ----
 * The handler only unlinks the names of live slots and re-raises: all
 * async-signal-safe. A slot's name is written while it is not live, except
 * by mkostemp (see out_open). */
enum { OUT_SLOTS = 8 };
static char temp_name[OUT_SLOTS][PATH_MAX];
static volatile sig_atomic_t temp_live[OUT_SLOTS];
static int slot_taken[OUT_SLOTS];
static volatile sig_atomic_t committing, pending_signal;

static void on_signal(int sig)
{
    if (committing) { /* the renames finish first, then the signal is raised again */
        pending_signal = sig;
        return;
    }
    for (int i = 0; i < OUT_SLOTS; i++)
        if (temp_live[i])
            unlink(temp_name[i]);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered on return: the process dies of sig */
}

/* Installed once, and only over the default action (an ignored SIGINT, as
 * under nohup, stays ignored). */
static void install_handlers(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    const int sigs[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(sigs[i], &sa, NULL);
    }
}

static void slot_release(int slot)
{
    temp_live[slot] = 0;
    slot_taken[slot] = 0;
}

/* ---- target checks ---- */

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISLNK(m)  ? "a symbolic link"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* why[] for a target of mode m that is not a regular file */
static void refuse_kind(mode_t m, char *why, size_t cap)
{
    snprintf(why, cap, "it is %s; only a regular file is written%s", kind_of(m),
             S_ISLNK(m) ? " (give the path it points to)" : "");
}

int out_target_check(const char *path, char *why, size_t cap)
{
    if (!path || !*path) {
        snprintf(why, cap, "the output path is empty");
        return -1;
    }
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(why, cap, "%s", strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode))
        return 0;
    refuse_kind(st.st_mode, why, cap);
    return -1;
}

int out_check(const char *path, Diag *d)
{
    char why[200];
    if (out_target_check(path, why, sizeof why) != 0)
        return diag_error(d, NULL, -1, "cannot write '%s': %s", path, why);
    return 0;
}

/* The folder of path into dir[] ("." without a slash); its last name. */
static const char *split_path(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
    return slash ? slash + 1 : path;
}

int out_same_target(const char *a, const char *b)
{
    char da[PATH_MAX], db[PATH_MAX];
    const char *na = split_path(a, da, sizeof da), *nb = split_path(b, db, sizeof db);
    if (strcmp(na, nb) != 0)
        return 0;
    struct stat sa, sb;
    if (stat(da, &sa) != 0 || stat(db, &sb) != 0)
        return strcmp(a, b) == 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---- writing ---- */

static mode_t file_mode(void)
{
    static int known;
    static mode_t mode;
    if (!known) {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
        known = 1;
    }
    return mode;
}

int out_open(OutFile *o, const char *path, Diag *d)
{
    o->path = path;
    o->f = NULL;
    o->slot = -1;
    if (out_check(path, d) != 0)
        return -1;
    int slot = 0;
    while (slot < OUT_SLOTS && slot_taken[slot])
        slot++;
    if (slot == OUT_SLOTS)
        return diag_error(d, NULL, -1, "cannot write '%s': too many output files at once", path);
    int n = snprintf(temp_name[slot], PATH_MAX, "%s.tmp-XXXXXX", path);
    if (n < 0 || n >= PATH_MAX)
        return diag_error(d, NULL, -1, "cannot write '%s': the path is too long", path);
    install_handlers();
    slot_taken[slot] = 1;
    /* live before the file exists: mkostemp writes each name it tries into
       temp_name[slot] before creating it, so a signal arriving as it is
       created still finds the name (one arriving after a name was taken by
       someone else, a 1 in 2^35 collision, would remove that file) */
    temp_live[slot] = 1;
    int fd = mkostemp(temp_name[slot], O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        slot_release(slot);
        return diag_error(d, NULL, -1, "cannot write '%s': cannot create a temporary file beside it: %s",
                          path, strerror(e));
    }
    o->slot = slot;
    if (fchmod(fd, file_mode()) != 0 || !(o->f = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        out_drop(o);
        return diag_error(d, NULL, -1, "cannot write '%s': %s", path, strerror(e));
    }
    return 0;
}

const char *out_temp_path(const OutFile *o)
{
    return o->slot >= 0 ? temp_name[o->slot] : NULL;
}

void out_drop(OutFile *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
    }
    if (o->slot >= 0) {
        unlink(temp_name[o->slot]);
        slot_release(o->slot);
        o->slot = -1;
    }
}

static void drop_all(OutFile *const *fs, int n)
{
    for (int i = 0; i < n; i++)
        out_drop(fs[i]);
}

/* Flushes and closes o->f; 0, or -1 with errno set. */
static int close_checked(OutFile *o)
{
    FILE *f = o->f;
    o->f = NULL;
    if (!f)
        return errno = EBADF, -1;
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f);
    int e = errno ? errno : EIO;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    return bad ? (errno = e, -1) : 0;
}

enum { PLACED_NONE, PLACED_SWAPPED, PLACED_NEW, PLACED_OVER };

static int fs_lacks(int e)
{
    return e == EINVAL || e == ENOSYS || e == EOPNOTSUPP;
}

/* Moves o's temporary file to its target. PLACED_SWAPPED: the old target
 * is now at the temporary name; -1 with errno on failure. */
static int place(OutFile *o)
{
    const char *tmp = temp_name[o->slot], *path = o->path;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
            if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode))
                return PLACED_SWAPPED;
            /* the target turned into something else since the check: put it back */
            renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE);
            errno = EEXIST;
            return -1;
        }
        if (!fs_lacks(errno))
            return -1;
        return rename(tmp, path) == 0 ? PLACED_OVER : -1;
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return PLACED_NEW;
    if (!fs_lacks(errno))
        return -1;
    return rename(tmp, path) == 0 ? PLACED_NEW : -1;
}

/* Undoes place() of fs[0..n-1] in reverse; the index of a file that could
 * not be restored (replaced without a copy of the old one), or -1. */
static int unplace(OutFile *const *fs, const int *placed, int n)
{
    int kept = -1;
    for (int i = n - 1; i >= 0; i--) {
        const char *tmp = temp_name[fs[i]->slot], *path = fs[i]->path;
        if (placed[i] == PLACED_SWAPPED)
            renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE);
        else if (placed[i] == PLACED_NEW)
            rename(path, tmp); /* dropped with the temporary files */
        else if (placed[i] == PLACED_OVER)
            kept = i;
    }
    return kept;
}

int out_commit_all(OutFile *const *fs, int n, Diag *d)
{
    if (n > OUT_SLOTS) { /* cannot be: each file holds a slot */
        drop_all(fs, n);
        return diag_error(d, NULL, -1, "cannot write '%s': too many output files at once", fs[0]->path);
    }
    for (int i = 0; i < n; i++)
        if (close_checked(fs[i]) != 0) {
            diag_error(d, NULL, -1, "cannot write '%s': %s", fs[i]->path, strerror(errno));
            drop_all(fs, n);
            return -1;
        }
    for (int i = 0; i < n; i++)
        if (out_check(fs[i]->path, d) != 0) {
            drop_all(fs, n);
            return -1;
        }
    int placed[OUT_SLOTS] = {0}, rc = 0;
    committing = 1;
    for (int i = 0; i < n && rc == 0; i++) {
        placed[i] = place(fs[i]);
        if (placed[i] >= 0)
            continue;
        int e = errno;
        placed[i] = PLACED_NONE;
        int kept = unplace(fs, placed, i);
        if (kept >= 0)
            diag_error(d, NULL, -1, "cannot write '%s': %s ('%s' was already replaced: this file system cannot swap it back)",
                       fs[i]->path, strerror(e), fs[kept]->path);
        else
            diag_error(d, NULL, -1, "cannot write '%s': %s (no file was changed)", fs[i]->path, strerror(e));
        rc = -1;
    }
    if (rc != 0)
        drop_all(fs, n);
    else
        for (int i = 0; i < n; i++) {
            if (placed[i] == PLACED_SWAPPED) /* the old file, now at the temporary name */
                unlink(temp_name[fs[i]->slot]);
            slot_release(fs[i]->slot);
            fs[i]->slot = -1;
        }
    committing = 0;
    if (pending_signal)
        raise(pending_signal);
    return rc;
}

int out_commit(OutFile *o, Diag *d)
{
    OutFile *const fs[1] = {o};
    return out_commit_all(fs, 1, d);
}

int out_open_append(const char *path, char *why, size_t cap)
{
    if (out_target_check(path, why, cap) != 0)
        return -1;
    int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (fd < 0) {
        snprintf(why, cap, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, cap, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) { /* changed since the check */
        refuse_kind(st.st_mode, why, cap);
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, O_APPEND); /* blocking again */
    return fd;
}

int out_write_all(const char *path, const void *data, size_t len, Diag *d)
{
    OutFile o;
    if (out_open(&o, path, d) != 0)
        return -1;
    if (fwrite(data, 1, len, o.f) != len) {
        out_drop(&o);
        return diag_error(d, NULL, -1, "cannot write '%s': write error", path);
    }
    return out_commit(&o, d);
}
