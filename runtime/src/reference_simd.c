/* The vector variants that tokitai_hip/reference_simd.h declares, as SLEEF's functions:
 * one per function and x86-64 ISA of the vector-function ABI (b: SSE2, 2 doubles; c: AVX
 * and d: AVX2, 4; e: AVX-512, 8), each compiled for its ISA so that its vectors pass in
 * registers as the ABI says. The names are the ABI's (reserved identifiers: this file
 * implements that ABI); hidden, so that they bind inside the library they are linked
 * into. SLEEF's accuracy classes: u10 (1.0 ulp), erfc u15, hypot u05; tested against
 * MPFR by tests/unit/test_reference_simd.c. */
/* sleef.h declares each ISA's functions where the compiler targets that ISA: all of them
 * here, for the declarations only. */
#pragma GCC push_options
#pragma GCC target("sse2,avx,avx2,fma,avx512f")
#include <sleef.h>
#pragma GCC pop_options

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "tokitai_hip/export.h"
#include "tokitai_hip/reference_simd.h"

/* Per function: SLEEF's accuracy class, and the magnitude of the (first) argument past
 * which SLEEF's result leaves its bound (its documented domains; log1p, asinh and acosh
 * return infinity there, sinh and cosh overflow early, pow(DBL_MAX, 1) is infinite):
 * lanes past it take the C library's scalar function instead. */
#define TKH_INFO_exp u10, INFINITY
#define TKH_INFO_exp2 u10, INFINITY
#define TKH_INFO_expm1 u10, INFINITY
#define TKH_INFO_log u10, INFINITY
#define TKH_INFO_log2 u10, INFINITY
#define TKH_INFO_log10 u10, INFINITY
#define TKH_INFO_log1p u10, 1e307
#define TKH_INFO_sin u10, INFINITY
#define TKH_INFO_cos u10, INFINITY
#define TKH_INFO_tan u10, INFINITY
#define TKH_INFO_asin u10, INFINITY
#define TKH_INFO_acos u10, INFINITY
#define TKH_INFO_atan u10, INFINITY
#define TKH_INFO_sinh u10, 709
#define TKH_INFO_cosh u10, 709
#define TKH_INFO_tanh u10, INFINITY
#define TKH_INFO_asinh u10, 1e154
#define TKH_INFO_acosh u10, 1e154
#define TKH_INFO_atanh u10, INFINITY
#define TKH_INFO_erf u10, INFINITY
#define TKH_INFO_erfc u15, INFINITY
#define TKH_INFO_cbrt u10, INFINITY
#define TKH_INFO_atan2 u10, INFINITY
#define TKH_INFO_pow u10, 1e307
#define TKH_INFO_hypot u05, INFINITY
#define TKH_APPLY(m, ...) m(__VA_ARGS__)
#define TKH_CLASS(ulp, limit) ulp
#define TKH_LIMIT(ulp, limit) limit

/* Sleef_expd8_u10avx512f: the function, lanes, accuracy class and ISA (two levels, so
 * that the class's macro expands before the paste). */
#define TKH_SLEEF(f, lanes, isa) TKH_SLEEF_(f, lanes, TKH_APPLY(TKH_CLASS, TKH_INFO_##f), isa)
#define TKH_SLEEF_(f, lanes, ulp, isa) TKH_PASTE(f, lanes, ulp, isa)
#define TKH_PASTE(f, lanes, ulp, isa) Sleef_##f##lanes##_##ulp##isa

/* The scalar functions, out of line: a loop that calls them must not vectorize into the
 * variants defined here. */
#define TKH_SCALAR1(f) __attribute__((noinline)) static double scalar_##f(double x, double y) \
    { (void)y; return f(x); }
#define TKH_SCALAR2(f) __attribute__((noinline)) static double scalar_##f(double x, double y) \
    { return f(x, y); }

/* y's lanes whose x is past f's limit, again by the scalar function (nothing where the
 * limit is infinite: the compiler drops the test). */
#define TKH_FIX(f, V, x, x2, y) \
    do { \
        double xs[sizeof(V) / 8], x2s[sizeof(V) / 8], ys[sizeof(V) / 8]; \
        memcpy(xs, &x, sizeof xs); \
        int past = 0; \
        for (size_t i = 0; i < sizeof(V) / 8; ++i) \
            past |= fabs(xs[i]) > TKH_APPLY(TKH_LIMIT, TKH_INFO_##f); \
        if (past) { \
            memcpy(x2s, &x2, sizeof x2s); \
            memcpy(ys, &y, sizeof ys); \
            for (size_t i = 0; i < sizeof(V) / 8; ++i) \
                if (fabs(xs[i]) > TKH_APPLY(TKH_LIMIT, TKH_INFO_##f)) \
                    ys[i] = scalar_##f(xs[i], x2s[i]); \
            memcpy(&y, ys, sizeof ys); \
        } \
    } while (0)

#define TKH_VARIANT1(f, tag, V, lanes, isa, flags) \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##v_##f(V x); \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##v_##f(V x) \
    { V y = TKH_SLEEF(f, lanes, isa)(x); TKH_FIX(f, V, x, x, y); return y; }
#define TKH_VARIANT2(f, tag, V, lanes, isa, flags) \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##vv_##f(V x, V x2); \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##vv_##f(V x, V x2) \
    { V y = TKH_SLEEF(f, lanes, isa)(x, x2); TKH_FIX(f, V, x, x2, y); return y; }

#define TKH_VARIANTS(f, VARIANT) \
    VARIANT(f, bN2, __m128d, d2, sse2, "sse2") \
    VARIANT(f, cN4, __m256d, d4, avx, "avx") \
    VARIANT(f, dN4, __m256d, d4, avx2, "avx2,fma") \
    VARIANT(f, eN8, __m512d, d8, avx512f, "avx512f")
#define TKH_ONE(f) TKH_SCALAR1(f) TKH_VARIANTS(f, TKH_VARIANT1)
#define TKH_TWO(f) TKH_SCALAR2(f) TKH_VARIANTS(f, TKH_VARIANT2)

TKH_SIMD_FUNCTIONS(TKH_ONE, TKH_TWO)
