/* read_text.h - test helper: a whole file as a NUL-terminated string
 * (malloc'd; NULL when it cannot be opened or read). The tests that scan
 * the sources of the repository use it. */
#ifndef CTVM_TESTS_READ_TEXT_H
#define CTVM_TESTS_READ_TEXT_H

#include <stdio.h>
#include <stdlib.h>

static inline char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

#endif
