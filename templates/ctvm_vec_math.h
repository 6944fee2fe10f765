/* ctvm_vec_math.h - the transcendental functions of the vector API, written
 * once for every ISA on the vector API (templates/ctvm_vec_<isa>.h, pasted
 * just before this file) and its bit primitives: ctvm_vround (to nearest
 * even), ctvm_vldexp (p*2^n in the exponent bits), ctvm_vgetexp /
 * ctvm_vgetmant (exponent and mantissa fields), ctvm_vbitand / ctvm_vbitor
 * (on the lanes' bits), ctvm_vdiv_fast (a/b for
 * b in [1, 2^126): a reciprocal estimate on armv7, ctvm_vdiv elsewhere) and
 * ctvm_vfirst (lane 0).
 *
 * Each function also has a scalar form (ctvm_expf, ctvm_tanhf,
 * ctvm_sigmoidf, ctvm_logf, ctvm_log1pf, ctvm_erff, ctvm_expm1f): lane 0 of
 * the vector function, so a loop's scalar remainder computes exactly what
 * its vector lanes compute. The compiler folds constants with these same
 * sources compiled on templates/ctvm_vec_scalar.h (ir/call_math.c), with
 * ctvm_vfma fused where the target fuses it (ir/target.h `fma`), so that
 * folding and generated code agree bit for bit (when the C compiler does not
 * contract a*b + c on its own: ISO C mode, e.g. -std=c99, or
 * -ffp-contract=off). Max relative errors are measured on every ISA by
 * tests/unit/vec_api_check.c.
 *
 * ctvm_vexp: x = n*ln2 + r with n = round(x/ln2), |r| <= ln2/2 (ln2 split
 * in a 12-bit high part, so n*hi is exact, and a low part); e^r = 1 + r +
 * r^2*q(r) with q a degree-5 near-minimax fit of (e^r - 1 - r)/r^2; then
 * ctvm_vldexp by n (results in the denormal range round once; armv7 NEON:
 * flush to 0). x is clamped to 89 first (NaN passes the clamp): above
 * ln(FLT_MAX) ~ 88.72 the product overflows to +inf; below ~ -103.97 it
 * rounds to 0, and lanes below -104 (a masked attention score, -inf) give
 * 0 without computing an underflowing product. ~1.5e-7.
 *
 * ctvm_vtanh: |x| < 0.625: x + x^3*P(x^2), P a degree-4 near-minimax fit
 * (no cancellation near 0; exact for tiny x); else sign(x) * (1 -
 * 2/(e^(2|x|)+1)), which saturates to 1 when e^(2|x|) overflows. ~2e-7.
 *
 * ctvm_vsigmoid: t = e^-|x| in (0, 1], then 1/(1+t) for x >= 0 and t/(1+t)
 * for x < 0: no overflow, exactly 0 and 1 at -inf and +inf, accurate tails.
 *
 * ctvm_vlog: x = 2^e * m with m in (sqrt(1/2), sqrt(2)] (denormals scaled
 * by 2^23 first), f = m - 1 (exact); log(1 + f) = f - f^2/2 + f^3*P(f), P
 * of degree 7 fitted for ctvm (least squares reweighted toward minimax, on
 * the relative error: 8e-9 before rounding); plus e*ln2 in two parts.
 * log(+-0) = -inf, log(x < 0) = NaN, log(inf) = inf.
 *
 * ctvm_vlog1p: log(u) + (x - (u - 1))/u with u = 1 + x rounded: the second
 * term puts back what the rounding of 1 + x lost, so tiny x give x.
 *
 * ctvm_verf: |x| < 1: x * P(x^2), P of degree 6; 1 <= |x|: 1 - exp(-a^2) *
 * Q(t), t = 1 / (1 + a/2), a = min(|x|, 4) (past 4, erf is 1 in float), Q
 * of degree 6, with the sign of x. The coefficients were fitted for ctvm
 * by least squares on the relative error (erf(x)/x on [0,1],
 * erfc(a)*exp(a^2) on [1,4]). NaN stays NaN. ~2e-7.
 *
 * ctvm_vexpm1: e^x - 1, exact in relative terms near 0 as well: |x| < 1/2
 * the Taylor series to x^8 (truncation below 1e-8 relative), otherwise
 * ctvm_vexp(x) - 1. */
#ifndef CTVM_VEC_MATH_H
#define CTVM_VEC_MATH_H
#if defined(CTVM_VL) /* absent when the ISA header stopped with its #error */

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

static CTVM_INLINE ctvm_vf ctvm_vexp(ctvm_vf x)
{
    ctvm_vf nf, r, q, p;
    /* below -104 the result is 0: those lanes compute e^0 and are zeroed at
       the end, since an underflowing product costs a microcode assist on
       x86 (~100 cycles a vector: a masked attention row is all such lanes) */
    ctvm_vm under = ctvm_vlt(x, ctvm_vset1(-104.0f)); /* NaN: false */
    x = ctvm_vselect(under, ctvm_vzero(), x);
    x = ctvm_vmin(ctvm_vset1(89.0f), x); /* NaN: the second operand */
    nf = ctvm_vround(ctvm_vmul(x, ctvm_vset1(1.44269502f)));
    r = ctvm_vfma(nf, ctvm_vset1(-0.693115234375f), x); /* x - n*hi, exact */
    r = ctvm_vfma(nf, ctvm_vset1(-3.19461833e-05f), r);
    q = ctvm_vset1(1.98909809e-4f);
    q = ctvm_vfma(q, r, ctvm_vset1(1.39336416e-3f));
    q = ctvm_vfma(q, r, ctvm_vset1(8.33331048e-3f));
    q = ctvm_vfma(q, r, ctvm_vset1(4.16664667e-2f));
    q = ctvm_vfma(q, r, ctvm_vset1(1.66666672e-1f));
    q = ctvm_vfma(q, r, ctvm_vset1(0.5f));
    p = ctvm_vfma(q, ctvm_vmul(r, r), r);
    p = ctvm_vadd(p, ctvm_vset1(1.0f));
    return ctvm_vselect(under, ctvm_vzero(), ctvm_vldexp(p, nf)); /* n in [-150, 128] */
}

static CTVM_INLINE ctvm_vf ctvm_vtanh(ctvm_vf x)
{
    ctvm_vf one = ctvm_vset1(1.0f), ax = ctvm_vabs(x), z = ctvm_vmul(x, x), q, small, big;
    q = ctvm_vset1(-6.09671418e-3f);
    q = ctvm_vfma(q, z, ctvm_vset1(2.09971797e-2f));
    q = ctvm_vfma(q, z, ctvm_vset1(-5.38509078e-2f));
    q = ctvm_vfma(q, z, ctvm_vset1(1.33327693e-1f));
    q = ctvm_vfma(q, z, ctvm_vset1(-3.33333284e-1f));
    small = ctvm_vfma(ctvm_vmul(x, z), q, x);
    big = ctvm_vsub(one, ctvm_vdiv_fast(ctvm_vset1(2.0f), ctvm_vadd(ctvm_vexp(ctvm_vadd(ax, ax)), one)));
    big = ctvm_vbitor(big, ctvm_vbitand(x, ctvm_vset1(-0.0f))); /* big >= 0: the sign of x */
    return ctvm_vselect(ctvm_vlt(ax, ctvm_vset1(0.625f)), small, big);
}

static CTVM_INLINE ctvm_vf ctvm_vsigmoid(ctvm_vf x)
{
    ctvm_vf one = ctvm_vset1(1.0f);
    ctvm_vf t = ctvm_vexp(ctvm_vbitor(x, ctvm_vset1(-0.0f))); /* e^-|x| */
    ctvm_vf num = ctvm_vselect(ctvm_vlt(x, ctvm_vzero()), t, one);
    return ctvm_vdiv_fast(num, ctvm_vadd(one, t));
}

static CTVM_INLINE ctvm_vf ctvm_vlog(ctvm_vf x)
{
    ctvm_vf one = ctvm_vset1(1.0f), zero = ctvm_vzero(), inf = ctvm_vset1(HUGE_VALF);
    ctvm_vm tiny = ctvm_vlt(x, ctvm_vset1(1.17549435e-38f)); /* below FLT_MIN */
    ctvm_vf xs = ctvm_vselect(tiny, ctvm_vmul(x, ctvm_vset1(8388608.0f)), x);
    ctvm_vf e = ctvm_vsub(ctvm_vgetexp(xs), ctvm_vselect(tiny, ctvm_vset1(23.0f), zero));
    ctvm_vf m = ctvm_vgetmant(xs), f, z, p, y, r;
    ctvm_vm hi = ctvm_vlt(ctvm_vset1(1.41421354f), m); /* m > sqrt(2): m/2, e + 1 */
    m = ctvm_vselect(hi, ctvm_vmul(m, ctvm_vset1(0.5f)), m);
    e = ctvm_vselect(hi, ctvm_vadd(e, one), e);
    f = ctvm_vsub(m, one);
    z = ctvm_vmul(f, f);
    p = ctvm_vset1(-7.634429634e-02f);
    p = ctvm_vfma(p, f, ctvm_vset1(1.276154965e-01f));
    p = ctvm_vfma(p, f, ctvm_vset1(-1.316019446e-01f));
    p = ctvm_vfma(p, f, ctvm_vset1(1.420176178e-01f));
    p = ctvm_vfma(p, f, ctvm_vset1(-1.662335694e-01f));
    p = ctvm_vfma(p, f, ctvm_vset1(2.000122666e-01f));
    p = ctvm_vfma(p, f, ctvm_vset1(-2.500082254e-01f));
    p = ctvm_vfma(p, f, ctvm_vset1(3.333333135e-01f));
    y = ctvm_vmul(ctvm_vmul(f, z), p);
    y = ctvm_vfma(e, ctvm_vset1(-2.12194442e-4f), y); /* e * (ln2 - 0.693359375) */
    y = ctvm_vfma(z, ctvm_vset1(-0.5f), y);
    r = ctvm_vfma(e, ctvm_vset1(0.693359375f), ctvm_vadd(f, y)); /* e * 0.693359375 is exact */
    r = ctvm_vselect(ctvm_vlt(x, inf), r, x);                     /* inf, NaN */
    r = ctvm_vselect(ctvm_vlt(x, zero), ctvm_vset1(NAN), r);
    return ctvm_vselect(ctvm_veq(x, zero), ctvm_vneg(inf), r);
}

static CTVM_INLINE ctvm_vf ctvm_vlog1p(ctvm_vf x)
{
    ctvm_vf one = ctvm_vset1(1.0f), zero = ctvm_vzero(), u = ctvm_vadd(one, x);
    ctvm_vf c = ctvm_vdiv(ctvm_vsub(x, ctvm_vsub(u, one)), u);
    c = ctvm_vselect(ctvm_vmand(ctvm_vlt(zero, u), ctvm_vlt(u, ctvm_vset1(HUGE_VALF))), c, zero);
    return ctvm_vselect(ctvm_veq(x, zero), x, ctvm_vadd(ctvm_vlog(u), c)); /* log1p(-0) = -0 */
}

static CTVM_INLINE ctvm_vf ctvm_verf(ctvm_vf x)
{
    ctvm_vf one = ctvm_vset1(1.0f), a = ctvm_vabs(x), u = ctvm_vmul(x, x);
    ctvm_vf p = ctvm_vset1(7.971125888e-05f), q, t, e, big, r;
    p = ctvm_vfma(p, u, ctvm_vset1(-8.043394773e-04f));
    p = ctvm_vfma(p, u, ctvm_vset1(5.191835109e-03f));
    p = ctvm_vfma(p, u, ctvm_vset1(-2.685550973e-02f));
    p = ctvm_vfma(p, u, ctvm_vset1(1.128362194e-01f));
    p = ctvm_vfma(p, u, ctvm_vset1(-3.761262894e-01f));
    p = ctvm_vfma(p, u, ctvm_vset1(1.128379107e+00f));
    a = ctvm_vmin(a, ctvm_vset1(4.0f));
    t = ctvm_vdiv(one, ctvm_vfma(a, ctvm_vset1(0.5f), one));
    q = ctvm_vset1(-6.271796674e-02f);
    q = ctvm_vfma(q, t, ctvm_vset1(-3.055566736e-02f));
    q = ctvm_vfma(q, t, ctvm_vset1(3.716376424e-01f));
    q = ctvm_vfma(q, t, ctvm_vset1(1.216776222e-01f));
    q = ctvm_vfma(q, t, ctvm_vset1(3.236495554e-01f));
    q = ctvm_vfma(q, t, ctvm_vset1(2.749535441e-01f));
    q = ctvm_vfma(q, t, ctvm_vset1(5.043033743e-04f));
    e = ctvm_vexp(ctvm_vneg(ctvm_vmul(a, a)));
    big = ctvm_vsub(one, ctvm_vmul(e, q));
    big = ctvm_vselect(ctvm_vlt(x, ctvm_vzero()), ctvm_vneg(big), big);
    r = ctvm_vselect(ctvm_vlt(ctvm_vabs(x), one), ctvm_vmul(x, p), big);
    return ctvm_vselect(ctvm_veq(x, x), r, x); /* NaN in, NaN out */
}

static CTVM_INLINE ctvm_vf ctvm_vexpm1(ctvm_vf x)
{
    ctvm_vf p = ctvm_vset1(1.0f / 40320.0f);
    p = ctvm_vfma(p, x, ctvm_vset1(1.0f / 5040.0f));
    p = ctvm_vfma(p, x, ctvm_vset1(1.0f / 720.0f));
    p = ctvm_vfma(p, x, ctvm_vset1(1.0f / 120.0f));
    p = ctvm_vfma(p, x, ctvm_vset1(1.0f / 24.0f));
    p = ctvm_vfma(p, x, ctvm_vset1(1.0f / 6.0f));
    p = ctvm_vfma(p, x, ctvm_vset1(0.5f));
    p = ctvm_vfma(p, x, ctvm_vset1(1.0f));
    p = ctvm_vmul(p, x);
    return ctvm_vselect(ctvm_vlt(ctvm_vabs(x), ctvm_vset1(0.5f)), p, ctvm_vsub(ctvm_vexp(x), ctvm_vset1(1.0f)));
}

/* the scalar forms: lane 0 of the vector functions */
static CTVM_INLINE float ctvm_expf(float x) { return ctvm_vfirst(ctvm_vexp(ctvm_vset1(x))); }
static CTVM_INLINE float ctvm_tanhf(float x) { return ctvm_vfirst(ctvm_vtanh(ctvm_vset1(x))); }
static CTVM_INLINE float ctvm_sigmoidf(float x) { return ctvm_vfirst(ctvm_vsigmoid(ctvm_vset1(x))); }
static CTVM_INLINE float ctvm_logf(float x) { return ctvm_vfirst(ctvm_vlog(ctvm_vset1(x))); }
static CTVM_INLINE float ctvm_log1pf(float x) { return ctvm_vfirst(ctvm_vlog1p(ctvm_vset1(x))); }
static CTVM_INLINE float ctvm_erff(float x) { return ctvm_vfirst(ctvm_verf(ctvm_vset1(x))); }
static CTVM_INLINE float ctvm_expm1f(float x) { return ctvm_vfirst(ctvm_vexpm1(ctvm_vset1(x))); }

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* CTVM_VL */
#endif /* CTVM_VEC_MATH_H */
