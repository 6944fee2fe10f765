/* kernel_sdpa.h - scaled dot-product attention as one pass over blocks of
 * query rows (ctvm.Sdpa, ops/sdpa.c; made by passes/match_sdpa.c from
 * MatMul -> [Mul|Div by a constant] -> [Add mask] -> Softmax -> MatMul):
 *
 *   s[i,j] = (sum_d Q[i,d] Kt[d,j]) (* c | / c) (+ mask[i,j])
 *   Y[i,:] = sum_j softmax_j(s[i,:]) V[j,:]
 *
 * per batch-head. Twenty-four query rows at a time: their scores (24 x T
 * floats) stay in a per-thread scratch block that the cache holds while
 * the softmax and the product with V read it, where the operators one by one
 * write the whole [S, T] score matrix to memory and read it back twice.
 * Both products are register tiles of 6 rows x 2 vectors (12 accumulators)
 * over the vector API (templates/ctvm_vec_*.h; CTVM_VL lanes, 1 on scalar
 * targets, with templates/ctvm_vec_math.h for exp); columns of V that do
 * not fill a tile are scalar.
 * The last, partial column tile of Kt is packed with zero columns and
 * computed as a whole tile, its valid columns stored (scalar dot products
 * reading Kt down its columns, one cache line per element, cost whisper's
 * 1500 % 32 = 28 last columns a third of the Q.Kt time).
 * buf: Q [BH,S,Dk], Kt [BH,Dk,T], V [BH,T,Dv], mask (float32, or null),
 *      Y [BH,S,Dv], scratch (threads * CTVM_SDPA_SCRATCH(T, Dk, Dv) floats
 *      (the compiler's loop_kernel_sdpa_scratch computes the same): the score
 *      block, then Kt packed by column tiles with room for a padded last
 *      tile, then V packed by column tiles);
 * iarg: BH, H (heads: batch-head bh is batch bh / H, head bh % H), S, T,
 *      Dk, Dv, scale mode (0 none, 1 multiply, 2 divide), the mask's
 *      element strides along batch, head, row and column (0 where it
 *      broadcasts), the slot count NT (threads) and this call's slot t: the
 *      call computes the t-th of NT equal shares of the row blocks with the
 *      t-th scratch (a parallel loop over the slots shares them among the
 *      threads);
 * farg: the scale constant. */
#define CTVM_SDPA_TILE (2 * CTVM_VL)
#define CTVM_SDPA_RB 24 /* query rows per block: four groups of six */
/* floats of scratch per thread: 24 score rows, Kt with up to 64 padding
 * columns (a tile is at most 64 wide), V */
#define CTVM_SDPA_SCRATCH(T, Dk, Dv) ((CTVM_SDPA_RB + (Dk) + (Dv)) * (T) + 64 * (Dk))
#if CTVM_SDPA_TILE > 64
#error "kernel_sdpa.h: a column tile wider than the scratch's 64 padding columns"
#endif
/* the six rows of a register tile, two vectors each (12 accumulators) */
#define CTVM_SDPA_ROWS6(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define CTVM_SDPA_ZERO(i) ctvm_vf a##i##0 = ctvm_vzero(), a##i##1 = ctvm_vzero();
/* a##i##0/1 += the six rows qr[0..5] (Dk floats each) times the packed Kt
 * tile kj (Dk rows of 2 vectors), d ascending */
#define CTVM_SDPA_QFMA(i) b = ctvm_vset1(qr[i][d]), a##i##0 = ctvm_vfma(b, k0, a##i##0), a##i##1 = ctvm_vfma(b, k1, a##i##1);
#define CTVM_SDPA_QK6()                                                                                             \
    for (int64_t d = 0; d < Dk; d++) {                                                                             \
        ctvm_vf k0 = ctvm_vload(kj + d * CTVM_SDPA_TILE), k1 = ctvm_vload(kj + d * CTVM_SDPA_TILE + CTVM_VL), b; \
        CTVM_SDPA_ROWS6(CTVM_SDPA_QFMA)                                                                            \
    }

typedef struct {
    int64_t T, Dk, Dv;
    int mode;
    float c;
    int64_t mt; /* mask stride along columns: 0 or 1 */
} CtvmSdpa;

/* the score s of column j of a row after scale and mask (mrow: the row's
 * mask, or null) */
static CTVM_INLINE float ctvm_ksdpa_post(const CtvmSdpa *a, float s, const float *mrow, int64_t j)
{
    if (a->mode == 1)
        s = s * a->c;
    else if (a->mode == 2)
        s = s / a->c;
    return mrow ? s + mrow[j * a->mt] : s;
}

static CTVM_INLINE void ctvm_ksdpa_vput(const CtvmSdpa *a, float *dst, ctvm_vf v, const float *mrow, int64_t j)
{
    if (a->mode == 1)
        v = ctvm_vmul(v, ctvm_vset1(a->c));
    else if (a->mode == 2)
        v = ctvm_vdiv(v, ctvm_vset1(a->c));
    if (mrow)
        v = ctvm_vadd(v, a->mt ? ctvm_vload(mrow + j) : ctvm_vset1(mrow[0]));
    ctvm_vstore(dst + j, v);
}

/* scores of nr rows q (row stride Dk) against Kt into sb (row stride T);
 * m[r]: the mask row of row r or null. Per tile of columns, the rows go
 * six at a time, so the tile of Kt (Dk x 2 vectors) is read from L1 by
 * every group of six. */
static void ctvm_ksdpa_qk(const CtvmSdpa *a, const float *q, int nr, const float *kp, float *sb,
                          const float *const *m)
{
    int64_t T = a->T, Dk = a->Dk, j = 0;
    for (; j + CTVM_SDPA_TILE <= T; j += CTVM_SDPA_TILE) {
        const float *kj = kp + j * Dk; /* the packed tile: Dk rows of 2 vectors */
        int r = 0;
        for (; r + 6 <= nr; r += 6) {
            const float *qr[6] = {q + r * Dk, q + (r + 1) * Dk, q + (r + 2) * Dk,
                                  q + (r + 3) * Dk, q + (r + 4) * Dk, q + (r + 5) * Dk};
            float *sr = sb + r * T;
            CTVM_SDPA_ROWS6(CTVM_SDPA_ZERO)
            CTVM_SDPA_QK6()
#define CTVM_SDPA_PUT(i) ctvm_ksdpa_vput(a, sr + i * T, a##i##0, m[r + i], j), ctvm_ksdpa_vput(a, sr + i * T, a##i##1, m[r + i], j + CTVM_VL);
            CTVM_SDPA_ROWS6(CTVM_SDPA_PUT)
#undef CTVM_SDPA_PUT
        }
        for (; r < nr; r++) {
            ctvm_vf a00 = ctvm_vzero(), a01 = ctvm_vzero();
            for (int64_t d = 0; d < Dk; d++) {
                ctvm_vf b = ctvm_vset1(q[r * Dk + d]);
                a00 = ctvm_vfma(b, ctvm_vload(kj + d * CTVM_SDPA_TILE), a00);
                a01 = ctvm_vfma(b, ctvm_vload(kj + d * CTVM_SDPA_TILE + CTVM_VL), a01);
            }
            ctvm_ksdpa_vput(a, sb + r * T, a00, m[r], j), ctvm_ksdpa_vput(a, sb + r * T, a01, m[r], j + CTVM_VL);
        }
    }
    if (j < T) { /* the partial last tile, packed with zero columns: whole tiles of six rows (the rows
                    past nr repeat row nr - 1), the valid columns stored */
        const float *kj = kp + j * Dk;
        float tmp[6 * CTVM_SDPA_TILE];
        for (int r = 0; r < nr; r += 6) {
            const float *qr[6];
            for (int i = 0; i < 6; i++)
                qr[i] = q + (r + i < nr ? r + i : nr - 1) * Dk;
            CTVM_SDPA_ROWS6(CTVM_SDPA_ZERO)
            CTVM_SDPA_QK6()
#define CTVM_SDPA_TMP(i) ctvm_vstore(tmp + i * CTVM_SDPA_TILE, a##i##0), ctvm_vstore(tmp + i * CTVM_SDPA_TILE + CTVM_VL, a##i##1);
            CTVM_SDPA_ROWS6(CTVM_SDPA_TMP)
#undef CTVM_SDPA_TMP
            for (int i = 0; i < 6 && r + i < nr; i++)
                for (int64_t jj = j; jj < T; jj++)
                    sb[(r + i) * T + jj] = ctvm_ksdpa_post(a, tmp[i * CTVM_SDPA_TILE + (jj - j)], m[r + i], jj);
        }
    }
}

/* x[0..T) := softmax(x) (max, exp of the difference, times 1 / sum) */
static void ctvm_ksdpa_softmax(float *x, int64_t T)
{
    ctvm_vf vm = ctvm_vset1(-INFINITY), vs = ctvm_vzero();
    int64_t j = 0;
    for (; j + CTVM_VL <= T; j += CTVM_VL)
        vm = ctvm_vmax(vm, ctvm_vload(x + j));
    float mx = ctvm_vhmax(vm);
    for (; j < T; j++)
        mx = x[j] > mx ? x[j] : mx;
    vm = ctvm_vset1(mx);
    for (j = 0; j + CTVM_VL <= T; j += CTVM_VL) {
        ctvm_vf e = ctvm_vexp(ctvm_vsub(ctvm_vload(x + j), vm));
        ctvm_vstore(x + j, e);
        vs = ctvm_vadd(vs, e);
    }
    float sum = ctvm_vhsum(vs);
    for (; j < T; j++) {
        x[j] = ctvm_expf(x[j] - mx); /* as the vector lanes compute */
        sum += x[j];
    }
    float inv = 1.0f / sum;
    ctvm_vf vi = ctvm_vset1(inv);
    for (j = 0; j + CTVM_VL <= T; j += CTVM_VL)
        ctvm_vstore(x + j, ctvm_vmul(ctvm_vload(x + j), vi));
    for (; j < T; j++)
        x[j] *= inv;
}

/* y (row stride Dv) := p (nr rows of T, stride T) . V [T, Dv]. Per tile
 * of columns and chunk of CTVM_SDPA_JC keys, the rows go six at a time
 * (partial sums kept in y between chunks), so the chunk of V is read from
 * L1 by every group of six. */
#define CTVM_SDPA_JC 256
static void ctvm_ksdpa_pv(const CtvmSdpa *a, const float *p, int nr, const float *vp, const float *v, float *y)
{
    int64_t T = a->T, Dv = a->Dv, d = 0;
    for (; d + CTVM_SDPA_TILE <= Dv; d += CTVM_SDPA_TILE)
        for (int64_t j0 = 0; j0 < T; j0 += CTVM_SDPA_JC) {
            const float *vd = vp + d * T; /* the packed tile: T rows of 2 vectors */
            int64_t j1 = T - j0 < CTVM_SDPA_JC ? T : j0 + CTVM_SDPA_JC;
            int r = 0;
            for (; r + 6 <= nr; r += 6) {
                const float *pr = p + r * T;
                float *yr = y + r * Dv + d;
                CTVM_SDPA_ROWS6(CTVM_SDPA_ZERO)
                if (j0 > 0) {
#define CTVM_SDPA_LOAD(i) a##i##0 = ctvm_vload(yr + i * Dv), a##i##1 = ctvm_vload(yr + i * Dv + CTVM_VL);
                    CTVM_SDPA_ROWS6(CTVM_SDPA_LOAD)
#undef CTVM_SDPA_LOAD
                }
                for (int64_t j = j0; j < j1; j++) {
                    ctvm_vf v0 = ctvm_vload(vd + j * CTVM_SDPA_TILE), v1 = ctvm_vload(vd + j * CTVM_SDPA_TILE + CTVM_VL), b;
#define CTVM_SDPA_PFMA(i) b = ctvm_vset1(pr[i * T + j]), a##i##0 = ctvm_vfma(b, v0, a##i##0), a##i##1 = ctvm_vfma(b, v1, a##i##1);
                    CTVM_SDPA_ROWS6(CTVM_SDPA_PFMA)
#undef CTVM_SDPA_PFMA
                }
#define CTVM_SDPA_STORE(i) ctvm_vstore(yr + i * Dv, a##i##0), ctvm_vstore(yr + i * Dv + CTVM_VL, a##i##1);
                CTVM_SDPA_ROWS6(CTVM_SDPA_STORE)
#undef CTVM_SDPA_STORE
            }
            for (; r < nr; r++) {
                float *yr = y + r * Dv + d;
                ctvm_vf a00 = j0 ? ctvm_vload(yr) : ctvm_vzero(), a01 = j0 ? ctvm_vload(yr + CTVM_VL) : ctvm_vzero();
                for (int64_t j = j0; j < j1; j++) {
                    ctvm_vf b = ctvm_vset1(p[r * T + j]);
                    a00 = ctvm_vfma(b, ctvm_vload(vd + j * CTVM_SDPA_TILE), a00);
                    a01 = ctvm_vfma(b, ctvm_vload(vd + j * CTVM_SDPA_TILE + CTVM_VL), a01);
                }
                ctvm_vstore(yr, a00), ctvm_vstore(yr + CTVM_VL, a01);
            }
        }
    for (int r = 0; r < nr; r++) /* the columns after the last whole tile */
        for (int64_t dd = Dv - Dv % CTVM_SDPA_TILE; dd < Dv; dd++) {
            float s = 0.0f;
            for (int64_t j = 0; j < T; j++)
                s += p[r * T + j] * v[j * Dv + dd];
            y[r * Dv + dd] = s;
        }
}

/* the whole column tiles of Kt [Dk, T] and V [T, Dv] of one batch-head,
 * each tile contiguous (tile by tile: Dk resp. T rows of 2 vectors), so
 * the products read them as one stream */
static void ctvm_ksdpa_pack(const CtvmSdpa *a, const float *kt, const float *v, float *kp, float *vp)
{
    int64_t T = a->T, Dk = a->Dk, Dv = a->Dv, L = CTVM_SDPA_TILE;
    for (int64_t j = 0; j < T; j += L) /* the last tile padded with zero columns */
        for (int64_t d = 0; d < Dk; d++)
            for (int64_t c = 0; c < L; c++)
                kp[j * Dk + d * L + c] = j + c < T ? kt[d * T + j + c] : 0.0f;
    for (int64_t d = 0; d + L <= Dv; d += L)
        for (int64_t j = 0; j < T; j++)
            for (int64_t c = 0; c < L; c++)
                vp[d * T + j * L + c] = v[j * Dv + d + c];
}

static void ctvm_k_sdpa(void *const *buf, const int64_t *iarg, const double *farg)
{
    const float *Q = (const float *)buf[0], *K = (const float *)buf[1], *V = (const float *)buf[2];
    const float *M = (const float *)buf[3];
    float *Y = (float *)buf[4], *scratch = (float *)buf[5];
    int64_t BH = iarg[0], H = iarg[1], S = iarg[2], NT = iarg[11] > 0 ? iarg[11] : 1, t = iarg[12];
    const int64_t *ms = iarg + 7; /* mask strides: batch, head, row, column */
    CtvmSdpa a;
    a.T = iarg[3], a.Dk = iarg[4], a.Dv = iarg[5], a.mode = (int)iarg[6], a.c = (float)farg[0], a.mt = ms[3];
    int64_t nblk = (S + CTVM_SDPA_RB - 1) / CTVM_SDPA_RB, total = BH * nblk;
    { /* slot t of NT: its share of the row blocks, with its own scratch */
        float *sb = scratch + t * CTVM_SDPA_SCRATCH(a.T, a.Dk, a.Dv), *kp = sb + CTVM_SDPA_RB * a.T;
        float *vp = kp + a.Dk * a.T + 64 * a.Dk;
        int64_t packed = -1;
        for (int64_t w = total * t / NT; w < total * (t + 1) / NT; w++) {
            int64_t bh = w / nblk, i0 = (w % nblk) * CTVM_SDPA_RB;
            if (bh != packed) {
                ctvm_ksdpa_pack(&a, K + bh * a.Dk * a.T, V + bh * a.T * a.Dv, kp, vp);
                packed = bh;
            }
            int nr = S - i0 < CTVM_SDPA_RB ? (int)(S - i0) : CTVM_SDPA_RB;
            const float *m[CTVM_SDPA_RB];
            for (int r = 0; r < nr; r++)
                m[r] = M ? M + (bh / H) * ms[0] + (bh % H) * ms[1] + (i0 + r) * ms[2] : NULL;
            ctvm_ksdpa_qk(&a, Q + (bh * S + i0) * a.Dk, nr, kp, sb, m);
            for (int r = 0; r < nr; r++)
                ctvm_ksdpa_softmax(sb + r * a.T, a.T);
            ctvm_ksdpa_pv(&a, sb, nr, vp, V + bh * a.T * a.Dv, Y + (bh * S + i0) * a.Dv);
        }
    }
}
