/* weight_blob.c - layout of the weight blob: constants appended at 64-byte
 * boundaries, split in parts (see weight_blob.h). Printing is emit_c's. */
#include "weight_blob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int weights_member(const char *ctype)
{
    static const char *const T[] = {"double", "int8_t", "int16_t", "int32_t", "int64_t",
                                    "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
    for (int i = 0; i < (int)(sizeof T / sizeof T[0]); i++)
        if (strcmp(T[i], ctype) == 0)
            return i;
    return -1; /* float: the f member */
}

int64_t weights_add_typed(WeightBlob *w, const void *data, int64_t bytes, const char *ctype)
{
    int m = weights_member(ctype);
    if (m >= 0)
        w->types |= 1u << m;
    return weights_add(w, data, bytes);
}

/* Starts a new part at off unless the current one is empty or still has
 * room for bytes more. */
static void weights_part(WeightBlob *w, int64_t off, int64_t bytes)
{
    if (w->nparts > 0 && (off == w->parts[w->nparts - 1] || off - w->parts[w->nparts - 1] + bytes <= CTVM_PART))
        return;
    if (w->nparts == w->parts_cap) {
        int cap = w->parts_cap ? 2 * w->parts_cap : 16;
        int64_t *p = realloc(w->parts, (size_t)cap * sizeof *p);
        if (!p) {
            fprintf(stderr, "ctvm: out of memory for weights\n");
            exit(3);
        }
        w->parts = p;
        w->parts_cap = cap;
    }
    w->parts[w->nparts] = w->nparts ? off : 0;
    w->nparts++;
}

int64_t weights_add(WeightBlob *w, const void *data, int64_t bytes)
{
    int64_t off = (w->size + 63) / 64 * 64;
    int64_t need = off + bytes;
    weights_part(w, off, bytes);
    if (need > w->cap) {
        int64_t cap = w->cap ? w->cap : 1 << 16;
        while (cap < need)
            cap *= 2;
        unsigned char *p = realloc(w->bytes, (size_t)cap);
        if (!p) {
            fprintf(stderr, "ctvm: out of memory for weights\n");
            exit(3);
        }
        w->bytes = p;
        w->cap = cap;
    }
    if (need > w->size) { /* else nothing to copy, and bytes may still be NULL */
        memset(w->bytes + w->size, 0, (size_t)(off - w->size));
        if (bytes > 0)
            memcpy(w->bytes + off, data, (size_t)bytes);
        w->size = need;
    }
    return off;
}

void weights_free(WeightBlob *w)
{
    free(w->bytes);
    free(w->parts);
    memset(w, 0, sizeof *w);
}

