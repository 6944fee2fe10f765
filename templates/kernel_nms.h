/* kernel_nms.h - NonMaxSuppression, as ONNX defines it: per batch and
 * class, the boxes whose score exceeds score_threshold (every box when
 * there is none), visited by decreasing score (ties: lower box index first),
 * each kept unless its intersection-over-union with a box already kept for
 * that class exceeds iou_threshold, at most max_output_boxes_per_class per
 * class. Boxes are [y1, x1, y2, x2] corners in any order (center_point_box
 * 0) or [x_center, y_center, width, height] (1). The selected
 * (batch, class, box) triples are written in that order; their count goes
 * to dims = {K, 3}.
 * buf: boxes [B,N,4], scores [B,C,N] (float32), iou_threshold and
 *      score_threshold (float32 scalars, either may be null), selected
 *      (int64 [Kmax,3]), dims (int64[2]), scratch (48 N bytes), and
 *      max_output_boxes_per_class (int64 scalar) when it is a run-time
 *      input, else null; the actual dims of boxes when they are a
 *      data-dependent value (their N is a bound; the rest of selected is
 *      then zeroed), else null;
 * iarg: B, C, N, max_output_boxes_per_class (its bound, N, when run-time),
 *      center_point_box. */
static void ctvm_knms_box(const float *b, int center, float *x0, float *y0, float *x1, float *y1)
{
    if (center) {
        *x0 = b[0] - b[2] / 2.0f;
        *x1 = b[0] + b[2] / 2.0f;
        *y0 = b[1] - b[3] / 2.0f;
        *y1 = b[1] + b[3] / 2.0f;
    } else {
        *y0 = b[0] < b[2] ? b[0] : b[2];
        *y1 = b[0] < b[2] ? b[2] : b[0];
        *x0 = b[1] < b[3] ? b[1] : b[3];
        *x1 = b[1] < b[3] ? b[3] : b[1];
    }
}

/* the corners and area of the indexed boxes, SoA by rank in increasing x0 */
typedef struct {
    float *x0, *y0, *x1, *y1, *area;
    int64_t *by_x;
    int32_t *rank; /* by_x[q]: score position of rank q; rank[r]: rank of score position r, -1: not indexed */
    unsigned char *kept;  /* by rank */
} CtvmNmsIdx;

/* whether the candidate of rank a is suppressed by the kept box of rank b:
 * intersection over union above thr (no overlap never suppresses) */
static int ctvm_knms_suppress(const CtvmNmsIdx *x, int64_t a, int64_t b, float thr)
{
    float ix0 = x->x0[a] > x->x0[b] ? x->x0[a] : x->x0[b], ix1 = x->x1[a] < x->x1[b] ? x->x1[a] : x->x1[b];
    if (ix1 <= ix0)
        return 0;
    float iy0 = x->y0[a] > x->y0[b] ? x->y0[a] : x->y0[b], iy1 = x->y1[a] < x->y1[b] ? x->y1[a] : x->y1[b];
    if (iy1 <= iy0)
        return 0;
    float inter = (ix1 - ix0) * (iy1 - iy0);
    float area_a = x->area[a], area_b = x->area[b];
    float uni = area_a + area_b - inter;
    if (inter <= 0 || uni <= 0)
        return 0;
    return inter / uni > thr;
}

/* heap sort of o[0..n) by key: "a after b" when key[a] > key[b] (asc) or
 * key[b] > key[a] (descending), ties by increasing index either way;
 * afterwards o[0] is the first */
static int ctvm_knms_after(const float *key, int asc, int64_t a, int64_t b)
{
    return (asc ? key[a] > key[b] : key[b] > key[a]) || (key[a] == key[b] && a > b);
}

static void ctvm_knms_sift(const float *key, int asc, int64_t *o, int64_t i, int64_t n)
{
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && ctvm_knms_after(key, asc, o[c + 1], o[c]))
            c++;
        if (!ctvm_knms_after(key, asc, o[c], o[i]))
            return;
        int64_t t = o[i];
        o[i] = o[c];
        o[c] = t;
        i = c;
    }
}

static void ctvm_knms_sort(const float *key, int asc, int64_t *o, int64_t n)
{
    for (int64_t i = n / 2 - 1; i >= 0; i--)
        ctvm_knms_sift(key, asc, o, i, n);
    for (int64_t e = n - 1; e > 0; e--) {
        int64_t t = o[0];
        o[0] = o[e];
        o[e] = t;
        ctvm_knms_sift(key, asc, o, 0, e);
    }
}

/* index the n candidates of order[] (score order) whose box has an area
 * (the others, NaN ones included, can neither suppress nor be suppressed):
 * ranks by increasing x0; returns how many, and in *wmax the widest box
 * (x1 - x0, in double) */
static int64_t ctvm_knms_index(CtvmNmsIdx *x, const float *bx, const int64_t *order, int64_t n, int center,
                               double *wmax)
{
    int64_t m = 0;
    float *key = x->area; /* x0 by score position while sorting */
    for (int64_t r = 0; r < n; r++) {
        float x0, y0, x1, y1;
        ctvm_knms_box(bx + order[r] * 4, center, &x0, &y0, &x1, &y1);
        x->rank[r] = -1;
        key[r] = x0;
        if ((x1 - x0) * (y1 - y0) > 0)
            x->by_x[m++] = r;
    }
    ctvm_knms_sort(key, 1, x->by_x, m);
    *wmax = 0;
    for (int64_t q = 0; q < m; q++) {
        int64_t r = x->by_x[q];
        ctvm_knms_box(bx + order[r] * 4, center, &x->x0[q], &x->y0[q], &x->x1[q], &x->y1[q]);
        x->area[q] = (x->x1[q] - x->x0[q]) * (x->y1[q] - x->y0[q]);
        x->rank[r] = (int32_t)q;
        x->kept[q] = 0;
        double w = (double)x->x1[q] - (double)x->x0[q];
        if (w > *wmax)
            *wmax = w;
    }
    return m;
}

/* the first rank in [0, m) whose x0 is at least v */
static int64_t ctvm_knms_lower(const float *x0, int64_t m, double v)
{
    int64_t lo = 0, hi = m;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((double)x0[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Only a kept box that overlaps the candidate in x can suppress it: its
 * x0 lies below the candidate's x1 and above the candidate's x0 less the
 * widest box (with a margin for rounding), a window of the x0-sorted ranks
 * found by two binary searches. Detectors that separate classes by
 * offsetting boxes (torchvision's batched_nms) make that window about one
 * class's boxes instead of every kept box. */
static void ctvm_k_nms(void *const *buf, const int64_t *iarg, const double *farg)
{
    const float *boxes = (const float *)buf[0], *scores = (const float *)buf[1];
    const float *iou_p = (const float *)buf[2], *score_p = (const float *)buf[3];
    int64_t *sel = (int64_t *)buf[4], *dims = (int64_t *)buf[5], *order = (int64_t *)buf[6];
    int64_t B = iarg[0], C = iarg[1], N = iarg[2], max_out = iarg[3];
    if (buf[7]) { /* max_output_boxes_per_class given at run time; iarg[3] = N bounds it */
        int64_t m = ((const int64_t *)buf[7])[0];
        max_out = m < 0 ? 0 : m < max_out ? m : max_out;
    }
    int64_t Nact = buf[8] ? ((const int64_t *)buf[8])[1] : N;
    int center = (int)iarg[4];
    float iou = iou_p ? iou_p[0] : 0.0f;
    int64_t k = 0;
    CtvmNmsIdx x; /* scratch after order[N]: 5 float[N] (6N floats), int64[N], int32[N], N bytes */
    x.x0 = (float *)(order + N);
    x.y0 = x.x0 + N, x.x1 = x.y0 + N, x.y1 = x.x1 + N, x.area = x.y1 + N;
    x.by_x = (int64_t *)(x.x0 + 6 * N); /* 5 float[N] rounded up to 8 bytes */
    x.rank = (int32_t *)(x.by_x + N);
    x.kept = (unsigned char *)(x.rank + N);
    (void)farg;
    for (int64_t b = 0; b < B; b++)
        for (int64_t c = 0; c < C; c++) {
            const float *s = scores + (b * C + c) * N, *bx = boxes + b * N * 4;
            int64_t n = 0, kept = 0;
            for (int64_t i = 0; i < Nact; i++)
                if (!score_p || s[i] > score_p[0])
                    order[n++] = i;
            ctvm_knms_sort(s, 0, order, n);
            double wmax;
            int64_t m = ctvm_knms_index(&x, bx, order, n, center, &wmax);
            for (int64_t r = 0; r < n && kept < max_out; r++) {
                int64_t q = x.rank[r], keep = 1;
                if (q >= 0) {
                    double lo = (double)x.x0[q] - wmax;
                    lo -= 1e-6 * ((lo < 0 ? -lo : lo) + wmax) + 1e-30;
                    int64_t j0 = ctvm_knms_lower(x.x0, m, lo), j1 = ctvm_knms_lower(x.x0, m, (double)x.x1[q]);
                    for (int64_t j = j0; j < j1 && keep; j++)
                        keep = !(x.kept[j] && ctvm_knms_suppress(&x, q, j, iou));
                    x.kept[q] = (unsigned char)keep;
                }
                if (keep) {
                    sel[k * 3] = b;
                    sel[k * 3 + 1] = c;
                    sel[k * 3 + 2] = order[r];
                    k++;
                    kept++;
                }
            }
        }
    dims[0] = k;
    dims[1] = 3;
    if (buf[8]) {
        int64_t per = iarg[3] < 0 ? 0 : iarg[3] < N ? iarg[3] : N;
        for (int64_t j = k * 3; j < B * C * per * 3; j++)
            sel[j] = 0;
    }
}
