/* kernel_nonzero.h - NonZero: the indices of the non-zero elements, as an
 * int64 [rank, N] array (row d holds the d-th coordinate of every hit, in
 * row-major order), written compactly for the actual N, which goes to
 * dims = {rank, N}. A scalar counts as rank 1 (ONNX's reference).
 * With a row stride (an operand of other operators, kernel_dyn.h) the rows
 * are that far apart and the rest of y is zero.
 * buf: x, y (int64), dims (int64[2]); iarg: dtype, rank, numel, shape[rank],
 * row stride (0: compact). */
static void ctvm_k_nonzero(void *const *buf, const int64_t *iarg, const double *farg)
{
    const void *x = buf[0];
    int64_t *y = (int64_t *)buf[1], *dims = (int64_t *)buf[2];
    int dt = (int)iarg[0], rank = (int)iarg[1];
    int64_t numel = iarg[2], n = 0, stride = iarg[3 + rank];
    const int64_t *shape = iarg + 3;
    (void)farg;
    for (int64_t i = 0; i < numel; i++)
        n += ctvm_knonzero(x, i, dt);
    if (stride)
        for (int64_t i = 0; i < (rank ? rank : 1) * stride; i++)
            y[i] = 0;
    else
        stride = n;
    int64_t k = 0;
    for (int64_t i = 0; i < numel; i++) {
        if (!ctvm_knonzero(x, i, dt))
            continue;
        int64_t rest = i;
        for (int d = rank - 1; d >= 0; d--) {
            y[(int64_t)d * stride + k] = rest % shape[d];
            rest /= shape[d];
        }
        if (rank == 0)
            y[k] = 0;
        k++;
    }
    dims[0] = rank ? rank : 1;
    dims[1] = n;
}
