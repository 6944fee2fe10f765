/* vec_api_check.c - not a test on its own: test_vec_api.c pastes
 * runtime_min/ctvm_runtime.h + one templates/ctvm_vec_*.h + this file into
 * one C99 program, compiles it for that ISA and runs it.
 *
 * Every function of the vector API is checked lane by lane against scalar
 * C on a few thousand inputs (signed zeros, denormals, ±1e-30, the exp
 * overflow/underflow edges, ±inf, NaN, random values in [-20,20] and
 * [-100,100], random bit patterns) loaded from and stored to unaligned
 * addresses, plus a sweep of 65536 bit patterns over the whole float range
 * for the transcendental functions of templates/ctvm_vec_math.h. Exact
 * operations (and the bit primitives that math is written on: vround,
 * vldexp, vgetexp, vgetmant, vbitand, vbitor, vfirst) must match bit for bit (any NaN
 * matches any NaN); exp, tanh, sigmoid, log, log1p, erf and expm1 must be
 * within 2e-6 relative error of the double-precision functions (results
 * below FLT_MIN may be off by up to FLT_MIN: denormals may flush to 0), and
 * their scalar forms (ctvm_expf, ...) must equal lane 0 of the vector forms
 * bit for bit. Prints one "FAIL ..." line per failure (the first 40),
 * "MAXERR name err x" for the transcendental functions, "checks N fails N",
 * and exits 1 on failure.
 *
 * ARMv7 NEON always flushes denormal inputs and results to zero, so there a
 * lane also passes when it equals the result for flushed inputs. */
#include <float.h>
#include <stdio.h>
#include <string.h>

#if defined(__arm__) && !defined(__aarch64__) && CTVM_VL > 1
#define FLUSH_OK 1
#else
#define FLUSH_OK 0
#endif

#define N 4096
#define TOL 2e-6

static float bufA[N + 64], bufB[N + 64], bufC[N + 64];
static float *A = bufA + 1, *B = bufB + 3, *C = bufC + 5; /* unaligned */
static long checks, fails;

static unsigned long bits(float x)
{
    unsigned int u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float ftz(float x) { return x != 0 && fabsf(x) < FLT_MIN ? (x < 0 ? -0.0f : 0.0f) : x; }

static int same(float got, float ref) { return (got != got && ref != ref) || bits(got) == bits(ref); }

/* got is right if it is ref, or (ARMv7) the flushed result reff. */
static int same_ftz(float got, float ref, float reff)
{
    if (same(got, ref))
        return 1;
    return FLUSH_OK && (same(got, ftz(reff)) || same(ftz(got), ftz(ref)));
}

static void fail3(const char *name, float a, float b, float c, float got, double ref)
{
    if (fails++ < 40)
        printf("FAIL %s(%.9g, %.9g, %.9g) = %.9g (0x%08lx), expected %.9g\n", name, a, b, c, got, bits(got),
               ref);
}

static unsigned long rng = 12345;
static unsigned long rnd(void)
{
    rng = (rng * 1103515245UL + 12345UL) & 0xffffffffUL;
    return rng;
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)((rnd() >> 8) & 0xffffff) / 16777216.0f; }
static float randbits(void)
{
    unsigned int u = (unsigned int)((rnd() >> 16) | ((rnd() >> 16) << 16));
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void fill(void)
{
    static const float special[] = {0.0f, 1e-45f, 1e-40f, 1.1754942e-38f, FLT_MIN, 1e-30f, 1e-20f, 1e-10f, 1e-7f,
                                    1e-4f, 0.01f, 0.1f, 0.3465f, 0.3466f, 0.5f, 0.6249999f, 0.625f, 0.6250001f, 1.0f,
                                    2.0f, 3.0f, 9.0f, 9.1f, 10.0f, 20.0f, 30.0f, 44.36f, 44.37f, 87.33f, 87.34f,
                                    88.0f, 88.7f, 88.72f, 88.7228f, 88.72283f, 88.72284f, 88.7229f, 88.73f, 89.0f,
                                    89.5f, 100.0f, 103.0f, 103.9f, 103.97f, 103.98f, 104.0f, 105.0f, 150.0f, 1e10f,
                                    1e30f, FLT_MAX, HUGE_VALF};
    int ns = (int)(sizeof special / sizeof special[0]), i = 0, k;
    for (k = 0; k < ns; k++) {
        A[i++] = special[k];
        A[i++] = -special[k];
    }
    A[i++] = NAN;
    A[i++] = -NAN;
    while (i < 1400)
        A[i++] = uniform(-20.0f, 20.0f);
    while (i < 2800)
        A[i++] = uniform(-100.0f, 100.0f);
    while (i < 3400)
        A[i++] = uniform(-1.0f, 1.0f);
    while (i < N)
        A[i++] = randbits();
    /* B, C: the same values in other orders and some exact ties with A */
    for (i = 0; i < N; i++) {
        B[i] = (i % 11 == 0) ? A[i] : A[(i * 7 + 3) % N];
        C[i] = A[(i * 13 + 5) % N];
    }
}

typedef ctvm_vf (*vfn1)(ctvm_vf);
typedef ctvm_vf (*vfn2)(ctvm_vf, ctvm_vf);

static float r_add(float a, float b) { volatile float t = a + b; return t; }
static float r_sub(float a, float b) { volatile float t = a - b; return t; }
static float r_mul(float a, float b) { volatile float t = a * b; return t; }
static float r_div(float a, float b) { volatile float t = a / b; return t; }
static float r_min(float a, float b) { return ctvm_minf(a, b); }
static float r_max(float a, float b) { return ctvm_maxf(a, b); }
static float r_neg(float a) { return -a; }
static float r_abs(float a) { return fabsf(a); }
static float r_sqrt(float a) { volatile float t = sqrtf(a); return t; }
static float r_round(float a) { return rintf(a); } /* default mode: to nearest even */
static float r_getmant(float a)
{
    unsigned int u;
    memcpy(&u, &a, sizeof u);
    u = (u & 0x007fffffu) | 0x3f800000u;
    memcpy(&a, &u, sizeof u);
    return a;
}
static float r_bitand(float a, float b)
{
    unsigned int u = bits(a) & bits(b);
    memcpy(&a, &u, sizeof u);
    return a;
}
static float r_bitor(float a, float b)
{
    unsigned int u = bits(a) | bits(b);
    memcpy(&a, &u, sizeof u);
    return a;
}
static float r_getexp(float a) { return (float)((int)(bits(a) >> 23 & 255u) - 127); }

static void check2(const char *name, vfn2 f, float (*ref)(float, float))
{
    int i, l;
    for (i = 0; i + CTVM_VL <= N; i += CTVM_VL) {
        float o[CTVM_VL];
        ctvm_vstore(o, f(ctvm_vload(A + i), ctvm_vload(B + i)));
        for (l = 0; l < CTVM_VL; l++) {
            float a = A[i + l], b = B[i + l];
            checks++;
            if (!same_ftz(o[l], ref(a, b), ref(ftz(a), ftz(b))))
                fail3(name, a, b, 0, o[l], ref(a, b));
        }
    }
}

static void check1(const char *name, vfn1 f, float (*ref)(float))
{
    int i, l;
    for (i = 0; i + CTVM_VL <= N; i += CTVM_VL) {
        float o[CTVM_VL];
        ctvm_vstore(o, f(ctvm_vload(A + i)));
        for (l = 0; l < CTVM_VL; l++) {
            float a = A[i + l];
            checks++;
            if (!same_ftz(o[l], ref(a), ref(ftz(a))))
                fail3(name, a, 0, 0, o[l], ref(a));
        }
    }
}

static void check_fma(void)
{
    int i, l;
    for (i = 0; i + CTVM_VL <= N; i += CTVM_VL) {
        float o[CTVM_VL];
        ctvm_vstore(o, ctvm_vfma(ctvm_vload(A + i), ctvm_vload(B + i), ctvm_vload(C + i)));
        for (l = 0; l < CTVM_VL; l++) {
            float a = A[i + l], b = B[i + l], c = C[i + l];
            volatile float p = a * b, s, pf, sf;
            s = p + c;
            pf = ftz(ftz(a) * ftz(b));
            sf = pf + ftz(c);
            checks++;
            /* fused or unfused, but nothing else */
            if (!same_ftz(o[l], fmaf(a, b, c), fmaf(ftz(a), ftz(b), ftz(c))) && !same_ftz(o[l], s, sf))
                fail3("vfma", a, b, c, o[l], fmaf(a, b, c));
        }
    }
}

/* x * 2^n rounded once to float, as ldexpf is meant to (newlib's ldexpf
 * truncates a denormal result): exact in double for these n, then one
 * rounding */
static float ref_ldexpf(float x, int n) { return (float)ldexp((double)x, n); }

/* vldexp on every integer of its domain times values of A in [1/2, 2)
 * (their mantissas) and 1.5; vdiv_fast for divisors in [1, 2^126) within 2
 * ulp (exact but on armv7); vfirst is lane 0 */
static void check_bit_primitives(void)
{
    int n, i, l;
    for (n = -252; n <= 254; n++) {
        float o[CTVM_VL], p[CTVM_VL];
        for (l = 0; l < CTVM_VL; l++) {
            int e;
            float m = frexpf(A[(n + 252) * CTVM_VL % N + l], &e) * 2.0f; /* [1, 2), or 0, inf, NaN */
            p[l] = l == 0 ? 1.5f : m;
        }
        ctvm_vstore(o, ctvm_vldexp(ctvm_vload(p), ctvm_vset1((float)n)));
        for (l = 0; l < CTVM_VL; l++) {
            int n1 = n >= 0 ? n / 2 : -((1 - n) / 2); /* n >> 1 */
            volatile float want = ref_ldexpf(p[l], n1);
            want = ref_ldexpf(want, n - n1);
            checks++;
            if (!same_ftz(o[l], want, ftz(want)))
                fail3("vldexp", p[l], (float)n, 0, o[l], want);
        }
    }
    for (i = 0; i + CTVM_VL <= N; i += CTVM_VL) {
        float o[CTVM_VL], b[CTVM_VL];
        for (l = 0; l < CTVM_VL; l++)
            b[l] = 1.0f + fminf(fabsf(B[i + l]), 1e37f); /* NaN: 1e37 */
        ctvm_vstore(o, ctvm_vdiv_fast(ctvm_vload(A + i), ctvm_vload(b)));
        for (l = 0; l < CTVM_VL; l++) {
            float a = A[i + l], want = a / b[l];
            checks++;
            if (!(same(o[l], want) || (fabsf(o[l] - want) <= 2 * FLT_EPSILON * fabsf(want)) ||
                  (FLUSH_OK && fabsf(want) < FLT_MIN) || (want != want && b[l] != b[l])))
                fail3("vdiv_fast", a, b[l], 0, o[l], want);
        }
        checks++;
        if (!same(ctvm_vfirst(ctvm_vload(A + i)), A[i]))
            fail3("vfirst", A[i], 0, 0, ctvm_vfirst(ctvm_vload(A + i)), A[i]);
    }
}

/* comparisons and masks, seen through vselect(m, 1, 0) */
static int s_lt(float a, float b) { return a < b; }
static int s_le(float a, float b) { return a <= b; }
static int s_ge(float a, float b) { return a >= b; }
static int s_eq(float a, float b) { return a == b; }
static void check_masks(void)
{
    static const struct {
        const char *name;
        ctvm_vm (*v)(ctvm_vf, ctvm_vf);
        int (*s)(float, float);
    } cmp[] = {{"vlt", ctvm_vlt, s_lt}, {"vle", ctvm_vle, s_le}, {"vge", ctvm_vge, s_ge}, {"veq", ctvm_veq, s_eq}};
    int i, l, k, j;
    ctvm_vf one = ctvm_vset1(1.0f), zero = ctvm_vzero();
    for (k = 0; k < 4; k++)
        for (i = 0; i + CTVM_VL <= N; i += CTVM_VL) {
            float o[CTVM_VL], sel[CTVM_VL], both[CTVM_VL];
            ctvm_vf va = ctvm_vload(A + i), vb = ctvm_vload(B + i), vc = ctvm_vload(C + i);
            ctvm_vm m = cmp[k].v(va, vb);
            ctvm_vstore(o, ctvm_vselect(m, one, zero));
            ctvm_vstore(sel, ctvm_vselect(m, va, vb));
            ctvm_vstore(both, ctvm_vselect(ctvm_vmand(m, cmp[(k + 1) % 4].v(vc, va)), vc, vb));
            for (l = 0; l < CTVM_VL; l++) {
                float a = A[i + l], b = B[i + l], c = C[i + l];
                int r = cmp[k].s(a, b), rf = cmp[k].s(ftz(a), ftz(b));
                int r2 = r && cmp[(k + 1) % 4].s(c, a), r2f = rf && cmp[(k + 1) % 4].s(ftz(c), ftz(a));
                checks += 3;
                if (!(o[l] == (r ? 1.0f : 0.0f) || (FLUSH_OK && o[l] == (rf ? 1.0f : 0.0f))))
                    fail3(cmp[k].name, a, b, 0, o[l], r);
                if (!(same(sel[l], r ? a : b) || (FLUSH_OK && same(sel[l], rf ? a : b))))
                    fail3("vselect", a, b, 0, sel[l], r ? a : b);
                if (!(same(both[l], r2 ? c : b) || (FLUSH_OK && same(both[l], r2f ? c : b))))
                    fail3("vmand", a, b, c, both[l], r2 ? c : b);
            }
        }
    /* masks built lane by lane: every pattern of CTVM_VL bits (first 256) */
    for (j = 0; j < (1 << CTVM_VL) && j < 256; j++) {
        float t[CTVM_VL], o[CTVM_VL];
        for (l = 0; l < CTVM_VL; l++)
            t[l] = (j >> l) & 1 ? 1.0f : -1.0f;
        ctvm_vstore(o, ctvm_vselect(ctvm_vge(ctvm_vload(t), zero), ctvm_vset1(5.0f), ctvm_vload(A + 100)));
        for (l = 0; l < CTVM_VL; l++) {
            checks++;
            if (!same(o[l], (j >> l) & 1 ? 5.0f : A[100 + l]))
                fail3("vselect pattern", t[l], 0, 0, o[l], (j >> l) & 1 ? 5.0f : A[100 + l]);
        }
    }
}

static void check_memory(void)
{
    float src[4 * CTVM_VL + 8], dst[4 * CTVM_VL + 8], o[CTVM_VL];
    int off, l, k;
    for (off = 0; off < 2 * CTVM_VL + 4; off++) {
        for (k = 0; k < 4 * CTVM_VL + 8; k++) {
            src[k] = (float)(k + 1) * 0.5f;
            dst[k] = -7.0f;
        }
        ctvm_vstore(dst + off, ctvm_vload(src + off));
        for (k = 0; k < 4 * CTVM_VL + 8; k++) {
            float want = (k >= off && k < off + CTVM_VL) ? src[k] : -7.0f;
            checks++;
            if (!same(dst[k], want))
                fail3("vload/vstore", (float)off, (float)k, 0, dst[k], want);
        }
    }
    for (k = 0; k < 40; k++) {
        float x = k < 20 ? A[k] : A[3000 + k];
        ctvm_vstore(o, ctvm_vset1(x));
        for (l = 0; l < CTVM_VL; l++) {
            checks++;
            if (!same(o[l], x))
                fail3("vset1", x, 0, 0, o[l], x);
        }
    }
    ctvm_vstore(o, ctvm_vzero());
    for (l = 0; l < CTVM_VL; l++) {
        checks++;
        if (bits(o[l]) != 0)
            fail3("vzero", 0, 0, 0, o[l], 0);
    }
}

static void check_horizontal(void)
{
    int i, l;
    for (i = 0; i + CTVM_VL <= N; i += CTVM_VL) {
        ctvm_vf v = ctvm_vload(A + i);
        double sum = 0, asum = 0;
        float mx = A[i], got;
        int finite = 1, nan = 0;
        for (l = 0; l < CTVM_VL; l++) {
            float a = A[i + l];
            if (a != a)
                nan = 1;
            else if (fabsf(a) > FLT_MAX)
                finite = 0;
            else if (fabsf(a) > 1e30f) /* keep the sum finite */
                finite = 0;
            sum += a;
            asum += fabs(a);
            if (a > mx)
                mx = a;
        }
        if (nan)
            continue; /* vhmax and vhsum of NaN lanes: only "some NaN or a lane" is promised */
        got = ctvm_vhmax(v);
        checks++;
        if (!(got == mx || (FLUSH_OK && ftz(got) == ftz(mx))))
            fail3("vhmax", A[i], A[i + CTVM_VL - 1], 0, got, mx);
        {
            float mn = A[i];
            for (l = 1; l < CTVM_VL; l++)
                mn = A[i + l] < mn ? A[i + l] : mn;
            got = ctvm_vhmin(v);
            checks++;
            if (!(got == mn || (FLUSH_OK && ftz(got) == ftz(mn))))
                fail3("vhmin", A[i], A[i + CTVM_VL - 1], 0, got, mn);
        }
        if (!finite)
            continue;
        got = ctvm_vhsum(v);
        checks++;
        if (!(fabs(got - sum) <= CTVM_VL * FLT_EPSILON * asum + (FLUSH_OK ? CTVM_VL * FLT_MIN : 0)))
            fail3("vhsum", A[i], A[i + CTVM_VL - 1], 0, got, sum);
    }
}

/* the first n lanes of a vector (a row's tail): loads read those lanes and
   0 elsewhere, stores write those lanes only, the mask has those lanes */
static void check_partial(void)
{
    int n, l;
    for (n = 1; n <= CTVM_VL; n++) {
        float o[CTVM_VL + 2], m[CTVM_VL];
        ctvm_vstore(o, ctvm_vload_n(A + n, n));
        for (l = 0; l < CTVM_VL; l++) {
            checks++;
            if (bits(o[l]) != (l < n ? bits(A[n + l]) : 0u))
                fail3("vload_n", A[n + l], (float)n, (float)l, o[l], l < n ? A[n + l] : 0.0f);
        }
        for (l = 0; l < CTVM_VL + 2; l++)
            o[l] = -7.0f;
        ctvm_vstore_n(o + 1, ctvm_vload(A), n);
        for (l = 0; l < CTVM_VL + 2; l++) {
            float want = l >= 1 && l <= n ? A[l - 1] : -7.0f;
            checks++;
            if (bits(o[l]) != bits(want))
                fail3("vstore_n", want, (float)n, (float)l, o[l], want);
        }
        ctvm_vstore(m, ctvm_vselect(ctvm_vmask_n(n), ctvm_vset1(1.0f), ctvm_vset1(2.0f)));
        for (l = 0; l < CTVM_VL; l++) {
            checks++;
            if (m[l] != (l < n ? 1.0f : 2.0f))
                fail3("vmask_n", (float)n, (float)l, 0, m[l], l < n ? 1.0f : 2.0f);
        }
    }
}

/* transcendental functions against double precision */
static double e_exp(double x) { return exp(x); }
static double e_tanh(double x) { return tanh(x); }
static double e_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double e_erf(double x) { return erf(x); }
static double e_expm1(double x) { return expm1(x); }
static double e_log(double x) { return log(x); }
static double e_log1p(double x) { return log1p(x); }

/* relative error of got vs ref; results beyond FLT_MAX must be +-inf,
 * below FLT_MIN any value within FLT_MIN of ref passes (error 0). Returns
 * a huge value for a wrong class (NaN where none is due, finite for inf). */
static double rel_err(float got, double ref)
{
    double d;
    if (ref != ref)
        return got != got ? 0 : 1e300;
    if (got != got)
        return 1e300;
    if (fabs(ref) >= 0x1.ffffffp127) /* rounds to inf in float */
        return (fabsf(got) > FLT_MAX && (got > 0) == (ref > 0)) ? 0 : 1e300;
    if (fabs(ref) > FLT_MAX) /* -inf (log of 0) */
        return got == ref ? 0 : 1e300;
    if (fabsf(got) > FLT_MAX) /* inf is right only at the edge */
        return (fabs(ref) >= FLT_MAX * (1 - TOL) && (got > 0) == (ref > 0)) ? 0 : 1e300;
    d = fabs((double)got - ref);
    if (fabs(ref) < FLT_MIN)
        return d <= FLT_MIN ? 0 : 1e300;
    return d / fabs(ref);
}

static void check_tr(const char *name, vfn1 f, float (*fs)(float), double (*ref)(double), const float *xs, int n,
                     double *maxerr, float *worst)
{
    int i, l;
    for (i = 0; i + CTVM_VL <= n; i += CTVM_VL) {
        float o[CTVM_VL];
        ctvm_vstore(o, f(ctvm_vload(xs + i)));
        for (l = 0; l < CTVM_VL; l++) {
            float x = xs[i + l], s = fs(x);
            double r = ref(x), e = rel_err(o[l], r);
            checks += 2;
            /* the scalar form is the lane (armv7: up to flushing, as clang may compute it in VFP) */
            if (!same(s, o[l]) && !(FLUSH_OK && same(ftz(s), ftz(o[l]))))
                fail3(name, x, 0, 0, s, o[l]);
            if (FLUSH_OK && e > TOL) { /* ARMv7: input flushed to zero */
                double e2 = rel_err(o[l], ref(ftz(x)));
                e = e2 < e ? e2 : e;
            }
            if (e > *maxerr && e < 1e300) {
                *maxerr = e;
                *worst = x;
            }
            if (e > TOL)
                fail3(name, x, 0, 0, o[l], r);
        }
    }
}

int main(void)
{
    static float sweep[65536 + 16];
    static const struct {
        const char *name;
        vfn1 f;
        float (*fs)(float);
        double (*ref)(double);
    } tr[] = {{"vexp", ctvm_vexp, ctvm_expf, e_exp},
              {"vtanh", ctvm_vtanh, ctvm_tanhf, e_tanh},
              {"vsigmoid", ctvm_vsigmoid, ctvm_sigmoidf, e_sigmoid},
              {"verf", ctvm_verf, ctvm_erff, e_erf},
              {"vexpm1", ctvm_vexpm1, ctvm_expm1f, e_expm1},
              {"vlog", ctvm_vlog, ctvm_logf, e_log},
              {"vlog1p", ctvm_vlog1p, ctvm_log1pf, e_log1p}};
    float *sw = sweep + 3; /* unaligned */
    int i, k;
    fill();
    for (i = 0; i < 65536 - 16; i++) {
        unsigned int u = (unsigned int)i * 65537u;
        memcpy(&sw[i], &u, sizeof u);
    }
    for (; i < 65536; i++) /* the tail of the sweep: a few more random values */
        sw[i] = uniform(-90.0f, 90.0f);
    check_memory();
    check2("vadd", ctvm_vadd, r_add);
    check2("vsub", ctvm_vsub, r_sub);
    check2("vmul", ctvm_vmul, r_mul);
    check2("vdiv", ctvm_vdiv, r_div);
    check2("vmin", ctvm_vmin, r_min);
    check2("vmax", ctvm_vmax, r_max);
    check2("vbitand", ctvm_vbitand, r_bitand);
    check2("vbitor", ctvm_vbitor, r_bitor);
    check1("vneg", ctvm_vneg, r_neg);
    check1("vabs", ctvm_vabs, r_abs);
    check1("vsqrt", ctvm_vsqrt, r_sqrt);
    check1("vround", ctvm_vround, r_round);
    check1("vgetexp", ctvm_vgetexp, r_getexp);
    check1("vgetmant", ctvm_vgetmant, r_getmant);
    check_bit_primitives();
    check_fma();
    check_masks();
    check_horizontal();
    check_partial();
    check_typed(); /* tests/unit/vec_api_check_typed.c */
    checks += typed_checks;
    fails += typed_fails;
    for (k = 0; k < (int)(sizeof tr / sizeof tr[0]); k++) {
        double maxerr = 0;
        float worst = 0;
        check_tr(tr[k].name, tr[k].f, tr[k].fs, tr[k].ref, A, N, &maxerr, &worst);
        check_tr(tr[k].name, tr[k].f, tr[k].fs, tr[k].ref, sw, 65536, &maxerr, &worst);
        printf("MAXERR %s %.3g x=%.9g\n", tr[k].name, maxerr, worst);
    }
    printf("isa %s VL %d checks %ld fails %ld\n", CTVM_ISA, CTVM_VL, checks, fails);
    return fails ? 1 : 0;
}
