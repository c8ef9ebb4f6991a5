/* Values with an error bound, for oracles that cannot compare bit for bit (the
 * normalizations, docs/normalizations.md). A tkh_eb is the exact result of an expression
 * evaluated on exact operands, in long double, and a bound on how far the device's
 * evaluation in the compute type (described by a tkh_eb_type) can be from it: every
 * operation adds its rounding and propagates its operands' bounds; a library function
 * adds its documented error in ulps. The bounds hold beyond first order (they include the
 * products of errors) and count the long double evaluation's own rounding. A bound of
 * INFINITY claims nothing (an operand's bound reaching a pole, an overflow); a non-finite
 * value is exact only when its operands were exact, and then the device must give it.
 * Host code only (C11). */
#ifndef TOKITAI_HIP_ERROR_BOUND_H
#define TOKITAI_HIP_ERROR_BOUND_H

#include <float.h>
#include <math.h>

typedef struct tkh_eb {
    long double v; /* the exact value (to long double's precision, counted in e) */
    long double e; /* |device - v| <= e */
} tkh_eb;

/* The compute type: unit roundoff, half its smallest subnormal (an underflowing
 * operation's absolute error), its largest finite value. */
typedef struct tkh_eb_type {
    long double u, tiny, max;
} tkh_eb_type;

#define TKH_EB_F32 ((tkh_eb_type){ 0x1p-24L, 0x1p-150L, FLT_MAX })
#define TKH_EB_F64 ((tkh_eb_type){ 0x1p-53L, 0x1p-1075L, DBL_MAX })
/* Storage types for tkh_eb_accepts: f16 and bf16 round an f32 result once more. */
#define TKH_EB_F16 ((tkh_eb_type){ 0x1p-11L, 0x1p-25L, 65504.0L })
#define TKH_EB_BF16 ((tkh_eb_type){ 0x1p-8L, 0x1p-134L, 0x1.fep127L })
#define TKH_EB_STORED(max) ((tkh_eb_type){ 0, 0, (max) })
/* long double's own rounding, added to every result. */
#define TKH_EB_UW (LDBL_EPSILON / 2)

/* The result of an operation: value v with bound e before rounding in t; 'exact' when
 * every operand was. */
static inline tkh_eb tkh_eb_result(long double v, long double e, int exact, tkh_eb_type t)
{
    tkh_eb r = { v, 0 };
    if (!isfinite(v)) {
        r.e = exact ? 0 : INFINITY;
        return r;
    }
    r.e = e * (1 + t.u) + t.u * fabsl(v) + t.tiny + TKH_EB_UW * fabsl(v);
    if (!(r.e < INFINITY) || fabsl(v) + r.e >= t.max)
        r.e = INFINITY; /* NaN from inf * 0 on the way, or the device may overflow */
    return r;
}

static inline tkh_eb tkh_eb_exact(long double v)
{
    tkh_eb r = { v, 0 };
    return r;
}

/* A literal: its value, and the value the device holds for it. */
static inline tkh_eb tkh_eb_const(long double v, long double held)
{
    tkh_eb r = { v, isfinite(v) ? fabsl(v - held) : 0 };
    return r;
}

static inline tkh_eb tkh_eb_round(tkh_eb a, tkh_eb_type t)
{
    return tkh_eb_result(a.v, a.e, a.e == 0, t);
}

static inline tkh_eb tkh_eb_neg(tkh_eb a)
{
    a.v = -a.v;
    return a;
}

static inline tkh_eb tkh_eb_add(tkh_eb a, tkh_eb b, tkh_eb_type t)
{
    return tkh_eb_result(a.v + b.v, a.e + b.e, a.e == 0 && b.e == 0, t);
}

static inline tkh_eb tkh_eb_sub(tkh_eb a, tkh_eb b, tkh_eb_type t)
{
    return tkh_eb_result(a.v - b.v, a.e + b.e, a.e == 0 && b.e == 0, t);
}

static inline tkh_eb tkh_eb_mul(tkh_eb a, tkh_eb b, tkh_eb_type t)
{
    const long double e = fabsl(a.v) * b.e + fabsl(b.v) * a.e + a.e * b.e;
    return tkh_eb_result(a.v * b.v, e, a.e == 0 && b.e == 0, t);
}

static inline tkh_eb tkh_eb_div(tkh_eb a, tkh_eb b, tkh_eb_type t)
{
    const long double q = a.v / b.v, room = fabsl(b.v) - b.e;
    const long double e = room > 0 ? (a.e + fabsl(q) * b.e) / room : INFINITY;
    return tkh_eb_result(q, e, a.e == 0 && b.e == 0, t);
}

/* A library function's own error: 'ulps' ulps of its result, where it can be as large as
 * 'peak' (the result over the operand's interval); an ulp is at most 2u of it, or the
 * subnormals' spacing. */
static inline long double tkh_eb_library(long double ulps, long double peak, tkh_eb_type t)
{
    return ulps * (2 * t.u * fabsl(peak) + 2 * t.tiny);
}

static inline tkh_eb tkh_eb_exp(tkh_eb a, long double ulps, tkh_eb_type t)
{
    const long double v = expl(a.v), high = expl(a.v + a.e);
    return tkh_eb_result(v, (high - v) + tkh_eb_library(ulps, high, t) + 2 * TKH_EB_UW * v, a.e == 0, t);
}

static inline tkh_eb tkh_eb_exp2(tkh_eb a, long double ulps, tkh_eb_type t)
{
    const long double v = exp2l(a.v), high = exp2l(a.v + a.e);
    return tkh_eb_result(v, (high - v) + tkh_eb_library(ulps, high, t) + 2 * TKH_EB_UW * v, a.e == 0, t);
}

static inline tkh_eb tkh_eb_expm1(tkh_eb a, long double ulps, tkh_eb_type t)
{
    const long double v = expm1l(a.v), high = expm1l(a.v + a.e);
    const long double peak = fmaxl(fabsl(high), fabsl(expm1l(a.v - a.e)));
    return tkh_eb_result(v, (high - v) + tkh_eb_library(ulps, peak, t) + 2 * TKH_EB_UW * fabsl(v), a.e == 0, t);
}

/* log and its kin: the operand's interval must stay above the pole. */
static inline tkh_eb tkh_eb_log_at(long double v, long double low_v, long double dist, long double ulps,
    int exact, tkh_eb_type t)
{
    const long double e = dist > 0 ? fabsl(v - low_v) : INFINITY;
    return tkh_eb_result(v, e + tkh_eb_library(ulps, fmaxl(fabsl(v), fabsl(low_v)), t) + 2 * TKH_EB_UW * fabsl(v), exact, t);
}

static inline tkh_eb tkh_eb_log(tkh_eb a, long double ulps, tkh_eb_type t)
{
    return tkh_eb_log_at(logl(a.v), logl(a.v - a.e), a.v - a.e, ulps, a.e == 0, t);
}

static inline tkh_eb tkh_eb_log2(tkh_eb a, long double ulps, tkh_eb_type t)
{
    return tkh_eb_log_at(log2l(a.v), log2l(a.v - a.e), a.v - a.e, ulps, a.e == 0, t);
}

static inline tkh_eb tkh_eb_log1p(tkh_eb a, long double ulps, tkh_eb_type t)
{
    return tkh_eb_log_at(log1pl(a.v), log1pl(a.v - a.e), 1 + a.v - a.e, ulps, a.e == 0, t);
}

static inline tkh_eb tkh_eb_tanh(tkh_eb a, long double ulps, tkh_eb_type t)
{
    const long double v = tanhl(a.v);
    const long double peak = fmaxl(fabsl(tanhl(a.v - a.e)), fabsl(tanhl(a.v + a.e)));
    return tkh_eb_result(v, fminl(a.e, 2) + tkh_eb_library(ulps, peak, t) + 2 * TKH_EB_UW * fabsl(v), a.e == 0, t);
}

/* erf is Lipschitz with 2 / sqrt(pi) and never moves more than 2. */
static inline tkh_eb tkh_eb_erf(tkh_eb a, long double ulps, tkh_eb_type t)
{
    const long double v = erfl(a.v);
    const long double peak = fmaxl(fabsl(erfl(a.v - a.e)), fabsl(erfl(a.v + a.e)));
    return tkh_eb_result(v, fminl(a.e * 1.1283791670955126L, 2) + tkh_eb_library(ulps, peak, t)
        + 2 * TKH_EB_UW * fabsl(v), a.e == 0, t);
}

/* tkh_relu (tokitai_hip/codegen/op_math.h) rounds nothing and moves no operand further than
 * its own bound (Lipschitz 1); NaN stays NaN. */
static inline tkh_eb tkh_eb_tkh_relu(tkh_eb a)
{
    tkh_eb r = { a.v > 0 || isnan(a.v) ? a.v : 0, a.e };
    return r;
}

/* rsqrt is steepest at the interval's low end, which must stay above 0. */
static inline tkh_eb tkh_eb_rsqrt(tkh_eb a, long double ulps, tkh_eb_type t)
{
    const long double low = a.v - a.e, v = 1 / sqrtl(a.v);
    const long double peak = low > 0 ? 1 / sqrtl(low) : INFINITY;
    return tkh_eb_result(v, (peak - v) + tkh_eb_library(ulps, peak, t) + 2 * TKH_EB_UW * v, a.e == 0, t);
}

/* sqrt is correctly rounded (IEEE, the default of both vendors' compilers); steepest at
 * the low end, and never more than the root of the operand's bound. */
static inline tkh_eb tkh_eb_sqrt(tkh_eb a, tkh_eb_type t)
{
    const long double v = sqrtl(a.v), low = a.v - a.e;
    return tkh_eb_result(v, v - (low > 0 ? sqrtl(low) : 0) + 2 * TKH_EB_UW * v, a.e == 0, t);
}

static inline tkh_eb tkh_eb_fabs(tkh_eb a)
{
    a.v = fabsl(a.v);
    return a;
}

/* fmax and fmin ignore one NaN, on the device as here; neither moves an operand. */
static inline tkh_eb tkh_eb_fmax(tkh_eb a, tkh_eb b)
{
    tkh_eb r = { fmaxl(a.v, b.v), fmaxl(a.e, b.e) };
    return r;
}

static inline tkh_eb tkh_eb_fmin(tkh_eb a, tkh_eb b)
{
    tkh_eb r = { fminl(a.v, b.v), fmaxl(a.e, b.e) };
    return r;
}

/* Whether the device's value 'got' (widened from the output type) is within the bound
 * of r once the result is stored in the output type 'out' (for an output of the compute
 * type itself: TKH_EB_STORED, no rounding left). A NaN must meet a NaN where r is exact; an
 * exact infinity must be met exactly; a bound of INFINITY accepts anything, and so does an
 * infinity where the stored value may overflow. */
static inline int tkh_eb_accepts(tkh_eb r, long double got, tkh_eb_type out)
{
    if (r.e == INFINITY)
        return 1;
    if (isnan(r.v))
        return isnan(got);
    if (isinf(r.v))
        return got == r.v;
    const long double bound = r.e * (1 + out.u) + out.u * fabsl(r.v) + out.tiny;
    if (isinf(got))
        return fabsl(r.v) + bound >= out.max && (got > 0) == (r.v > 0);
    return fabsl(got - r.v) <= bound;
}

#endif
