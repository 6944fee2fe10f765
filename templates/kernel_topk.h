/* kernel_topk.h - TopK: the k largest (or smallest) elements of every row
 * along an axis and their indices, best first; equal values keep the lower
 * index first (the reference's stable order). Rows are [outer, n, inner]
 * around the axis. Each of the k picks scans the row for the best element
 * that comes after the previous pick in the strict total order (value,
 * then index), so no scratch memory is needed. NaN orders after every
 * number (ctvm_kcmp), i.e. as the largest value.
 * buf: x, values, indices (int64);
 * iarg: dtype, outer, n, inner, k, largest. */
/* element a precedes element b of the row at base (stride inner) */
static int ctvm_ktopk_before(const void *x, int64_t base, int64_t inner, int64_t a, int64_t b, int dt, int largest)
{
    int c = ctvm_kcmp(x, base + a * inner, x, base + b * inner, dt);
    if (largest)
        c = -c;
    return c < 0 || (c == 0 && a < b);
}

static void ctvm_k_topk(void *const *buf, const int64_t *iarg, const double *farg)
{
    const unsigned char *x = (const unsigned char *)buf[0];
    unsigned char *y = (unsigned char *)buf[1];
    int64_t *idx = (int64_t *)buf[2];
    int dt = (int)iarg[0], largest = (int)iarg[5];
    int64_t outer = iarg[1], n = iarg[2], inner = iarg[3], k = iarg[4], es = ctvm_kbytes(dt);
    (void)farg;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * n * inner + i, obase = o * k * inner + i, prev = -1;
            for (int64_t j = 0; j < k; j++) {
                int64_t best = -1;
                for (int64_t m = 0; m < n; m++) {
                    if (prev >= 0 && !ctvm_ktopk_before(x, base, inner, prev, m, dt, largest))
                        continue;
                    if (best < 0 || ctvm_ktopk_before(x, base, inner, m, best, dt, largest))
                        best = m;
                }
                if (best < 0)
                    best = 0; /* not reached: k <= n */
                {
                    int64_t src = (base + best * inner) * es, dst = (obase + j * inner) * es, b;
                    for (b = 0; b < es; b++)
                        y[dst + b] = x[src + b];
                }
                idx[obase + j * inner] = best;
                prev = best;
            }
        }
}
