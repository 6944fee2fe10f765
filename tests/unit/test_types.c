/* test_types.c - the narrow element formats of runtime_min/ctvm_types.h
 * against values computed by ml_dtypes and onnx.numpy_helper.to_float8e8m0
 * (numpy's float16, ml_dtypes' bfloat16/float8/float4 astype, which round to
 * nearest even and do not saturate), written down here as constants, plus
 * exhaustive decode/encode round trips of every code. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime_min/ctvm_types.h"

enum { N = 20 };
static const float X[N] = {0.0f,     -0.0f,   1.0f,    -1.5f,    0.1f,   3.14159f, 448.0f,
                           464.0f,   465.0f,  500.0f,  1e-3f,    0x1p-9f, 0x1p-10f, 0x1p-17f,
                           57344.0f, 61440.0f, 65504.0f, 65520.0f, 1e5f,  -1e5f};

static const uint16_t F16[N] = {0x0,    0x8000, 0x3c00, 0xbe00, 0x2e66, 0x4248, 0x5f00,
                                0x5f40, 0x5f44, 0x5fd0, 0x1419, 0x1800, 0x1400, 0x80,
                                0x7b00, 0x7b80, 0x7bff, 0x7c00, 0x7c00, 0xfc00};
static const uint16_t BF16[N] = {0x0,    0x8000, 0x3f80, 0xbfc0, 0x3dcd, 0x4049, 0x43e0,
                                 0x43e8, 0x43e8, 0x43fa, 0x3a83, 0x3b00, 0x3a80, 0x3700,
                                 0x4760, 0x4770, 0x4780, 0x4780, 0x47c3, 0xc7c3};
static const uint8_t E4M3FN[N] = {0x0, 0x80, 0x38, 0xbc, 0x1d, 0x45, 0x7e, 0x7e, 0x7f, 0x7f,
                                  0x1, 0x1,  0x0,  0x0,  0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0xff};
static const uint8_t E4M3FNUZ[N] = {0x0, 0x0, 0x40, 0xc4, 0x25, 0x4d, 0x80, 0x80, 0x80, 0x80,
                                    0x1, 0x2, 0x1,  0x0,  0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
static const uint8_t E5M2[N] = {0x0,  0x80, 0x3c, 0xbe, 0x2e, 0x42, 0x5f, 0x5f, 0x5f, 0x60,
                                0x14, 0x18, 0x14, 0x0,  0x7b, 0x7c, 0x7c, 0x7c, 0x7c, 0xfc};
static const uint8_t E5M2FNUZ[N] = {0x0,  0x0,  0x40, 0xc2, 0x32, 0x46, 0x63, 0x63, 0x63, 0x64,
                                    0x18, 0x1c, 0x18, 0x1,  0x7f, 0x80, 0x80, 0x80, 0x80, 0x80};
static const uint8_t F4[N] = {0x0, 0x8, 0x2, 0xb, 0x0, 0x5, 0x7, 0x7, 0x7, 0x7,
                              0x0, 0x0, 0x0, 0x0, 0x7, 0x7, 0x7, 0x7, 0x7, 0xf};
/* to_float8e8m0(|x|, saturate=True, mode) */
static const uint8_t E8M0[3][N] = {
    {0x0, 0x0, 0x7f, 0x80, 0x7c, 0x81, 0x88, 0x88, 0x88, 0x88,
     0x76, 0x76, 0x75, 0x6e, 0x8f, 0x8f, 0x8f, 0x8f, 0x90, 0x90}, /* up */
    {0x0, 0x0, 0x7f, 0x7f, 0x7b, 0x80, 0x87, 0x87, 0x87, 0x87,
     0x75, 0x76, 0x75, 0x6e, 0x8e, 0x8e, 0x8e, 0x8e, 0x8f, 0x8f}, /* down */
    {0x0, 0x0, 0x7f, 0x80, 0x7c, 0x81, 0x88, 0x88, 0x88, 0x88,
     0x75, 0x76, 0x75, 0x6e, 0x8f, 0x8f, 0x8f, 0x8f, 0x90, 0x90}, /* nearest */
};

static void test_encode(void **state)
{
    (void)state;
    for (int i = 0; i < N; i++) {
        float x = X[i];
        assert_int_equal(ctvm_f32_to_f16(x), F16[i]);
        assert_int_equal(ctvm_f32_to_bf16(x), BF16[i]);
        assert_int_equal(ctvm_f32_to_f8e4m3fn(x, 0), E4M3FN[i]);
        assert_int_equal(ctvm_f32_to_f8e4m3fnuz(x, 0), E4M3FNUZ[i]);
        assert_int_equal(ctvm_f32_to_f8e5m2(x, 0), E5M2[i]);
        assert_int_equal(ctvm_f32_to_f8e5m2fnuz(x, 0), E5M2FNUZ[i]);
        assert_int_equal(ctvm_f32_to_f4e2m1(x), F4[i]);
        for (int mode = 0; mode < 3; mode++)
            assert_int_equal(ctvm_f32_to_f8e8m0(fabsf(x), 1, mode), E8M0[mode][i]);
    }
}

/* ONNX Cast's saturating float8 conversion: overflow and infinities give
 * the largest finite value, NaN stays NaN. */
static void test_saturate(void **state)
{
    (void)state;
    assert_int_equal(ctvm_f32_to_f8e4m3fn(1e9f, 1), 0x7e);
    assert_int_equal(ctvm_f32_to_f8e4m3fn(-INFINITY, 1), 0xfe);
    assert_int_equal(ctvm_f32_to_f8e4m3fnuz(INFINITY, 1), 0x7f);
    assert_int_equal(ctvm_f32_to_f8e5m2(INFINITY, 1), 0x7b);
    assert_int_equal(ctvm_f32_to_f8e5m2(-1e6f, 1), 0xfb);
    assert_int_equal(ctvm_f32_to_f8e5m2fnuz(1e6f, 1), 0x7f);
    assert_int_equal(ctvm_f32_to_f8e4m3fn(NAN, 1) & 0x7f, 0x7f);
    assert_int_equal(ctvm_f32_to_f8e5m2fnuz(NAN, 1), 0x80);
    assert_int_equal(ctvm_f32_to_f8e8m0(INFINITY, 1, CTVM_ROUND_UP), 0xff);
    assert_int_equal(ctvm_f32_to_f8e8m0(0x1.8p127f, 1, CTVM_ROUND_UP), 0xfe);
    assert_int_equal(ctvm_f32_to_f8e8m0(0x1.8p127f, 0, CTVM_ROUND_UP), 0xff);
}

/* Every code decodes to a value that encodes back to the same code. */
static void test_roundtrip(void **state)
{
    (void)state;
    for (uint32_t c = 0; c < 65536; c++) {
        float f = ctvm_f16_to_f32((uint16_t)c), b = ctvm_bf16_to_f32((uint16_t)c);
        if (!isnan(f))
            assert_int_equal(ctvm_f32_to_f16(f), c);
        if (!isnan(b))
            assert_int_equal(ctvm_f32_to_bf16(b), c);
    }
    for (uint32_t c = 0; c < 256; c++) {
        float v;
        v = ctvm_f8e4m3fn_to_f32((uint8_t)c);
        if (!isnan(v))
            assert_int_equal(ctvm_f32_to_f8e4m3fn(v, 0), c);
        v = ctvm_f8e4m3fnuz_to_f32((uint8_t)c);
        if (!isnan(v))
            assert_int_equal(ctvm_f32_to_f8e4m3fnuz(v, 0), c);
        v = ctvm_f8e5m2_to_f32((uint8_t)c);
        if (!isnan(v))
            assert_int_equal(ctvm_f32_to_f8e5m2(v, 0), c);
        v = ctvm_f8e5m2fnuz_to_f32((uint8_t)c);
        if (!isnan(v))
            assert_int_equal(ctvm_f32_to_f8e5m2fnuz(v, 0), c);
        v = ctvm_f8e8m0_to_f32((uint8_t)c);
        if (!isnan(v))
            assert_int_equal(ctvm_f32_to_f8e8m0(v, 0, CTVM_ROUND_NEAREST), c);
        if (c < 16)
            assert_int_equal(ctvm_f32_to_f4e2m1(ctvm_f4e2m1_to_f32((uint8_t)c)), c);
    }
    assert_float_equal(ctvm_f8e4m3fn_to_f32(0x7e), 448.0f, 0);
    assert_float_equal(ctvm_f8e5m2fnuz_to_f32(0x01), 0x1p-17f, 0);
    assert_float_equal(ctvm_f4e2m1_to_f32(0xf), -6.0f, 0);
    assert_float_equal(ctvm_f8e8m0_to_f32(0), 0x1p-127f, 0);
}

/* Packed 4-bit and 2-bit elements: element 0 in the low bits, stores wrap. */
static void test_packed(void **state)
{
    (void)state;
    uint8_t p[2] = {0, 0};
    ctvm_st_4(p, 0, -3);
    ctvm_st_4(p, 1, 7);
    ctvm_st_4(p, 2, 17); /* wraps to 1 */
    assert_int_equal(p[0], 0x7d);
    assert_int_equal(ctvm_ld_i4(p, 0), -3);
    assert_int_equal(ctvm_ld_u4(p, 0), 13);
    assert_int_equal(ctvm_ld_i4(p, 2), 1);
    uint8_t q = 0;
    for (int i = 0; i < 4; i++)
        ctvm_st_2(&q, i, i - 2);
    assert_int_equal(q, 0x4e); /* -2,-1,0,1 -> codes 2,3,0,1, element 0 lowest */
    for (int i = 0; i < 4; i++)
        assert_int_equal(ctvm_ld_i2(&q, i), i - 2);
    ctvm_st_f4e2m1(p, 3, 2.9f);
    assert_float_equal(ctvm_ld_f4e2m1(p, 3), 3.0f, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_saturate),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_packed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
