/* ms_op_table.c - names and versions of the com.microsoft operators of
 * ir/ms_op_table.h. */
#include "ms_op_table.h"

#include <string.h>

static const struct {
    const char *name;
    int since;
} MS_OPS[MS_COUNT] = {
    [MS_UNKNOWN] = {"?", 0},
#define X(e, name, since) [MS_##e] = {name, since},
    CTVM_MS_OPS(X)
#undef X
};

MsOpKind ms_op_kind(const char *domain, const char *name)
{
    if (!domain || !name || strcmp(domain, CTVM_MS_DOMAIN) != 0)
        return MS_UNKNOWN;
    for (int k = 1; k < MS_COUNT; k++)
        if (strcmp(MS_OPS[k].name, name) == 0)
            return (MsOpKind)k;
    return MS_UNKNOWN;
}

const char *ms_op_name(MsOpKind k)
{
    return k > 0 && k < MS_COUNT ? MS_OPS[k].name : "?";
}

int ms_op_since(MsOpKind k)
{
    return k > 0 && k < MS_COUNT ? MS_OPS[k].since : 0;
}

const char *ms_op_list(void)
{
    static const char list[] = ""
#define X(e, name, since) ", " name
        CTVM_MS_OPS(X)
#undef X
        ;
    return list + 2; /* past the first ", " */
}
