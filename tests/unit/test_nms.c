/* test_nms.c - NonMaxSuppression's run-time kernel (templates/kernel_nms.h,
 * whose x-sorted window skips kept boxes that cannot overlap) against a
 * reference written here straight from the ONNX definition: every
 * candidate compared with every box kept before it. Boxes include
 * torchvision's class-offset trick, reversed corners, zero areas, NaN and
 * infinite coordinates, duplicates and tied scores. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/loop_kernels.h"

enum { MAXN = 3000, MAXC = 3, MAXB = 2 };

static uint32_t g_seed = 12345;
static float urand(void) /* [0, 1) */
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)(g_seed >> 8) / 16777216.0f;
}

static void corners(const float *b, int center, float *c) /* x0 y0 x1 y1 */
{
    if (center) {
        c[0] = b[0] - b[2] / 2.0f, c[2] = b[0] + b[2] / 2.0f;
        c[1] = b[1] - b[3] / 2.0f, c[3] = b[1] + b[3] / 2.0f;
    } else {
        c[0] = fminf(b[1], b[3]), c[2] = fmaxf(b[1], b[3]);
        c[1] = fminf(b[0], b[2]), c[3] = fmaxf(b[0], b[2]);
        if (isnan(b[0]) || isnan(b[1]) || isnan(b[2]) || isnan(b[3]))
            c[0] = NAN;
    }
}

static int ref_suppress(const float *a, const float *b, int center, float thr)
{
    float p[4], q[4];
    corners(a, center, p);
    corners(b, center, q);
    float area_p = (p[2] - p[0]) * (p[3] - p[1]), area_q = (q[2] - q[0]) * (q[3] - q[1]);
    if (!(area_p > 0) || !(area_q > 0))
        return 0;
    float iw = fminf(p[2], q[2]) - fmaxf(p[0], q[0]), ih = fminf(p[3], q[3]) - fmaxf(p[1], q[1]);
    if (!(iw > 0) || !(ih > 0))
        return 0;
    float inter = iw * ih, uni = area_p + area_q - inter;
    return uni > 0 && inter / uni > thr;
}

static const float *g_s;
static int by_score(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    if (g_s[a] != g_s[b])
        return g_s[a] > g_s[b] ? -1 : 1;
    return (a > b) - (a < b);
}

static int64_t reference(const float *boxes, const float *scores, int64_t B, int64_t C, int64_t N, int64_t max_out,
                         int center, float iou, const float *score_thr, int64_t *sel)
{
    static int64_t cand[MAXN];
    int64_t k = 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t c = 0; c < C; c++) {
            const float *s = scores + (b * C + c) * N;
            int64_t n = 0, first = k;
            for (int64_t i = 0; i < N; i++)
                if (!score_thr || s[i] > *score_thr)
                    cand[n++] = i;
            g_s = s;
            qsort(cand, (size_t)n, sizeof cand[0], by_score);
            for (int64_t r = 0; r < n && k - first < max_out; r++) {
                int keep = 1;
                for (int64_t j = first; j < k && keep; j++)
                    keep = !ref_suppress(boxes + (b * N + cand[r]) * 4, boxes + (b * N + sel[j * 3 + 2]) * 4, center,
                                         iou);
                if (keep) {
                    sel[k * 3] = b, sel[k * 3 + 1] = c, sel[k * 3 + 2] = cand[r];
                    k++;
                }
            }
        }
    return k;
}

static void run_case(const float *boxes, const float *scores, int64_t B, int64_t C, int64_t N, int64_t max_out,
                     int center, float iou, const float *score_thr)
{
    static int64_t got[MAXB * MAXC * MAXN * 3], want[MAXB * MAXC * MAXN * 3], scratch[MAXN * 6];
    LoopKernelFn f = loop_kernel_find("ctvm_k_nms");
    assert_non_null(f);
    int64_t dims[2] = {-1, -1};
    void *bufs[9] = {(void *)boxes, (void *)scores, &iou, (void *)score_thr, got, dims, scratch, NULL, NULL};
    int64_t ia[5] = {B, C, N, max_out, center};
    f(bufs, ia, NULL);
    int64_t k = reference(boxes, scores, B, C, N, max_out, center, iou, score_thr, want);
    assert_int_equal(dims[0], k);
    assert_int_equal(dims[1], 3);
    assert_memory_equal(got, want, (size_t)k * 3 * sizeof got[0]);
}

/* torchvision's batched_nms: 15 classes of 200 boxes in one NMS class, each
 * class shifted by (class * 101) on both axes so classes never overlap */
static void test_nms_class_offsets(void **state)
{
    (void)state;
    static float boxes[MAXN * 4], scores[MAXN];
    int64_t N = 3000;
    for (int64_t i = 0; i < N; i++) {
        float off = (float)(i % 15) * 101.0f, x = urand() * 90, y = urand() * 90;
        float w = 1 + urand() * 30, h = 1 + urand() * 30;
        boxes[i * 4] = y + off, boxes[i * 4 + 1] = x + off;
        boxes[i * 4 + 2] = fminf(y + h, 100) + off, boxes[i * 4 + 3] = fminf(x + w, 100) + off;
        scores[i] = (float)(int)(urand() * 500) / 500.0f; /* ties */
    }
    float thr = 0.01f;
    run_case(boxes, scores, 1, 1, N, N, 0, 0.5f, &thr);
    run_case(boxes, scores, 1, 1, N, 100, 0, 0.3f, NULL);
    run_case(boxes, scores, 1, 1, N, N, 0, 0.0f, NULL);
}

/* awkward boxes over 2 batches and 3 classes, corner and center forms */
static void test_nms_awkward(void **state)
{
    (void)state;
    enum { N = 400, B = 2, C = 3 };
    static float boxes[B * N * 4], scores[B * C * N];
    for (int i = 0; i < B * N * 4; i++)
        boxes[i] = urand() * 10 - 2;
    for (int i = 0; i < B * C * N; i++)
        scores[i] = (float)(int)(urand() * 50) / 50.0f;
    for (int b = 0; b < B; b++) {
        float *x = boxes + b * N * 4;
        x[3 * 4 + 1] = NAN;                                              /* NaN corner */
        x[5 * 4 + 2] = x[5 * 4 + 0];                                     /* zero height */
        x[7 * 4 + 1] = -INFINITY;                                        /* unbounded to the left */
        x[9 * 4 + 3] = INFINITY, x[9 * 4 + 1] = INFINITY;                /* inf - inf: no area */
        memcpy(x + 11 * 4, x + 12 * 4, 4 * sizeof(float));              /* duplicate */
        x[13 * 4 + 0] = 1e30f, x[13 * 4 + 2] = -1e30f;                   /* huge, reversed */
        for (int i = 20; i < 60; i++)                                    /* a cluster */
            x[i * 4 + 0] = 1 + urand() * 0.1f, x[i * 4 + 1] = 1 + urand() * 0.1f,
                      x[i * 4 + 2] = 2 + urand() * 0.1f, x[i * 4 + 3] = 2 + urand() * 0.1f;
    }
    float thr = 0.1f;
    for (int center = 0; center < 2; center++) {
        run_case(boxes, scores, B, C, N, N, center, 0.5f, &thr);
        run_case(boxes, scores, B, C, N, 7, center, 0.2f, NULL);
        run_case(boxes, scores, B, C, N, N, center, 0.0f, NULL);
        run_case(boxes, scores, B, C, N, N, center, 1.0f, NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nms_class_offsets),
        cmocka_unit_test(test_nms_awkward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
