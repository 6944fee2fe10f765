/* replay_main.c - runs a fuzz target without libFuzzer: each argument is a
 * file (or a folder of files) passed once to LLVMFuzzerTestOneInput. The
 * ordinary test build links it with every fuzz/fuzz_*.c so the crashes the
 * fuzzers found (fuzz/regressions/) stay fixed in every `make test`, with
 * gcc and without sanitizers too. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        return 1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int bad = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *dir = opendir(argv[i]);
            struct dirent *e;
            while (dir && (e = readdir(dir))) {
                if (e->d_name[0] == '.')
                    continue;
                char p[4096];
                snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                bad |= replay_file(p);
                files++;
            }
            if (dir)
                closedir(dir);
        } else {
            bad |= replay_file(argv[i]);
            files++;
        }
    }
    printf("replay: %d inputs, no crash\n", files);
    return bad;
}
