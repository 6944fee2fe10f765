/* schedule_key.c - workload keys of tunable stages (see schedule_key.h). */
#include "schedule_key.h"

#include <stdio.h>
#include <string.h>

#define KEY_MAX_IDS 64

typedef struct KeyHash {
    uint64_t h;
    const void *ids[KEY_MAX_IDS]; /* variables and buffers by first appearance */
    int n_ids;
} KeyHash;

static void mix(KeyHash *k, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        k->h = (k->h ^ b[i]) * 0x100000001b3ull; /* FNV-1a 64 */
}

static void mix_i(KeyHash *k, int64_t v)
{
    mix(k, &v, sizeof v);
}

/* the position of a variable or buffer in order of first appearance */
static int64_t id_of(KeyHash *k, const void *p)
{
    for (int i = 0; i < k->n_ids; i++)
        if (k->ids[i] == p)
            return i;
    if (k->n_ids < KEY_MAX_IDS)
        k->ids[k->n_ids++] = p;
    return k->n_ids - 1;
}

static void mix_expr(KeyHash *k, const Expr *e)
{
    if (!e) {
        mix_i(k, -1);
        return;
    }
    mix_i(k, e->kind);
    mix_i(k, e->type);
    switch (e->kind) {
    case EX_INT: mix_i(k, e->i); break;
    case EX_FLOAT: mix(k, &e->f, sizeof e->f); break;
    case EX_VAR: mix_i(k, id_of(k, e->var)); break;
    case EX_LOAD:
        mix_i(k, id_of(k, e->buf));
        mix_i(k, e->buf->dtype);
        mix_i(k, e->buf->numel);
        break;
    case EX_BIN: mix_i(k, e->op); break;
    case EX_CALL: mix_i(k, e->fn); break;
    default: break;
    }
    mix_expr(k, e->a);
    mix_expr(k, e->b);
    mix_expr(k, e->c);
}

static int dims(char *buf, size_t cap, const char *lead, const int64_t *d, int n)
{
    int k = snprintf(buf, cap, "%s", lead);
    for (int i = 0; i < n && k >= 0 && (size_t)k < cap; i++)
        k += snprintf(buf + k, cap - (size_t)k, i ? "x%lld" : "%lld", (long long)d[i]);
    return k;
}

int schedule_workload(const ComputeStage *st, char *buf, size_t cap)
{
    const char *fam = st->sched == SCHED_CONV ? "conv" : st->sched == SCHED_GEMM ? "gemm" : NULL;
    if (!fam || cap < 64)
        return 0;
    KeyHash k = {.h = 0xcbf29ce484222325ull};
    /* the axes first, so they are ids 0.. in order, then the reduction axes */
    for (int i = 0; i < st->n_axes; i++)
        id_of(&k, st->axis[i]);
    for (int r = 0; r < st->n_raxes; r++)
        id_of(&k, st->raxis[r]);
    id_of(&k, st->acc);
    id_of(&k, st->out);
    mix_i(&k, st->out->dtype);
    mix_i(&k, st->out->numel);
    mix_i(&k, st->red);
    mix_expr(&k, st->out_index);
    mix_expr(&k, st->body);
    mix_expr(&k, st->finalize);
    int n = snprintf(buf, cap, "%s ", fam);
    n += dims(buf + n, cap - (size_t)n, "", st->extent, st->n_axes);
    n += dims(buf + n, cap - (size_t)n, " r", st->rextent, st->n_raxes);
    n += snprintf(buf + n, cap - (size_t)n, " #%016llx", (unsigned long long)k.h);
    return n < (int)cap ? n : 0;
}
