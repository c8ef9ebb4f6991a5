/* The CPU oracle against values worked out by hand, and the generated check functions
 * against outputs with known mismatches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "tokitai_hip/core_compare.h"
#include "tokitai_hip/core_oracle.h"
#include "tokitai_hip/tokitai_hip.h"

/* The one output of a kernel's check, as the list of outputs it takes. */
#define OUT(p) ((const void *const[]){ (p) })

static void add_i32_wraps(void **state)
{
    (void)state;
    assert_int_equal(tkh_oracle_add_i32(2, 3), 5);
    assert_int_equal(tkh_oracle_add_i32(-7, 3), -4);
    assert_int_equal(tkh_oracle_add_i32(INT32_MAX, 1), INT32_MIN);
    assert_int_equal(tkh_oracle_add_i32(INT32_MIN, -1), INT32_MAX);
    assert_int_equal(tkh_oracle_add_i32(INT32_MAX, INT32_MAX), -2);
    assert_int_equal(tkh_oracle_add_i32(INT32_MIN, INT32_MIN), 0);
    assert_int_equal(tkh_oracle_add_i32(-1, 1), 0);
}

static void add_u32_wraps(void **state)
{
    (void)state;
    assert_int_equal(tkh_oracle_add_u32(UINT32_MAX, 1), 0);
    assert_int_equal(tkh_oracle_add_u32(UINT32_MAX, UINT32_MAX), UINT32_MAX - 1);
    assert_int_equal(tkh_oracle_add_u32(40, 2), 42);
}

static void sub_i32_wraps(void **state)
{
    (void)state;
    assert_int_equal(tkh_oracle_sub_i32(5, 7), -2);
    assert_int_equal(tkh_oracle_sub_i32(INT32_MIN, 1), INT32_MAX);
    assert_int_equal(tkh_oracle_sub_i32(INT32_MAX, -1), INT32_MIN);
    assert_int_equal(tkh_oracle_sub_i32(0, INT32_MIN), INT32_MIN);
}

static const tkh_kernel_info *kernel(const char *op, const char *type)
{
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), op, type);
    assert_non_null(k);
    return k;
}

static void check_accepts_correct_output(void **state)
{
    (void)state;
    const int32_t lhs[4] = { INT32_MAX, INT32_MIN, 0, -1 };
    const int32_t rhs[4] = { 1, -1, 0, -1 };
    const int32_t out[4] = { INT32_MIN, INT32_MAX, 0, -2 }; /* by hand */
    const void *inputs[2] = { lhs, rhs };
    tkh_check_note note = { 0 };
    assert_int_equal(kernel("add", "i32")->check(inputs, OUT(out), NULL, 4, 1, 256, &note), 4);
    assert_string_equal(note.detail, "");
}

static void check_reports_first_mismatch(void **state)
{
    (void)state;
    const int32_t lhs[4] = { 1, 2, 3, 4 };
    const int32_t rhs[4] = { 10, 20, 30, 40 };
    const int32_t out[4] = { 11, 22, 34, 45 }; /* index 2 and 3 wrong */
    const void *inputs[2] = { lhs, rhs };
    tkh_check_note note = { 0 };
    assert_int_equal(kernel("add", "i32")->check(inputs, OUT(out), NULL, 4, 1, 256, &note), 2);
    assert_string_equal(note.detail, "got 34, expected 33 = add(3, 30)");
}

static void check_sees_one_flipped_bit(void **state)
{
    (void)state;
    enum { N = 1000 };
    static uint32_t lhs[N], rhs[N], out[N];
    for (uint32_t i = 0; i < N; ++i) {
        lhs[i] = i * 2654435761u;
        rhs[i] = ~i;
        out[i] = lhs[i] + rhs[i];
    }
    const void *inputs[2] = { lhs, rhs };
    tkh_check_note note = { 0 };
    assert_int_equal(kernel("add", "u32")->check(inputs, OUT(out), NULL, N, 1, 256, &note), N);
    out[N - 1] ^= 1u << 31;
    assert_int_equal(kernel("add", "u32")->check(inputs, OUT(out), NULL, N, 1, 256, &note), N - 1);
}

/* amin and amax of two floats as the kernels fold them: each mapped to its order key,
 * the keys combined, the result turned back. */
#define FOLD2(op, t)                                                                            \
    static t op(t a, t b)                                                                       \
    {                                                                                           \
        return tkh_post_##op(tkh_oracle_##op(tkh_map_##op(a), tkh_map_##op(b)), 2);             \
    }
FOLD2(amin_f32, float)
FOLD2(amax_f32, float)
FOLD2(amax_f64, double)

static void reductions_by_hand(void **state)
{
    (void)state;
    /* integer sums accumulate in 64 bits: INT32_MAX + 2 does not wrap; INT64_MAX + 2 does */
    assert_true(tkh_oracle_sum_i32(tkh_oracle_sum_i32(tkh_identity_sum_i32(), INT32_MAX), 2)
        == (int64_t)INT32_MAX + 2);
    assert_true(tkh_oracle_sum_i64(tkh_oracle_sum_i64(tkh_identity_sum_i64(), INT64_MAX), 2)
        == INT64_MIN + 1);
    /* argmax: the first of equals, a NaN before every number, in any order of folds */
    tkh_pick_argmax_f32 p = tkh_identity_argmax_f32(), q = tkh_identity_argmax_f32();
    const float xs[6] = { 1.0f, 3.0f, 3.0f, -0.0f, NAN, NAN };
    for (int i = 0; i < 6; ++i) {
        p = tkh_oracle_argmax_f32(p, tkh_map_argmax_f32(xs[i], i));
        q = tkh_oracle_argmax_f32(tkh_map_argmax_f32(xs[5 - i], 5 - i), q);
    }
    assert_true(p.index == 4 && q.index == 4);
    assert_true(tkh_oracle_argmax_f32(tkh_map_argmax_f32(3.0f, 2), tkh_map_argmax_f32(3.0f, 1)).index == 1);
    assert_true(tkh_oracle_argmin_i32(tkh_map_argmin_i32(-5, 7), tkh_map_argmin_i32(-5, 3)).index == 3);
    /* the post steps: mean divides by n, norm2 takes the root */
    assert_true(tkh_post_mean_i32(7, 2) == 3.5);
    assert_true(tkh_post_norm2_f32(25.0f, 3.0f) == 5.0f);
    /* IEEE 754-2019 minimum and maximum through the order keys: NaN of either sign wins,
     * -0 < +0, the identities are the infinities */
    assert_true(isnan(amin_f32(1.0f, NAN)) && isnan(amin_f32(-NAN, 1.0f)));
    assert_true(isnan(amax_f32(NAN, 1.0f)) && isnan(amax_f32(1.0f, -NAN)));
    assert_true(isnan(amax_f64(-NAN, -INFINITY)) && isnan(tkh_post_amin_f64(tkh_min_key_f64(NAN), 1)));
    assert_true(signbit(amin_f32(0.0f, -0.0f)) && signbit(amin_f32(-0.0f, 0.0f)));
    assert_false(signbit(amax_f32(-0.0f, 0.0f)) || signbit(amax_f32(0.0f, -0.0f)));
    assert_true(amax_f32(-3.0f, -2.5f) == -2.5f && amin_f32(-3.0f, 2.5f) == -3.0f);
    assert_true(amax_f32(-INFINITY, -FLT_MAX) == -FLT_MAX && amin_f32(FLT_TRUE_MIN, 0.0f) == 0.0f);
    assert_true(amax_f64(-0x1p-1074, -0.0) == 0.0 && signbit(amax_f64(-0x1p-1074, -0.0)));
    assert_true(tkh_post_amin_f64(tkh_identity_amin_f64(), 0) == INFINITY);
    assert_true(tkh_post_amax_f32(tkh_identity_amax_f32(), 0) == -INFINITY);
    assert_int_equal(tkh_identity_amax_i8(), INT8_MIN);
}

static void float_sum_check_uses_its_bound(void **state)
{
    (void)state;
    const tkh_kernel_info *k = kernel("sum", "f32");
    const float x[4] = { 1.0f, 0x1p-24f, 0x1p-24f, -0.5f };
    const void *inputs[1] = { x };
    tkh_check_note note = { 0 };
    /* exact sum 0.5 + 2^-23; depth = 1 + 5 + 1 + 16 = 23 additions at u = 2^-24 of sum|x| ~ 1.5 */
    float close = 0.5f, far = 0.5f + 0x1p-10f;
    assert_int_equal(k->check(inputs, OUT(&close), NULL, 4, 1, 256, &note), 4);
    assert_int_equal(k->check(inputs, OUT(&far), NULL, 4, 1, 256, &note), 0);
    assert_non_null(strstr(note.detail, "expected 0.500000119209289550781"));
    const float with_nan[2] = { 1.0f, NAN };
    const void *nan_inputs[1] = { with_nan };
    float nan_out = NAN, one = 1.0f;
    assert_int_equal(k->check(nan_inputs, OUT(&nan_out), NULL, 2, 1, 256, &note), 2);
    assert_int_equal(k->check(nan_inputs, OUT(&one), NULL, 2, 1, 256, &note), 0);
}

/* The checks test blocks of elements branch-free and search only a block that fails:
 * a difference at any index, next to a block boundary or not, must be found, first. */
static void check_finds_each_index_across_blocks(void **state)
{
    (void)state;
    enum { N = 700 }; /* several blocks and a partial one */
    static float a[N], b[N], sum[N];
    static uint16_t ha[N], hb[N], hsum[N];
    for (int i = 0; i < N; ++i) {
        a[i] = (float)i * 0.25f;
        b[i] = 1.0f - (float)i;
        sum[i] = a[i] + b[i];
        ha[i] = tkh_f32_to_f16(a[i]);
        hb[i] = tkh_f32_to_f16(b[i]);
        hsum[i] = tkh_f32_to_f16(tkh_f16_to_f32(ha[i]) + tkh_f16_to_f32(hb[i]));
    }
    const void *in32[2] = { a, b }, *in16[2] = { ha, hb };
    tkh_check_note note = { 0 };
    const tkh_kernel_info *f32 = kernel("add", "f32"), *f16 = kernel("add", "f16");
    assert_int_equal(f32->check(in32, OUT(sum), NULL, N, 1, 256, &note), N);
    assert_int_equal(f16->check(in16, OUT(hsum), NULL, N, 1, 256, &note), N);
    for (int i = 0; i < N; ++i) {
        sum[i] = nextafterf(sum[i], INFINITY);
        hsum[i] ^= 1u;
        assert_int_equal(f32->check(in32, OUT(sum), NULL, N, 1, 256, &note), i);
        assert_int_equal(f16->check(in16, OUT(hsum), NULL, N, 1, 256, &note), i);
        if (i + 300 < N) { /* a later difference, in another block, does not hide this one */
            sum[i + 300] = -sum[i + 300];
            assert_int_equal(f32->check(in32, OUT(sum), NULL, N, 1, 256, &note), i);
            sum[i + 300] = -sum[i + 300];
        }
        sum[i] = a[i] + b[i];
        hsum[i] ^= 1u;
    }
    /* f16 1 + 2^-11 is a tie that rounds to even: 1.0, not 1 + 2^-10 */
    const uint16_t one = 0x3C00, tiny = 0x1000, rounded = 0x3C00, up = 0x3C01;
    const void *tie[2] = { &one, &tiny };
    assert_int_equal(f16->check(tie, OUT(&rounded), NULL, 1, 1, 256, &note), 1);
    assert_int_equal(f16->check(tie, OUT(&up), NULL, 1, 1, 256, &note), 0);
    assert_string_equal(note.detail, "got 1.0009765625 (0x3c01), expected 1 (0x3c00) = add(1 (0x3c00), 0.00048828125 (0x1000))");
}

/* Any NaN equals any NaN, whatever its payload or sign; NaN never equals a number. */
static void check_takes_any_nan_for_nan(void **state)
{
    (void)state;
    const float a[2] = { NAN, 1.0f }, b[2] = { 1.0f, INFINITY };
    const uint32_t nan_bits = 0xFFC00001u; /* negative, another payload */
    float out[2] = { 0, INFINITY };
    memcpy(&out[0], &nan_bits, sizeof nan_bits);
    const void *inputs[2] = { a, b };
    tkh_check_note note = { 0 };
    assert_int_equal(kernel("add", "f32")->check(inputs, OUT(out), NULL, 2, 1, 256, &note), 2);
    out[1] = out[0];
    assert_int_equal(kernel("add", "f32")->check(inputs, OUT(out), NULL, 2, 1, 256, &note), 1);
    const uint16_t ha[1] = { 0x7E00 }, hb[1] = { 0x3C00 }, hout[2] = { 0xFE01, 0x7C00 };
    const void *hin[2] = { ha, hb };
    assert_int_equal(kernel("add", "f16")->check(hin, OUT(hout), NULL, 1, 1, 256, &note), 1);
    assert_int_equal(kernel("add", "f16")->check(hin, OUT(hout + 1), NULL, 1, 1, 256, &note), 0);
}

/* Float sums with exact values worked out by hand: integers and powers of two, where the
 * fast fold (double lanes) and the careful one (any infinity, NaN, or overflow of
 * double) must both land within the bound. */
static void float_sums_by_hand(void **state)
{
    (void)state;
    enum { N = 4099 };
    static float x[N];
    static double y[N];
    for (int i = 0; i < N; ++i) { /* 2^30 at the 2050 even i, i at the odd: sum = 2050 * 2^30 + 2049^2 */
        x[i] = i % 2 ? (float)i : 0x1p30f;
        y[i] = x[i];
    }
    const double exact = 2050.0 * 0x1p30 + 2049.0 * 2049.0;
    tkh_check_note note = { 0 };
    const void *fx[1] = { x }, *fy[1] = { y };
    const tkh_kernel_info *f32 = kernel("sum", "f32"), *f64 = kernel("sum", "f64");
    const float near32 = (float)exact, off32 = (float)(exact * (1 + 0x1p-12));
    const double near64 = exact, off64 = exact * (1 + 0x1p-30);
    assert_int_equal(f32->check(fx, OUT(&near32), NULL, N, 4, 256, &note), N);
    assert_int_equal(f32->check(fx, OUT(&off32), NULL, N, 4, 256, &note), 0);
    assert_int_equal(f64->check(fy, OUT(&near64), NULL, N, 4, 256, &note), N);
    assert_int_equal(f64->check(fy, OUT(&off64), NULL, N, 4, 256, &note), 0);
    /* an infinity deep in the input: the sum is that infinity */
    x[3001] = -INFINITY;
    const float neg_inf = -INFINITY, pos_inf = INFINITY;
    assert_int_equal(f32->check(fx, OUT(&neg_inf), NULL, N, 4, 256, &note), N);
    assert_int_equal(f32->check(fx, OUT(&pos_inf), NULL, N, 4, 256, &note), 0);
    assert_int_equal(f32->check(fx, OUT(&near32), NULL, N, 4, 256, &note), 0);
    x[17] = INFINITY; /* both infinities: NaN */
    const float nan32 = NAN;
    assert_int_equal(f32->check(fx, OUT(&nan32), NULL, N, 4, 256, &note), N);
    assert_int_equal(f32->check(fx, OUT(&neg_inf), NULL, N, 4, 256, &note), 0);
    /* finite f64 inputs whose sum overflows double: infinity is a right answer, a finite
     * value is not */
    for (int i = 0; i < N; ++i)
        y[i] = DBL_MAX / 1024;
    const double inf64 = INFINITY, max64 = DBL_MAX;
    assert_int_equal(f64->check(fy, OUT(&inf64), NULL, N, 4, 256, &note), N);
    assert_int_equal(f64->check(fy, OUT(&max64), NULL, N, 4, 256, &note), 0);
    /* finite f32 elements of either sign past the range both ways: partial sums may reach
     * +inf and -inf, so NaN is a right answer; short of twice the range it is not */
    for (int i = 0; i < N; ++i)
        x[i] = i % 2 ? FLT_MAX / 4 : -FLT_MAX / 4;
    assert_int_equal(f32->check(fx, OUT(&nan32), NULL, N, 4, 256, &note), N);
    for (int i = 0; i < N; ++i)
        x[i] = i < 8 ? (i % 2 ? FLT_MAX / 8 : -FLT_MAX / 8) : 0.0f; /* sum|x| = FLT_MAX */
    assert_int_equal(f32->check(fx, OUT(&nan32), NULL, N, 4, 256, &note), 0);
}

/* amin / amax over floats fold in 64 lanes: a lone +0 among -0 (or -0 among +0), and a
 * lone NaN, must decide the result from whatever lane they land in. */
static void amin_amax_zeros_and_nan_in_any_lane(void **state)
{
    (void)state;
    enum { N = 1000 };
    static float x[N];
    const size_t at[] = { 0, 63, 64, 130, 777, 999 };
    const tkh_kernel_info *amax = kernel("amax", "f32"), *amin = kernel("amin", "f32");
    const void *in[1] = { x };
    const float pos0 = 0.0f, neg0 = -0.0f, nan = NAN;
    tkh_check_note note = { 0 };
    for (size_t j = 0; j < sizeof at / sizeof at[0]; ++j) {
        for (int i = 0; i < N; ++i)
            x[i] = -0.0f;
        x[at[j]] = 0.0f;
        assert_int_equal(amax->check(in, OUT(&pos0), NULL, N, 1, 256, &note), N);
        assert_int_equal(amax->check(in, OUT(&neg0), NULL, N, 1, 256, &note), 0);
        assert_int_equal(amin->check(in, OUT(&neg0), NULL, N, 1, 256, &note), N);
        for (int i = 0; i < N; ++i)
            x[i] = 0.0f;
        x[at[j]] = -0.0f;
        assert_int_equal(amin->check(in, OUT(&neg0), NULL, N, 1, 256, &note), N);
        assert_int_equal(amin->check(in, OUT(&pos0), NULL, N, 1, 256, &note), 0);
        assert_int_equal(amax->check(in, OUT(&pos0), NULL, N, 1, 256, &note), N);
        x[at[j]] = NAN;
        assert_int_equal(amax->check(in, OUT(&nan), NULL, N, 1, 256, &note), N);
        assert_int_equal(amax->check(in, OUT(&pos0), NULL, N, 1, 256, &note), 0);
        assert_int_equal(amin->check(in, OUT(&nan), NULL, N, 1, 256, &note), N);
        assert_int_equal(amin->check(in, OUT(&neg0), NULL, N, 1, 256, &note), 0);
    }
}

/* The ulp rule's distance, worked out by hand: ulps of the type at the reference's
 * binade, subnormals at the smallest binade's ulp, past the range as 2^(emax + 1). */
static void ulp_distance_by_hand(void **state)
{
    (void)state;
    const double up = nextafterf(1.0f, 2.0f), down = nextafterf(1.0f, 0.0f);
    assert_true(tkh_ulp_error_f32((float)up, 1.0) == 1.0);     /* 2^-23 above 1 */
    assert_true(tkh_ulp_error_f32((float)down, 1.0) == 0.5);   /* 2^-24 below, in 1's ulps */
    assert_true(tkh_ulp_error_f32(1.0f, 1.0 - 0x1p-30) == 0x1p-6); /* binade below: ulp 2^-24 */
    assert_true(tkh_ulp_error_f32(1.0f, 1.0 + 0x1p-25) == 0.25); /* unrounded: not 0 */
    /* Subnormals: one ulp is 2^-149 throughout, down to zero. */
    assert_true(tkh_ulp_error_f32(0x1p-149f, 0.0) == 1.0);
    assert_true(tkh_ulp_error_f32(0x3p-149f, 0x1p-149 * 1.5) == 1.5);
    assert_true(tkh_ulp_error_f32(0x1p-126f, 0x1p-126 - 0x1p-149) == 1.0);
    /* Overflow: beyond the largest float the reference counts as 2^128, and so does inf. */
    assert_true(tkh_ulp_error_f32(INFINITY, 1e39) == 0.0);
    assert_true(tkh_ulp_error_f32(FLT_MAX, 1e39) == 1.0);
    assert_true(tkh_ulp_error_f32(INFINITY, FLT_MAX) == 1.0);
    assert_true(tkh_ulp_error_f32(-INFINITY, -0x1p128) == 0.0);
    /* Special values by rule: +inf when a rule fails. */
    assert_true(tkh_ulp_error_f32(NAN, NAN) == 0.0);
    assert_true(isinf(tkh_ulp_error_f32(0.0f, NAN)));
    assert_true(isinf(tkh_ulp_error_f32(NAN, 1.0)));
    assert_true(tkh_ulp_error_f32(INFINITY, INFINITY) == 0.0);
    assert_true(isinf(tkh_ulp_error_f32(FLT_MAX, INFINITY))); /* a true infinity needs inf */
    assert_true(isinf(tkh_ulp_error_f32(-INFINITY, INFINITY)));
    assert_true(isinf(tkh_ulp_error_f32(-0.0f, 0.0)));        /* zeros keep their sign */
    assert_true(isinf(tkh_ulp_error_f32(0.0f, -1e-50)));
    assert_true(tkh_ulp_error_f32(-0.0f, -1e-50) < 1e-5); /* 1e-50 / 2^-149 */
    /* The other types: f16 (ulp 2^-10 at 1, subnormal ulp 2^-24, top 2^16), bf16, and f64
     * measured in long double. */
    assert_true(tkh_ulp_error_f16(tkh_f16_to_f32(0x3C01), 1.0) == 1.0);
    assert_true(tkh_ulp_error_f16(tkh_f16_to_f32(0x0001), 0.0) == 1.0);
    assert_true(tkh_ulp_error_f16(tkh_f16_to_f32(0x7C00), 70000.0) == 0.0);
    assert_true(tkh_ulp_error_f16(tkh_f16_to_f32(0x7BFF), 70000.0) == 1.0);   /* 65504 + 32 = 2^16 */
    assert_true(tkh_ulp_error_bf16(tkh_bf16_to_f32(0x3F81), 1.0) == 1.0);
    assert_true(tkh_ulp_error_f64(1.0 + 0x1p-52, 1.0L) == 1.0L);
    assert_true(tkh_ulp_error_f64(1.0, 1.0L + 0x1p-54L) == 0.25L);
    assert_true(tkh_ulp_error_f64(0x1p-1074, 0.0L) == 1.0L);
    assert_true(tkh_ulp_error_f64(INFINITY, 1e400L) == 0.0L);
}

/* A kernel under the ulp rule through its check: exp at 0 is exactly 1, so an output
 * 1 - m 2^-24 is m/2 ulps away. The bound itself passes; one ulp beyond it fails, naming
 * the element, the input, the error and the bound; the largest error is reported. */
static void ulp_rule_passes_at_the_bound_and_fails_past_it(void **state)
{
    (void)state;
    const tkh_kernel_info *k = kernel("exp", "f32");
    assert_string_equal(k->compare_rule, "ulp");
    const double bound = k->ulp_bound;
    assert_true(bound >= 0.5 && bound == floor(2 * bound) / 2); /* a multiple of 1/2 */
    const float in[3] = { 0.0f, 0.0f, 0.0f };
    float out[3] = { 1.0f, (float)(1.0 - 2 * bound * 0x1p-24), 1.0f };
    const void *inputs[1] = { in };
    tkh_check_note note = { 0 };
    assert_int_equal(k->check(inputs, OUT(out), NULL, 3, 1, 256, &note), 3);
    assert_true(note.worst == bound);
    assert_int_equal(note.worst_index, 1);
    out[1] = (float)(1.0 - (2 * bound + 2) * 0x1p-24); /* one ulp past the bound */
    note = (tkh_check_note){ 0 };
    assert_int_equal(k->check(inputs, OUT(out), NULL, 3, 1, 256, &note), 1);
    assert_true(note.error == bound + 1);
    char want[160];
    snprintf(want, sizeof want, "expected within %g ulps of 1 = exp(0 (0x00000000)): %g ulps", bound, bound + 1);
    assert_non_null(strstr(note.detail, want));
    /* Special values by rule, through the same check: exp(-inf) = +0, exp(NaN) = NaN,
     * exp(inf) = inf, exp(100) overflows (inf is exact), exp(-100) is subnormal. */
    const float specials[5] = { -INFINITY, NAN, INFINITY, 100.0f, -100.0f };
    const float right[5] = { 0.0f, NAN, INFINITY, INFINITY, (float)exp(-100.0) };
    const void *special_inputs[1] = { specials };
    note = (tkh_check_note){ 0 };
    assert_int_equal(k->check(special_inputs, OUT(right), NULL, 5, 1, 256, &note), 5);
    const float wrong[5][5] = {
        { -0.0f, NAN, INFINITY, INFINITY, (float)exp(-100.0) },     /* -0 for +0 */
        { 0.0f, 0.0f, INFINITY, INFINITY, (float)exp(-100.0) },     /* a number for NaN */
        { 0.0f, NAN, FLT_MAX, INFINITY, (float)exp(-100.0) },       /* finite for inf */
        { 0.0f, NAN, INFINITY, NAN, (float)exp(-100.0) },           /* NaN for overflow */
        { 0.0f, NAN, INFINITY, INFINITY, (float)exp(-100.0) * 4 },  /* a subnormal 3x off */
    };
    for (int j = 0; j < 5; ++j) {
        note = (tkh_check_note){ 0 };
        assert_int_equal(k->check(special_inputs, OUT(wrong[j]), NULL, 5, 1, 256, &note), j);
    }
}

/* f16 under the ulp rule (computed in f32, rounded once): the exact result passes, one ulp
 * off fails; f64 measures against a long double reference. */
static void ulp_rule_for_f16_and_f64(void **state)
{
    (void)state;
    const tkh_kernel_info *h = kernel("exp", "f16"), *d = kernel("exp", "f64");
    const uint16_t hin[2] = { 0x0000, 0x3C00 }; /* 0, 1 */
    uint16_t hout[2] = { 0x3C00, 0x4170 };     /* 1, e rounded to f16 (2.71875) */
    const void *hinputs[1] = { hin };
    tkh_check_note note = { 0 };
    assert_int_equal(h->check(hinputs, OUT(hout), NULL, 2, 1, 256, &note), 2);
    hout[1] = 0x4171;
    assert_int_equal(h->check(hinputs, OUT(hout), NULL, 2, 1, 256, &note), 1);
    const double din[1] = { 1.0 };
    double dout[1] = { 2.718281828459045 }; /* e, correctly rounded */
    const void *dinputs[1] = { din };
    note = (tkh_check_note){ 0 };
    assert_int_equal(d->check(dinputs, OUT(dout), NULL, 1, 1, 256, &note), 1);
    assert_true(note.worst < 0.5);
    dout[0] = nextafter(nextafter(nextafter(dout[0], 3.0), 3.0), 3.0);
    dout[0] = nextafter(nextafter(dout[0], 3.0), 3.0); /* 5 ulps up: past any f64 bound here */
    assert_int_equal(d->check(dinputs, OUT(dout), NULL, 1, 1, 256, &note), 0);
}

/* Kernels with signatures of their own: a bool array, scalars, casts, two outputs. */
static void typed_kernels_check_every_output(void **state)
{
    (void)state;
    tkh_check_note note = { .worst = 0 };
    /* where: any non-zero byte of cond reads as true */
    const uint8_t cond[4] = { 1, 0, 2, 0 };
    const float a[4] = { 1, 2, 3, 4 }, b[4] = { -1, -2, -3, -4 };
    float out[4] = { 1, -2, 3, -4 };
    const void *three[3] = { cond, a, b };
    assert_int_equal(kernel("where", "f32")->check(three, OUT(out), NULL, 4, 1, 256, &note), 4);
    out[2] = -3;
    assert_int_equal(kernel("where", "f32")->check(three, OUT(out), NULL, 4, 1, 256, &note), 2);
    /* clamp: the scalars lo and hi; hi wins when lo > hi */
    const float x[3] = { -5, 0.5f, 7 }, lo = 0, hi = 1, low_hi = -1;
    const float clamped[3] = { 0, 0.5f, 1 }, all_hi[3] = { -1, -1, -1 };
    const void *one[1] = { x }, *bounds[2] = { &lo, &hi }, *crossed[2] = { &lo, &low_hi };
    assert_int_equal(kernel("clamp", "f32")->check(one, OUT(clamped), bounds, 3, 1, 256, &note), 3);
    assert_int_equal(kernel("clamp", "f32")->check(one, OUT(all_hi), crossed, 3, 1, 256, &note), 3);
    assert_int_equal(kernel("clamp", "f32")->check(one, OUT(clamped), crossed, 3, 1, 256, &note), 0);
    /* cast: float to integer saturates, NaN gives 0, toward zero */
    const double d[4] = { 1e300, -1e300, NAN, -2.9 };
    const int32_t saturated[4] = { INT32_MAX, INT32_MIN, 0, -2 };
    const void *doubles[1] = { d };
    assert_int_equal(kernel("cast", "f64_i32")->check(doubles, OUT(saturated), NULL, 4, 1, 256, &note), 4);
    /* i64 to bf16 rounds once: 2^62 + 2^54 + 1 is above the midpoint 2^62 + 2^54, so it
     * rounds up to 2^62 + 2^55; through f32 (which rounds it to the midpoint) it would tie
     * to even, down to 2^62. */
    const int64_t big = ((int64_t)1 << 62) + ((int64_t)1 << 54) + 1;
    assert_int_equal(tkh_oracle_cast_i64_bf16(big), tkh_f32_to_bf16(0x1.02p62f));
    assert_int_not_equal(tkh_f32_to_bf16((float)big), tkh_f32_to_bf16(0x1.02p62f));
    /* argmax: the value and the index, both compared; the first of equals */
    const float v[5] = { 1, 9, 3, 9, 2 };
    float best = 9;
    int64_t at = 1;
    const void *values[1] = { v }, *picked[2] = { &best, &at };
    assert_int_equal(kernel("argmax", "f32")->check(values, picked, NULL, 5, 1, 256, &note), 5);
    at = 3;
    assert_int_equal(kernel("argmax", "f32")->check(values, picked, NULL, 5, 1, 256, &note), 0);
    assert_non_null(strstr(note.detail, "expected 9"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_i32_wraps),
        cmocka_unit_test(add_u32_wraps),
        cmocka_unit_test(sub_i32_wraps),
        cmocka_unit_test(check_accepts_correct_output),
        cmocka_unit_test(check_reports_first_mismatch),
        cmocka_unit_test(check_sees_one_flipped_bit),
        cmocka_unit_test(reductions_by_hand),
        cmocka_unit_test(float_sum_check_uses_its_bound),
        cmocka_unit_test(amin_amax_zeros_and_nan_in_any_lane),
        cmocka_unit_test(check_finds_each_index_across_blocks),
        cmocka_unit_test(check_takes_any_nan_for_nan),
        cmocka_unit_test(float_sums_by_hand),
        cmocka_unit_test(ulp_distance_by_hand),
        cmocka_unit_test(ulp_rule_passes_at_the_bound_and_fails_past_it),
        cmocka_unit_test(ulp_rule_for_f16_and_f64),
        cmocka_unit_test(typed_kernels_check_every_output),
    };
    return cmocka_run_group_tests_name("oracle", tests, NULL, NULL);
}
