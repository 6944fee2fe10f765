/* arena.c - bump allocator backing all compiler data (see arena.h). */
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
    ArenaChunk *next;
    size_t size, used;
    _Alignas(64) unsigned char data[];
};

enum { CHUNK_MIN = 1 << 20, ALIGN = 64 };

static void arena_die(size_t bytes)
{
    fprintf(stderr, "ctvm: out of memory (asked for %zu bytes)\n", bytes);
    exit(3);
}

Arena *arena_new(void)
{
    Arena *a = calloc(1, sizeof *a);
    if (!a)
        arena_die(sizeof *a);
    return a;
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    ArenaChunk *c = a->head;
    while (c) {
        ArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

void *arena_alloc(Arena *a, size_t bytes)
{
    size_t need = (bytes + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (need < bytes)
        arena_die(bytes);
    ArenaChunk *c = a->head;
    if (!c || c->size - c->used < need) {
        size_t size = need > CHUNK_MIN ? need : CHUNK_MIN;
        c = aligned_alloc(ALIGN, (sizeof *c + size + ALIGN - 1) & ~(size_t)(ALIGN - 1));
        if (!c)
            arena_die(bytes);
        c->size = size;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += need;
    a->total += need;
    memset(p, 0, bytes);
    return p;
}

void *arena_array(Arena *a, size_t count, size_t size)
{
    size_t bytes;
    if (!size_mul(count, size, &bytes))
        arena_die((size_t)-1);
    return arena_alloc(a, bytes);
}

char *arena_strdup(Arena *a, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = arena_alloc(a, n);
    memcpy(p, s, n);
    return p;
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void *arena_grow(Arena *a, void *old, size_t old_count, size_t new_count, size_t size)
{
    void *p = arena_array(a, new_count, size);
    if (old && old_count)
        memcpy(p, old, old_count * size);
    return p;
}

int size_mul(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

int i64_mul(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0)
        return 0;
    if (a && b > INT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}
