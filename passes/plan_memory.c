/* plan_memory.c - pass "plan_memory": storage classes and arena offsets.
 *
 * Every runtime value gets a storage class: constants stay in the weight
 * blob, graph inputs and outputs are the caller's pointers, views share
 * their root's bytes, values inside a fused group are never materialised,
 * and the rest live in one workspace arena. Liveness is measured in group
 * steps (ir/exec_order.h): a value is live from the step that writes it to
 * the last step that reads it or any view of it. Offsets are chosen by two
 * greedy plans, the smaller kept: in order of definition, each block at the
 * lowest 64-byte-aligned gap among the blocks live at its step; and largest
 * block first, each at the lowest gap among the blocks already placed whose
 * lifetimes overlap its own (TFLite's greedy-by-size). A block read at step
 * t is still live while outputs of step t are placed, so a group never
 * writes over its own inputs. Each C storage
 * type (float, int64_t, uint16_t, ...) has its own region of the arena, so
 * bytes are only ever accessed as one type, except that uint8/int8 values
 * (character types, which may alias anything) share the float region. */
#include <stdlib.h>
#include <string.h>

#include "ir/exec_order.h"
#include "passes.h"

enum { ALIGN = 64 };
/* Workspace bound: offsets stay far from int64 overflow (every value is at
 * most 2^31 elements, so only a graph of millions of them gets near it). */
#define CTVM_MAX_ARENA_BYTES (INT64_C(1) << 62)

typedef struct Block {
    int64_t off, size;
} Block;

static int64_t align_up(int64_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }

/* Arena regions: values whose elements have the same C storage type share one. */
static const char *const CLASSES[] = {"float", "double", "int64_t", "int32_t", "int16_t", "int8_t",
                                      "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
enum { N_CLASSES = sizeof CLASSES / sizeof CLASSES[0] };

static int storage_class(DType t)
{
    /* quantized activations are bytes, which C lets alias any type (an
       access through a character type may touch any object), so they share
       the float region: an int8 model's uint8 values reuse the bytes of its
       float32 epilogue values instead of a region of their own */
    if (t == DT_UINT8 || t == DT_INT8)
        return 0;
    const char *c = dtype_c_storage(t);
    for (int i = 0; i < N_CLASSES; i++)
        if (strcmp(CLASSES[i], c) == 0)
            return i;
    return 0;
}

static int cmp_block(const void *a, const void *b)
{
    const Block *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Lowest offset where `size` fits among the live blocks (sorted by offset). */
static int64_t first_fit(const Block *live, int n, int64_t size)
{
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        if (live[i].off - at >= size)
            return at;
        if (live[i].off + live[i].size > at)
            at = align_up(live[i].off + live[i].size);
    }
    return at;
}

/* A block to place: value v, live from step def to step last (inclusive:
 * a block read at step t is still live while step t's outputs are placed). */
typedef struct Item {
    int v, def, last;
    int64_t size;
} Item;

/* largest first; ties in order of definition (the items' own order) */
typedef struct SizeKey {
    int64_t size;
    int i;
} SizeKey;

static int cmp_size(const void *a, const void *b)
{
    const SizeKey *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Offsets off[i] for items[0..n) (in order of definition), placed in that
 * order (by_size 0) or largest first (1); returns the region's size. The
 * blocks in the way of item i are the placed ones whose lifetimes overlap
 * its own; scratch: n Blocks. */
static int64_t plan(const Item *items, int n, Block *scratch, int64_t *off, int by_size)
{
    int *ord = malloc(sizeof(int) * (size_t)n);
    SizeKey *key = malloc(sizeof(SizeKey) * (size_t)n);
    char *placed = calloc((size_t)n, 1);
    if (!ord || !key || !placed) {
        free(ord), free(key), free(placed);
        return INT64_MAX;
    }
    for (int i = 0; i < n; i++)
        key[i] = (SizeKey){items[i].size, i};
    if (by_size)
        qsort(key, (size_t)n, sizeof(SizeKey), cmp_size);
    for (int i = 0; i < n; i++)
        ord[i] = key[i].i;
    free(key);
    int64_t peak = 0;
    for (int k = 0; k < n; k++) {
        const Item *it = &items[ord[k]];
        int m = 0;
        for (int j = 0; j < n; j++)
            if (placed[j] && items[j].def <= it->last && it->def <= items[j].last)
                scratch[m++] = (Block){off[j], items[j].size};
        qsort(scratch, (size_t)m, sizeof(Block), cmp_block);
        off[ord[k]] = first_fit(scratch, m, it->size);
        placed[ord[k]] = 1;
        if (off[ord[k]] + it->size > peak)
            peak = off[ord[k]] + it->size;
    }
    free(ord), free(placed);
    return peak;
}

static void set_storage(Graph *g)
{
    for (int v = 0; v < g->n_values; v++) {
        Value *val = &g->values[v];
        if (val->storage == STORE_VIEW || val->storage == STORE_OUTDIMS)
            continue;
        val->storage = STORE_NONE;
        if (val->data)
            val->storage = STORE_CONST;
        else if (val->is_input)
            val->storage = STORE_INPUT;
    }
    for (int k = 0; k < g->n_outputs; k++) {
        Value *val = &g->values[g->outputs[k]];
        if (val->storage == STORE_NONE) {
            val->storage = STORE_OUTPUT;
            val->io_index = k;
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || n->is_view)
            continue;
        /* only the last node of a fused group writes memory */
        int fused_away = n->n_epi > 0 || (n->fused_into >= 0 && group_last_node(g, n->fused_into) != i);
        for (int k = 0; k < n->n_out; k++) {
            int v = n->out[k];
            if (v < 0 || g->values[v].storage != STORE_NONE)
                continue;
            /* an anchor's extra outputs (scratch: ctvm.WinogradConv) are
               written even when its first output is fused away */
            if (!fused_away || (k > 0 && n->n_epi > 0))
                g->values[v].storage = STORE_ARENA;
        }
    }
}

int pass_plan_memory(Graph *g, Diag *d)
{
    for (int k = 0; k < g->n_outputs; k++) {
        const Value *o = &g->values[g->outputs[k]];
        if (o->data || o->is_input)
            return diag_error(d, g, -1, "graph output '%s' is a constant or an input; nothing to compute",
                              o->name);
    }
    set_storage(g);
    int *order = malloc(sizeof(int) * (size_t)(g->n_nodes + 1));
    int *def = malloc(sizeof(int) * (size_t)(g->n_values + 1));
    int *last = malloc(sizeof(int) * (size_t)(g->n_values + 1));
    Block *live = malloc(sizeof(Block) * (size_t)(g->n_values + 1));
    if (!order || !def || !last || !live) {
        free(order), free(def), free(last), free(live);
        return diag_error(d, g, -1, "out of memory planning memory");
    }
    int steps = graph_exec_order(g, order);
    for (int v = 0; v < g->n_values; v++)
        def[v] = last[v] = -1;
    for (int s = 0; s < steps; s++) {
        const Node *a = &g->nodes[order[s]];
        for (int m = -1; m < a->n_epi; m++) {
            const Node *n = m < 0 ? a : &g->nodes[a->epi[m]];
            for (int k = 0; k < n->n_in; k++)
                if (n->in[k] >= 0) {
                    int r = value_root(g, n->in[k]);
                    last[r] = s;
                }
            for (int k = 0; k < n->n_out; k++)
                if (n->out[k] >= 0 && def[n->out[k]] < 0)
                    def[n->out[k]] = s;
        }
    }
    /* the run-time dims of a data-dependent value are read with its data */
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].dyn && g->values[v].dyn_dims >= 0 && last[g->values[v].dyn_dims] < last[v])
            last[g->values[v].dyn_dims] = last[v];
    /* one region per C storage type, float first: bytes are never reused by
       another type, so no compiler can reorder a float store past an int64
       load of the same bytes (strict aliasing) */
    int64_t total = 0;
    Item *items = malloc(sizeof(Item) * (size_t)(g->n_values + 1));
    int64_t *off_a = malloc(sizeof(int64_t) * (size_t)(g->n_values + 1));
    int64_t *off_b = malloc(sizeof(int64_t) * (size_t)(g->n_values + 1));
    int rc = !items || !off_a || !off_b ? diag_error(d, g, -1, "out of memory planning memory") : 0;
    for (int cls = 0; cls < N_CLASSES && !rc; cls++) {
        int n = 0;
        for (int v = 0; v < g->n_values && !rc; v++) {
            Value *val = &g->values[v];
            if (def[v] < 0 || val->storage != STORE_ARENA || storage_class(val->dtype) != cls)
                continue;
            int64_t bytes;
            if (!value_bytes(val, &bytes))
                rc = diag_error(d, g, val->producer, "value '%s' has no static size", val->name);
            else if (bytes > CTVM_MAX_ARENA_BYTES)
                rc = diag_error(d, g, val->producer, "the workspace would exceed %lld bytes at value '%s'",
                                (long long)CTVM_MAX_ARENA_BYTES, val->name);
            else
                items[n++] = (Item){v, def[v], last[v] > def[v] ? last[v] : def[v], align_up(bytes ? bytes : 1)};
        }
        if (rc || !n)
            continue;
        /* two greedy plans, the smaller kept: in order of definition (the
           lowest gap among the blocks live at that step), and largest first
           (each block at the lowest offset clear of the blocks placed before
           it whose lifetimes overlap its own), which packs the big
           activations of a long chain where the first leaves holes */
        int64_t peak_a = plan(items, n, live, off_a, 0), peak_b = plan(items, n, live, off_b, 1), end;
        if (peak_a == INT64_MAX && peak_b == INT64_MAX) {
            rc = diag_error(d, g, -1, "out of memory planning memory");
            break;
        }
        const int64_t *off = peak_b < peak_a ? off_b : off_a;
        int64_t peak = peak_b < peak_a ? peak_b : peak_a, base = align_up(total);
        if (__builtin_add_overflow(base, peak, &end) || end > CTVM_MAX_ARENA_BYTES) {
            int top = 0; /* name the block that ends highest */
            for (int i = 1; i < n; i++)
                if (off[i] + items[i].size > off[top] + items[top].size)
                    top = i;
            const Value *tv = &g->values[items[top].v];
            rc = diag_error(d, g, tv->producer, "the workspace would exceed %lld bytes at value '%s'",
                            (long long)CTVM_MAX_ARENA_BYTES, tv->name);
            break;
        }
        for (int i = 0; i < n; i++)
            g->values[items[i].v].offset = base + off[i];
        total = end;
    }
    free(items), free(off_a), free(off_b);
    if (rc) {
        free(order), free(def), free(last), free(live);
        return rc;
    }
    int64_t peak = total;
    g->arena_bytes = peak;
    free(order), free(def), free(last), free(live);
    return 0;
}
