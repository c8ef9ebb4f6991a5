/* The vector variants of the references' functions (runtime/src/base/reference_simd.c, SLEEF's)
 * against MPFR at 160 bits: each function, each x86-64 ISA of the vector-function ABI
 * that this CPU has, on edge values and random inputs (seed printed; replay with
 * TKH_TEST_SEED), within SLEEF's stated bound for each (tokitai_hip/codegen/reference_simd.h: 1,
 * 1.5 or 3.5 ulps of double) and with special values as the ulp rule needs them: NaN for
 * NaN, the infinity for an infinity, the sign of a zero. Their error is then 2^-27 ulps
 * of f32 or less, beside bounds of 0.55 ulps and more (docs/semantics.md). */
#include <immintrin.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpfr.h>

#define PREC 160
#define RANDOM_INPUTS 2048

/* The variants, as the ABI names them (the test links TokitaiHip::reference_simd). */
#define DECLARE1(f, class, ulps, limit) __m128d _ZGVbN2v_##f(__m128d); __m256d _ZGVcN4v_##f(__m256d); \
    __m256d _ZGVdN4v_##f(__m256d); __m512d _ZGVeN8v_##f(__m512d);
#define DECLARE2(f, class, ulps, limit) __m128d _ZGVbN2vv_##f(__m128d, __m128d); __m256d _ZGVcN4vv_##f(__m256d, __m256d); \
    __m256d _ZGVdN4vv_##f(__m256d, __m256d); __m512d _ZGVeN8vv_##f(__m512d, __m512d);
#include "tokitai_hip/codegen/reference_simd.h"
#include "base/base.h" /* tkhi_splitmix64 */
TKH_SIMD_FUNCTIONS(DECLARE1, DECLARE2)

/* Each variant evaluates 8 inputs (a wider ISA in one call, a narrower in several). */
typedef void (*variant)(const double *a, const double *b, double *out);
#define LANES(n, store, call) for (int i = 0; i < 8; i += n) store(out + i, call);
#define WRAP1(f, class, ulps, limit) \
    static void b_##f(const double *a, const double *b, double *out) \
    { (void)b; LANES(2, _mm_storeu_pd, _ZGVbN2v_##f(_mm_loadu_pd(a + i))) } \
    __attribute__((target("avx"))) static void c_##f(const double *a, const double *b, double *out) \
    { (void)b; LANES(4, _mm256_storeu_pd, _ZGVcN4v_##f(_mm256_loadu_pd(a + i))) } \
    __attribute__((target("avx2,fma"))) static void d_##f(const double *a, const double *b, double *out) \
    { (void)b; LANES(4, _mm256_storeu_pd, _ZGVdN4v_##f(_mm256_loadu_pd(a + i))) } \
    __attribute__((target("avx512f"))) static void e_##f(const double *a, const double *b, double *out) \
    { (void)b; _mm512_storeu_pd(out, _ZGVeN8v_##f(_mm512_loadu_pd(a))); }
#define WRAP2(f, class, ulps, limit) \
    static void b_##f(const double *a, const double *b, double *out) \
    { LANES(2, _mm_storeu_pd, _ZGVbN2vv_##f(_mm_loadu_pd(a + i), _mm_loadu_pd(b + i))) } \
    __attribute__((target("avx"))) static void c_##f(const double *a, const double *b, double *out) \
    { LANES(4, _mm256_storeu_pd, _ZGVcN4vv_##f(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i))) } \
    __attribute__((target("avx2,fma"))) static void d_##f(const double *a, const double *b, double *out) \
    { LANES(4, _mm256_storeu_pd, _ZGVdN4vv_##f(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i))) } \
    __attribute__((target("avx512f"))) static void e_##f(const double *a, const double *b, double *out) \
    { _mm512_storeu_pd(out, _ZGVeN8vv_##f(_mm512_loadu_pd(a), _mm512_loadu_pd(b))); }
TKH_SIMD_FUNCTIONS(WRAP1, WRAP2)

/* The truth: MPFR's function of the same name. */
typedef int (*mp_fn)(mpfr_t r, const mpfr_t a, const mpfr_t b);
#define MP1(f, class, ulps, limit) static int mp_##f(mpfr_t r, const mpfr_t a, const mpfr_t b) { (void)b; return mpfr_##f(r, a, MPFR_RNDN); }
#define MP2(f, class, ulps, limit) static int mp_##f(mpfr_t r, const mpfr_t a, const mpfr_t b) { return mpfr_##f(r, a, b, MPFR_RNDN); }
TKH_SIMD_FUNCTIONS(MP1, MP2)

typedef struct function {
    const char *name;
    int binary;
    double ulps; /* SLEEF's stated bound, in ulps of double */
    mp_fn truth;
    variant isa[4];
} function;
#define ENTRY1(f, class, ulps, limit) { #f, 0, ulps, mp_##f, { b_##f, c_##f, d_##f, e_##f } },
#define ENTRY2(f, class, ulps, limit) { #f, 1, ulps, mp_##f, { b_##f, c_##f, d_##f, e_##f } },
static function functions[] = { TKH_SIMD_FUNCTIONS(ENTRY1, ENTRY2) };
static const char *const isa_names[4] = { "sse2", "avx", "avx2", "avx512f" };

static uint64_t seed;

/* The distance of v from the truth t (rounded to PREC bits) in ulps of double at t, or
 * +inf where a special value is out of the ulp rule's cases. */
static double distance(double v, const mpfr_t t)
{
    if (mpfr_nan_p(t) || isnan(v))
        return mpfr_nan_p(t) && isnan(v) ? 0 : INFINITY;
    if (mpfr_inf_p(t))
        return isinf(v) && (v < 0) == (mpfr_sgn(t) < 0) ? 0 : INFINITY;
    if (v == 0 && mpfr_zero_p(t))
        return !signbit(v) == !mpfr_signbit(t) ? 0 : INFINITY;
    /* ulp of double at t: 2^(e - 53) for t in [2^(e-1), 2^e), at least 2^-1074; past
     * DBL_MAX, t counts as 2^1024 (an overflow to infinity is then exact). */
    long e = mpfr_zero_p(t) ? -1021 : mpfr_get_exp(t);
    e = e < -1021 ? -1021 : e;
    if (e > 1024 && isinf(v))
        return 0;
    mpfr_t d;
    mpfr_init2(d, PREC);
    mpfr_sub_d(d, t, v, MPFR_RNDN);
    mpfr_abs(d, d, MPFR_RNDN);
    mpfr_mul_2si(d, d, 53 - e, MPFR_RNDN);
    const double r = mpfr_get_d(d, MPFR_RNDU);
    mpfr_clear(d);
    return r;
}

static const double edges[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, -0x1p-1022,
    1e-300, 1e-20, 1e-8, 0.7, 3.0, 10.0, 27.0, 100.0, 700.0, 709.7, 710.0, 1e10, 1e300,
    -1e-300, -1e-8, -0.7, -3.0, -10.0, -27.0, -100.0, -700.0, -745.1, -746.0, -1e300,
    0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, INFINITY, -INFINITY, NAN,
};
enum { EDGES = sizeof edges / sizeof edges[0] };

static double random_input(uint64_t *s)
{
    const uint64_t r = tkhi_splitmix64(s);
    if (r % 3 == 0) { /* any bit pattern */
        double v;
        const uint64_t bits = tkhi_splitmix64(s);
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    /* moderate magnitudes, where most results are normal */
    return ldexp((double)(tkhi_splitmix64(s) >> 11) * 0x1p-52 * 2 - 1, (int)(r % 23) - 11);
}

static void vector_functions_agree_with_mpfr(void **state)
{
    (void)state;
    __builtin_cpu_init();
    const int has[4] = { 1, !!__builtin_cpu_supports("avx"),
                         __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"),
                         !!__builtin_cpu_supports("avx512f") };
    mpfr_t ma, mb, t;
    mpfr_inits2(PREC, ma, mb, t, (mpfr_ptr)0);
    double worst = 0;
    for (size_t f = 0; f < sizeof functions / sizeof functions[0]; ++f) {
        const function *fn = &functions[f];
        const double bound = fn->ulps;
        uint64_t s = seed ^ (f * 0x100000001B3ull);
        const size_t count = (fn->binary ? EDGES * EDGES : EDGES) + RANDOM_INPUTS;
        for (size_t base = 0; base < count; base += 8) {
            double a[8], b[8], out[8];
            for (size_t i = 0; i < 8; ++i) {
                const size_t j = base + i;
                const size_t ea = j % EDGES, eb = (j / EDGES) % EDGES;
                const int edge = j < count - RANDOM_INPUTS;
                a[i] = edge ? edges[ea] : random_input(&s);
                b[i] = edge ? edges[eb] : random_input(&s);
            }
            for (int isa = 0; isa < 4; ++isa) {
                if (!has[isa])
                    continue;
                fn->isa[isa](a, b, out);
                for (size_t i = 0; i < 8; ++i) {
                    mpfr_set_d(ma, a[i], MPFR_RNDN);
                    mpfr_set_d(mb, b[i], MPFR_RNDN);
                    fn->truth(t, ma, mb);
                    const double d = distance(out[i], t);
                    if (!(d <= bound)) {
                        char args[64];
                        snprintf(args, sizeof args, fn->binary ? "%.17g, %.17g" : "%.17g", a[i], b[i]);
                        fail_msg("%s (%s)(%s) = %.17g: %.6g ulps of double from MPFR (at most %g; seed %" PRIu64 ")",
                            fn->name, isa_names[isa], args, out[i], d, bound, seed);
                    }
                    worst = d > worst ? d : worst;
                }
            }
        }
    }
    mpfr_clears(ma, mb, t, (mpfr_ptr)0);
    printf("ISAs: sse2 avx %d avx2 %d avx512f %d; largest error %.3g ulps of double\n", has[1], has[2], has[3], worst);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *env = getenv("TKH_TEST_SEED");
    seed = env ? strtoull(env, NULL, 0) : 20261201;
    printf("seed %" PRIu64 " (replay with TKH_TEST_SEED=%" PRIu64 ")\n", seed, seed);
    const struct CMUnitTest tests[] = { cmocka_unit_test(vector_functions_agree_with_mpfr) };
    return cmocka_run_group_tests_name("reference_simd", tests, NULL, NULL);
}
