/* What generated oracle headers need to compile both as CPU code (C11) and as device
 * code (HIP or CUDA): fixed-width types, math, a host-and-device mark, and the f16 and
 * bf16 conversions. f16 and bf16 are stored as bits and computed in f32, rounding to
 * nearest even. The host converts in software, or with F16C where the build enables it;
 * device code uses the hardware's conversion instructions where there are some. All give
 * the same bits except for NaN payloads (any NaN compares equal to any NaN,
 * docs/semantics.md). */
#ifndef TOKITAI_HIP_SCALAR_H
#define TOKITAI_HIP_SCALAR_H

#include <stdint.h>
#include <string.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#define TKH_HD __host__ __device__
#include <math.h>
#else
#define TKH_HD
#include <stdbool.h> /* bool, the compute type of the bool type */
#include <tgmath.h> /* fmod, sqrt and fabs pick float or double from their argument */
#endif

/* HIP's clang has no device memcpy from <string.h>; its builtin works on both sides. */
#if defined(__HIPCC__)
#define TKH_BITCOPY __builtin_memcpy
#else
#define TKH_BITCOPY memcpy
#endif

TKH_HD static inline uint32_t tkh_f32_bits(float f)
{
    uint32_t x;
    TKH_BITCOPY(&x, &f, sizeof x);
    return x;
}

TKH_HD static inline float tkh_f32_from_bits(uint32_t x)
{
    float f;
    TKH_BITCOPY(&f, &x, sizeof f);
    return f;
}

/* Device code: f16 conversions in hardware (exact widening; narrowing rounds to nearest
 * even, with subnormals and overflow to infinity, as below). */
#if defined(__CUDA_ARCH__)
#define TKH_F16_HARDWARE 1
__device__ static inline float tkh_f16_to_f32_hw(uint16_t h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ static inline uint16_t tkh_f32_to_f16_hw(float f)
{
    uint16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#elif defined(__HIP_DEVICE_COMPILE__)
#define TKH_F16_HARDWARE 1
__device__ static inline float tkh_f16_to_f32_hw(uint16_t h)
{
    _Float16 x;
    __builtin_memcpy(&x, &h, sizeof x);
    return (float)x;
}
__device__ static inline uint16_t tkh_f32_to_f16_hw(float f)
{
    const _Float16 x = (_Float16)f;
    uint16_t h;
    __builtin_memcpy(&h, &x, sizeof h);
    return h;
}
#elif defined(__F16C__) && !defined(__CUDACC__) && !defined(__HIPCC__)
/* Host code built with F16C (x86-64 since 2012; CMake option TOKITAI_HIP_HOST_F16C): the
 * CPU's conversions, which round the same way (the immediate 0: to nearest, whatever the
 * rounding mode). The compiler's builtins (GCC and Clang name them alike), not
 * <immintrin.h>: its 60 000 lines were most of the parsing of every generated stub. */
#define TKH_F16_HARDWARE 1
typedef short tkh_v8hi __attribute__((vector_size(16)));
typedef float tkh_v4sf __attribute__((vector_size(16)));
typedef float tkh_v8sf __attribute__((vector_size(32)));
static inline float tkh_f16_to_f32_hw(uint16_t h)
{
    const tkh_v8hi v = { (short)h, 0, 0, 0, 0, 0, 0, 0 };
    return __builtin_ia32_vcvtph2ps(v)[0];
}
static inline uint16_t tkh_f32_to_f16_hw(float f)
{
    const tkh_v4sf v = { f, 0, 0, 0 };
    return (uint16_t)__builtin_ia32_vcvtps2ph(v, 0)[0];
}
#endif

TKH_HD static inline float tkh_f16_to_f32(uint16_t h)
{
#if defined(TKH_F16_HARDWARE)
    return tkh_f16_to_f32_hw(h);
#else
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;
    if (exp == 0x1F) /* inf, NaN (payload kept) */
        return tkh_f32_from_bits(sign | 0x7F800000u | (man << 13));
    if (exp == 0) /* zero or subnormal: man * 2^-24, exact in f32, without a loop */
        return tkh_f32_from_bits(sign | tkh_f32_bits((float)man * 0x1p-24f));
    return tkh_f32_from_bits(sign | ((exp + 112) << 23) | (man << 13));
#endif
}

/* Round to nearest, ties to even; overflow gives inf, NaN stays a quiet NaN. */
TKH_HD static inline uint16_t tkh_f32_to_f16(float f)
{
#if defined(TKH_F16_HARDWARE)
    return tkh_f32_to_f16_hw(f);
#else
    uint32_t x = tkh_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xFFu;
    uint32_t man = x & 0x7FFFFFu;
    if (exp == 0xFF)
        return (uint16_t)(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0));
    if (exp >= 143) /* >= 2^16: beyond the largest f16 after any rounding */
        return (uint16_t)(sign | 0x7C00u);
    if (exp <= 112) { /* f16 subnormal or zero: units of 2^-24 */
        uint32_t shift = 126 - exp;
        if (exp == 0 || shift > 24)
            return (uint16_t)sign;
        uint32_t m = man | 0x800000u;
        uint32_t q = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (q & 1u)))
            ++q;
        return (uint16_t)(sign | q);
    }
    uint32_t h = sign | ((exp - 112) << 10) | (man >> 13);
    uint32_t rest = man & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        ++h; /* a carry into the exponent is right, up to inf */
    return (uint16_t)h;
#endif
}

TKH_HD static inline float tkh_bf16_to_f32(uint16_t h)
{
    return tkh_f32_from_bits((uint32_t)h << 16);
}

TKH_HD static inline uint16_t tkh_f32_to_bf16(float f)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    /* NVIDIA since sm_80 narrows in one instruction, to nearest even as below, subnormals
     * kept (a NaN comes out as the canonical one: any NaN equals any NaN). */
    uint16_t h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    uint32_t x = tkh_f32_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) /* NaN: keep it a quiet NaN */
        return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7FFFu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
#endif
}

/* Casts that round once. A double goes to f32 rounded to odd (toward zero, then the
 * last bit set when inexact), which keeps enough of it that rounding that f32 to nearest
 * f16 or bf16 gives what rounding the double directly would: 24 bits >= 11 + 2 and 8 + 2.
 * (Through an f32 rounded to nearest, a double halfway between two f16 after that first
 * rounding, and not before it, would round twice.) */
TKH_HD static inline float tkh_f64_to_f32_odd(double d)
{
    const float f = (float)d;
    if ((double)f == d || d != d)
        return f;
    uint32_t x = tkh_f32_bits(f);
    if (fabs((double)f) > fabs(d)) /* rounded away from zero (to inf, too): one step back */
        x -= 1;
    return tkh_f32_from_bits(x | 1u);
}

/* d rounded once to the nearest f16 or bf16, as the f32 that holds it exactly (the
 * store's rounding to the type is then exact). */
TKH_HD static inline float tkh_f16_nearest(double d)
{
    return tkh_f16_to_f32(tkh_f32_to_f16(tkh_f64_to_f32_odd(d)));
}

TKH_HD static inline float tkh_bf16_nearest(double d)
{
    return tkh_bf16_to_f32(tkh_f32_to_bf16(tkh_f64_to_f32_odd(d)));
}

/* A 64-bit integer as a double rounded to odd (the low bits beyond 53 folded into the
 * last bit), so that tkh_f16_nearest and tkh_bf16_nearest of it round once. */
TKH_HD static inline double tkh_u64_to_f64_odd(uint64_t u)
{
    unsigned shift = 0;
    while ((u >> shift) >= ((uint64_t)1 << 53))
        ++shift;
    uint64_t high = u >> shift;
    if (shift > 0 && (u & (((uint64_t)1 << shift) - 1)) != 0)
        high |= 1;
    return (double)high * (double)((uint64_t)1 << shift);
}

TKH_HD static inline double tkh_i64_to_f64_odd(int64_t x)
{
    return x < 0 ? -tkh_u64_to_f64_odd((uint64_t)0 - (uint64_t)x) : tkh_u64_to_f64_odd((uint64_t)x);
}

#if !defined(__HIPCC__) && !defined(__CUDACC__)
/* Host: n conversions at once, for the CPU checks. F16C converts 8 per instruction; the
 * other loops are left to the compiler's vectorizer. */
static inline void tkh_f16_to_f32_n(const uint16_t *h, float *f, size_t n)
{
    size_t i = 0;
#if defined(TKH_F16_HARDWARE)
    for (; n - i >= 8; i += 8) {
        tkh_v8hi v;
        __builtin_memcpy(&v, h + i, sizeof v);
        const tkh_v8sf r = __builtin_ia32_vcvtph2ps256(v);
        __builtin_memcpy(f + i, &r, sizeof r);
    }
#endif
    for (; i < n; ++i)
        f[i] = tkh_f16_to_f32(h[i]);
}

static inline void tkh_f32_to_f16_n(const float *f, uint16_t *h, size_t n)
{
    size_t i = 0;
#if defined(TKH_F16_HARDWARE)
    for (; n - i >= 8; i += 8) {
        tkh_v8sf v;
        __builtin_memcpy(&v, f + i, sizeof v);
        const tkh_v8hi r = __builtin_ia32_vcvtps2ph256(v, 0);
        __builtin_memcpy(h + i, &r, sizeof r);
    }
#endif
    for (; i < n; ++i)
        h[i] = tkh_f32_to_f16(f[i]);
}

static inline void tkh_bf16_to_f32_n(const uint16_t *h, float *f, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        f[i] = tkh_bf16_to_f32(h[i]);
}

static inline void tkh_f32_to_bf16_n(const float *f, uint16_t *h, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        h[i] = tkh_f32_to_bf16(f[i]);
}
#endif

#include "tokitai_hip/codegen/op_math.h" /* the functions op expressions call */

#endif
