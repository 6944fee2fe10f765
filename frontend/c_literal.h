/* c_literal.h - reading a C string literal back into its bytes. Generated
 * files write names as escaped C string literals (#define P_INPUT0_NAME
 * "..."); ctvm-run reads them with c_literal_read. */
#ifndef CTVM_FRONTEND_C_LITERAL_H
#define CTVM_FRONTEND_C_LITERAL_H

#include <stddef.h>

/* Parses the string literal starting at s (s[0] must be '"') up to its
 * closing quote; writes the bytes it denotes to dst, NUL-terminated (cap
 * includes the NUL), and sets *end (when end is not NULL) to the character
 * after the closing quote. Escapes: \" \\ \' \? \a \b \f \n \r \t \v,
 * octal \o \oo \ooo and hex \xh... (each one byte). Returns the number of
 * bytes, or -1 when the literal is malformed (no closing quote, an unknown
 * escape, a raw newline, an octal or hex value above 0xff), denotes a NUL
 * byte, or does not fit in cap. */
int c_literal_read(const char *s, char *dst, size_t cap, const char **end);

#endif
