/* The ulp rule's references (each op's expression evaluated in double, or long double for
 * f64) against MPFR at 256 bits, correctly rounded: every core op under the ulp rule, for
 * each type, on every pair of edge values and on random inputs (seed printed; replay
 * with TKH_TEST_SEED). The reference's own error must be small beside the op's bound:
 * at most 2^-20 ulps of f16, bf16 and f32 (double has 29 bits more than f32), at most
 * 2^-7 ulps of f64 (long double has 11 more, and the C library's long double functions
 * err by a few of its ulps). Special values by the rule's own cases. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <mpfr.h>

#include "tokitai_hip/core_compare.h"
#include "tokitai_hip/core_oracle.h"
#include "tokitai_hip/tokitai_hip.h"
#include "base/base.h" /* tkhi_splitmix64 */

#define PREC 256
#define RANDOM_INPUTS 3000

typedef int (*mp_fn)(mpfr_t r, const mpfr_t a, const mpfr_t b);

/* ---- the truth, written with MPFR's functions ---- */

#define MP1(name, f) static int mp_##name(mpfr_t r, const mpfr_t a, const mpfr_t b) { (void)b; return f(r, a, MPFR_RNDN); }
#define MP2(name, f) static int mp_##name(mpfr_t r, const mpfr_t a, const mpfr_t b) { return f(r, a, b, MPFR_RNDN); }
MP1(exp, mpfr_exp) MP1(exp2, mpfr_exp2) MP1(expm1, mpfr_expm1) MP1(log, mpfr_log)
MP1(log2, mpfr_log2) MP1(log10, mpfr_log10) MP1(log1p, mpfr_log1p) MP1(sin, mpfr_sin)
MP1(cos, mpfr_cos) MP1(tan, mpfr_tan) MP1(asin, mpfr_asin) MP1(acos, mpfr_acos)
MP1(atan, mpfr_atan) MP1(sinh, mpfr_sinh) MP1(cosh, mpfr_cosh) MP1(tanh, mpfr_tanh)
MP1(asinh, mpfr_asinh) MP1(acosh, mpfr_acosh) MP1(atanh, mpfr_atanh) MP1(erf, mpfr_erf)
MP1(erfc, mpfr_erfc) MP1(cbrt, mpfr_cbrt)
MP2(atan2, mpfr_atan2) MP2(pow, mpfr_pow) MP2(hypot, mpfr_hypot)

/* MPFR's rec_sqrt(-0) is +inf; IEEE 754's rSqrt(-0), CUDA's and OCML's, is -inf. */
static int mp_rsqrt(mpfr_t r, const mpfr_t a, const mpfr_t b)
{
    (void)b;
    if (mpfr_zero_p(a) && mpfr_signbit(a)) {
        mpfr_set_inf(r, -1);
        return 0;
    }
    return mpfr_rec_sqrt(r, a, MPFR_RNDN);
}

/* 1 / (1 + e^-a) */
static int mp_sigmoid(mpfr_t r, const mpfr_t a, const mpfr_t b)
{
    (void)b;
    mpfr_t t;
    mpfr_init2(t, PREC);
    mpfr_neg(t, a, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    mpfr_ui_div(r, 1, t, MPFR_RNDN);
    mpfr_clear(t);
    return 0;
}

static int mp_silu(mpfr_t r, const mpfr_t a, const mpfr_t b)
{
    mpfr_t s;
    mpfr_init2(s, PREC);
    mp_sigmoid(s, a, b);
    if (mpfr_inf_p(a) && mpfr_sgn(a) < 0)
        mpfr_set_zero(r, -1); /* the limit, as the op defines it */
    else
        mpfr_mul(r, a, s, MPFR_RNDN);
    mpfr_clear(s);
    return 0;
}

static int mp_softplus(mpfr_t r, const mpfr_t a, const mpfr_t b)
{
    (void)b;
    mpfr_t t;
    mpfr_init2(t, PREC);
    if (mpfr_sgn(a) > 0) { /* a + log1p(e^-a): no overflow of e^a at 256 bits' range either */
        mpfr_neg(t, a, MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_log1p(t, t, MPFR_RNDN);
        mpfr_add(r, a, t, MPFR_RNDN);
    } else {
        mpfr_exp(t, a, MPFR_RNDN);
        mpfr_log1p(r, t, MPFR_RNDN);
    }
    mpfr_clear(t);
    return 0;
}

/* gelu's limits, as the ops define them: a at +inf, -0 at -inf. Returns 1 for those. */
static int gelu_limit(mpfr_t r, const mpfr_t a)
{
    if (!mpfr_inf_p(a))
        return 0;
    if (mpfr_sgn(a) > 0)
        mpfr_set(r, a, MPFR_RNDN);
    else
        mpfr_set_zero(r, -1);
    return 1;
}

static int mp_gelu(mpfr_t r, const mpfr_t a, const mpfr_t b)
{
    (void)b;
    if (gelu_limit(r, a))
        return 0;
    mpfr_t t;
    mpfr_init2(t, PREC);
    mpfr_sqrt_ui(t, 2, MPFR_RNDN);
    mpfr_div(t, a, t, MPFR_RNDN);
    mpfr_neg(t, t, MPFR_RNDN);
    mpfr_erfc(t, t, MPFR_RNDN);
    mpfr_mul(t, t, a, MPFR_RNDN);
    mpfr_div_ui(r, t, 2, MPFR_RNDN);
    mpfr_clear(t);
    return 0;
}

/* a/2 (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3))), as a / (1 + e^-2y); -0 at -inf */
static int mp_gelu_tanh(mpfr_t r, const mpfr_t a, const mpfr_t b)
{
    (void)b;
    if (gelu_limit(r, a))
        return 0;
    mpfr_t y, c, k;
    mpfr_inits2(PREC, y, c, k, (mpfr_ptr)0);
    mpfr_const_pi(c, MPFR_RNDN);
    mpfr_ui_div(c, 2, c, MPFR_RNDN);
    mpfr_sqrt(c, c, MPFR_RNDN);              /* sqrt(2/pi) */
    mpfr_set_str(k, "0.044715", 10, MPFR_RNDN);
    mpfr_pow_ui(y, a, 3, MPFR_RNDN);
    mpfr_mul(y, y, k, MPFR_RNDN);
    mpfr_add(y, y, a, MPFR_RNDN);
    mpfr_mul(y, y, c, MPFR_RNDN);
    mpfr_mul_si(y, y, -2, MPFR_RNDN);        /* -2y */
    mpfr_exp(y, y, MPFR_RNDN);
    mpfr_add_ui(y, y, 1, MPFR_RNDN);
    mpfr_div(r, a, y, MPFR_RNDN);
    if (mpfr_zero_p(r) && mpfr_sgn(a) < 0)
        mpfr_set_zero(r, -1);
    mpfr_clears(y, c, k, (mpfr_ptr)0);
    return 0;
}

typedef struct truth {
    const char *op;
    mp_fn fn;
} truth;

static const truth truths[] = {
    { "exp", mp_exp }, { "exp2", mp_exp2 }, { "expm1", mp_expm1 }, { "log", mp_log },
    { "log2", mp_log2 }, { "log10", mp_log10 }, { "log1p", mp_log1p }, { "sin", mp_sin },
    { "cos", mp_cos }, { "tan", mp_tan }, { "asin", mp_asin }, { "acos", mp_acos },
    { "atan", mp_atan }, { "sinh", mp_sinh }, { "cosh", mp_cosh }, { "tanh", mp_tanh },
    { "asinh", mp_asinh }, { "acosh", mp_acosh }, { "atanh", mp_atanh }, { "erf", mp_erf },
    { "erfc", mp_erfc }, { "cbrt", mp_cbrt }, { "rsqrt", mp_rsqrt }, { "atan2", mp_atan2 },
    { "pow", mp_pow }, { "hypot", mp_hypot }, { "sigmoid", mp_sigmoid }, { "silu", mp_silu },
    { "softplus", mp_softplus }, { "gelu", mp_gelu }, { "gelu_tanh", mp_gelu_tanh },
    /* the fast forms' reference is the accurate function */
    { "fast_exp", mp_exp }, { "fast_sigmoid", mp_sigmoid },
};

/* ---- the references under test: every core ulp-rule kernel's, by name ---- */

typedef struct reference {
    const char *op, *type;
    double (*d1)(double);
    double (*d2)(double, double);
    long double (*l1)(long double);
    long double (*l2)(long double, long double);
} reference;

#define R16(op) { #op, "f16", tkh_reference_##op##_f16, NULL, NULL, NULL }, \
    { #op, "bf16", tkh_reference_##op##_bf16, NULL, NULL, NULL }
#define R32(op) { #op, "f32", tkh_reference_##op##_f32, NULL, NULL, NULL }
#define R64(op) { #op, "f64", NULL, NULL, tkh_reference_##op##_f64, NULL }
#define R1(op) R16(op), R32(op), R64(op)
#define R2(op) { #op, "f16", NULL, tkh_reference_##op##_f16, NULL, NULL }, \
    { #op, "bf16", NULL, tkh_reference_##op##_bf16, NULL, NULL }, \
    { #op, "f32", NULL, tkh_reference_##op##_f32, NULL, NULL }, \
    { #op, "f64", NULL, NULL, NULL, tkh_reference_##op##_f64 }

static const reference references[] = {
    R1(exp), R1(exp2), R1(expm1), R1(log), R1(log2), R1(log10), R1(log1p), R1(sin), R1(cos),
    R1(tan), R1(asin), R1(acos), R1(atan), R1(sinh), R1(cosh), R1(tanh), R1(asinh), R1(acosh),
    R1(atanh), R1(erf), R1(erfc), R1(cbrt), R1(rsqrt), R2(atan2), R2(pow), R2(hypot),
    R1(sigmoid), R1(silu), R1(softplus), R1(gelu), R1(gelu_tanh), R16(fast_exp), R32(fast_exp),
    R16(fast_sigmoid), R32(fast_sigmoid),
};

static uint64_t seed;

/* A value of the type, as a long double (exact). */
static long double from_bits(const char *type, uint64_t bits)
{
    if (strcmp(type, "f64") == 0) {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    if (strcmp(type, "f32") == 0) {
        const uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    return strcmp(type, "f16") == 0 ? tkh_f16_to_f32((uint16_t)bits) : tkh_bf16_to_f32((uint16_t)bits);
}

/* Rounds to the type (for random inputs drawn as doubles). */
static long double to_type(const char *type, double v)
{
    if (strcmp(type, "f64") == 0)
        return v;
    if (strcmp(type, "f32") == 0)
        return (float)v;
    return strcmp(type, "f16") == 0 ? tkh_f16_to_f32(tkh_f32_to_f16((float)v))
                                    : tkh_bf16_to_f32(tkh_f32_to_bf16((float)v));
}

/* The distance of a reference value from the truth, in ulps of the type at the truth, by
 * the ulp rule's own cases: measured as if the reference were the result and the truth
 * the reference. A NaN or an infinity must match exactly (+inf otherwise). */
static long double distance(const char *type, long double ref, long double truth_value)
{
    if (isnan(truth_value) || isnan(ref))
        return isnan(truth_value) && isnan(ref) ? 0 : INFINITY;
    const int f64 = strcmp(type, "f64") == 0, f16 = strcmp(type, "f16") == 0;
    const int emin = f64 ? -1022 : f16 ? -14 : -126, emax = f64 ? 1023 : f16 ? 15 : 127;
    const int p = f64 ? 53 : f16 ? 11 : strcmp(type, "bf16") == 0 ? 8 : 24;
    const long double top = ldexpl(1, emax + 1);
    /* A reference that overflowed its own type is right where the truth is past the range. */
    if (isinf(ref) && !isinf(truth_value) && fabsl(truth_value) >= top && !signbit(ref) == !signbit(truth_value))
        return 0;
    if (isinf(truth_value) || isinf(ref))
        return ref == truth_value ? 0 : INFINITY;
    if (ref == 0 && !signbit(ref) != !signbit(truth_value))
        return INFINITY;
    long double t = fabsl(truth_value) > top ? copysignl(top, truth_value) : truth_value;
    long double r = fabsl(ref) > top ? copysignl(top, ref) : ref;
    int e = 0;
    frexpl(t, &e);
    e = t == 0 || e - 1 < emin ? emin : e - 1 > emax ? emax : e - 1;
    return ldexpl(fabsl(r - t), p - 1 - e);
}

static double edge(const char *type, unsigned i)
{
    const int f64 = strcmp(type, "f64") == 0, f16 = strcmp(type, "f16") == 0;
    const double big = f64 ? DBL_MAX : f16 ? 65504.0 : strcmp(type, "bf16") == 0 ? 0x1.fep127 : FLT_MAX;
    const double tiny = f64 ? 0x1p-1074 : f16 ? 0x1p-24 : strcmp(type, "bf16") == 0 ? 0x1p-133 : 0x1p-149;
    const double values[] = { 0.0, -0.0, 1, -1, INFINITY, -INFINITY, NAN, big, -big, tiny,
        -tiny, 0.5, 2, 3, -2, 10, -10, 0.1, 100, -100 };
    return values[i % (sizeof values / sizeof values[0])];
}
enum { EDGES = 20 };

static mp_fn truth_of(const char *op)
{
    for (size_t i = 0; i < sizeof truths / sizeof truths[0]; ++i)
        if (strcmp(truths[i].op, op) == 0)
            return truths[i].fn;
    return NULL;
}

/* One input tuple: the reference against the truth; returns the distance. */
static long double measure(const reference *r, mp_fn fn, long double a, long double b)
{
    const int f64 = strcmp(r->type, "f64") == 0;
    long double ref;
    if (f64)
        ref = r->l1 ? r->l1(a) : r->l2(a, b);
    else
        ref = r->d1 ? r->d1((double)a) : r->d2((double)a, (double)b);
    mpfr_t x, y, z;
    mpfr_inits2(PREC, x, y, z, (mpfr_ptr)0);
    mpfr_set_ld(x, a, MPFR_RNDN);
    mpfr_set_ld(y, b, MPFR_RNDN);
    fn(z, x, y);
    const long double truth_value = mpfr_get_ld(z, MPFR_RNDN);
    mpfr_clears(x, y, z, (mpfr_ptr)0);
    return distance(r->type, ref, truth_value);
}

static void references_agree_with_mpfr(void **state)
{
    (void)state;
    char worst_line[256] = "";
    long double worst_small = 0, worst_f64 = 0;
    for (size_t i = 0; i < sizeof references / sizeof references[0]; ++i) {
        const reference *r = &references[i];
        const mp_fn fn = truth_of(r->op);
        assert_non_null(fn);
        const int binary = r->d2 != NULL || r->l2 != NULL, f64 = strcmp(r->type, "f64") == 0;
        const long double limit = f64 ? 0x1p-7L : 0x1p-20L;
        uint64_t s = seed ^ (i * 0x100000001B3ull);
        const size_t edges = binary ? EDGES * EDGES : EDGES;
        for (size_t j = 0; j < edges + RANDOM_INPUTS; ++j) {
            long double a, b = 0;
            if (j < edges) {
                a = to_type(r->type, edge(r->type, (unsigned)(j % EDGES)));
                b = to_type(r->type, edge(r->type, (unsigned)(j / EDGES)));
            } else if (j % 2) { /* any bit pattern */
                a = from_bits(r->type, tkhi_splitmix64(&s));
                b = from_bits(r->type, tkhi_splitmix64(&s));
            } else { /* moderate values, where most results are normal numbers */
                a = to_type(r->type, ldexp((double)(tkhi_splitmix64(&s) >> 11) * 0x1p-52 - 1, (int)(tkhi_splitmix64(&s) % 13) - 4));
                b = to_type(r->type, ldexp((double)(tkhi_splitmix64(&s) >> 11) * 0x1p-52 - 1, (int)(tkhi_splitmix64(&s) % 13) - 4));
            }
            const long double d = measure(r, fn, a, b);
            if (!(d <= limit))
                fail_msg("%s_%s(%.21Lg, %.21Lg%s): the reference is %.3Lg ulps from MPFR (at most %.3Lg; seed %" PRIu64 ")",
                    r->op, r->type, a, b, binary ? "" : " unused", d, limit, seed);
            if (f64 ? d > worst_f64 : d > worst_small) {
                *(f64 ? &worst_f64 : &worst_small) = d;
                snprintf(worst_line, sizeof worst_line, "%s_%s at %.17Lg", r->op, r->type, a);
            }
        }
    }
    printf("largest reference error: %.3Lg ulps of f16/bf16/f32, %.3Lg ulps of f64 (last new worst: %s)\n",
        worst_small, worst_f64, worst_line);
}

/* Every core kernel under the ulp rule has a reference and a truth here, so a new math op
 * cannot land unchecked. */
static void every_ulp_kernel_is_covered(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    for (size_t i = 0; i < reg->count; ++i) {
        const tkh_kernel_info *k = reg->kernels[i];
        if (strcmp(k->compare_rule, "ulp") != 0)
            continue;
        int found = 0;
        for (size_t j = 0; j < sizeof references / sizeof references[0] && !found; ++j)
            found = strcmp(references[j].op, k->op) == 0 && strcmp(references[j].type, k->type) == 0;
        if (!found)
            fail_msg("%s_%s is under the ulp rule but not in tests/unit/test_references.c", k->op, k->type);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *env = getenv("TKH_TEST_SEED");
    seed = env ? strtoull(env, NULL, 0) : 20261201;
    printf("seed %" PRIu64 " (replay with TKH_TEST_SEED=%" PRIu64 ")\n", seed, seed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_ulp_kernel_is_covered),
        cmocka_unit_test(references_agree_with_mpfr),
    };
    return cmocka_run_group_tests_name("references", tests, NULL, NULL);
}
