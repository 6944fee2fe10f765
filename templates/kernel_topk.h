/* kernel_topk.h - TopK: the k largest (or smallest) elements of every row
 * along an axis and their indices, best first; equal values keep the lower
 * index first (the reference's stable order). Rows are [outer, n, inner]
 * around the axis. Each of the k picks scans the row for the best element
 * that comes after the previous pick in the strict total order (value,
 * then index), so no scratch memory is needed. NaN orders after every
 * number (ctvm_kcmp), i.e. as the largest value.
 * buf: x, values, indices (int64);
 * iarg: dtype, outer, n, inner, k, largest. */
static void ctvm_k_topk(void *const *buf, const int64_t *iarg, const double *farg)
{
    const unsigned char *x = (const unsigned char *)buf[0];
    unsigned char *y = (unsigned char *)buf[1];
    int64_t *idx = (int64_t *)buf[2];
    int dt = (int)iarg[0], largest = (int)iarg[5];
    int64_t outer = iarg[1], n = iarg[2], inner = iarg[3], k = iarg[4];
    (void)farg;
    ctvm_ktopk_rows(x, y, idx, dt, largest, outer, n, n, inner, k, k); /* kernel_util.h */
}
