/* vec_api_check_typed.c - not a test on its own: test_vec_api.c pastes it,
 * after runtime_min/ctvm_types.h and one templates/ctvm_vec_*.h, in front
 * of vec_api_check.c, whose main() calls check_typed().
 *
 * Checks the typed part of the vector API (int32, 16-bit, 8-bit, 64-bit,
 * float64 vectors, the conversions and the dot products) lane by lane
 * against plain scalar C: wrapping two's-complement arithmetic computed in
 * unsigned types, C's own conversions, libm's rounding functions, and
 * ctvm_types.h's float16 / bfloat16 conversions (bit for bit, NaN
 * included). Inputs: edge values (INT_MIN, saturation edges, sign-bit
 * crossings, ties, denormals, ±inf, NaN), every 8-bit and 16-bit pattern
 * where the input is that narrow, and random values; loads and stores at
 * unaligned (vector-wise) addresses. Counts go to typed_checks and
 * typed_fails; one "FAIL ..." line per failure (the first 40). */
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* as vec_api_check.c defines it: ARMv7 NEON flushes denormals to zero */
#if defined(__arm__) && !defined(__aarch64__) && CTVM_VL > 1
#define FLUSH_OK 1
#else
#define FLUSH_OK 0
#endif

#define TN 4096 /* inputs per integer table; a multiple of every CTVM_VL */

static long typed_checks, typed_fails;

static int32_t ti_buf[3][TN + 32];
static int32_t *TA = ti_buf[0] + 1, *TB = ti_buf[1] + 3, *TC = ti_buf[2] + 5;
static double td_buf[3][TN + 32];
static double *DA = td_buf[0] + 1, *DB = td_buf[1] + 2, *DC = td_buf[2] + 3;
static int64_t tl_buf[2][TN + 32];
static int64_t *LA = tl_buf[0] + 1, *LB = tl_buf[1] + 3;
static float tf_buf[TN + 32];
static float *FA = tf_buf + 1;

static unsigned long trng = 987654321UL;
static uint32_t trand(void)
{
    uint32_t hi, lo;
    trng = (trng * 1103515245UL + 12345UL) & 0xffffffffUL;
    hi = (uint32_t)(trng >> 16);
    trng = (trng * 1103515245UL + 12345UL) & 0xffffffffUL;
    lo = (uint32_t)(trng >> 16);
    return (hi << 16) | lo;
}
static int32_t as_i32(uint32_t u) { return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1; }
static int64_t as_i64(uint64_t u)
{
    return u <= INT64_MAX ? (int64_t)u : (int64_t)(u - 9223372036854775808u) - INT64_MAX - 1;
}
static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void tfail(const char *name, long long a, long long b, long long got, long long want)
{
    if (typed_fails++ < 40)
        printf("FAIL %s(%lld, %lld) = %lld (0x%llx), expected %lld (0x%llx)\n", name, a, b, got,
               (unsigned long long)got, want, (unsigned long long)want);
}
static void tcheck(const char *name, long long a, long long b, long long got, long long want)
{
    typed_checks++;
    if (got != want)
        tfail(name, a, b, got, want);
}
static void tfailf(const char *name, double a, double b, double got, double want)
{
    if (typed_fails++ < 40)
        printf("FAIL %s(%.17g, %.17g) = %.17g, expected %.17g\n", name, a, b, got, want);
}
/* float64 results: the same bits, any NaN for a NaN */
static void tcheckd(const char *name, double a, double b, double got, double want)
{
    typed_checks++;
    if (!((got != got && want != want) || f64_bits(got) == f64_bits(want)))
        tfailf(name, a, b, got, want);
}
/* float32 results: the same bits, any NaN for a NaN */
static int tsame32(float got, float want) { return (got != got && want != want) || f32_bits(got) == f32_bits(want); }
static void tcheckf(const char *name, double a, float got, float want)
{
    typed_checks++;
    if (!tsame32(got, want))
        tfailf(name, a, 0, got, want);
}

static void fill_typed(void)
{
    static const uint32_t edge[] = {0, 1, -1, 2, -2, 3, 7, 8, 31, 32, 100, -100, 126, 127, 128, 129, -127, -128, -129,
                                   -130, 254, 255, 256, 257, -255, -256, -257, 32766, 32767, 32768, 32769, -32767,
                                   -32768, -32769, -32770, 65534, 65535, 65536, 65537, -65535, -65536, -65537,
                                   16777215, 16777216, 16777217, 16777219, -16777217, 33554435, 2147483520,
                                   2147483583, 2147483584, 2147483646, INT32_MAX, -2147483647, INT32_MIN,
                                   -2147483583, 1000000, -1000000, 0x55555555, 0xaaaaaaaau,
                                   0x80000001u, 0xfffffffeu, 0x7f7f7f7fu, 0x80808080u, 0xffff0000u, 0x0000ffff};
    static const double dedge[] = {0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 1e-310, 4.9e-324, 2.2250738585072014e-308, 1e300,
                                   1.7976931348623157e308, 3.4028235677973366e38, 3.4028235e38, 3.5e38, 1e-45,
                                   1.4012984643e-45, 7.006492321624085e-46, 1e-40, 1.17549435e-38, 0.1, 1.0 / 3,
                                   16777217.0, 4294967296.0};
    int i, ne = (int)(sizeof edge / sizeof edge[0]), nd = (int)(sizeof dedge / sizeof dedge[0]);
    for (i = 0; i < ne; i++)
        TA[i] = as_i32(edge[i]);
    for (; i < 1200; i++)
        TA[i] = as_i32(trand());
    for (; i < 2200; i++)
        TA[i] = (int32_t)(trand() % 601u) - 300;
    for (; i < 3200; i++)
        TA[i] = (int32_t)(trand() % 140001u) - 70000;
    for (; i < TN; i++)
        TA[i] = as_i32(edge[trand() % (uint32_t)ne]);
    for (i = 0; i < TN; i++) {
        TB[i] = i % 7 == 0 ? TA[i] : TA[(i * 7 + 3) % TN]; /* some equal pairs */
        if (i % 13 == 5)
            TB[i] = TA[i] ^ INT32_MIN; /* across the sign bit */
        TC[i] = TA[(i * 13 + 5) % TN];
    }
    for (i = 0; i < nd; i++) {
        DA[2 * i] = dedge[i];
        DA[2 * i + 1] = -dedge[i];
    }
    i = 2 * nd;
    DA[i++] = HUGE_VAL;
    DA[i++] = -HUGE_VAL;
    DA[i++] = NAN;
    DA[i++] = -NAN;
    for (; i < 2000; i++)
        DA[i] = ((double)as_i32(trand()) + (double)trand() / 4294967296.0) / (double)(1 + trand() % 1000u);
    for (; i < TN; i++) {
        uint64_t u = ((uint64_t)trand() << 32) | trand();
        memcpy(&DA[i], &u, sizeof u);
    }
    for (i = 0; i < TN; i++) {
        DB[i] = i % 11 == 0 ? DA[i] : DA[(i * 7 + 3) % TN];
        DC[i] = DA[(i * 13 + 5) % TN];
    }
    for (i = 0; i < TN; i++) {
        LA[i] = as_i64(((uint64_t)trand() << 32) | trand());
        LB[i] = as_i64(((uint64_t)trand() << 32) | trand());
    }
    LA[0] = INT64_MIN;
    LB[0] = -1;
    LA[1] = INT64_MAX;
    LB[1] = 1;
    LA[2] = -1;
    LB[2] = -1;
    LA[3] = 0;
    LB[3] = INT64_MIN;
}

/* ---- int32 ---- */
typedef ctvm_vi (*vi2)(ctvm_vi, ctvm_vi);
typedef int32_t (*ri2)(int32_t, int32_t);
static int32_t r_add_i32(int32_t a, int32_t b) { return as_i32((uint32_t)a + (uint32_t)b); }
static int32_t r_sub_i32(int32_t a, int32_t b) { return as_i32((uint32_t)a - (uint32_t)b); }
static int32_t r_mul_i32(int32_t a, int32_t b) { return as_i32((uint32_t)((int64_t)a * b)); }
static int32_t r_min_i32(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t r_max_i32(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t r_min_u32(int32_t a, int32_t b) { return (uint32_t)a < (uint32_t)b ? a : b; }
static int32_t r_max_u32(int32_t a, int32_t b) { return (uint32_t)a > (uint32_t)b ? a : b; }
static int32_t r_and_i32(int32_t a, int32_t b) { return as_i32((uint32_t)a & (uint32_t)b); }
static int32_t r_or_i32(int32_t a, int32_t b) { return as_i32((uint32_t)a | (uint32_t)b); }
static int32_t r_xor_i32(int32_t a, int32_t b) { return as_i32((uint32_t)a ^ (uint32_t)b); }

static void check_i32_binary(void)
{
    static const struct {
        const char *name;
        vi2 v;
        ri2 r;
    } fn[] = {{"vadd_i32", ctvm_vadd_i32, r_add_i32}, {"vsub_i32", ctvm_vsub_i32, r_sub_i32},
              {"vmul_i32", ctvm_vmul_i32, r_mul_i32}, {"vmin_i32", ctvm_vmin_i32, r_min_i32},
              {"vmax_i32", ctvm_vmax_i32, r_max_i32}, {"vmin_u32", ctvm_vmin_u32, r_min_u32},
              {"vmax_u32", ctvm_vmax_u32, r_max_u32}, {"vand_i32", ctvm_vand_i32, r_and_i32},
              {"vor_i32", ctvm_vor_i32, r_or_i32},    {"vxor_i32", ctvm_vxor_i32, r_xor_i32}};
    size_t k;
    int i, l;
    for (k = 0; k < sizeof fn / sizeof fn[0]; k++)
        for (i = 0; i < TN; i += CTVM_VL) {
            int32_t o[CTVM_VL];
            ctvm_vstore_i32(o, fn[k].v(ctvm_vload_i32(TA + i), ctvm_vload_i32(TB + i)));
            for (l = 0; l < CTVM_VL; l++)
                tcheck(fn[k].name, TA[i + l], TB[i + l], o[l], fn[k].r(TA[i + l], TB[i + l]));
        }
}

static void check_i32_unary(void)
{
    int i, l, n;
    for (i = 0; i < TN; i += CTVM_VL) {
        int32_t o1[CTVM_VL], o2[CTVM_VL], o3[CTVM_VL];
        ctvm_vi a = ctvm_vload_i32(TA + i);
        ctvm_vstore_i32(o1, ctvm_vneg_i32(a));
        ctvm_vstore_i32(o2, ctvm_vabs_i32(a));
        ctvm_vstore_i32(o3, ctvm_vnot_i32(a));
        for (l = 0; l < CTVM_VL; l++) {
            int32_t x = TA[i + l], neg = as_i32(0u - (uint32_t)x);
            tcheck("vneg_i32", x, 0, o1[l], neg);
            tcheck("vabs_i32", x, 0, o2[l], x < 0 ? neg : x);
            tcheck("vnot_i32", x, 0, o3[l], -1 - (long long)x);
        }
    }
    for (n = 0; n < 32; n++)
        for (i = 0; i < 512; i += CTVM_VL) {
            int32_t o1[CTVM_VL], o2[CTVM_VL], o3[CTVM_VL];
            ctvm_vi a = ctvm_vload_i32(TA + i);
            ctvm_vstore_i32(o1, ctvm_vshl_i32(a, n));
            ctvm_vstore_i32(o2, ctvm_vshr_i32(a, n));
            ctvm_vstore_i32(o3, ctvm_vshr_u32(a, n));
            for (l = 0; l < CTVM_VL; l++) {
                int32_t x = TA[i + l];
                long long floordiv = (long long)x >= 0 ? (long long)x / (1LL << n)
                                                        : -((-(long long)x + (1LL << n) - 1) / (1LL << n));
                tcheck("vshl_i32", x, n, o1[l], as_i32((uint32_t)x << n));
                tcheck("vshr_i32", x, n, o2[l], floordiv);
                tcheck("vshr_u32", x, n, o3[l], as_i32((uint32_t)x >> n));
            }
        }
    /* broadcasts and zero */
    for (i = 0; i < 64; i++) {
        int32_t o[CTVM_VL];
        ctvm_vstore_i32(o, ctvm_vset1_i32(TA[i]));
        for (l = 0; l < CTVM_VL; l++)
            tcheck("vset1_i32", TA[i], 0, o[l], TA[i]);
    }
    /* the late broadcasts (a register tile's epilogue constants): the same
       lanes, float bits included (-0, NaN, denormals) */
    for (i = 0; i < 64; i++) {
        int32_t o[CTVM_VL], of[CTVM_VL];
        float x;
        memcpy(&x, &TA[i], sizeof x);
        ctvm_vstore_i32(o, ctvm_vset1_i32_late(TA[i]));
        ctvm_vstore((float *)of, ctvm_vset1_late(x));
        for (l = 0; l < CTVM_VL; l++) {
            tcheck("vset1_i32_late", TA[i], 0, o[l], TA[i]);
            tcheck("vset1_late", TA[i], 0, of[l], TA[i]);
        }
    }
    {
        int32_t o[CTVM_VL];
        ctvm_vstore_i32(o, ctvm_vzero_i32());
        for (l = 0; l < CTVM_VL; l++)
            tcheck("vzero_i32", 0, 0, o[l], 0);
    }
}

/* a mask made visible: 1 where set, 0 elsewhere */
static void mask_lanes(ctvm_vm m, int32_t *o) { ctvm_vstore_i32(o, ctvm_vselect_i32(m, ctvm_vset1_i32(1), ctvm_vzero_i32())); }

static void check_compares(void)
{
    static const char *const names[] = {"vlt_i32", "vle_i32", "vgt_i32", "vge_i32", "veq_i32",
                                         "vne_i32", "vlt_u32", "vle_u32", "vgt_u32", "vge_u32"};
    int i, l, k;
    for (i = 0; i < TN; i += CTVM_VL) {
        ctvm_vi a = ctvm_vload_i32(TA + i), b = ctvm_vload_i32(TB + i), c = ctvm_vload_i32(TC + i);
        ctvm_vm m[10];
        int32_t o[CTVM_VL], sel[CTVM_VL], mo[CTVM_VL], mx[CTVM_VL], mn[CTVM_VL], ma[CTVM_VL];
        m[0] = ctvm_vlt_i32(a, b);
        m[1] = ctvm_vle_i32(a, b);
        m[2] = ctvm_vgt_i32(a, b);
        m[3] = ctvm_vge_i32(a, b);
        m[4] = ctvm_veq_i32(a, b);
        m[5] = ctvm_vne_i32(a, b);
        m[6] = ctvm_vlt_u32(a, b);
        m[7] = ctvm_vle_u32(a, b);
        m[8] = ctvm_vgt_u32(a, b);
        m[9] = ctvm_vge_u32(a, b);
        for (k = 0; k < 10; k++) {
            mask_lanes(m[k], o);
            for (l = 0; l < CTVM_VL; l++) {
                int32_t x = TA[i + l], y = TB[i + l];
                uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
                int want = k == 0 ? x < y : k == 1 ? x <= y : k == 2 ? x > y : k == 3 ? x >= y : k == 4 ? x == y
                         : k == 5 ? x != y : k == 6 ? ux < uy : k == 7 ? ux <= uy : k == 8 ? ux > uy : ux >= uy;
                tcheck(names[k], x, y, o[l], want);
            }
        }
        /* mask logic on lt(a, b) and lt_u(c, a) */
        {
            ctvm_vm p = m[0], q = ctvm_vlt_u32(c, a);
            ctvm_vstore_i32(sel, ctvm_vselect_i32(p, a, b));
            mask_lanes(ctvm_vmor(p, q), mo);
            mask_lanes(ctvm_vmxor(p, q), mx);
            mask_lanes(ctvm_vmnot(p), mn);
            mask_lanes(ctvm_vmand(p, q), ma);
            for (l = 0; l < CTVM_VL; l++) {
                int32_t x = TA[i + l], y = TB[i + l], z = TC[i + l];
                int pp = x < y, qq = (uint32_t)z < (uint32_t)x;
                tcheck("vselect_i32", x, y, sel[l], pp ? x : y);
                tcheck("vmor", pp, qq, mo[l], pp || qq);
                tcheck("vmxor", pp, qq, mx[l], pp != qq);
                tcheck("vmnot", pp, 0, mn[l], !pp);
                tcheck("vmand", pp, qq, ma[l], pp && qq);
            }
        }
    }
}

/* vgt and vne on float32, NaN included */
static void check_float_compares(void)
{
    static const float v[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, -1e-45f, 3.5f, HUGE_VALF, -HUGE_VALF, NAN, 2.0f};
    int nv = (int)(sizeof v / sizeof v[0]), i, j, l;
    float a[CTVM_VL], b[CTVM_VL];
    for (i = 0; i < nv; i++)
        for (j = 0; j < nv; j++) {
            int32_t gt[CTVM_VL], ne[CTVM_VL];
            for (l = 0; l < CTVM_VL; l++) {
                a[l] = v[(i + l) % nv];
                b[l] = v[(j + 2 * l) % nv];
            }
            mask_lanes(ctvm_vgt(ctvm_vload(a), ctvm_vload(b)), gt);
            mask_lanes(ctvm_vne(ctvm_vload(a), ctvm_vload(b)), ne);
            for (l = 0; l < CTVM_VL; l++) {
                /* ARMv7 NEON flushes the denormal ±1e-45 to ±0 */
                int f = FLUSH_OK && fabsf(a[l]) < FLT_MIN && fabsf(b[l]) < FLT_MIN;
                typed_checks += 2;
                if (gt[l] != (a[l] > b[l]) && !f)
                    tfailf("vgt", a[l], b[l], gt[l], a[l] > b[l]);
                if (ne[l] != !(a[l] == b[l]) && !f)
                    tfailf("vne", a[l], b[l], ne[l], !(a[l] == b[l]));
            }
        }
}

/* ---- loads, stores and broadcasts of every width ---- */
static void check_memory_typed(void)
{
    unsigned char src[8 * 4 * 16 + 64], dst[8 * 4 * 16 + 64];
    int off, k, l, w;
    for (w = 0; w < 5; w++) { /* element bytes: 1, 2, 4 (q), 8 (64), 8 (f64) */
        int eb = w == 0 ? 1 : w == 1 ? 2 : w == 2 ? 1 : 8, nb = w == 2 ? 4 * CTVM_VL : eb * CTVM_VL;
        for (off = 0; off < 2 * CTVM_VL + 3; off++) {
            int start = off * eb;
            for (k = 0; k < (int)sizeof src; k++) {
                src[k] = (unsigned char)(k * 37 + 11);
                dst[k] = 0xa5;
            }
            if (w == 0)
                ctvm_vstore_8(dst + start, ctvm_vload_8(src + start));
            else if (w == 1)
                ctvm_vstore_16(dst + start, ctvm_vload_16(src + start));
            else if (w == 2) { /* q: through a dot product with b = 1: lane sums of the bytes (as signed) */
                int32_t o[CTVM_VL];
                ctvm_vstore_i32(o, ctvm_vdot_i8i8(ctvm_vzero_i32(), ctvm_vload_q(src + start), ctvm_vset1_q(1)));
                for (l = 0; l < CTVM_VL; l++) {
                    int32_t want = 0;
                    for (k = 0; k < 4; k++)
                        want += (int8_t)src[start + 4 * l + k];
                    tcheck("vload_q", off, l, o[l], want);
                }
                continue; /* nothing stored */
            } else if (w == 3)
                ctvm_vstore_64(dst + start, ctvm_vload_64(src + start));
            else {
                double d[4 * 16 + 8];
                memcpy(d, src, sizeof d);
                ctvm_vstore_f64(d + off, ctvm_vload_f64(d + off));
                for (k = 0; k < (int)(sizeof d / sizeof d[0]); k++) {
                    double s;
                    memcpy(&s, src + 8 * k, sizeof s);
                    typed_checks++;
                    if (f64_bits(d[k]) != f64_bits(s))
                        tfail("vload_f64/vstore_f64", off, k, (long long)f64_bits(d[k]), (long long)f64_bits(s));
                }
                continue;
            }
            for (k = 0; k < (int)sizeof src; k++)
                tcheck(w == 0 ? "vload_8/vstore_8" : w == 1 ? "vload_16/vstore_16" : "vload_64/vstore_64", off, k,
                       dst[k], k >= start && k < start + nb ? src[k] : 0xa5);
        }
    }
    for (k = 0; k < 40; k++) {
        int16_t h[CTVM_VL];
        int8_t b[CTVM_VL];
        int64_t q[CTVM_VL];
        double d[CTVM_VL];
        int16_t x16 = (int16_t)(TA[k] % 32768);
        int8_t x8 = (int8_t)(TA[k] % 128);
        ctvm_vstore_16(h, ctvm_vset1_16(x16));
        ctvm_vstore_8(b, ctvm_vset1_8(x8));
        ctvm_vstore_64(q, ctvm_vset1_64(LA[k]));
        ctvm_vstore_f64(d, ctvm_vset1_f64(DA[k]));
        for (l = 0; l < CTVM_VL; l++) {
            tcheck("vset1_16", x16, 0, h[l], x16);
            tcheck("vset1_8", x8, 0, b[l], x8);
            tcheck("vset1_64", LA[k], 0, q[l], LA[k]);
            tcheckd("vset1_f64", DA[k], 0, d[l], DA[k]);
        }
    }
    for (k = -128; k < 128; k += 17) { /* vset1_q: every byte; seen through a dot with all-ones */
        int32_t o[CTVM_VL];
        ctvm_vstore_i32(o, ctvm_vdot_i8i8(ctvm_vzero_i32(), ctvm_vset1_q((int8_t)k), ctvm_vset1_q(1)));
        for (l = 0; l < CTVM_VL; l++)
            tcheck("vset1_q", k, l, o[l], 4 * k);
    }
    { /* vbcast4_q and its _late form: the 4 bytes at an unaligned p in every
         group, each seen through a dot with one-hot weights */
        static int8_t sel[4][4 * CTVM_VL];
        static uint8_t src[64];
        int j, off;
        for (j = 0; j < 64; j++)
            src[j] = (uint8_t)(j * 37 + 11);
        for (j = 0; j < 4; j++)
            for (l = 0; l < 4 * CTVM_VL; l++)
                sel[j][l] = (int8_t)(l % 4 == j);
        for (off = 0; off < 8; off++)
            for (j = 0; j < 4; j++) {
                int32_t o1[CTVM_VL], o2[CTVM_VL];
                ctvm_vq w = ctvm_vload_q(sel[j]);
                ctvm_vstore_i32(o1, ctvm_vdot_u8i8(ctvm_vzero_i32(), ctvm_vbcast4_q(src + off), w));
                ctvm_vstore_i32(o2, ctvm_vdot_u8i8(ctvm_vzero_i32(), ctvm_vbcast4_q_late(src + off), w));
                for (l = 0; l < CTVM_VL; l++) {
                    tcheck("vbcast4_q", off, j, o1[l], src[off + j]);
                    tcheck("vbcast4_q_late", off, j, o2[l], src[off + j]);
                }
            }
    }
}

/* ---- selects of every width, masks <-> bool bytes ---- */
static void check_selects(void)
{
    static uint16_t h1[TN], h2[TN];
    static uint8_t b1[TN], b2[TN];
    int i, l;
    for (i = 0; i < TN; i++) {
        h1[i] = (uint16_t)(TA[i] & 0xffff);
        h2[i] = (uint16_t)(TB[i] & 0xffff);
        b1[i] = (uint8_t)(TA[i] & 0xff);
        b2[i] = (uint8_t)(i % 5 == 0 ? 0 : i % 5 == 1 ? 1 : (TC[i] >> 3) & 0xff);
    }
    for (i = 0; i < TN; i += CTVM_VL) {
        ctvm_vm m = ctvm_vlt_i32(ctvm_vload_i32(TA + i), ctvm_vload_i32(TB + i));
        uint16_t oh[CTVM_VL];
        uint8_t ob[CTVM_VL], bools[CTVM_VL];
        int64_t ol[CTVM_VL];
        double od[CTVM_VL];
        int32_t mb[CTVM_VL];
        ctvm_vstore_16(oh, ctvm_vselect_16(m, ctvm_vload_16(h1 + i), ctvm_vload_16(h2 + i)));
        ctvm_vstore_8(ob, ctvm_vselect_8(m, ctvm_vload_8(b1 + i), ctvm_vload_8(b2 + i)));
        ctvm_vstore_64(ol, ctvm_vselect_64(m, ctvm_vload_64(LA + i), ctvm_vload_64(LB + i)));
        ctvm_vstore_f64(od, ctvm_vselect_f64(m, ctvm_vload_f64(DA + i), ctvm_vload_f64(DB + i)));
        ctvm_vstore_8(bools, ctvm_vb_of_mask(m));
        mask_lanes(ctvm_vmask_of_b(ctvm_vload_8(b2 + i)), mb);
        for (l = 0; l < CTVM_VL; l++) {
            int p = TA[i + l] < TB[i + l];
            tcheck("vselect_16", p, 0, oh[l], p ? h1[i + l] : h2[i + l]);
            tcheck("vselect_8", p, 0, ob[l], p ? b1[i + l] : b2[i + l]);
            tcheck("vselect_64", p, 0, ol[l], p ? LA[i + l] : LB[i + l]);
            tcheckd("vselect_f64", p, 0, od[l], p ? DA[i + l] : DB[i + l]);
            tcheck("vb_of_mask", p, 0, bools[l], p);
            tcheck("vmask_of_b", b2[i + l], 0, mb[l], b2[i + l] != 0);
        }
    }
}

/* ---- float64 ---- */
typedef ctvm_vd (*vd2)(ctvm_vd, ctvm_vd);
static double rd_add(double a, double b) { volatile double t = a + b; return t; }
static double rd_sub(double a, double b) { volatile double t = a - b; return t; }
static double rd_mul(double a, double b) { volatile double t = a * b; return t; }
static double rd_div(double a, double b) { volatile double t = a / b; return t; }
static double rd_min(double a, double b) { return a < b ? a : b; }
static double rd_max(double a, double b) { return a > b ? a : b; }

static void check_f64(void)
{
    static const struct {
        const char *name;
        vd2 v;
        double (*r)(double, double);
    } fn[] = {{"vadd_f64", ctvm_vadd_f64, rd_add}, {"vsub_f64", ctvm_vsub_f64, rd_sub},
              {"vmul_f64", ctvm_vmul_f64, rd_mul}, {"vdiv_f64", ctvm_vdiv_f64, rd_div},
              {"vmin_f64", ctvm_vmin_f64, rd_min}, {"vmax_f64", ctvm_vmax_f64, rd_max}};
    size_t k;
    int i, l;
    for (k = 0; k < sizeof fn / sizeof fn[0]; k++)
        for (i = 0; i < TN; i += CTVM_VL) {
            double o[CTVM_VL];
            ctvm_vstore_f64(o, fn[k].v(ctvm_vload_f64(DA + i), ctvm_vload_f64(DB + i)));
            for (l = 0; l < CTVM_VL; l++)
                tcheckd(fn[k].name, DA[i + l], DB[i + l], o[l], fn[k].r(DA[i + l], DB[i + l]));
        }
    for (i = 0; i < TN; i += CTVM_VL) {
        double o1[CTVM_VL], o2[CTVM_VL], o3[CTVM_VL], o4[CTVM_VL];
        int32_t m[6][CTVM_VL];
        ctvm_vd a = ctvm_vload_f64(DA + i), b = ctvm_vload_f64(DB + i), c = ctvm_vload_f64(DC + i);
        ctvm_vstore_f64(o1, ctvm_vfma_f64(a, b, c));
        ctvm_vstore_f64(o2, ctvm_vsqrt_f64(a));
        ctvm_vstore_f64(o3, ctvm_vneg_f64(a));
        ctvm_vstore_f64(o4, ctvm_vabs_f64(a));
        mask_lanes(ctvm_vlt_f64(a, b), m[0]);
        mask_lanes(ctvm_vle_f64(a, b), m[1]);
        mask_lanes(ctvm_vgt_f64(a, b), m[2]);
        mask_lanes(ctvm_vge_f64(a, b), m[3]);
        mask_lanes(ctvm_veq_f64(a, b), m[4]);
        mask_lanes(ctvm_vne_f64(a, b), m[5]);
        for (l = 0; l < CTVM_VL; l++) {
            double x = DA[i + l], y = DB[i + l], z = DC[i + l];
            volatile double p = x * y, s = p + z, sq = sqrt(x);
            double fused = fma(x, y, z);
            typed_checks++; /* fused or unfused, but nothing else */
            if (!(o1[l] != o1[l] ? fused != fused || s != s
                                 : f64_bits(o1[l]) == f64_bits(fused) || f64_bits(o1[l]) == f64_bits(s)))
                tfailf("vfma_f64", x, y, o1[l], fused);
            tcheckd("vsqrt_f64", x, 0, o2[l], sq);
            tcheck("vneg_f64", (long long)f64_bits(x), 0, (long long)f64_bits(o3[l]),
                   (long long)(f64_bits(x) ^ 0x8000000000000000u));
            tcheck("vabs_f64", (long long)f64_bits(x), 0, (long long)f64_bits(o4[l]),
                   (long long)(f64_bits(x) & 0x7fffffffffffffffu));
            tcheck("vlt_f64", l, i, m[0][l], x < y);
            tcheck("vle_f64", l, i, m[1][l], x <= y);
            tcheck("vgt_f64", l, i, m[2][l], x > y);
            tcheck("vge_f64", l, i, m[3][l], x >= y);
            tcheck("veq_f64", l, i, m[4][l], x == y);
            tcheck("vne_f64", l, i, m[5][l], !(x == y));
        }
    }
}

/* ---- 64-bit integers ---- */
static void check_i64(void)
{
    int i, l;
    for (i = 0; i < TN; i += CTVM_VL) {
        int64_t o[5][CTVM_VL], w1[CTVM_VL], w2[CTVM_VL];
        int32_t n[CTVM_VL];
        ctvm_vl a = ctvm_vload_64(LA + i), b = ctvm_vload_64(LB + i);
        ctvm_vstore_64(o[0], ctvm_vadd_64(a, b));
        ctvm_vstore_64(o[1], ctvm_vsub_64(a, b));
        ctvm_vstore_64(o[2], ctvm_vand_64(a, b));
        ctvm_vstore_64(o[3], ctvm_vor_64(a, b));
        ctvm_vstore_64(o[4], ctvm_vxor_64(a, b));
        ctvm_vstore_64(w1, ctvm_vcvt_i32_64(ctvm_vload_i32(TA + i)));
        ctvm_vstore_64(w2, ctvm_vcvt_u32_64(ctvm_vload_i32(TA + i)));
        ctvm_vstore_i32(n, ctvm_vcvt_64_i32(a));
        for (l = 0; l < CTVM_VL; l++) {
            uint64_t x = (uint64_t)LA[i + l], y = (uint64_t)LB[i + l];
            tcheck("vadd_64", LA[i + l], LB[i + l], o[0][l], as_i64(x + y));
            tcheck("vsub_64", LA[i + l], LB[i + l], o[1][l], as_i64(x - y));
            tcheck("vand_64", LA[i + l], LB[i + l], o[2][l], as_i64(x & y));
            tcheck("vor_64", LA[i + l], LB[i + l], o[3][l], as_i64(x | y));
            tcheck("vxor_64", LA[i + l], LB[i + l], o[4][l], as_i64(x ^ y));
            tcheck("vcvt_i32_64", TA[i + l], 0, w1[l], TA[i + l]);
            tcheck("vcvt_u32_64", TA[i + l], 0, w2[l], (long long)(uint32_t)TA[i + l]);
            tcheck("vcvt_64_i32", LA[i + l], 0, n[l], as_i32((uint32_t)(x & 0xffffffffu)));
        }
    }
}

/* ---- integer widening and narrowing ---- */
static void check_int_conversions(void)
{
    static uint16_t h[65536 + 16];
    static uint8_t b[256 + 16];
    int i, l;
    for (i = 0; i < 65536 + 16; i++)
        h[i] = (uint16_t)(i * 40503u); /* every pattern once in the first 65536 */
    for (i = 0; i < 256 + 16; i++)
        b[i] = (uint8_t)(i * 77u + 3u);
    for (i = 0; i < 65536; i += CTVM_VL) {
        int32_t s[CTVM_VL], u[CTVM_VL];
        ctvm_vstore_i32(s, ctvm_vcvt_i16_i32(ctvm_vload_16(h + i)));
        ctvm_vstore_i32(u, ctvm_vcvt_u16_i32(ctvm_vload_16(h + i)));
        for (l = 0; l < CTVM_VL; l++) {
            tcheck("vcvt_i16_i32", h[i + l], 0, s[l], h[i + l] < 32768 ? h[i + l] : h[i + l] - 65536);
            tcheck("vcvt_u16_i32", h[i + l], 0, u[l], h[i + l]);
        }
    }
    for (i = 0; i < 256; i += CTVM_VL) {
        int32_t s[CTVM_VL], u[CTVM_VL];
        ctvm_vstore_i32(s, ctvm_vcvt_i8_i32(ctvm_vload_8(b + i)));
        ctvm_vstore_i32(u, ctvm_vcvt_u8_i32(ctvm_vload_8(b + i)));
        for (l = 0; l < CTVM_VL; l++) {
            tcheck("vcvt_i8_i32", b[i + l], 0, s[l], b[i + l] < 128 ? b[i + l] : b[i + l] - 256);
            tcheck("vcvt_u8_i32", b[i + l], 0, u[l], b[i + l]);
        }
    }
    for (i = 0; i < TN; i += CTVM_VL) {
        uint8_t t8[CTVM_VL], su8[CTVM_VL], si8[CTVM_VL];
        uint16_t t16[CTVM_VL], su16[CTVM_VL], si16[CTVM_VL];
        ctvm_vi a = ctvm_vload_i32(TA + i);
        ctvm_vstore_8(t8, ctvm_vcvt_i32_8(a));
        ctvm_vstore_16(t16, ctvm_vcvt_i32_16(a));
        ctvm_vstore_8(su8, ctvm_vcvt_i32_u8_sat(a));
        ctvm_vstore_8(si8, ctvm_vcvt_i32_i8_sat(a));
        ctvm_vstore_16(su16, ctvm_vcvt_i32_u16_sat(a));
        ctvm_vstore_16(si16, ctvm_vcvt_i32_i16_sat(a));
        for (l = 0; l < CTVM_VL; l++) {
            int32_t x = TA[i + l];
            tcheck("vcvt_i32_8", x, 0, t8[l], (uint8_t)x);
            tcheck("vcvt_i32_16", x, 0, t16[l], (uint16_t)x);
            tcheck("vcvt_i32_u8_sat", x, 0, su8[l], x < 0 ? 0 : x > 255 ? 255 : x);
            tcheck("vcvt_i32_i8_sat", x, 0, (int8_t)si8[l], x < -128 ? -128 : x > 127 ? 127 : x);
            tcheck("vcvt_i32_u16_sat", x, 0, su16[l], x < 0 ? 0 : x > 65535 ? 65535 : x);
            tcheck("vcvt_i32_i16_sat", x, 0, (int16_t)si16[l], x < -32768 ? -32768 : x > 32767 ? 32767 : x);
        }
    }
}

/* ---- int <-> float32, rounding, float32 <-> float64 ---- */
static int32_t r_f32_i32(float x)
{
    volatile float v = x;
    return (int32_t)(int64_t)v; /* what emit_c prints for a float -> int32 cast */
}
static float r_rint(float x) { return rintf(x); } /* ties to even in the default mode */
/* to the nearest int32, ties to even, saturating, NaN 0: from the float's
 * bits in exact integer arithmetic (no libm, no FPU rounding mode) */
static int32_t r_rne_i32(float x)
{
    uint32_t b = f32_bits(x), e = (b >> 23) & 255u;
    uint64_t m = (b & 0x7fffffu) | (e ? 0x800000u : 0u), q;
    int neg = (b >> 31) != 0, sh = 150 - (int)e; /* |x| = m * 2^-sh */
    if (e == 255)
        return (b & 0x7fffffu) ? 0 : neg ? INT32_MIN : INT32_MAX;
    if (e == 0)
        sh = 149;
    if (sh <= 0)
        q = sh < -8 ? (uint64_t)1 << 40 : m << -sh; /* an integer; beyond 2^31 from sh -8 on */
    else if (sh > 40)
        q = 0;
    else {
        uint64_t rem = m & (((uint64_t)1 << sh) - 1), half = (uint64_t)1 << (sh - 1);
        q = m >> sh;
        if (rem > half || (rem == half && (q & 1)))
            q++;
    }
    if (neg)
        return q >= 2147483648u ? INT32_MIN : -(int32_t)q;
    return q >= 2147483648u ? INT32_MAX : (int32_t)q;
}
static float r_floor(float x) { return floorf(x); }
static float r_ceil(float x) { return ceilf(x); }
static float r_trunc(float x) { return truncf(x); }
/* ARMv7 NEON may flush a denormal input to ±0 first */
static void tcheck_rounding(const char *name, float x, float got, float (*ref)(float))
{
    float xf = FLUSH_OK && fabsf(x) < FLT_MIN ? 0.0f * x : x;
    typed_checks++;
    if (!tsame32(got, ref(x)) && !tsame32(got, ref(xf)))
        tfailf(name, x, 0, got, ref(x));
}
static void check_float_conversions(void)
{
    static const float fedge[] = {0.0f, 0.4f, 0.5f, 0.5000001f, 0.9999999f, 1.0f, 1.5f, 2.5f, 3.5f, 2.4999998f,
                                  -0.7f, 7.5f, 8388607.5f, 8388608.0f, 8388609.0f, 16777216.0f, 1e-45f, 1e-40f,
                                  1e-30f, 1e7f, 2147483520.0f, 2147483648.0f, 2147483904.0f, 3e9f, 4294967040.0f,
                                  4294967296.0f, 6442450944.0f, 1e10f, 1.5e10f, 9.2233715e18f, 9.223372e18f,
                                  9.2233725e18f, 1e19f, 1e20f, FLT_MAX, HUGE_VALF};
    int n = (int)(sizeof fedge / sizeof fedge[0]), i, l, k;
    for (i = 0; i < n; i++) {
        FA[2 * i] = fedge[i];
        FA[2 * i + 1] = -fedge[i];
    }
    i = 2 * n;
    FA[i++] = NAN;
    FA[i++] = -NAN;
    for (k = -20; k <= 20; k++) { /* every x.5 and x.25 in [-20, 20] */
        FA[i++] = (float)k + 0.5f;
        FA[i++] = (float)k + 0.25f;
    }
    while (i < 2000)
        FA[i++] = (float)(as_i32(trand()) % 2000000) / 16.0f;
    while (i < 3000)
        FA[i++] = (float)as_i32(trand()) * 1.5f;
    while (i < TN)
        FA[i++] = bits_f32(trand());
    for (i = 0; i < TN; i += CTVM_VL) {
        int32_t t[CTVM_VL], rn[CTVM_VL], ri[CTVM_VL];
        float fi[CTVM_VL], fu[CTVM_VL], o[4][CTVM_VL];
        double d[CTVM_VL];
        ctvm_vf x = ctvm_vload(FA + i);
        /* rne_in: x clamped into int32 (the largest float32 below 2^31; NaN lanes unchecked) */
        ctvm_vf xc = ctvm_vmin(ctvm_vmax(x, ctvm_vset1(-2147483648.0f)), ctvm_vset1(2147483520.0f));
        ctvm_vstore_i32(t, ctvm_vcvt_f32_i32(x));
        ctvm_vstore_i32(rn, ctvm_vcvt_f32_i32_rne(x));
        ctvm_vstore_i32(ri, ctvm_vcvt_f32_i32_rne_in(xc));
        ctvm_vstore(fi, ctvm_vcvt_i32_f32(ctvm_vload_i32(TA + i)));
        ctvm_vstore(fu, ctvm_vcvt_u32_f32(ctvm_vload_i32(TA + i)));
        ctvm_vstore(o[0], ctvm_vround(x));
        ctvm_vstore(o[1], ctvm_vfloor(x));
        ctvm_vstore(o[2], ctvm_vceil(x));
        ctvm_vstore(o[3], ctvm_vtrunc(x));
        ctvm_vstore_f64(d, ctvm_vcvt_f32_f64(x));
        for (l = 0; l < CTVM_VL; l++) {
            float f = FA[i + l];
            volatile float vi = (float)TA[i + l], vu = (float)(uint32_t)TA[i + l];
            tcheck("vcvt_f32_i32", f32_bits(f), 0, t[l], r_f32_i32(f));
            tcheck("vcvt_f32_i32_rne", f32_bits(f), 0, rn[l], r_rne_i32(f));
            if (f == f)
                tcheck("vcvt_f32_i32_rne_in", f32_bits(f), 0, ri[l],
                       r_rne_i32(f < -2147483648.0f ? -2147483648.0f : f > 2147483520.0f ? 2147483520.0f : f));
            tcheckf("vcvt_i32_f32", TA[i + l], fi[l], vi);
            tcheckf("vcvt_u32_f32", (uint32_t)TA[i + l], fu[l], vu);
            tcheck_rounding("vround", f, o[0][l], r_rint);
            tcheck_rounding("vfloor", f, o[1][l], r_floor);
            tcheck_rounding("vceil", f, o[2][l], r_ceil);
            tcheck_rounding("vtrunc", f, o[3][l], r_trunc);
            tcheckd("vcvt_f32_f64", f, 0, d[l], (double)f);
        }
    }
    for (i = 0; i < TN; i += CTVM_VL) {
        float o[CTVM_VL];
        ctvm_vstore(o, ctvm_vcvt_f64_f32(ctvm_vload_f64(DA + i)));
        for (l = 0; l < CTVM_VL; l++) {
            volatile float want = (float)DA[i + l];
            if (FLUSH_OK && fabsf(want) < FLT_MIN && fabsf(o[l]) < FLT_MIN)
                want = o[l];
            tcheckf("vcvt_f64_f32", DA[i + l], o[l], want);
        }
    }
}

/* ---- float16 / bfloat16, bit for bit with ctvm_types.h ---- */
static void check_half_conversions(void)
{
    static uint16_t h[65536 + 16];
    static float xs[8 * 32768 + 64];
    int i, l, n = 0, s;
    for (i = 0; i < 65536 + 16; i++)
        h[i] = (uint16_t)i;
    for (i = 0; i < 65536; i += CTVM_VL) {
        float a[CTVM_VL], b[CTVM_VL];
        ctvm_vstore(a, ctvm_vcvt_f16_f32(ctvm_vload_16(h + i)));
        ctvm_vstore(b, ctvm_vcvt_bf16_f32(ctvm_vload_16(h + i)));
        for (l = 0; l < CTVM_VL; l++) {
            tcheck("vcvt_f16_f32", h[i + l], 0, f32_bits(a[l]), f32_bits(ctvm_f16_to_f32(h[i + l])));
            tcheck("vcvt_bf16_f32", h[i + l], 0, f32_bits(b[l]), f32_bits(ctvm_bf16_to_f32(h[i + l])));
        }
    }
    /* every finite float16 value, the midpoints to the next one (ties) and
       their float32 neighbours, both signs; then specials and random bits */
    for (i = 0; i < 0x7c00; i += 1) {
        float v = ctvm_f16_to_f32((uint16_t)i), next = ctvm_f16_to_f32((uint16_t)(i + 1));
        float mid = (v + next) * 0.5f;
        for (s = 0; s < 2; s++) {
            float sg = s ? -1.0f : 1.0f;
            if (i % 4 == 0)
                xs[n++] = sg * v;
            xs[n++] = sg * mid;
            xs[n++] = sg * bits_f32(f32_bits(mid) - 1);
            xs[n++] = sg * bits_f32(f32_bits(mid) + 1);
        }
    }
    {
        static const uint32_t sp[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u,
                                      0x7fbfffffu, 0x7fe00000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u,
                                      0x33000000u, 0x33000001u, 0x337fffffu, 0x33400000u, 0x387fc000u, 0x387fe000u,
                                      0x387ff000u, 0x477fe000u, 0x477fefffu, 0x477ff000u, 0x47800000u, 0x7f7fffffu,
                                      0x3f7fffffu, 0x3f808000u, 0x3f818000u, 0x3f800001u, 0x7f7f8000u, 0x7f7fffffu,
                                      0x3f80ffffu, 0x8001ffffu};
        for (i = 0; i < (int)(sizeof sp / sizeof sp[0]); i++)
            xs[n++] = bits_f32(sp[i]);
    }
    while (n % CTVM_VL || n < 8 * 32768 - 16384)
        xs[n++] = bits_f32(trand());
    for (i = 0; i + CTVM_VL <= n; i += CTVM_VL) {
        uint16_t a[CTVM_VL], b[CTVM_VL];
        ctvm_vf x = ctvm_vload(xs + i);
        ctvm_vstore_16(a, ctvm_vcvt_f32_f16(x));
        ctvm_vstore_16(b, ctvm_vcvt_f32_bf16(x));
        for (l = 0; l < CTVM_VL; l++) {
            float f = xs[i + l];
            tcheck("vcvt_f32_f16", f32_bits(f), 0, a[l], ctvm_f32_to_f16(f));
            /* ARMv7 NEON may flush a denormal input: bfloat16 of ±0 */
            if (FLUSH_OK && fabsf(f) < FLT_MIN && b[l] == ctvm_f32_to_bf16(0.0f * f)) {
                typed_checks++;
                continue;
            }
            tcheck("vcvt_f32_bf16", f32_bits(f), 0, b[l], ctvm_f32_to_bf16(f));
        }
    }
}

/* ---- dot products ---- */
static void check_dot(void)
{
    static uint8_t qa[TN + 64], qb[TN + 64];
    int i, l, j, r;
    static int32_t acc_near[TN / 4 + 64];
    for (i = 0; i < TN / 4 + 64; i++) /* within 2^18 of INT32_MAX or INT32_MIN: every sum can wrap */
        acc_near[i] = i % 2 ? INT32_MIN + (int32_t)(trand() % 262144u) : INT32_MAX - (int32_t)(trand() % 262144u);
    for (r = 0; r < 9; r++) {
        /* accumulators: the edge and random values of TA, or (r >= 6) all near the limits */
        const int32_t *acc0 = r >= 6 ? acc_near : TA;
        for (i = 0; i < TN + 64; i++) {
            uint32_t u = trand();
            /* r 0: 255 * -128 everywhere (the int16 saturation trap), r 1: -128 * -128,
               r 2: 255 * 127, r 3-5: random bytes with many extremes, r 6-8: 0-2 again
               on accumulators near INT32_MAX / INT32_MIN (the sum wraps, as vpdpbusd's) */
            if (r % 6 < 3) {
                qa[i] = r % 6 == 1 ? 0x80 : 255;
                qb[i] = r % 6 == 2 ? 127 : 0x80;
            } else {
                qa[i] = u % 3 == 0 ? (uint8_t)(u >> 8) : (u >> 9) & 1 ? 255 : 0x80;
                qb[i] = u % 5 == 0 ? (uint8_t)(u >> 16) : (u >> 11) & 1 ? 127 : 0x80;
            }
        }
        for (i = 0; i + 4 * CTVM_VL <= TN; i += 4 * CTVM_VL) {
            int32_t ou[CTVM_VL], os[CTVM_VL];
            int off = 1 + (i / (4 * CTVM_VL)) % 7; /* unaligned */
            ctvm_vi acc = ctvm_vload_i32(acc0 + i / 4);
            ctvm_vq a = ctvm_vload_q(qa + i + off), b = ctvm_vload_q(qb + i + off + 1);
            ctvm_vstore_i32(ou, ctvm_vdot_u8i8(acc, a, b));
            ctvm_vstore_i32(os, ctvm_vdot_i8i8(acc, a, b));
            for (l = 0; l < CTVM_VL; l++) {
                long long su = acc0[i / 4 + l], ss = acc0[i / 4 + l];
                for (j = 0; j < 4; j++) {
                    int ua = qa[i + off + 4 * l + j], sa = ua < 128 ? ua : ua - 256;
                    int ub = qb[i + off + 1 + 4 * l + j], sb = ub < 128 ? ub : ub - 256;
                    su += (long long)ua * sb;
                    ss += (long long)sa * sb;
                }
                tcheck("vdot_u8i8", r, acc0[i / 4 + l], ou[l], as_i32((uint32_t)((unsigned long long)su & 0xffffffffu)));
                tcheck("vdot_i8i8", r, acc0[i / 4 + l], os[l], as_i32((uint32_t)((unsigned long long)ss & 0xffffffffu)));
            }
        }
    }
}

/* ---- 16-bit multiply-adds: acc + a*b, a in [0, 32767], b in [-32768, 32767] ----
 * the ends of both ranges (32767 * -32768, the one pair pmaddwd could not
 * hold were a's high half not 0), uint8 x int8 (the depthwise kernels' use)
 * and random values, on the edge and random accumulators of TA and on ones
 * near INT32_MAX / INT32_MIN (the sum wraps). */
static void check_mla16(void)
{
    static int32_t xa[TN], xb[TN], acc_near[TN];
    int i, l, r;
    for (i = 0; i < TN; i++)
        acc_near[i] = i % 2 ? INT32_MIN + (int32_t)(trand() % 1073741824u) : INT32_MAX - (int32_t)(trand() % 1073741824u);
    for (r = 0; r < 6; r++) {
        const int32_t *acc0 = r >= 3 ? acc_near : TA;
        for (i = 0; i < TN; i++) {
            uint32_t u = trand();
            if (r % 3 == 0) { /* the range ends */
                xa[i] = u % 3 == 0 ? 32767 : u % 3 == 1 ? 0 : 1;
                xb[i] = (u >> 4) % 3 == 0 ? -32768 : (u >> 4) % 3 == 1 ? 32767 : -1;
            } else if (r % 3 == 1) { /* uint8 x int8 */
                xa[i] = (int32_t)(u & 255u);
                xb[i] = (int32_t)((u >> 8) & 255u) - 128;
            } else {
                xa[i] = (int32_t)(u % 32768u);
                xb[i] = (int32_t)((u >> 15) % 65536u) - 32768;
            }
        }
        for (i = 0; i + CTVM_VL <= TN; i += CTVM_VL) {
            int32_t o[CTVM_VL];
            ctvm_vstore_i32(o, ctvm_vmla16_i32(ctvm_vload_i32(acc0 + i), ctvm_vload_i32(xa + i), ctvm_vload_i32(xb + i)));
            for (l = 0; l < CTVM_VL; l++) {
                long long want = (long long)acc0[i + l] + (long long)xa[i + l] * xb[i + l];
                tcheck("vmla16_i32", xa[i + l], xb[i + l], o[l], as_i32((uint32_t)((unsigned long long)want & 0xffffffffu)));
            }
        }
    }
}

/* ---- bfloat16 dot product ----
 * ctvm_vdot_bf16: lane l = (acc + a[2l+1]*b[2l+1]) + a[2l]*b[2l], each sum
 * rounded once (vdpbf16ps's order). Operands are bfloat16 numbers with
 * exponents in [-40, 40] (products exact and normal in float32, never
 * denormal: vdpbf16ps flushes those, the fallbacks do not, ARMv7 NEON
 * does), signed zeros, ±inf and NaN; accumulators of similar magnitude,
 * some equal to -a1*b1 so the first sum cancels to zero. The reference adds
 * the exact float32 products in float32 (volatile: no contraction). */
static uint16_t rnd_bf16(uint32_t u)
{
    uint32_t k = u % 64;
    if (k == 0)
        return (uint16_t)(u & 0x8000u); /* ±0 */
    if (k == 1)
        return (uint16_t)(0x7f80u | (u & 0x8000u)); /* ±inf */
    if (k == 2)
        return 0x7fc0u; /* NaN */
    return (uint16_t)((u & 0x8000u) | ((87u + (u >> 8) % 81u) << 7) | ((u >> 20) & 0x7fu));
}
static void check_dot_bf16(void)
{
    static uint16_t ha[2 * TN + 64], hb[2 * TN + 64];
    static float acc0[TN + 64];
    int i, l;
    for (i = 0; i < 2 * TN + 64; i++) {
        ha[i] = rnd_bf16(trand());
        hb[i] = rnd_bf16(trand());
    }
    for (i = 0; i < TN + 64; i++) {
        uint32_t u = trand();
        acc0[i] = u % 16 == 0 ? 0.0f : bits_f32((u & 0x80000000u) | ((87u + (u >> 8) % 81u) << 23) | (trand() & 0x7fffffu));
        if (u % 16 == 1 && i < TN) /* acc = -a1*b1 exactly: the first sum is 0 */
            acc0[i] = -(bits_f32((uint32_t)ha[2 * i + 1] << 16) * bits_f32((uint32_t)hb[2 * i + 1] << 16));
    }
    for (i = 0; i + CTVM_VL <= TN; i += CTVM_VL) {
        float o[CTVM_VL];
        ctvm_vq a = ctvm_vload_q(ha + 2 * i), b = ctvm_vload_q(hb + 2 * i);
        ctvm_vstore(o, ctvm_vdot_bf16(ctvm_vload(acc0 + i), a, b));
        for (l = 0; l < CTVM_VL; l++) {
            int e = 2 * (i + l);
            volatile float p1 = bits_f32((uint32_t)ha[e + 1] << 16) * bits_f32((uint32_t)hb[e + 1] << 16);
            volatile float p0 = bits_f32((uint32_t)ha[e] << 16) * bits_f32((uint32_t)hb[e] << 16);
            volatile float t = acc0[i + l] + p1;
            volatile float want = t + p0;
            tcheckf("vdot_bf16", (double)e, o[l], want);
        }
    }
}

/* ---- the requantization epilogue (int32 accumulator -> u8 / s8) ----
 * QuantizeLinear's saturate(round_half_even(acc * scale) + zero_point) on
 * the vector API, as the int8 kernels chain it: int32 -> float32, times the
 * scale, clamped in float32 to [qmin - zp, qmax - zp] (integers, so the
 * clamp commutes with the rounding and the int32 sum below cannot wrap),
 * rounded to the nearest int32 (ties to even), plus zp, narrowed with
 * saturation. Checked against the float32 product rounded in exact integer
 * arithmetic (r_rne_i32), the zero point added in 64 bits and clamped.
 * Scales 0.5 and 0.25 put many products on .5 ties, of both signs; the
 * accumulators include INT32_MIN / INT32_MAX and the saturation edges. */
static void check_requant(void)
{
    static const float scales[] = {0.5f, 0.25f, 1.0f, 1.0f / 3.0f, 0.0078125f, 3.0517578e-5f, 0.0123f, 1e6f};
    static const int zps[][2] = {{0, 0}, {128, -128}, {1, 127}, {255, -1}, {3, 5}}; /* u8, s8 */
    size_t si, zi;
    int i, l, sg;
    for (si = 0; si < sizeof scales / sizeof scales[0]; si++)
        for (zi = 0; zi < sizeof zps / sizeof zps[0]; zi++)
            for (sg = 0; sg < 2; sg++) { /* sg 0: uint8 output, 1: int8 */
                int zp = zps[zi][sg], qmin = sg ? -128 : 0, qmax = sg ? 127 : 255;
                ctvm_vf sc = ctvm_vset1(scales[si]), lo = ctvm_vset1((float)(qmin - zp)), hi = ctvm_vset1((float)(qmax - zp));
                for (i = 0; i < TN; i += CTVM_VL) {
                    uint8_t o[CTVM_VL];
                    ctvm_vf v = ctvm_vmul(ctvm_vcvt_i32_f32(ctvm_vload_i32(TA + i)), sc);
                    ctvm_vi q = ctvm_vadd_i32(ctvm_vcvt_f32_i32_rne(ctvm_vmin(ctvm_vmax(v, lo), hi)), ctvm_vset1_i32(zp));
                    /* the compiler's form: the in-range conversion of the clamped value */
                    ctvm_vi q2 = ctvm_vadd_i32(ctvm_vcvt_f32_i32_rne_in(ctvm_vmin(ctvm_vmax(v, lo), hi)), ctvm_vset1_i32(zp));
                    int32_t o2[CTVM_VL];
                    ctvm_vstore_8(o, sg ? ctvm_vcvt_i32_i8_sat(q) : ctvm_vcvt_i32_u8_sat(q));
                    ctvm_vstore_i32(o2, q2);
                    for (l = 0; l < CTVM_VL; l++) {
                        volatile float acc = (float)TA[i + l], prod = acc * scales[si];
                        long long want = (long long)r_rne_i32(prod) + zp;
                        want = want < qmin ? qmin : want > qmax ? qmax : want;
                        tcheck(sg ? "requant_s8" : "requant_u8", TA[i + l], (long long)(si * 100 + zi), sg ? (int8_t)o[l] : o[l], want);
                        tcheck("requant_rne_in", TA[i + l], (long long)(si * 100 + zi), o2[l], want);
                    }
                }
            }
}

static void check_typed(void)
{
    fill_typed();
    check_memory_typed();
    check_i32_binary();
    check_i32_unary();
    check_compares();
    check_float_compares();
    check_selects();
    check_f64();
    check_i64();
    check_int_conversions();
    check_float_conversions();
    check_half_conversions();
    check_dot();
    check_mla16();
    check_dot_bf16();
    check_requant();
#ifdef CTVM_SCALAR_SMLAD
#define SMLAD_USED CTVM_SCALAR_SMLAD
#else
#define SMLAD_USED 0
#endif
    printf("typed checks %ld fails %ld dot_u8i8 %d dot_i8i8 %d smlad %d dot_bf16 %d\n", typed_checks, typed_fails,
           CTVM_HAS_DOT_U8I8, CTVM_HAS_DOT_I8I8, SMLAD_USED, CTVM_HAS_DOT_BF16);
}
