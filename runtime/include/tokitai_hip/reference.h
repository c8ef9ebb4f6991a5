/* Wide arithmetic for the generated CPU tests: each op's 'reference' expression states
 * its semantics a second way, in __int128 or in a wider float type, and R() brings the
 * result back to the op's type. Host only; GCC or Clang (for __int128 and __float128). */
#ifndef TOKITAI_HIP_REFERENCE_H
#define TOKITAI_HIP_REFERENCE_H

#include <math.h>

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

#endif
