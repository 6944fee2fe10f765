/* kernel_unique.h - Unique: the distinct slices of x along an axis (or
 * distinct elements of flattened x), with the index of each one's first
 * occurrence, the inverse map (for every slice of x, its position in the
 * output) and the counts. sorted = 1 orders the output ascending
 * (lexicographically for slices, NaN last, as numpy.unique); sorted = 0
 * keeps the order of first occurrence. Written compactly for the actual
 * number K of distinct slices; K goes into the dims of every dynamic output.
 * buf: x, y, indices, inverse, counts (any of the last four may be null),
 *      y_dims, indices_dims, counts_dims (null when absent), scratch
 *      (int64[2 * n]);
 * iarg: dtype, sorted, n (slices along the axis), outer, inner (elements
 *       per slice and outer index), y rank, axis position in y, y dims. */
static int ctvm_kunique_cmp(const void *x, int64_t a, int64_t b, int64_t outer, int64_t n, int64_t inner, int dt)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int c = ctvm_kcmp(x, (o * n + a) * inner + i, x, (o * n + b) * inner + i, dt);
            if (c)
                return c;
        }
    return 0;
}

static void ctvm_k_unique(void *const *buf, const int64_t *iarg, const double *farg)
{
    const unsigned char *x = (const unsigned char *)buf[0];
    unsigned char *y = (unsigned char *)buf[1];
    int64_t *idx = (int64_t *)buf[2], *inv = (int64_t *)buf[3], *cnt = (int64_t *)buf[4];
    int64_t *ydims = (int64_t *)buf[5], *idims = (int64_t *)buf[6], *cdims = (int64_t *)buf[7];
    int64_t *first = (int64_t *)buf[8], *pos = first + iarg[2];
    int dt = (int)iarg[0], sorted = (int)iarg[1], rank = (int)iarg[5], at = (int)iarg[6];
    int64_t n = iarg[2], outer = iarg[3], inner = iarg[4], k = 0, es = ctvm_kbytes(dt);
    (void)farg;
    /* first occurrences, in order */
    for (int64_t i = 0; i < n; i++) {
        int64_t j = 0;
        while (j < k && ctvm_kunique_cmp(x, first[j], i, outer, n, inner, dt) != 0)
            j++;
        if (j == k)
            first[k++] = i;
    }
    /* output position of each distinct slice */
    for (int64_t j = 0; j < k; j++) {
        int64_t p = j;
        if (sorted) {
            p = 0;
            for (int64_t m = 0; m < k; m++)
                p += ctvm_kunique_cmp(x, first[m], first[j], outer, n, inner, dt) < 0;
        }
        pos[j] = p;
    }
    for (int64_t j = 0; j < k; j++) {
        int64_t p = pos[j];
        if (y)
            for (int64_t o = 0; o < outer; o++)
                ctvm_kcopy(y + ((o * k + p) * inner) * es, x + ((o * n + first[j]) * inner) * es, inner * es);
        if (idx)
            idx[p] = first[j];
        if (cnt) {
            int64_t c = 0;
            for (int64_t i = 0; i < n; i++)
                c += ctvm_kunique_cmp(x, first[j], i, outer, n, inner, dt) == 0;
            cnt[p] = c;
        }
    }
    if (inv)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < k; j++)
                if (ctvm_kunique_cmp(x, first[j], i, outer, n, inner, dt) == 0) {
                    inv[i] = pos[j];
                    break;
                }
    if (ydims)
        for (int d = 0; d < rank; d++)
            ydims[d] = d == at ? k : iarg[7 + d];
    if (idims)
        idims[0] = k;
    if (cdims)
        cdims[0] = k;
}
