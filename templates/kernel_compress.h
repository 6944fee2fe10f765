/* kernel_compress.h - Compress: the slices of x along an axis (or the
 * elements of flattened x) whose condition is true; a condition shorter
 * than the axis selects nothing past its end. Written compactly; the actual
 * dims go to dims.
 * buf: x, cond (bool), y, dims; iarg: element bytes, outer, axis length,
 * inner, condition length, output rank, position of the selected axis in
 * the output, then the output's upper-bound dims. */
static void ctvm_k_compress(void *const *buf, const int64_t *iarg, const double *farg)
{
    const unsigned char *x = (const unsigned char *)buf[0], *cond = (const unsigned char *)buf[1];
    unsigned char *y = (unsigned char *)buf[2];
    int64_t *dims = (int64_t *)buf[3];
    int64_t es = iarg[0], outer = iarg[1], len = iarg[2], inner = iarg[3], clen = iarg[4];
    int rank = (int)iarg[5], at = (int)iarg[6];
    int64_t lim = clen < len ? clen : len, k = 0;
    (void)farg;
    for (int64_t a = 0; a < lim; a++)
        k += cond[a] != 0;
    int64_t w = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < lim; a++)
            if (cond[a]) {
                ctvm_kcopy(y + w, x + ((o * len + a) * inner) * es, inner * es);
                w += inner * es;
            }
    for (int d = 0; d < rank; d++)
        dims[d] = d == at ? k : iarg[7 + d];
}
