/* name_supply.h - unique C identifiers for the buffers, locals and
 * register variables of a module, made from the model's value names.
 *
 * A name from a model file is any bytes: it becomes [A-Za-z0-9_] (every
 * other byte '_', ir/c_text.h, leading ones dropped: PyTorch's
 * "/stem/Conv_output_0" is stem_Conv_output_0), at most NAME_SUPPLY_MAX
 * characters, never
 * a C keyword or a name the generated file itself uses (ctvm_*, CTVM_*,
 * libm's, a leading '_'), never of the shape the entry point's parameters
 * print in (`in<digits>`, `out<digits>`), and never one given before in
 * the module or, for a kernel's locals and loop variables, in the kernel
 * (a second `x` becomes `x_v2`). */
#ifndef CTVM_LOWER_NAME_SUPPLY_H
#define CTVM_LOWER_NAME_SUPPLY_H

#include "ir/arena.h"

#define NAME_SUPPLY_MAX 40

typedef struct NameSupply {
    Arena *arena;
    const struct NameSupply *parent; /* names taken there are taken here too */
    char **slot; /* open addressing */
    int cap, n;
} NameSupply;

NameSupply *name_supply_new(Arena *arena);
/* A supply for one kernel's locals: every name of parent (the module's
   buffers) stays taken, names it gives stay out of parent. */
NameSupply *name_supply_child(const NameSupply *parent);
/* A fresh identifier from raw (a model's name or a hint); lives in the arena. */
const char *name_supply_take(NameSupply *ns, const char *raw);

#endif
