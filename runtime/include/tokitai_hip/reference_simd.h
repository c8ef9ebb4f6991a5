/* Vector forms of the C library's double functions for the ulp rule's references, so
 * that the CPU checks' loops vectorize (TKH_VECTOR_REFERENCE, CMake option
 * TOKITAI_HIP_VECTOR_REFERENCE; GCC on x86-64). The declarations tell GCC that each
 * function has vector variants under the x86-64 vector-function ABI (_ZGVeN8v_exp for
 * 8 doubles with AVX-512, _ZGVdN4v_exp for 4 with AVX2, ...); the variants are SLEEF's
 * (within 1 ulp of double, erfc 1.5, hypot 0.5), defined in the static library
 * TokitaiHip::reference_simd with hidden visibility, so that each catalog binds to its
 * own copy and never to another library of the same names (glibc's libmvec). Loops that
 * do not vectorize, and scalar calls, use the C library's functions, within 1 ulp as well.
 * Only double is declared: f64's references are long double, which has no vector forms. */
#ifndef TOKITAI_HIP_REFERENCE_SIMD_H
#define TOKITAI_HIP_REFERENCE_SIMD_H

#include <math.h>

#define TKH_SIMD_FUNCTIONS(X, XX) \
    X(exp) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sin) X(cos) X(tan) \
    X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(asinh) X(acosh) X(atanh) X(erf) \
    X(erfc) X(cbrt) XX(atan2) XX(pow) XX(hypot)

/* (f) in parentheses: <tgmath.h> defines the names as function-like macros. */
#define TKH_SIMD_DECLARE1(f) __attribute__((simd("notinbranch"))) double (f)(double);
#define TKH_SIMD_DECLARE2(f) __attribute__((simd("notinbranch"))) double (f)(double, double);
TKH_SIMD_FUNCTIONS(TKH_SIMD_DECLARE1, TKH_SIMD_DECLARE2)
#undef TKH_SIMD_DECLARE1
#undef TKH_SIMD_DECLARE2

#endif
