/* The vector variants that tokitai_hip/codegen/reference_simd.h declares, as SLEEF's functions:
 * one per function and x86-64 ISA of the vector-function ABI (b: SSE2, 2 doubles; c: AVX
 * and d: AVX2, 4; e: AVX-512, 8), each compiled for its ISA so that its vectors pass in
 * registers as the ABI says. The names are the ABI's (reserved identifiers: this file
 * implements that ABI); hidden, so that they bind inside the library they are linked
 * into. Each function's SLEEF class and domain are in the header's list; tested
 * against MPFR by tests/unit/test_reference_simd.c. */
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
#include "tokitai_hip/codegen/reference_simd.h"

/* Sleef_expd8_u10avx512f: the function, lanes, accuracy class and ISA. */
#define TKH_SLEEF(f, lanes, class, isa) Sleef_##f##lanes##_##class##isa

/* The scalar functions, out of line: a loop that calls them must not vectorize into the
 * variants defined here. */
#define TKH_SCALAR1(f, class, ulps, limit) __attribute__((noinline)) static double scalar_##f(double x, double y) \
    { (void)y; return f(x); }
#define TKH_SCALAR2(f, class, ulps, limit) __attribute__((noinline)) static double scalar_##f(double x, double y) \
    { return f(x, y); }

/* y's lanes whose x is past f's limit, again by the scalar function (nothing where the
 * limit is infinite: the compiler drops the test). */
#define TKH_FIX(f, limit, V, x, x2, y) \
    do { \
        double xs[sizeof(V) / 8], x2s[sizeof(V) / 8], ys[sizeof(V) / 8]; \
        memcpy(xs, &x, sizeof xs); \
        int past = 0; \
        for (size_t i = 0; i < sizeof(V) / 8; ++i) \
            past |= fabs(xs[i]) > (limit); \
        if (past) { \
            memcpy(x2s, &x2, sizeof x2s); \
            memcpy(ys, &y, sizeof ys); \
            for (size_t i = 0; i < sizeof(V) / 8; ++i) \
                if (fabs(xs[i]) > (limit)) \
                    ys[i] = scalar_##f(xs[i], x2s[i]); \
            memcpy(&y, ys, sizeof ys); \
        } \
    } while (0)

#define TKH_VARIANT1(f, class, limit, tag, V, lanes, isa, flags) \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##v_##f(V x); \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##v_##f(V x) \
    { V y = TKH_SLEEF(f, lanes, class, isa)(x); TKH_FIX(f, limit, V, x, x, y); return y; }
#define TKH_VARIANT2(f, class, limit, tag, V, lanes, isa, flags) \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##vv_##f(V x, V x2); \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##vv_##f(V x, V x2) \
    { V y = TKH_SLEEF(f, lanes, class, isa)(x, x2); TKH_FIX(f, limit, V, x, x2, y); return y; }

#define TKH_VARIANTS(f, class, limit, VARIANT) \
    VARIANT(f, class, limit, bN2, __m128d, d2, sse2, "sse2") \
    VARIANT(f, class, limit, cN4, __m256d, d4, avx, "avx") \
    VARIANT(f, class, limit, dN4, __m256d, d4, avx2, "avx2,fma") \
    VARIANT(f, class, limit, eN8, __m512d, d8, avx512f, "avx512f")
#define TKH_ONE(f, class, ulps, limit) TKH_SCALAR1(f, class, ulps, limit) TKH_VARIANTS(f, class, limit, TKH_VARIANT1)
#define TKH_TWO(f, class, ulps, limit) TKH_SCALAR2(f, class, ulps, limit) TKH_VARIANTS(f, class, limit, TKH_VARIANT2)

TKH_SIMD_FUNCTIONS(TKH_ONE, TKH_TWO)
