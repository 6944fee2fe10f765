/* npz_io.c - .npz archives (zip files of .npy entries) through libzip.
 *
 * Reading accepts both np.savez (stored) and np.savez_compressed (deflated)
 * archives; libzip inflates and checks CRCs. Every entry must be an .npy
 * file; entry "x.npy" becomes tensor "x". Writing produces a stored archive
 * like np.savez: libzip builds it in memory and out_file.h writes it (only
 * over a regular file, through a temporary file renamed into place). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "file_util.h"
#include "out_file.h"
#include "npy_format.h"
#include "tensor_io.h"

/* Reads entry i fully into a malloc'd buffer. */
static unsigned char *read_entry(zip_t *za, zip_uint64_t i, size_t size, const char *path,
                                 const char *name, Diag *d)
{
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf) {
        diag_error(d, NULL, -1, "%s: entry '%s': out of memory (%zu bytes)", path, name, size);
        return NULL;
    }
    zip_file_t *zf = zip_fopen_index(za, i, 0);
    if (!zf) {
        diag_error(d, NULL, -1, "%s: entry '%s': %s", path, name, zip_strerror(za));
        free(buf);
        return NULL;
    }
    size_t got = 0;
    while (got < size) {
        zip_int64_t r = zip_fread(zf, buf + got, size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    char extra;
    int more = got == size && zip_fread(zf, &extra, 1) > 0;
    int bad = got != size || more;
    if (bad)
        diag_error(d, NULL, -1, "%s: entry '%s' is corrupt or truncated: %s", path, name,
                   zip_file_strerror(zf));
    zip_fclose(zf);
    if (bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

int tensor_read_npz(const char *path, Arena *a, Tensor **out, int *n_out, Diag *d)
{
    *out = NULL;
    *n_out = 0;
    char why[PATH_MAX + 128];
    int64_t file_size;
    int fd = file_open_regular(path, &file_size, why, sizeof why); /* a FIFO must not block */
    if (fd < 0)
        return diag_error(d, NULL, -1, "%s", why);
    zip_uint64_t archive_bytes = file_size > 0 ? (zip_uint64_t)file_size : 0;
    int errcode = 0;
    zip_t *za = zip_fdopen(fd, 0, &errcode); /* read-only; owns fd on success */
    if (!za) {
        close(fd);
        zip_error_t ze;
        zip_error_init_with_code(&ze, errcode);
        diag_error(d, NULL, -1, "%s: not a readable .npz (zip) file: %s", path,
                   zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return -1;
    }
    zip_int64_t n = zip_get_num_entries(za, 0);
    Tensor *ts = arena_array(a, n > 0 ? (size_t)n : 1, sizeof(Tensor));
    int count = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t st;
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) ||
            !(st.valid & ZIP_STAT_SIZE)) {
            diag_error(d, NULL, -1, "%s: cannot read entry %lld: %s", path, (long long)i,
                       zip_strerror(za));
            goto fail;
        }
        size_t nl = strlen(st.name);
        if (nl && st.name[nl - 1] == '/')
            continue; /* a folder entry */
        if (!file_has_suffix(st.name, ".npy")) {
            diag_error(d, NULL, -1, "%s: entry '%s' is not an .npy file", path, st.name);
            goto fail;
        }
        /* the size an entry declares is trusted only as far as its data can
           hold it: a stored entry is its compressed bytes, deflate expands at
           most 1032 to 1, and no entry is larger than the archive itself
           allows (a 200-byte file declaring 4 GB is refused, not allocated) */
        zip_uint64_t comp = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : archive_bytes;
        if (comp > archive_bytes)
            comp = archive_bytes;
        zip_uint64_t most = comp * 1032 + 64;
        if (st.size > (zip_uint64_t)(SIZE_MAX / 2) || st.size > most) {
            diag_error(d, NULL, -1, "%s: entry '%s' declares %llu bytes, more than its %llu compressed bytes can hold",
                       path, st.name, (unsigned long long)st.size, (unsigned long long)comp);
            goto fail;
        }
        unsigned char *buf = read_entry(za, (zip_uint64_t)i, (size_t)st.size, path, st.name, d);
        if (!buf)
            goto fail;
        char *what = arena_printf(a, "%s: entry '%s'", path, st.name);
        int rc = tensor_read_npy_buffer(buf, (size_t)st.size, what, a, &ts[count], d);
        free(buf);
        if (rc)
            goto fail;
        char *name = arena_strdup(a, st.name);
        name[nl - 4] = 0;
        ts[count++].name = name;
    }
    zip_close(za);
    if (count == 0)
        return diag_error(d, NULL, -1, "%s: the archive holds no arrays", path);
    *out = ts;
    *n_out = count;
    return 0;
fail:
    zip_discard(za);
    return -1;
}

static int add_entry(zip_t *za, const Tensor *t, int i, const char *path, Diag *d)
{
    char name[600];
    if (t->name && *t->name)
        snprintf(name, sizeof name, "%s.npy", t->name);
    else
        snprintf(name, sizeof name, "arr_%d.npy", i);
    size_t len;
    const char *why = NULL;
    unsigned char *buf = npy_encode(t, &len, &why);
    if (!buf)
        return diag_error(d, NULL, -1, "%s: cannot write tensor '%s': %s", path, name, why);
    zip_source_t *src = zip_source_buffer(za, buf, len, 1); /* libzip frees buf */
    if (!src) {
        free(buf);
        return diag_error(d, NULL, -1, "%s: %s", path, zip_strerror(za));
    }
    zip_int64_t idx = zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
        zip_source_free(src);
        return diag_error(d, NULL, -1, "%s: cannot add '%s': %s", path, name, zip_strerror(za));
    }
    if (zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) != 0)
        return diag_error(d, NULL, -1, "%s: %s", path, zip_strerror(za));
    return 0;
}

/* The archive's bytes, built in memory by libzip: *bytes malloc'd. */
static int npz_image(const Tensor *ts, int n, const char *path, unsigned char **bytes,
                     size_t *len, Diag *d)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
    zip_t *za = src ? zip_open_from_source(src, ZIP_TRUNCATE, &ze) : NULL;
    if (!za) {
        diag_error(d, NULL, -1, "cannot create '%s': %s", path, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        zip_source_free(src);
        return -1;
    }
    zip_error_fini(&ze);
    zip_source_keep(src); /* kept past zip_close, which writes the archive into it */
    for (int i = 0; i < n; i++)
        if (add_entry(za, &ts[i], i, path, d))
            goto fail;
    if (zip_close(za) != 0) {
        diag_error(d, NULL, -1, "cannot write '%s': %s", path, zip_strerror(za));
        goto fail;
    }
    za = NULL;
    zip_stat_t st;
    if (zip_source_stat(src, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) ||
        zip_source_open(src) != 0) {
        diag_error(d, NULL, -1, "cannot write '%s': %s", path,
                   zip_error_strerror(zip_source_error(src)));
        goto fail;
    }
    *len = (size_t)st.size;
    *bytes = malloc(*len ? *len : 1);
    zip_int64_t got = *bytes ? zip_source_read(src, *bytes, st.size) : -1;
    zip_source_close(src);
    zip_source_free(src);
    if (got < 0 || (zip_uint64_t)got != st.size) {
        free(*bytes);
        return diag_error(d, NULL, -1, "cannot write '%s': out of memory", path);
    }
    return 0;
fail:
    if (za)
        zip_discard(za);
    zip_source_free(src);
    return -1;
}

int tensor_write_npz(const char *path, const Tensor *ts, int n, Diag *d)
{
    unsigned char *bytes;
    size_t len;
    if (npz_image(ts, n, path, &bytes, &len, d) != 0)
        return -1;
    int rc = out_write_all(path, bytes, len, d);
    free(bytes);
    return rc;
}
