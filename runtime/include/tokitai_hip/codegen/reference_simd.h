/* Vector forms of the C library's double functions for the ulp rule's references, so
 * that the CPU checks' loops vectorize (TKH_VECTOR_REFERENCE, CMake option
 * TOKITAI_HIP_VECTOR_REFERENCE; GCC on x86-64). The declarations tell GCC that each
 * function has vector variants under the x86-64 vector-function ABI (_ZGVeN8v_exp for
 * 8 doubles with AVX-512, _ZGVdN4v_exp for 4 with AVX2, ...); the variants are SLEEF's
 * (within 1 or 3.5 ulps of double, below), defined in the static library
 * TokitaiHip::reference_simd with hidden visibility, so that each catalog binds to its
 * own copy and never to another library of the same names (glibc's libmvec). Loops that
 * do not vectorize, and scalar calls, use the C library's functions, within an ulp or two.
 * Only double is declared: f64's references are long double, which has no vector forms. */
#ifndef TOKITAI_HIP_REFERENCE_SIMD_H
#define TOKITAI_HIP_REFERENCE_SIMD_H

#include <math.h>

/* X(name, class, ulps, limit) for one argument, XX(...) for two: SLEEF's accuracy class
 * of the variant used (u35 where SLEEF has one: faster, and 3.5 ulps of double are 2^-27
 * ulps of f32), its stated bound in ulps of double, and the magnitude of the (first)
 * argument past which SLEEF leaves its domain (log1p, asinh and acosh return infinity,
 * sinh and cosh overflow early, pow(DBL_MAX, 1) is infinite): lanes past it take the C
 * library's scalar function. */
#define TKH_SIMD_FUNCTIONS(X, XX) \
    X(exp, u10, 1.0, INFINITY) X(exp2, u35, 3.5, INFINITY) X(expm1, u10, 1.0, INFINITY) \
    X(log, u35, 3.5, INFINITY) X(log2, u35, 3.5, INFINITY) X(log10, u10, 1.0, INFINITY) \
    X(log1p, u10, 1.0, 1e307) X(sin, u35, 3.5, INFINITY) X(cos, u35, 3.5, INFINITY) \
    X(tan, u35, 3.5, INFINITY) X(asin, u35, 3.5, INFINITY) X(acos, u35, 3.5, INFINITY) \
    X(atan, u35, 3.5, INFINITY) X(sinh, u35, 3.5, 709) X(cosh, u35, 3.5, 709) \
    X(tanh, u35, 3.5, INFINITY) X(asinh, u10, 1.0, 1e154) X(acosh, u10, 1.0, 1e154) \
    X(atanh, u10, 1.0, INFINITY) X(erf, u10, 1.0, INFINITY) X(erfc, u15, 1.5, INFINITY) \
    X(cbrt, u35, 3.5, INFINITY) XX(atan2, u35, 3.5, INFINITY) XX(pow, u10, 1.0, 1e307) \
    XX(hypot, u35, 3.5, INFINITY)

/* (f) in parentheses: <tgmath.h> defines the names as function-like macros. */
#define TKH_SIMD_DECLARE1(f, class, ulps, limit) __attribute__((simd("notinbranch"))) double (f)(double);
#define TKH_SIMD_DECLARE2(f, class, ulps, limit) __attribute__((simd("notinbranch"))) double (f)(double, double);
TKH_SIMD_FUNCTIONS(TKH_SIMD_DECLARE1, TKH_SIMD_DECLARE2)
#undef TKH_SIMD_DECLARE1
#undef TKH_SIMD_DECLARE2

#endif
