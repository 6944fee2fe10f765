/* kernel_dyn.h - the run-time side of values with data-dependent shapes
 * (Value.dyn, ops/dynprop.c).
 *
 * A dyn value lives in a buffer of its upper-bound shape, padded: element
 * (i0, .., ir) of the actual tensor sits where the bound shape's row-major
 * layout puts it, so operators that compute every element of the bound
 * (elementwise, Transpose, Gather, Squeeze, ...) are exact on the actual
 * extents and only their dims need computing. Its actual dims are an
 * int64[rank] array. The kernels here do what needs the actual extents;
 * iarg[0] selects one:
 *   0 DIMS    dims of an output from the dims (or int64 data) of inputs:
 *             buf: out dims, then any buffers the program names;
 *             iarg: 0, n, then n instructions (mode, r, j, a, p0, p1, p2):
 *             x = j > 0 ? buf[j][a] : p0; mode 0: d[r] = p0, 1: d[r] = x,
 *             2: d[r] = d[r] == 1 ? x : d[r] (broadcast, start from 1),
 *             3: d[r] = slice length of x for start p0 >= 0, end p1 >= 0
 *             and step p2 > 0, 4: d[r] += x.
 *   1 APPEND  Concat along an axis on the actual extents: buf: in, in dims
 *             (null: the bound), out, out dims; iarg: 1, element bytes,
 *             rank, axis, first, in bound[rank], out bound[rank]. The first
 *             part zeroes the output and sets its dims.
 *   2 SELECT  If with a run-time condition: buf: cond, a, a dims, b, b dims,
 *             out, out dims; iarg: 2, element bytes, rank, cond dtype,
 *             a bound, b bound, out bound.
 *   3 REDUCE  Reduce* over the actual extents: buf: x, x dims, y; iarg: 3,
 *             dtype, rank, reducer (0 sum, 1 max, 2 min, 3 prod, 4 mean),
 *             bound[rank], reduced[rank] (0/1). y is laid out over the bound
 *             with the reduced axes of extent 1.
 *   4 TOPK    TopK with a run-time k and/or input extent: buf: x, x dims
 *             (null: the bound), values, indices, k (null: iarg), values
 *             dims, indices dims (null: none); iarg: 4, dtype, rank, axis,
 *             largest, k, x bound[rank], k bound.
 *   5 SHAPE   Shape of a dyn value: buf: x dims, y; iarg: 5, start, end.
 *   6 COMPACT in place, padded to row-major over the actual dims (a graph
 *             output): buf: data, dims; iarg: 6, element bytes, rank,
 *             bound[rank]. */

/* copies the actual extent ext[] of src (bound sb[]) into dst (bound db[])
 * with an offset `off` along axis `axis` of dst */
static void ctvm_kdyn_region(unsigned char *dst, const int64_t *db, const unsigned char *src, const int64_t *sb,
                             const int64_t *ext, int rank, int64_t es, int axis, int64_t off)
{
    int64_t idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, total = 1;
    for (int d = 0; d < rank; d++)
        total *= ext[d];
    for (int64_t e = 0; e < total; e++) {
        int64_t so = 0, dof = 0;
        for (int d = 0; d < rank; d++) {
            so = so * sb[d] + idx[d];
            dof = dof * db[d] + idx[d] + (d == axis ? off : 0);
        }
        ctvm_kcopy(dst + dof * es, src + so * es, es);
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < ext[d])
                break;
            idx[d] = 0;
        }
    }
}

static void ctvm_kdyn_zero(void *p, int64_t bytes)
{
    unsigned char *c = (unsigned char *)p;
    for (int64_t k = 0; k < bytes; k++)
        c[k] = 0;
}

static double ctvm_kdyn_inf(int neg)
{
    union { uint64_t u; double d; } c;
    c.u = neg ? 0xfff0000000000000ull : 0x7ff0000000000000ull;
    return c.d;
}

static void ctvm_kdyn_set_i(void *p, int64_t i, int dt, int64_t v)
{
    switch (dt) {
    case CTVM_DT_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case CTVM_DT_U8: case CTVM_DT_BOOL: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case CTVM_DT_I16: ((int16_t *)p)[i] = (int16_t)v; break;
    case CTVM_DT_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case CTVM_DT_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case CTVM_DT_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case CTVM_DT_I64: ((int64_t *)p)[i] = v; break;
    case CTVM_DT_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    default: break;
    }
}

static void ctvm_kdyn_reduce(void *const *buf, const int64_t *iarg)
{
    const void *x = buf[0];
    const int64_t *xd = (const int64_t *)buf[1];
    void *y = buf[2];
    int dt = (int)iarg[1], rank = (int)iarg[2], red = (int)iarg[3], fl = ctvm_kis_float(dt);
    const int64_t *bound = iarg + 4, *mask = iarg + 4 + rank;
    int64_t idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, total = 1, ytotal = 1, cnt = 1;
    for (int d = 0; d < rank; d++) {
        total *= xd[d];
        ytotal *= mask[d] ? 1 : bound[d];
        cnt *= mask[d] ? xd[d] : 1;
    }
    for (int64_t o = 0; o < ytotal; o++) {
        if (fl)
            ctvm_kset_f(y, o, dt, red == 1 ? ctvm_kdyn_inf(1) : red == 2 ? ctvm_kdyn_inf(0) : red == 3 ? 1.0 : 0.0);
        else
            ctvm_kdyn_set_i(y, o, dt, red == 1 ? INT64_MIN : red == 2 ? INT64_MAX : red == 3 ? 1 : 0);
    }
    for (int64_t e = 0; e < total; e++) {
        int64_t xo = 0, yo = 0;
        for (int d = 0; d < rank; d++) {
            xo = xo * bound[d] + idx[d];
            yo = yo * (mask[d] ? 1 : bound[d]) + (mask[d] ? 0 : idx[d]);
        }
        if (fl) {
            double a = ctvm_kget_f(y, yo, dt), v = ctvm_kget_f(x, xo, dt);
            a = red == 1 ? (v > a || v != v ? v : a) : red == 2 ? (v < a || v != v ? v : a) : red == 3 ? a * v : a + v;
            ctvm_kset_f(y, yo, dt, a);
        } else {
            int64_t a = ctvm_kget_i(y, yo, dt), v = ctvm_kget_i(x, xo, dt);
            a = red == 1 ? (v > a ? v : a) : red == 2 ? (v < a ? v : a) : red == 3 ? (int64_t)((uint64_t)a * (uint64_t)v)
                                                                                  : (int64_t)((uint64_t)a + (uint64_t)v);
            ctvm_kdyn_set_i(y, yo, dt, a);
        }
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < xd[d])
                break;
            idx[d] = 0;
        }
    }
    if (red == 4)
        for (int64_t o = 0; o < ytotal; o++) {
            if (fl)
                ctvm_kset_f(y, o, dt, ctvm_kget_f(y, o, dt) / (double)cnt);
            else
                ctvm_kdyn_set_i(y, o, dt, cnt ? ctvm_kget_i(y, o, dt) / cnt : 0);
        }
}

static void ctvm_kdyn_topk(void *const *buf, const int64_t *iarg)
{
    const unsigned char *x = (const unsigned char *)buf[0];
    const int64_t *xd = (const int64_t *)buf[1];
    unsigned char *y = (unsigned char *)buf[2];
    int64_t *idx = (int64_t *)buf[3], *yd = (int64_t *)buf[5], *id = (int64_t *)buf[6];
    int dt = (int)iarg[1], rank = (int)iarg[2], axis = (int)iarg[3], largest = (int)iarg[4];
    const int64_t *bound = iarg + 6;
    int64_t K = iarg[6 + rank], es = ctvm_kbytes(dt), outer = 1, inner = 1, N = bound[axis];
    int64_t n = xd ? xd[axis] : N, k = buf[4] ? ((const int64_t *)buf[4])[0] : iarg[5];
    for (int d = 0; d < rank; d++)
        if (d != axis)
            *(d < axis ? &outer : &inner) *= bound[d];
    k = k < 0 ? 0 : k > n ? n : k;
    if (k > K)
        k = K;
    ctvm_kdyn_zero(y, outer * K * inner * es);
    ctvm_kdyn_zero(idx, outer * K * inner * 8);
    ctvm_ktopk_rows(x, y, idx, dt, largest, outer, N, n, inner, k, K); /* kernel_util.h */
    for (int d = 0; d < rank; d++) {
        int64_t v = d == axis ? k : xd ? xd[d] : bound[d];
        yd[d] = v;
        if (id)
            id[d] = v;
    }
}

static void ctvm_k_dyn(void *const *buf, const int64_t *iarg, const double *farg)
{
    (void)farg;
    switch ((int)iarg[0]) {
    case 0: {
        int64_t *d = (int64_t *)buf[0];
        const int64_t *p = iarg + 2;
        for (int64_t t = 0; t < iarg[1]; t++, p += 7) {
            int r = (int)p[1];
            int64_t x = p[2] > 0 ? ((const int64_t *)buf[p[2]])[p[3]] : p[4];
            switch ((int)p[0]) {
            case 0: d[r] = p[4]; break;
            case 1: d[r] = x; break;
            case 2: d[r] = d[r] == 1 ? x : d[r]; break;
            case 3: {
                int64_t s = p[4] < x ? p[4] : x, e = p[5] < x ? p[5] : x;
                d[r] = e > s ? (e - s + p[6] - 1) / p[6] : 0;
                break;
            }
            case 4: d[r] += x; break;
            default: break;
            }
        }
        break;
    }
    case 1: {
        int64_t es = iarg[1], out_n = 1;
        int rank = (int)iarg[2], axis = (int)iarg[3];
        const int64_t *ib = iarg + 5, *ob = iarg + 5 + rank;
        const int64_t *id = buf[1] ? (const int64_t *)buf[1] : ib;
        int64_t *od = (int64_t *)buf[3];
        if (iarg[4]) {
            for (int d = 0; d < rank; d++) {
                out_n *= ob[d];
                od[d] = d == axis ? 0 : id[d];
            }
            ctvm_kdyn_zero(buf[2], out_n * es);
        }
        ctvm_kdyn_region((unsigned char *)buf[2], ob, (const unsigned char *)buf[0], ib, id, rank, es, axis, od[axis]);
        od[axis] += id[axis];
        break;
    }
    case 2: {
        int64_t es = iarg[1], out_n = 1;
        int rank = (int)iarg[2], pick_a = ctvm_knonzero(buf[0], 0, (int)iarg[3]);
        const int64_t *ab = iarg + 4, *bb = iarg + 4 + rank, *ob = iarg + 4 + 2 * rank;
        const int64_t *sb = pick_a ? ab : bb;
        const int64_t *sd = pick_a ? (buf[2] ? (const int64_t *)buf[2] : ab) : (buf[4] ? (const int64_t *)buf[4] : bb);
        int64_t *od = (int64_t *)buf[6];
        for (int d = 0; d < rank; d++)
            out_n *= ob[d];
        ctvm_kdyn_zero(buf[5], out_n * es);
        ctvm_kdyn_region((unsigned char *)buf[5], ob, (const unsigned char *)buf[pick_a ? 1 : 3], sb, sd, rank, es,
                         -1, 0);
        for (int d = 0; d < rank; d++)
            od[d] = sd[d];
        break;
    }
    case 3: ctvm_kdyn_reduce(buf, iarg); break;
    case 4: ctvm_kdyn_topk(buf, iarg); break;
    case 5:
        for (int64_t i = iarg[1]; i < iarg[2]; i++)
            ((int64_t *)buf[1])[i - iarg[1]] = ((const int64_t *)buf[0])[i];
        break;
    case 6: {
        int rank = (int)iarg[2];
        /* row-major over the actual dims never lands after its padded place */
        ctvm_kdyn_region((unsigned char *)buf[0], (const int64_t *)buf[1], (const unsigned char *)buf[0], iarg + 3,
                         (const int64_t *)buf[1], rank, iarg[1], -1, 0);
        break;
    }
    default: break;
    }
}
