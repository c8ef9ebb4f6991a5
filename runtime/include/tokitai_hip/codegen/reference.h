/* Wide arithmetic for the generated CPU tests: each op's 'reference' expression states
 * its semantics a second way, in __int128 or in a wider float type, and R() brings the
 * result back to the op's type. Host only; GCC or Clang (for __int128 and __float128). */
#ifndef TOKITAI_HIP_REFERENCE_H
#define TOKITAI_HIP_REFERENCE_H

#include <math.h>

#include "tokitai_hip/codegen/scalar.h"

/* floor(x / p) for p > 0, without relying on how >> treats negative numbers. */
static inline __int128 tkh_ref_floordiv(__int128 x, __int128 p)
{
    return x >= 0 ? x / p : -((-x + p - 1) / p);
}

/* sqrt to ~111 bits: long double's sqrt, then a Newton step in __float128. A double's
 * square root is never within 2^-108 of a midpoint between doubles, so rounding this once
 * more to double gives the correctly rounded result. */
static inline __float128 tkh_ref_sqrtq(__float128 x)
{
    if (!(x > 0) || x != x || x + x == x) /* zero, negative, NaN, inf: long double says it */
        return (__float128)sqrtl((long double)x);
    __float128 y = (__float128)sqrtl((long double)x);
    return (y + x / y) / 2;
}

/* fmod is exact, so long double (which holds every double) gives the exact result. */
static inline __float128 tkh_ref_fmodq(__float128 x, __float128 y)
{
    return (__float128)fmodl((long double)x, (long double)y);
}

static inline int tkh_ref_signbit(double x) { return signbit(x) != 0; }
static inline int tkh_ref_signbitq(__float128 x) { return signbit((long double)x) != 0; }

#define SQRT(x) _Generic((x), __float128: tkh_ref_sqrtq, default: sqrt)(x)
#define FMOD(x, y) _Generic((x), __float128: tkh_ref_fmodq, default: fmod)(x, y)
#define SIGNBIT(x) _Generic((x), __float128: tkh_ref_signbitq, default: tkh_ref_signbit)(x)
#define ISNAN(x) ((x) != (x))
#define FABS(x) (SIGNBIT(x) ? -(x) : (x))
#define FMIN(x, y) ((x) < (y) ? (x) : (y))
#define FMAX(x, y) ((x) > (y) ? (x) : (y))
#define QNAN NAN
#define FLOORDIV(x, p) tkh_ref_floordiv((x), (p))

/* 2^e in __float128 (exact for e in [-16494, 16383]). */
static inline __float128 tkh_ref_pow2(int e)
{
    __float128 r = 1;
    for (; e > 0; --e)
        r *= 2;
    for (; e < 0; ++e)
        r /= 2;
    return r;
}

/* v rounded once to nearest, ties to even, to a binary format of p significand bits and
 * normal exponents [emin, emax] (subnormals below), as a __float128: +-inf past the
 * range, NaN and zeros as they are. Every integer of 64 bits and every double is exact
 * in __float128, so this is the correctly rounded cast of either. */
static inline __float128 tkh_ref_round(__float128 v, int p, int emin, int emax)
{
    if (v != v || v == 0 || v + v == v)
        return v;
    const __float128 m = v < 0 ? -v : v;
    int e = 0;
    for (__float128 a = m; a >= 2; a /= 2)
        ++e;
    for (__float128 a = m; a < 1; a *= 2)
        --e;
    const int q = (e < emin ? emin : e) - (p - 1); /* the exponent of the last bit */
    const __float128 r = m * tkh_ref_pow2(-q);     /* < 2^p, exact */
    __float128 n = (__float128)(unsigned __int128)r;
    const __float128 frac = r - n;
    if (frac > 0.5Q || (frac == 0.5Q && ((unsigned __int128)n & 1) != 0))
        n += 1;
    __float128 result = n * tkh_ref_pow2(q);
    if (result >= tkh_ref_pow2(emax + 1))
        result = (__float128)INFINITY;
    return v < 0 ? -result : result;
}

/* Casts of a wide value (any integer, double or __float128) to each float type, rounded
 * once; 16-bit types as their bits. */
static inline uint16_t tkh_ref_to_f16(__float128 v)
{
    return tkh_f32_to_f16((float)tkh_ref_round(v, 11, -14, 15));
}
static inline uint16_t tkh_ref_to_bf16(__float128 v)
{
    return tkh_f32_to_bf16((float)tkh_ref_round(v, 8, -126, 127));
}
static inline float tkh_ref_to_f32(__float128 v)
{
    return (float)tkh_ref_round(v, 24, -126, 127);
}
static inline double tkh_ref_to_f64(__float128 v)
{
    return (double)tkh_ref_round(v, 53, -1022, 1023);
}

/* IEEE 754-2019 maximum and minimum of wide values: NaN if either is, -0 < +0. */
#define MAXIMUM(x, y) ((ISNAN(x) || ISNAN(y)) ? QNAN : (x) == (y) ? (SIGNBIT(x) ? (y) : (x)) : FMAX(x, y))
#define MINIMUM(x, y) ((ISNAN(x) || ISNAN(y)) ? QNAN : (x) == (y) ? (SIGNBIT(x) ? (x) : (y)) : FMIN(x, y))

#endif
