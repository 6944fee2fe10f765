/* emit_weights.h - the weight blob: constants as byte-string rows.
 *
 * gcc parses octal-escaped string literals an order of magnitude faster than
 * float or hex arrays (DESIGN.md measured 7.5 s vs 103-122 s for ResNet-50's
 * 25 M floats). The blob is a 2-D char array of rows of CTVM_ROW bytes (a
 * multiple of 4, under -pedantic's 4095-character literal limit), so rows
 * lie contiguously. It is a union with a float array, the member kernels
 * read through (no float is read through a char lvalue: no strict-aliasing
 * violation), and with double for 8-byte alignment. Each constant starts at
 * a 64-byte boundary. CTVM_WEIGHTS_SECTION (emit_model) may place it in a
 * named linker section.
 *
 * Big models get several blobs ("parts" of about CTVM_PART bytes; a constant
 * never straddles two), each its own declaration: gcc frees a declaration's
 * string tokens before it parses the next, so its peak memory is set by one
 * part, not by the whole model (vit_b_16, 346 MB of weights: see docs/ZOO.md). Bytes are written in the host's
 * order, and the file refuses to compile for a target of the other order. */
#ifndef CTVM_EMIT_C_EMIT_WEIGHTS_H
#define CTVM_EMIT_C_EMIT_WEIGHTS_H

#include <stdint.h>
#include <stdio.h>

#define CTVM_ROW 4092
#define CTVM_PART (8 << 20)

typedef struct WeightBlob {
    unsigned char *bytes;
    int64_t size, cap;
    unsigned types; /* union members needed besides float (bit i: weights_member i) */
    int64_t *parts; /* byte offset where each part starts (parts[0] = 0) */
    int nparts, parts_cap;
} WeightBlob;

/* Appends data, 64-byte aligned; returns its byte offset. */
int64_t weights_add(WeightBlob *w, const void *data, int64_t bytes);
/* The same for data of C storage type ctype ("float", "int64_t", ...): the
 * blob gets a union member of that type to read it through. */
int64_t weights_add_typed(WeightBlob *w, const void *data, int64_t bytes, const char *ctype);
/* The union member kernels read a C storage type through: "f" (float),
 * "f64", "i8", ..., "u64". */
const char *weights_member_name(const char *ctype);
/* Writes `static const union {...} ctvm_blob CTVM_WEIGHTS_SECTION = ...;`
 * (and ctvm_blob1, ctvm_blob2, ... for further parts), CTVM_W(byte offset)
 * -> const float * and CTVM_WT(member, byte offset) -> a pointer of the
 * member's type into the first part, CTVM_WP(part, member, offset) into
 * another (or nothing when empty). */
void weights_emit(FILE *f, const WeightBlob *w);
/* Prints the C expression for the constant at byte offset off, read through
 * member ("f" for float32, see weights_member_name). */
void weights_print_ref(FILE *f, const WeightBlob *w, const char *member, int64_t off);
void weights_free(WeightBlob *w);

#endif
