/* search.c - model-guided evolutionary search over knob indices (see
 * search.h and docs/TUNING.md).
 *
 * A point is a vector of value indices, encoded as one mixed-radix id; two
 * bitmaps over the ids say what is measured and what this round already
 * proposed. Each round breeds many children of the best measured points
 * (mutation: one or two knobs a step or a random value away; crossover:
 * each knob from one of two parents), ranks them by a k-nearest-neighbour
 * estimate of log(time), and measures the best-ranked, with a few random
 * points mixed in so the model's blind spots get sampled too. */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    K_NEAREST = 5,     /* neighbours the model averages */
    N_ELITE = 8,       /* parents: the best measured points */
    POOL_PER_SLOT = 48 /* children bred per candidate measured */
};
static const double EXPLORE = 0.15;      /* share of random candidates */
static const double FAIL_PENALTY = 1.4;  /* log-time a failed point counts above the worst */

typedef struct Obs {
    uint32_t id;
    float x[TUNE_MAX_KNOBS]; /* index / (n_values - 1), in [0, 1] */
    double ms;               /* as measured */
    double y;                /* log(ms); NAN when the point failed */
} Obs;

typedef struct Search {
    const TuneSpace *sp;
    int nk;
    uint32_t size, stride[TUNE_MAX_KNOBS];
    uint8_t *measured, *proposed; /* bitmaps over ids */
    uint32_t n_measured;
    Obs *obs;
    int n_obs, cap_obs;
    int *elite, n_elite; /* obs indices of the best OK points, best first */
    int n_ok;
    double worst_y;      /* log(ms) of the slowest OK point */
    uint64_t rng;
} Search;

typedef struct Cand {
    uint32_t id;
    double score; /* predicted log(ms) */
} Cand;

/* splitmix64: a full-period 64-bit generator, small and good enough. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((rng_next(s) >> 32) * (uint64_t)n) >> 32);
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * 0x1p-53;
}

static int bit_get(const uint8_t *b, uint32_t i) { return b[i >> 3] >> (i & 7) & 1; }
static void bit_set(uint8_t *b, uint32_t i) { b[i >> 3] |= (uint8_t)(1u << (i & 7)); }
static void bit_clear(uint8_t *b, uint32_t i) { b[i >> 3] &= (uint8_t)~(1u << (i & 7)); }

static void decode(const Search *s, uint32_t id, int idx[TUNE_MAX_KNOBS])
{
    for (int k = 0; k < TUNE_MAX_KNOBS; k++)
        idx[k] = k < s->nk ? (int)(id / s->stride[k] % (uint32_t)s->sp->n_values[k]) : 0;
}

static uint32_t encode(const Search *s, const int idx[TUNE_MAX_KNOBS])
{
    uint32_t id = 0;
    for (int k = 0; k < s->nk; k++)
        id += (uint32_t)idx[k] * s->stride[k];
    return id;
}

static void knob_values(const Search *s, uint32_t id, int out[TUNE_MAX_KNOBS])
{
    int idx[TUNE_MAX_KNOBS];
    decode(s, id, idx);
    for (int k = 0; k < TUNE_MAX_KNOBS; k++)
        out[k] = k < s->nk ? s->sp->values[k][idx[k]] : 0;
}

/* The id of a vector of knob values, or -1 if a value is not in the space. */
static int64_t id_of_values(const Search *s, const int v[TUNE_MAX_KNOBS])
{
    int idx[TUNE_MAX_KNOBS] = {0};
    for (int k = 0; k < s->nk; k++) {
        idx[k] = -1;
        for (int j = 0; j < s->sp->n_values[k] && idx[k] < 0; j++)
            if (s->sp->values[k][j] == v[k])
                idx[k] = j;
        if (idx[k] < 0)
            return -1;
    }
    return encode(s, idx);
}

static void coords(const Search *s, uint32_t id, float x[TUNE_MAX_KNOBS])
{
    int idx[TUNE_MAX_KNOBS];
    decode(s, id, idx);
    for (int k = 0; k < TUNE_MAX_KNOBS; k++) {
        int n = k < s->nk ? s->sp->n_values[k] : 1;
        x[k] = n > 1 ? (float)idx[k] / (float)(n - 1) : 0.0f;
    }
}

/* Inserts obs i into the elite list if it is among the N_ELITE best. */
static void elite_offer(Search *s, int i)
{
    double y = s->obs[i].y;
    int pos = s->n_elite;
    while (pos > 0 && y < s->obs[s->elite[pos - 1]].y)
        pos--;
    if (pos >= N_ELITE)
        return;
    int last = s->n_elite < N_ELITE ? s->n_elite++ : N_ELITE - 1;
    memmove(&s->elite[pos + 1], &s->elite[pos], (size_t)(last - pos) * sizeof *s->elite);
    s->elite[pos] = i;
}

static int observe(Search *s, uint32_t id, double ms, TuneStatus st)
{
    if (s->n_obs == s->cap_obs) {
        int cap = s->cap_obs ? 2 * s->cap_obs : 64;
        Obs *p = realloc(s->obs, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        s->obs = p;
        s->cap_obs = cap;
    }
    Obs *o = &s->obs[s->n_obs];
    o->id = id;
    coords(s, id, o->x);
    int ok = st == TUNE_OK && isfinite(ms) && ms >= 0;
    o->ms = ms;
    o->y = ok ? log(ms > 1e-9 ? ms : 1e-9) : NAN;
    bit_set(s->measured, id);
    s->n_measured++;
    s->n_obs++;
    if (ok) {
        if (s->n_ok++ == 0 || o->y > s->worst_y)
            s->worst_y = o->y;
        elite_offer(s, s->n_obs - 1);
    }
    return 0;
}

/* k-nearest-neighbour estimate of log(time) at id, inverse-distance
 * weighted; failed points count as FAIL_PENALTY above the slowest OK one. */
static double predict(const Search *s, uint32_t id)
{
    float x[TUNE_MAX_KNOBS];
    coords(s, id, x);
    double best_d[K_NEAREST], best_y[K_NEAREST];
    int m = 0;
    double fail_y = s->worst_y + FAIL_PENALTY;
    for (int i = 0; i < s->n_obs; i++) {
        const Obs *o = &s->obs[i];
        double d = 0;
        for (int k = 0; k < s->nk; k++)
            d += (double)(x[k] - o->x[k]) * (double)(x[k] - o->x[k]);
        if (m == K_NEAREST && d >= best_d[m - 1])
            continue;
        int pos = m < K_NEAREST ? m++ : K_NEAREST - 1;
        while (pos > 0 && d < best_d[pos - 1]) {
            best_d[pos] = best_d[pos - 1];
            best_y[pos] = best_y[pos - 1];
            pos--;
        }
        best_d[pos] = d;
        best_y[pos] = isnan(o->y) ? fail_y : o->y;
    }
    double sw = 0, sy = 0;
    for (int j = 0; j < m; j++) {
        double w = 1.0 / (best_d[j] + 1e-3);
        sw += w;
        sy += w * best_y[j];
    }
    return sw > 0 ? sy / sw : 0;
}

static int is_free(const Search *s, uint32_t id)
{
    return !bit_get(s->measured, id) && !bit_get(s->proposed, id);
}

/* A random point neither measured nor proposed, or -1 if none is left. */
static int64_t random_free(Search *s)
{
    for (int t = 0; t < 64; t++) {
        uint32_t id = rng_below(&s->rng, s->size);
        if (is_free(s, id))
            return id;
    }
    uint32_t start = rng_below(&s->rng, s->size);
    for (uint32_t j = 0; j < s->size; j++) {
        uint32_t id = (start + j) % s->size;
        if (is_free(s, id))
            return id;
    }
    return -1;
}

/* One of the elite, biased to the best (the better of two random picks). */
static uint32_t pick_parent(Search *s)
{
    uint32_t a = rng_below(&s->rng, (uint32_t)s->n_elite);
    uint32_t b = rng_below(&s->rng, (uint32_t)s->n_elite);
    return s->obs[s->elite[a < b ? a : b]].id;
}

/* Moves knob k of idx a step up or down, or (1 time in 5) to a random other value. */
static void mutate_knob(Search *s, int idx[TUNE_MAX_KNOBS], int k)
{
    int n = s->sp->n_values[k];
    if (rng_unit(&s->rng) < 0.8) {
        int step = rng_next(&s->rng) & 1 ? 1 : -1;
        if (idx[k] + step < 0 || idx[k] + step >= n)
            step = -step;
        idx[k] += step;
    } else {
        idx[k] = (idx[k] + 1 + (int)rng_below(&s->rng, (uint32_t)n - 1)) % n;
    }
}

/* A child of the elite: a mutant of one parent, or a crossover of two that
 * is also mutated half of the time. */
static uint32_t breed(Search *s, const int *movable, int n_movable)
{
    int idx[TUNE_MAX_KNOBS];
    decode(s, pick_parent(s), idx);
    int mutate = 1;
    if (s->n_elite > 1 && rng_unit(&s->rng) < 0.3) {
        int other[TUNE_MAX_KNOBS];
        decode(s, pick_parent(s), other);
        for (int k = 0; k < s->nk; k++)
            if (rng_next(&s->rng) & 1)
                idx[k] = other[k];
        mutate = rng_unit(&s->rng) < 0.5;
    }
    if (mutate) {
        int k1 = movable[rng_below(&s->rng, (uint32_t)n_movable)];
        mutate_knob(s, idx, k1);
        if (n_movable > 1 && rng_unit(&s->rng) < 0.3) {
            int k2 = movable[rng_below(&s->rng, (uint32_t)n_movable)];
            if (k2 != k1)
                mutate_knob(s, idx, k2);
        }
    }
    return encode(s, idx);
}

static int cand_cmp(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Fills ids[0..n-1] with the next batch (fewer when the space runs out);
 * marks them proposed. Returns how many. */
static int next_batch(Search *s, int n, uint32_t *ids, Cand *pool, int pool_cap)
{
    int movable[TUNE_MAX_KNOBS], n_movable = 0;
    for (int k = 0; k < s->nk; k++)
        if (s->sp->n_values[k] > 1)
            movable[n_movable++] = k;
    int n_pool = 0;
    if (s->n_elite > 0 && n_movable > 0) {
        for (int t = 0; t < 4 * pool_cap && n_pool < pool_cap; t++) {
            uint32_t id = breed(s, movable, n_movable);
            if (!is_free(s, id))
                continue;
            bit_set(s->proposed, id);
            pool[n_pool++] = (Cand){id, predict(s, id)};
        }
        for (int i = 0; i < n_pool; i++)
            bit_clear(s->proposed, pool[i].id);
        qsort(pool, (size_t)n_pool, sizeof *pool, cand_cmp);
    }
    int got = 0, next = 0;
    while (got < n) {
        int64_t id = -1;
        if (rng_unit(&s->rng) >= EXPLORE)
            while (next < n_pool && id < 0)
                if (is_free(s, pool[next++].id))
                    id = pool[next - 1].id;
        if (id < 0)
            id = random_free(s);
        if (id < 0)
            break;
        bit_set(s->proposed, (uint32_t)id);
        ids[got++] = (uint32_t)id;
    }
    return got;
}

static int space_ok(const TuneSpace *sp)
{
    if (!sp || sp->n_knobs < 1 || sp->n_knobs > TUNE_MAX_KNOBS)
        return 0;
    for (int k = 0; k < sp->n_knobs; k++)
        if (sp->n_values[k] < 1 || sp->n_values[k] > TUNE_MAX_VALUES)
            return 0;
    return 1;
}

int tune_search(const TuneSpace *sp, const TuneSearchOpts *o, TuneMeasureBatch measure,
                void *user, int best_knobs[TUNE_MAX_KNOBS], double *best_ms)
{
    if (!space_ok(sp) || !o || !measure)
        return -1;
    Search s = {.sp = sp, .nk = sp->n_knobs, .size = 1, .rng = o->seed};
    for (int k = 0; k < s.nk; k++) {
        s.stride[k] = s.size;
        s.size *= (uint32_t)sp->n_values[k];
    }
    int batch = o->batch > 0 ? o->batch : 8;
    int max_trials = o->max_trials > 0 && (uint32_t)o->max_trials < s.size ? o->max_trials
                                                                           : (int)s.size;
    int pool_cap = batch * POOL_PER_SLOT;
    s.measured = calloc(s.size / 8 + 1, 1);
    s.proposed = calloc(s.size / 8 + 1, 1);
    s.elite = malloc(N_ELITE * sizeof *s.elite);
    uint32_t *ids = malloc((size_t)batch * sizeof *ids);
    int(*knobs)[TUNE_MAX_KNOBS] = malloc((size_t)batch * sizeof *knobs);
    double *ms = malloc((size_t)batch * sizeof *ms);
    TuneStatus *st = malloc((size_t)batch * sizeof *st);
    Cand *pool = malloc((size_t)pool_cap * sizeof *pool);
    int trials = -1;
    if (!s.measured || !s.proposed || !s.elite || !ids || !knobs || !ms || !st || !pool)
        goto out;

    for (int i = 0; i < o->n_measured; i++) {
        int64_t id = id_of_values(&s, o->measured[i]);
        if (id >= 0 && !bit_get(s.measured, (uint32_t)id) &&
            observe(&s, (uint32_t)id, o->measured_ms[i], o->measured_status[i]) != 0)
            goto out;
    }
    /* The first batch: the initial points, then random ones up to a batch
     * (fewer when prior OK points already seed the model). */
    int n_first = 0;
    for (int i = 0; i < o->n_initial && n_first < batch; i++) {
        int64_t id = id_of_values(&s, o->initial[i]);
        if (id >= 0 && is_free(&s, (uint32_t)id)) {
            bit_set(s.proposed, (uint32_t)id);
            ids[n_first++] = (uint32_t)id;
        }
    }
    int n_random = batch - n_first - s.n_elite;
    for (int i = 0; i < n_random; i++) {
        int64_t id = random_free(&s);
        if (id < 0)
            break;
        bit_set(s.proposed, (uint32_t)id);
        ids[n_first++] = (uint32_t)id;
    }

    /* A gain: ms < best_ms * (1 - min_gain), compared in log space. */
    double log_keep = log1p(-fmin(fmax(o->min_gain, 0.0), 0.999));
    int done = 0, since_gain = 0;
    double best = s.n_elite ? s.obs[s.elite[0]].y : HUGE_VAL;
    while (done < max_trials && s.n_measured < s.size) {
        int n = n_first;
        n_first = 0;
        if (n == 0) {
            if (o->patience > 0 && since_gain >= o->patience)
                break;
            n = next_batch(&s, batch < max_trials - done ? batch : max_trials - done, ids, pool,
                           pool_cap);
        }
        if (n > max_trials - done)
            n = max_trials - done;
        if (n == 0)
            break;
        for (int i = 0; i < n; i++) {
            knob_values(&s, ids[i], knobs[i]);
            bit_clear(s.proposed, ids[i]);
        }
        measure(user, n, (const int(*)[TUNE_MAX_KNOBS])knobs, ms, st);
        for (int i = 0; i < n; i++) {
            if (observe(&s, ids[i], ms[i], st[i]) != 0)
                goto out;
            double y = s.obs[s.n_obs - 1].y;
            if (!isnan(y) && (best == HUGE_VAL || y < best + log_keep))
                since_gain = 0;
            else
                since_gain++;
            if (!isnan(y) && y < best)
                best = y;
        }
        done += n;
        if (o->progress)
            o->progress(user, done, s.n_elite ? s.obs[s.elite[0]].ms : HUGE_VAL);
    }
    trials = done;

out:
    if (trials >= 0 && s.n_elite > 0) {
        const Obs *b = &s.obs[s.elite[0]];
        knob_values(&s, b->id, best_knobs);
        *best_ms = b->ms;
    } else {
        trials = -1;
    }
    free(s.measured);
    free(s.proposed);
    free(s.elite);
    free(s.obs);
    free(ids);
    free(knobs);
    free(ms);
    free(st);
    free(pool);
    return trials;
}
