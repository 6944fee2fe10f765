/* test_dyn.c - the run-time side of data-dependent shapes
 * (templates/kernel_dyn.h, padded NonZero, NMS on a run-time box count),
 * numbers checked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ir/loop_kernels.h"

static LoopKernelFn dyn(void)
{
    LoopKernelFn f = loop_kernel_find("ctvm_k_dyn");
    assert_non_null(f);
    return f;
}

/* DIMS: broadcasting [n,1] (n = 3 at run time) with [4]; Slice 0:2 of a run-time 5 */
static void test_dims_program(void **state)
{
    (void)state;
    int64_t out[2] = {0, 0}, in_dims[2] = {3, 1}, sl[1] = {0}, five[1] = {5};
    void *bufs[2] = {out, in_dims};
    int64_t ia[2 + 7 * 4] = {0, 4, 2 /*BCAST*/, 0, 1, 0, 0, 0, 0, 2, 1, 1, 1, 0, 0, 0,
                             0 /*SET*/, 1, 0, 0, 1, 0, 0, 2, 1, 0, 0, 4, 0, 0};
    out[0] = 1; /* the program's SET r=1 before BCAST, written by hand here */
    dyn()(bufs, ia, NULL);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 4);
    void *b2[2] = {sl, five};
    int64_t ia2[2 + 7] = {0, 1, 3 /*SLICE*/, 0, 1, 0, 0, 2, 1};
    dyn()(b2, ia2, NULL);
    assert_int_equal(sl[0], 2);
    five[0] = 1;
    dyn()(b2, ia2, NULL);
    assert_int_equal(sl[0], 1);
}

/* APPEND: [2] of bound 4 then [1] of bound 3 -> [3] in a bound of 7, zeros after */
static void test_append(void **state)
{
    (void)state;
    float a[4] = {1, 2, 9, 9}, b[3] = {3, 9, 9}, y[7];
    int64_t ad[1] = {2}, bd[1] = {1}, yd[1] = {-1};
    for (int i = 0; i < 7; i++)
        y[i] = -1;
    void *b1[4] = {a, ad, y, yd}, *b2[4] = {b, bd, y, yd};
    int64_t ia1[7] = {1, 4, 1, 0, 1, 4, 7}, ia2[7] = {1, 4, 1, 0, 0, 3, 7};
    dyn()(b1, ia1, NULL);
    dyn()(b2, ia2, NULL);
    assert_int_equal(yd[0], 3);
    float want[7] = {1, 2, 3, 0, 0, 0, 0};
    for (int i = 0; i < 7; i++)
        assert_true(y[i] == want[i]);
}

/* REDUCE max over a padded [2 of 3, 2] and TOPK k = 2 of a run-time 3 of 5 */
static void test_reduce_topk(void **state)
{
    (void)state;
    float x[6] = {-5, -7, -1, -3, 100, 100}, m = 0;
    int64_t xd[2] = {2, 2};
    void *b[3] = {x, xd, &m};
    int64_t ia[8] = {3, 1 /*f32*/, 2, 1 /*max*/, 3, 2, 1, 1};
    dyn()(b, ia, NULL);
    assert_true(m == -1); /* the padding row (100) is not read */
    float v[5] = {0.2f, 0.9f, 0.5f, 7, 7}, tv[5];
    int64_t vd[1] = {3}, ti[5], k[1] = {2}, tvd[1], tid[1];
    void *tb[7] = {v, vd, tv, ti, k, tvd, tid};
    int64_t tia[8] = {4, 1, 1, 0, 1, 0, 5, 5};
    dyn()(tb, tia, NULL);
    assert_int_equal(tvd[0], 2);
    assert_int_equal(tid[0], 2);
    assert_true(tv[0] == 0.9f && tv[1] == 0.5f);
    assert_int_equal(ti[0], 1);
    assert_int_equal(ti[1], 2);
    assert_int_equal(ti[2], 0); /* zero padding: indices stay in range */
    k[0] = 9; /* k beyond the run-time count: clamped */
    dyn()(tb, tia, NULL);
    assert_int_equal(tvd[0], 3);
}

/* SELECT and COMPACT: a [2 of 2, 1 of 3] chosen into a [2, 3] bound, compacted */
/* TopK with k > 16 (the heap path) on [2, 300, 3] along axis 1, with ties
 * and a NaN, largest and smallest: values and indices equal a reference that
 * sorts (value, index) pairs with qsort (NaN after every number) */
static int g_largest;
static const float *g_row;
static int64_t g_inner;
static int ref_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    float va = g_row[a * g_inner], vb = g_row[b * g_inner];
    int c = va != va ? (vb != vb ? 0 : 1) : vb != vb ? -1 : (va > vb) - (va < vb);
    if (g_largest)
        c = -c;
    return c ? c : (a > b) - (a < b);
}

static void test_topk_heap(void **state)
{
    (void)state;
    enum { O = 2, N = 300, I = 3, K = 40 };
    LoopKernelFn f = loop_kernel_find("ctvm_k_topk");
    assert_non_null(f);
    static float x[O * N * I], y[O * K * I];
    static int64_t idx[O * K * I], order[N];
    for (int i = 0; i < O * N * I; i++)
        x[i] = (float)((i * 37) % 101) * 0.25f - 10.0f; /* many ties */
    x[5 * I + 1] = 0.0f / 0.0f;
    for (int largest = 0; largest < 2; largest++) {
        void *bufs[3] = {x, y, idx};
        int64_t ia[6] = {1 /* float32 */, O, N, I, K, largest};
        f(bufs, ia, NULL);
        for (int o = 0; o < O; o++)
            for (int i = 0; i < I; i++) {
                g_largest = largest;
                g_row = x + o * N * I + i;
                g_inner = I;
                for (int m = 0; m < N; m++)
                    order[m] = m;
                qsort(order, N, sizeof order[0], ref_cmp);
                for (int j = 0; j < K; j++) {
                    int64_t at = (o * K + j) * I + i;
                    assert_int_equal(idx[at], order[j]);
                    float want = g_row[order[j] * I];
                    assert_true(y[at] == want || (y[at] != y[at] && want != want));
                }
            }
    }
}

static void test_select_compact(void **state)
{
    (void)state;
    int64_t a[6] = {1, 9, 9, 2, 9, 9}, b[1] = {0}, y[6], yd[2];
    int64_t ad[2] = {2, 1};
    uint8_t cond = 1;
    void *bufs[7] = {&cond, a, ad, b, NULL, y, yd};
    int64_t ia[10] = {2, 8, 2, 7 /*bool*/, 2, 3, 0, 3, 2, 3};
    dyn()(bufs, ia, NULL);
    assert_int_equal(yd[0], 2);
    assert_int_equal(yd[1], 1);
    assert_int_equal(y[0], 1);
    assert_int_equal(y[3], 2);
    assert_int_equal(y[1], 0);
    void *cb[2] = {y, yd};
    int64_t cia[5] = {6, 8, 2, 2, 3};
    dyn()(cb, cia, NULL);
    assert_int_equal(y[0], 1);
    assert_int_equal(y[1], 2);
    cond = 0; /* the other branch: [0, 3] of bound [0, 3] */
    ia[6] = 0;
    dyn()(bufs, ia, NULL);
    assert_int_equal(yd[0], 0);
}

/* NonZero with a row stride: [2, k] rows 4 apart, zeros after */
static void test_nonzero_padded(void **state)
{
    (void)state;
    LoopKernelFn f = loop_kernel_find("ctvm_k_nonzero");
    assert_non_null(f);
    float x[4] = {0, 1, 0, 2};
    int64_t y[8], d[2];
    for (int i = 0; i < 8; i++)
        y[i] = -1;
    void *b[3] = {x, y, d};
    int64_t ia[6] = {1, 2, 4, 2, 2, 4};
    f(b, ia, NULL);
    assert_int_equal(d[1], 2);
    int64_t want[8] = {0, 1, 0, 0, 1, 1, 0, 0};
    for (int i = 0; i < 8; i++)
        assert_int_equal(y[i], want[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dims_program),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_reduce_topk),
        cmocka_unit_test(test_topk_heap),
        cmocka_unit_test(test_select_compact),
        cmocka_unit_test(test_nonzero_padded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
