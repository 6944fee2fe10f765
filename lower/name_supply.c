/* name_supply.c - unique C identifiers from model names (name_supply.h). */
#include "name_supply.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/c_text.h"

/* Identifiers a generated file uses or C reserves, beside the ctvm_ and
   CTVM_ prefixes and a leading '_'. */
static const char *const RESERVED[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
    "true", "false", "asm", "typeof", "ws", "workspace", "team", "tid", "main", "errno", "isnan", "isinf",
    "INFINITY", "NAN", "HUGE_VAL", "NULL", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t", "size_t", "memcpy", "memset", "memmove", "abs", "exp", "expf", "log", "logf", "sqrt",
    "sqrtf", "tanh", "tanhf", "pow", "powf", "fmod", "fmodf", "fabs", "fabsf", "floor", "floorf", "ceil", "ceilf",
    "rint", "rintf", "erf", "erff", "sin", "sinf", "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf",
    "atan", "atanf", "sinh", "sinhf", "cosh", "coshf", "asinh", "asinhf", "acosh", "acoshf", "atanh", "atanhf",
    "log1p", "log1pf", "expm1", "expm1f", "fma", "fmaf", "omp_get_thread_num", "omp_get_num_threads",
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int find(const NameSupply *ns, const char *s)
{
    for (int i = (int)(hash(s) % (uint64_t)ns->cap);; i = (i + 1) % ns->cap)
        if (!ns->slot[i] || strcmp(ns->slot[i], s) == 0)
            return i;
}

static void insert(NameSupply *ns, char *s);

static int taken(const NameSupply *ns, const char *s)
{
    for (; ns; ns = ns->parent)
        if (ns->slot[find(ns, s)])
            return 1;
    return 0;
}

static void grow(NameSupply *ns)
{
    char **old = ns->slot;
    int cap = ns->cap;
    ns->cap = cap ? 2 * cap : ns->parent ? 64 : 1024;
    ns->slot = arena_array(ns->arena, (size_t)ns->cap, sizeof(char *));
    ns->n = 0;
    for (int i = 0; i < cap; i++)
        if (old[i])
            insert(ns, old[i]);
}

static void insert(NameSupply *ns, char *s)
{
    if (2 * (ns->n + 1) > ns->cap)
        grow(ns);
    ns->slot[find(ns, s)] = s;
    ns->n++;
}

NameSupply *name_supply_new(Arena *arena)
{
    NameSupply *ns = arena_alloc(arena, sizeof *ns);
    ns->arena = arena;
    grow(ns);
    for (size_t i = 0; i < sizeof RESERVED / sizeof RESERVED[0]; i++)
        insert(ns, arena_strdup(arena, RESERVED[i]));
    return ns;
}

/* in<digits> / out<digits>, as the entry point's parameters print */
static int io_param_shape(const char *s)
{
    const char *d;
    if (strncmp(s, "in", 2) == 0)
        d = s + 2;
    else if (strncmp(s, "out", 3) == 0)
        d = s + 3;
    else
        return 0;
    if (!*d)
        return 0;
    for (; *d; d++)
        if (*d < '0' || *d > '9')
            return 0;
    return 1;
}

NameSupply *name_supply_child(const NameSupply *parent)
{
    NameSupply *ns = arena_alloc(parent->arena, sizeof *ns);
    ns->arena = parent->arena;
    ns->parent = parent;
    grow(ns);
    return ns;
}

const char *name_supply_take(NameSupply *ns, const char *raw)
{
    char base[NAME_SUPPLY_MAX + 8], name[NAME_SUPPLY_MAX + 24];
    c_text(base + 1, NAME_SUPPLY_MAX + 1, raw ? raw : "", C_IDENT);
    const char *b = base + 1;
    while (*b == '_') /* "/stem/Conv_output_0" reads as stem_Conv_output_0 */
        b++;
    if (!*b) {
        b = "v";
    } else if (*b >= '0' && *b <= '9') { /* an identifier starts with a letter */
        base[0] = 'v';
        b = base;
    }
    int reserved = *b == '_' || strncmp(b, "ctvm", 4) == 0 || strncmp(b, "CTVM", 4) == 0 || io_param_shape(b);
    for (size_t i = 0; i < sizeof RESERVED / sizeof RESERVED[0] && !reserved; i++)
        reserved = strcmp(b, RESERVED[i]) == 0;
    snprintf(name, sizeof name, "%s%s", b, reserved ? "_" : "");
    for (int k = 2; taken(ns, name); k++)
        snprintf(name, sizeof name, "%s%s_v%d", b, reserved ? "_" : "", k);
    char *s = arena_strdup(ns->arena, name);
    insert(ns, s);
    return s;
}
