/* weight_blob.h - the weight blob as lowering lays it out: every constant
 * a kernel reads, appended at a 64-byte boundary, in parts of about
 * CTVM_PART bytes (a constant never straddles two) so a C compiler parsing
 * the printed blob holds one part at a time. emit_c/emit_weights.h prints
 * it. */
#ifndef CTVM_IR_WEIGHT_BLOB_H
#define CTVM_IR_WEIGHT_BLOB_H

#include <stdint.h>

#define CTVM_PART (8 << 20)

typedef struct WeightBlob {
    unsigned char *bytes;
    int64_t size, cap;
    unsigned types; /* union members needed besides float (bit i: weights_member i) */
    int64_t *parts; /* byte offset where each part starts (parts[0] = 0) */
    int nparts, parts_cap;
    int raw_text; /* rows in raw text (emit_c/emit_weights.h) */
} WeightBlob;

/* Appends data, 64-byte aligned; returns its byte offset. */
int64_t weights_add(WeightBlob *w, const void *data, int64_t bytes);
/* The same for data of C storage type ctype ("float", "int64_t", ...): the
 * blob gets a union member of that type to read it through. */
int64_t weights_add_typed(WeightBlob *w, const void *data, int64_t bytes, const char *ctype);
/* Index of the union member of C storage type ctype (-1: float, the f member). */
int weights_member(const char *ctype);
void weights_free(WeightBlob *w);

#endif
