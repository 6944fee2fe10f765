/* ctvm_vec_math.h - vector math written once on top of the vector API
 * (templates/ctvm_vec_<isa>.h, pasted just before this file), for every
 * ISA alike: the functions whose per-ISA form would only repeat the same
 * steps with other intrinsic names.
 *
 * ctvm_verf: erf with a max relative error of about 2e-7 (tests/unit/
 * vec_api_check.c measures it on every ISA). |x| < 1: x * P(x^2), P of
 * degree 6; 1 <= |x|: 1 - exp(-a^2) * Q(t), t = 1 / (1 + a/2), a = min(|x|, 4)
 * (past 4, erf is 1 in float), Q of degree 6, with the sign of x. The
 * coefficients were fitted for ctvm by least squares on the relative error
 * (erf(x)/x on [0,1], erfc(a)*exp(a^2) on [1,4]). NaN stays NaN.
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

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* CTVM_VL */
#endif /* CTVM_VEC_MATH_H */
