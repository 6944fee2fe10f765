/* test_sdpa.c - ctvm.Sdpa's runtime kernel (templates/kernel_sdpa.h, the
 * compiler's one-lane build) against attention computed here in double
 * from its definition: softmax((Q Kt) scaled + mask) V. Shapes leave
 * partial row groups, partial column tiles and partial V tiles; masks
 * broadcast along batch, head, rows or columns; every scale mode; several
 * threads' worth of blocks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ir/loop_kernels.h"

static uint32_t g_seed = 99;
static float urand(void) /* [-1, 1) */
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)(g_seed >> 8) / 8388608.0f - 1.0f;
}

/* B batches x H heads; mask dims md (batch, head, rows, cols; 1 = broadcast) or NULL */
static void run_case(int64_t B, int64_t H, int64_t S, int64_t T, int64_t Dk, int64_t Dv, int mode, double c,
                     const int64_t *md, int64_t threads)
{
    int64_t BH = B * H;
    float *q = malloc(sizeof(float) * (size_t)(BH * S * Dk)), *kt = malloc(sizeof(float) * (size_t)(BH * Dk * T));
    float *v = malloc(sizeof(float) * (size_t)(BH * T * Dv)), *y = malloc(sizeof(float) * (size_t)(BH * S * Dv));
    float *scratch = malloc(sizeof(float) * (size_t)(threads * loop_kernel_sdpa_scratch(T, Dk, Dv)));
    int64_t mn = md ? md[0] * md[1] * md[2] * md[3] : 0;
    float *m = md ? malloc(sizeof(float) * (size_t)mn) : NULL;
    double *p = malloc(sizeof(double) * (size_t)T);
    assert_true(q && kt && v && y && scratch && p && (!md || m));
    for (int64_t i = 0; i < BH * S * Dk; i++)
        q[i] = urand();
    for (int64_t i = 0; i < BH * Dk * T; i++)
        kt[i] = urand();
    for (int64_t i = 0; i < BH * T * Dv; i++)
        v[i] = urand();
    for (int64_t i = 0; i < mn; i++)
        m[i] = urand() * 3.0f;
    int64_t st[4] = {0, 0, 0, 0};
    if (md) { /* row-major strides, 0 where broadcast */
        int64_t s = 1;
        for (int k = 3; k >= 0; k--) {
            st[k] = md[k] == 1 ? 0 : s;
            s *= md[k];
        }
    }
    void *bufs[6] = {q, kt, v, m, y, scratch};
    int64_t ia[13] = {BH, H, S, T, Dk, Dv, mode, st[0], st[1], st[2], st[3], threads, 0};
    double fa[1] = {c};
    LoopKernelFn f = loop_kernel_find("ctvm_k_sdpa");
    assert_non_null(f);
    for (ia[12] = 0; ia[12] < threads; ia[12]++) /* every slot, as the parallel loop over them does */
        f(bufs, ia, fa);
    double worst = 0;
    for (int64_t bh = 0; bh < BH; bh++)
        for (int64_t i = 0; i < S; i++) {
            double mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < T; j++) {
                double s = 0;
                for (int64_t d = 0; d < Dk; d++)
                    s += (double)q[(bh * S + i) * Dk + d] * kt[(bh * Dk + d) * T + j];
                s = mode == 1 ? s * c : mode == 2 ? s / c : s;
                if (m)
                    s += m[(bh / H) * st[0] + (bh % H) * st[1] + i * st[2] + j * st[3]];
                p[j] = s;
                mx = s > mx ? s : mx;
            }
            for (int64_t j = 0; j < T; j++)
                sum += p[j] = exp(p[j] - mx);
            for (int64_t d = 0; d < Dv; d++) {
                double want = 0;
                for (int64_t j = 0; j < T; j++)
                    want += p[j] / sum * v[(bh * T + j) * Dv + d];
                double err = fabs(want - y[(bh * S + i) * Dv + d]);
                worst = err > worst ? err : worst;
            }
        }
    assert_true(worst < 1e-5);
    free(q), free(kt), free(v), free(y), free(scratch), free(m), free(p);
}

static void test_sdpa_shapes(void **state)
{
    (void)state;
    run_case(1, 2, 30, 37, 8, 20, 0, 1.0, NULL, 1);   /* 30 rows: one full block, one of 6; tails everywhere */
    run_case(2, 3, 13, 5, 3, 3, 2, 8.0, NULL, 1);     /* fewer columns than a tile */
    run_case(1, 1, 49, 64, 16, 16, 1, 0.25, NULL, 3); /* three threads' shares of the blocks */
    run_case(1, 4, 7, 100, 32, 1, 2, 3.0, NULL, 2);   /* Dv of one column; a scale that is not a power of two */
}

static void test_sdpa_masks(void **state)
{
    (void)state;
    static const int64_t full[4] = {2, 3, 25, 33}, keys[4] = {2, 1, 1, 33}, rows[4] = {1, 1, 25, 1},
                         heads[4] = {1, 3, 25, 33};
    run_case(2, 3, 25, 33, 8, 8, 2, 2.0, full, 1);
    run_case(2, 3, 25, 33, 8, 8, 1, 0.5, keys, 2); /* padding mask per batch: [B,1,1,T] */
    run_case(2, 3, 25, 33, 8, 8, 0, 1.0, rows, 1); /* constant along the keys */
    run_case(2, 3, 25, 33, 8, 8, 0, 1.0, heads, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdpa_shapes),
        cmocka_unit_test(test_sdpa_masks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
