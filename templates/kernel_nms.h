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
 *      (int64 [Kmax,3]), dims (int64[2]), scratch (int64[N]), and
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

static int ctvm_knms_suppress(const float *a, const float *b, int center, float thr)
{
    float ax0, ay0, ax1, ay1, bx0, by0, bx1, by1;
    ctvm_knms_box(a, center, &ax0, &ay0, &ax1, &ay1);
    ctvm_knms_box(b, center, &bx0, &by0, &bx1, &by1);
    float ix0 = ax0 > bx0 ? ax0 : bx0, ix1 = ax1 < bx1 ? ax1 : bx1;
    if (ix1 <= ix0)
        return 0;
    float iy0 = ay0 > by0 ? ay0 : by0, iy1 = ay1 < by1 ? ay1 : by1;
    if (iy1 <= iy0)
        return 0;
    float inter = (ix1 - ix0) * (iy1 - iy0);
    float area_a = (ax1 - ax0) * (ay1 - ay0), area_b = (bx1 - bx0) * (by1 - by0);
    float uni = area_a + area_b - inter;
    if (inter <= 0 || area_a <= 0 || area_b <= 0 || uni <= 0)
        return 0;
    return inter / uni > thr;
}

/* heap sort of order[] under "a comes before b": decreasing score, ties
 * by increasing index; afterwards order[0] is the first box to visit */
static int ctvm_knms_before(const float *s, int64_t a, int64_t b)
{
    return s[a] > s[b] || (s[a] == s[b] && a < b);
}

static void ctvm_knms_sift(const float *s, int64_t *o, int64_t i, int64_t n)
{
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && ctvm_knms_before(s, o[c], o[c + 1]))
            c++;
        if (!ctvm_knms_before(s, o[i], o[c]))
            return;
        int64_t t = o[i];
        o[i] = o[c];
        o[c] = t;
        i = c;
    }
}

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
    (void)farg;
    for (int64_t b = 0; b < B; b++)
        for (int64_t c = 0; c < C; c++) {
            const float *s = scores + (b * C + c) * N, *bx = boxes + b * N * 4;
            int64_t n = 0, kept = 0, first = k;
            for (int64_t i = 0; i < Nact; i++)
                if (!score_p || s[i] > score_p[0])
                    order[n++] = i;
            for (int64_t i = n / 2 - 1; i >= 0; i--)
                ctvm_knms_sift(s, order, i, n);
            for (int64_t e = n - 1; e > 0; e--) {
                int64_t t = order[0];
                order[0] = order[e];
                order[e] = t;
                ctvm_knms_sift(s, order, 0, e);
            }
            for (int64_t r = 0; r < n && kept < max_out; r++) {
                int64_t i = order[r], keep = 1;
                for (int64_t j = first; j < k && keep; j++)
                    keep = !ctvm_knms_suppress(bx + i * 4, bx + sel[j * 3 + 2] * 4, center, iou);
                if (keep) {
                    sel[k * 3] = b;
                    sel[k * 3 + 1] = c;
                    sel[k * 3 + 2] = i;
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
