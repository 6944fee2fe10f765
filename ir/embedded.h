/* embedded.h - the runtime_min/ and templates/ files compiled into ctvm
 * (tools/embed.c writes the table at build time): what emit_c pastes into
 * a generated file, and what lowering inspects (does a runtime kernel use
 * the vector API). */
#ifndef CTVM_IR_EMBEDDED_H
#define CTVM_IR_EMBEDDED_H

/* Text of an embedded file ("templates/kernel_nms.h"), or NULL. */
const char *ctvm_embedded_find(const char *path);

#endif
