/* c_text.h - the one way text from a model file (names, op types) and from
 * the command line (paths in the stamp) reaches generated C.
 *
 * A model file is hostile input: a graph input named `x"` + newline + code
 * would otherwise become code in the user's program. Every such string goes
 * through c_text() in one of three forms:
 *   C_IDENT    an identifier fragment: every byte outside [A-Za-z0-9] is '_'
 *   C_STRING   the inside of a "..." literal: printable ASCII as is except
 *              '"' -> \", '\' -> \\, '?' -> \? (no trigraph such as ??/ can
 *              form), every other byte (controls, newline, non-UTF-8,
 *              non-ASCII) as a three-digit octal escape \ooo, which never
 *              swallows a following digit as \x would
 *   C_COMMENT  text inside a block comment: printable ASCII as is except
 *              '*' (no comment can open or close), '\' (no line splice) and
 *              '?' (no trigraph), which, with every other byte, are written
 *              as \ooo
 * Output is truncated only at a whole escape, so a cut never leaves half of
 * one. */
#ifndef CTVM_IR_C_TEXT_H
#define CTVM_IR_C_TEXT_H

#include <stddef.h>
#include <stdio.h>

typedef enum CTextKind {
    C_IDENT,   /* identifier fragment */
    C_STRING,  /* inside a string literal */
    C_COMMENT, /* inside a block comment */
} CTextKind;

/* src as `kind` into dst (cap >= 1 bytes, always NUL-terminated); returns dst. */
char *c_text(char *dst, size_t cap, const char *src, CTextKind kind);

/* The same, written to f without a length limit. */
void c_text_print(FILE *f, const char *src, CTextKind kind);

#endif
