/* onnx_names.c - hash table from value names to value ids, so that loading a
 * model with many thousand nodes stays linear (see NameMap in onnx_internal.h). */
#include <string.h>

#include "onnx_internal.h"

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

void namemap_init(NameMap *m, Graph *g, int expected)
{
    int cap = 64;
    while (cap < 2 * expected && cap < (1 << 28))
        cap *= 2;
    m->g = g;
    m->cap = cap;
    m->count = 0;
    m->slots = arena_array(g->arena, (size_t)cap, sizeof(int));
    memset(m->slots, 0xff, (size_t)cap * sizeof(int));
}

int namemap_get(const NameMap *m, const char *name)
{
    uint32_t mask = (uint32_t)m->cap - 1;
    for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
        int id = m->slots[i];
        if (id < 0)
            return -1;
        if (strcmp(m->g->values[id].name, name) == 0)
            return id;
    }
}

static void insert_slot(int *slots, int cap, const Graph *g, int id)
{
    uint32_t mask = (uint32_t)cap - 1;
    uint32_t i = name_hash(g->values[id].name) & mask;
    while (slots[i] >= 0)
        i = (i + 1) & mask;
    slots[i] = id;
}

void namemap_put(NameMap *m, int value_id)
{
    if (2 * (m->count + 1) > m->cap) {
        int cap = m->cap * 2;
        int *slots = arena_array(m->g->arena, (size_t)cap, sizeof(int));
        memset(slots, 0xff, (size_t)cap * sizeof(int));
        for (int i = 0; i < m->cap; i++)
            if (m->slots[i] >= 0)
                insert_slot(slots, cap, m->g, m->slots[i]);
        m->slots = slots;
        m->cap = cap;
    }
    insert_slot(m->slots, m->cap, m->g, value_id);
    m->count++;
}
