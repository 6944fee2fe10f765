/* arena.h - one bump allocator per compilation.
 *
 * Everything the compiler builds (graph, attributes, constants, loop IR) is
 * carved from an Arena and released at once with arena_free(). Allocation
 * failure is fatal: the compiler prints a message and exits, so callers never
 * check for NULL. Sizes are checked for overflow before they are multiplied. */
#ifndef CTVM_IR_ARENA_H
#define CTVM_IR_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
    ArenaChunk *head; /* newest chunk first */
    size_t total;     /* bytes handed out, for --verbose */
} Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
/* Zeroed, 64-byte aligned memory; lives until arena_free. */
void *arena_alloc(Arena *a, size_t bytes);
/* arena_alloc(count * size) with an overflow check. */
void *arena_array(Arena *a, size_t count, size_t size);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Grow an array: returns a new block of new_count elements holding the old ones. */
void *arena_grow(Arena *a, void *old, size_t old_count, size_t new_count, size_t size);

/* Checked size arithmetic: return 0 and leave *out untouched on overflow. */
int size_mul(size_t a, size_t b, size_t *out);
int i64_mul(int64_t a, int64_t b, int64_t *out);

#endif
