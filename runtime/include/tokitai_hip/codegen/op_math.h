/* The math functions an op's expression may call, with one spelling for device code (HIP,
 * CUDA) and for the host's CPU oracle (C11): the standard names (exp, log1p, erfc, pow,
 * fma, ...), overloaded for float and double on the device and type-generic on the host
 * through <tgmath.h> (which also serves long double, the type f64 references are
 * evaluated in); rsqrt, which C lacks and HIP 5.2 has for double only; and tkh_fast_*,
 * the vendors' fast approximations (CUDA's __expf, AMD's native functions) for float,
 * whose reference on the host is the accurate function (docs/op-files.md). */
#ifndef TOKITAI_HIP_OP_MATH_H
#define TOKITAI_HIP_OP_MATH_H

/* max(x, 0) as torch.relu and numpy.maximum(x, 0) give it: NaN stays NaN (fmax would drop
 * it), and -0 and the negatives give +0. The same on the device and the host. */
#define tkh_relu(x) ((x) > 0 || (x) != (x) ? (x) : 0)

#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
__device__ static inline float tkh_rsqrt(float x) { return rsqrtf(x); }
__device__ static inline double tkh_rsqrt(double x) { return rsqrt(x); }
__device__ static inline float tkh_fast_exp(float x) { return __expf(x); }
__device__ static inline float tkh_fast_exp10(float x) { return __exp10f(x); }
__device__ static inline float tkh_fast_log(float x) { return __logf(x); }
__device__ static inline float tkh_fast_log2(float x) { return __log2f(x); }
__device__ static inline float tkh_fast_log10(float x) { return __log10f(x); }
__device__ static inline float tkh_fast_sin(float x) { return __sinf(x); }
__device__ static inline float tkh_fast_cos(float x) { return __cosf(x); }
__device__ static inline float tkh_fast_tan(float x) { return __tanf(x); }
__device__ static inline float tkh_fast_pow(float x, float y) { return __powf(x, y); }
__device__ static inline float tkh_fast_div(float x, float y) { return __fdividef(x, y); }
/* double has no fast forms: the accurate functions. */
__device__ static inline double tkh_fast_exp(double x) { return exp(x); }
__device__ static inline double tkh_fast_exp10(double x) { return exp10(x); }
__device__ static inline double tkh_fast_log(double x) { return log(x); }
__device__ static inline double tkh_fast_log2(double x) { return log2(x); }
__device__ static inline double tkh_fast_log10(double x) { return log10(x); }
__device__ static inline double tkh_fast_sin(double x) { return sin(x); }
__device__ static inline double tkh_fast_cos(double x) { return cos(x); }
__device__ static inline double tkh_fast_tan(double x) { return tan(x); }
__device__ static inline double tkh_fast_pow(double x, double y) { return pow(x, y); }
__device__ static inline double tkh_fast_div(double x, double y) { return x / y; }
#define rsqrt(x) tkh_rsqrt(x)
#else
/* The host: the fast forms' references are the accurate functions (their bound says how
 * far off the approximation may be), through <tgmath.h> (from tokitai_hip/codegen/scalar.h) in C,
 * which picks float, double or long double. exp10 is not in C11: pow(10, x). */
#define tkh_fast_log(x) log(x)
#define tkh_fast_exp(x) exp(x)
#define tkh_fast_log2(x) log2(x)
#define tkh_fast_log10(x) log10(x)
#define tkh_fast_sin(x) sin(x)
#define tkh_fast_cos(x) cos(x)
#define tkh_fast_tan(x) tan(x)
#define tkh_fast_pow(x, y) pow((x), (y))
#define tkh_fast_div(x, y) ((x) / (y))
#if defined(__HIPCC__) || defined(__CUDACC__)
/* The host pass of a kernel's translation unit compiles the op for the host too, but
 * never runs it. */
#define rsqrt(x) (1 / sqrt(x))
#define tkh_fast_exp10(x) pow(10, (x))
#else
static inline float tkh_rsqrtf(float x) { return 1 / sqrtf(x); }
static inline double tkh_rsqrt(double x) { return 1 / sqrt(x); }
static inline long double tkh_rsqrtl(long double x) { return 1 / sqrtl(x); }
#define rsqrt(x) _Generic((x), float: tkh_rsqrtf, long double: tkh_rsqrtl, default: tkh_rsqrt)(x)
#define tkh_fast_exp10(x) pow(_Generic((x), float: 10.0f, long double: 10.0L, default: 10.0), (x))
#if defined(TKH_VECTOR_REFERENCE)
#include "tokitai_hip/codegen/reference_simd.h" /* the references' loops vectorize */
#endif
#endif
#endif

/* Floats as signed integers in the same order, so that amax and amin fold with one integer
 * max or min instead of the float rule's chain of compares (IEEE 754-2019 maximum, about
 * ten instructions an element): the bits, with the magnitude bits of negative values
 * flipped, give -inf < ... < -0 < +0 < ... < +inf. A NaN, whatever its sign and payload,
 * maps above everything (the _max_ keys) or below everything (_min_), so it wins the fold;
 * tkh_key_value_* turns a key back into its float, and those two extremes into a NaN. */
/* The flip is its own inverse: the sign bit it reads is the one it keeps. */
TKH_HD static inline int32_t tkh_order_flip32(int32_t b) { return b ^ (int32_t)((uint32_t)(b >> 31) >> 1); }
TKH_HD static inline int64_t tkh_order_flip64(int64_t b) { return b ^ (int64_t)((uint64_t)(b >> 63) >> 1); }

TKH_HD static inline int32_t tkh_order_key_f32(float x) { return tkh_order_flip32((int32_t)tkh_f32_bits(x)); }

TKH_HD static inline int64_t tkh_order_key_f64(double x)
{
    int64_t b;
    TKH_BITCOPY(&b, &x, sizeof b);
    return tkh_order_flip64(b);
}

TKH_HD static inline int32_t tkh_max_key_f32(float x) { return x != x ? INT32_MAX : tkh_order_key_f32(x); }
TKH_HD static inline int32_t tkh_min_key_f32(float x) { return x != x ? INT32_MIN : tkh_order_key_f32(x); }
TKH_HD static inline int64_t tkh_max_key_f64(double x) { return x != x ? INT64_MAX : tkh_order_key_f64(x); }
TKH_HD static inline int64_t tkh_min_key_f64(double x) { return x != x ? INT64_MIN : tkh_order_key_f64(x); }

TKH_HD static inline float tkh_key_value_f32(int32_t k) { return tkh_f32_from_bits((uint32_t)tkh_order_flip32(k)); }

TKH_HD static inline double tkh_key_value_f64(int64_t k)
{
    const int64_t b = tkh_order_flip64(k);
    double x;
    TKH_BITCOPY(&x, &b, sizeof x);
    return x;
}

#endif
