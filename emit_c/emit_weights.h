/* emit_weights.h - the weight blob: constants as byte-string rows.
 *
 * gcc parses octal-escaped string literals an order of magnitude faster than
 * float or hex arrays (DESIGN.md measured 7.5 s vs 103-122 s for ResNet-50's
 * 25 M floats). The blob is a 2-D char array of rows of CTVM_ROW bytes (a
 * multiple of 4, under -pedantic's 4095-character literal limit), so rows
 * lie contiguously. It is a union with a float array, the member kernels
 * read through (no float is read through a char lvalue: no strict-aliasing
 * violation), and with double for 8-byte alignment. Rows of 1020 bytes keep
 * every literal under gcc's page size: with 4092-byte rows, gcc's allocator
 * searched its free-page list once per row of a 411 MB constant (vgg11_bn:
 * 235 s, 64 s with 1020-byte rows). Each constant starts at
 * a 64-byte boundary. CTVM_WEIGHTS_SECTION (emit_model) may place it in a
 * named linker section. Bytes are written in the host's order, and the file
 * refuses to compile for a target of the other order.
 *
 * Big models get several blobs ("parts" of about CTVM_PART bytes; a constant
 * never straddles two), each its own declaration: gcc frees a declaration's
 * string tokens before it parses the next, so its peak memory is set by one
 * part, not by the whole model (vit_b_16, 346 MB of weights: see docs/ZOO.md).
 *
 * Text of the rows: printable ASCII as itself, the rest as octal escapes
 * (2.7 characters per byte of float weights). In "raw" text the bytes
 * 0x80-0xff other than 0xe2 are written as themselves (1.3 characters per
 * byte): gcc and clang keep a narrow literal's bytes as they are (clang's
 * warning about them is switched off around the blob; 0xe2 stays escaped so
 * no Unicode bidirectional control appears). gcc's time and peak memory on a
 * model follow the file's size: vgg11_bn (531 MB of weights) 235 s and
 * 5.8 GB in octal. Raw is chosen by default (auto) from CTVM_RAW_TEXT_MIN
 * bytes of weights on, where no microcontroller compiler is involved;
 * --weights-text octal keeps the file ASCII. */
#ifndef CTVM_EMIT_C_EMIT_WEIGHTS_H
#define CTVM_EMIT_C_EMIT_WEIGHTS_H

#include <stdint.h>
#include <stdio.h>

#include "ir/weight_blob.h"

#define CTVM_ROW 1020
/* --weights-text auto: raw bytes from this many bytes of weights on */
#define CTVM_RAW_TEXT_MIN (32 << 20)

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

#endif
