/* The vector variants that tokitai_hip/reference_simd.h declares, as SLEEF's functions:
 * one per function and x86-64 ISA of the vector-function ABI (b: SSE2, 2 doubles; c: AVX
 * and d: AVX2, 4; e: AVX-512, 8), each compiled for its ISA so that its vectors pass in
 * registers as the ABI says. The names are the ABI's (reserved identifiers: this file
 * implements that ABI); hidden, so that they bind inside the library they are linked
 * into. SLEEF's accuracy classes: u10 (1.0 ulp), erfc u15, hypot u05. */
/* sleef.h declares each ISA's functions where the compiler targets that ISA: all of them
 * here, for the declarations only. */
#pragma GCC push_options
#pragma GCC target("sse2,avx,avx2,fma,avx512f")
#include <sleef.h>
#pragma GCC pop_options

#include "tokitai_hip/export.h"

#define TKH_ULP_exp u10
#define TKH_ULP_exp2 u10
#define TKH_ULP_expm1 u10
#define TKH_ULP_log u10
#define TKH_ULP_log2 u10
#define TKH_ULP_log10 u10
#define TKH_ULP_log1p u10
#define TKH_ULP_sin u10
#define TKH_ULP_cos u10
#define TKH_ULP_tan u10
#define TKH_ULP_asin u10
#define TKH_ULP_acos u10
#define TKH_ULP_atan u10
#define TKH_ULP_sinh u10
#define TKH_ULP_cosh u10
#define TKH_ULP_tanh u10
#define TKH_ULP_asinh u10
#define TKH_ULP_acosh u10
#define TKH_ULP_atanh u10
#define TKH_ULP_erf u10
#define TKH_ULP_erfc u15
#define TKH_ULP_cbrt u10
#define TKH_ULP_atan2 u10
#define TKH_ULP_pow u10
#define TKH_ULP_hypot u05

/* Sleef_expd8_u10avx512f: the function, lanes, accuracy class and ISA (two levels, so
 * that the class's macro expands before the paste). */
#define TKH_SLEEF(f, lanes, isa) TKH_SLEEF_(f, lanes, TKH_ULP_##f, isa)
#define TKH_SLEEF_(f, lanes, ulp, isa) TKH_PASTE(f, lanes, ulp, isa)
#define TKH_PASTE(f, lanes, ulp, isa) Sleef_##f##lanes##_##ulp##isa

#define TKH_VARIANT1(f, tag, V, lanes, isa, flags) \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##v_##f(V x); \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##v_##f(V x) \
    { return TKH_SLEEF(f, lanes, isa)(x); }
#define TKH_VARIANT2(f, tag, V, lanes, isa, flags) \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##vv_##f(V x, V y); \
    __attribute__((target(flags))) TKH_HIDDEN V _ZGV##tag##vv_##f(V x, V y) \
    { return TKH_SLEEF(f, lanes, isa)(x, y); }

#define TKH_VARIANTS(f, VARIANT) \
    VARIANT(f, bN2, __m128d, d2, sse2, "sse2") \
    VARIANT(f, cN4, __m256d, d4, avx, "avx") \
    VARIANT(f, dN4, __m256d, d4, avx2, "avx2,fma") \
    VARIANT(f, eN8, __m512d, d8, avx512f, "avx512f")
#define TKH_ONE(f) TKH_VARIANTS(f, TKH_VARIANT1)
#define TKH_TWO(f) TKH_VARIANTS(f, TKH_VARIANT2)

#include "tokitai_hip/reference_simd.h"
TKH_SIMD_FUNCTIONS(TKH_ONE, TKH_TWO)
