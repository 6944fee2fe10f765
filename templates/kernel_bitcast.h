/* kernel_bitcast.h - BitCast: the bytes of x reinterpreted as another type
 * of the same width, i.e. a byte copy (ctvm stores every type little endian
 * in the target's own order, so the bit pattern is kept as it is).
 * buf: x, y; iarg: bytes. */
static void ctvm_k_bitcast(void *const *buf, const int64_t *iarg, const double *farg)
{
    const unsigned char *x = (const unsigned char *)buf[0];
    unsigned char *y = (unsigned char *)buf[1];
    int64_t n = iarg[0], i;
    (void)farg;
    for (i = 0; i < n; i++)
        y[i] = x[i];
}
