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

#include "tokitai_hip/core_oracle.h"
#include "tokitai_hip/tokitai_hip.h"

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
    char detail[128] = "";
    assert_int_equal(kernel("add", "i32")->check(inputs, out, 4, 1, 256, detail, sizeof detail), 4);
    assert_string_equal(detail, "");
}

static void check_reports_first_mismatch(void **state)
{
    (void)state;
    const int32_t lhs[4] = { 1, 2, 3, 4 };
    const int32_t rhs[4] = { 10, 20, 30, 40 };
    const int32_t out[4] = { 11, 22, 34, 45 }; /* index 2 and 3 wrong */
    const void *inputs[2] = { lhs, rhs };
    char detail[128] = "";
    assert_int_equal(kernel("add", "i32")->check(inputs, out, 4, 1, 256, detail, sizeof detail), 2);
    assert_string_equal(detail, "got 34, expected 33 = add(3, 30)");
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
    char detail[128];
    assert_int_equal(kernel("add", "u32")->check(inputs, out, N, 1, 256, detail, sizeof detail), N);
    out[N - 1] ^= 1u << 31;
    assert_int_equal(kernel("add", "u32")->check(inputs, out, N, 1, 256, detail, sizeof detail), N - 1);
}

static void reductions_by_hand(void **state)
{
    (void)state;
    /* sum wraps: INT32_MAX + 1 + 1 = INT32_MIN + 1 */
    assert_int_equal(tkh_oracle_sum_i32(tkh_oracle_sum_i32(tkh_identity_sum_i32(), INT32_MAX), 2),
        INT32_MIN + 1);
    /* IEEE 754-2019 minimum and maximum: NaN wins, -0 < +0 */
    assert_true(isnan(tkh_oracle_amin_f32(1.0f, NAN)));
    assert_true(isnan(tkh_oracle_amax_f32(NAN, 1.0f)));
    assert_true(signbit(tkh_oracle_amin_f32(0.0f, -0.0f)));
    assert_false(signbit(tkh_oracle_amax_f32(-0.0f, 0.0f)));
    assert_true(tkh_identity_amin_f64() == INFINITY);
    assert_int_equal(tkh_identity_amax_i8(), INT8_MIN);
}

static void float_sum_check_uses_its_bound(void **state)
{
    (void)state;
    const tkh_kernel_info *k = kernel("sum", "f32");
    const float x[4] = { 1.0f, 0x1p-24f, 0x1p-24f, -0.5f };
    const void *inputs[1] = { x };
    char detail[256] = "";
    /* exact sum 0.5 + 2^-23; depth = 1 + 5 + 1 + 16 = 23 additions at u = 2^-24 of sum|x| ~ 1.5 */
    float close = 0.5f, far = 0.5f + 0x1p-10f;
    assert_int_equal(k->check(inputs, &close, 4, 1, 256, detail, sizeof detail), 4);
    assert_int_equal(k->check(inputs, &far, 4, 1, 256, detail, sizeof detail), 0);
    assert_non_null(strstr(detail, "expected 0.500000119209289550781"));
    const float with_nan[2] = { 1.0f, NAN };
    const void *nan_inputs[1] = { with_nan };
    float nan_out = NAN, one = 1.0f;
    assert_int_equal(k->check(nan_inputs, &nan_out, 2, 1, 256, detail, sizeof detail), 2);
    assert_int_equal(k->check(nan_inputs, &one, 2, 1, 256, detail, sizeof detail), 0);
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
    char detail[256];
    const tkh_kernel_info *f32 = kernel("add", "f32"), *f16 = kernel("add", "f16");
    assert_int_equal(f32->check(in32, sum, N, 1, 256, detail, sizeof detail), N);
    assert_int_equal(f16->check(in16, hsum, N, 1, 256, detail, sizeof detail), N);
    for (int i = 0; i < N; ++i) {
        sum[i] = nextafterf(sum[i], INFINITY);
        hsum[i] ^= 1u;
        assert_int_equal(f32->check(in32, sum, N, 1, 256, detail, sizeof detail), i);
        assert_int_equal(f16->check(in16, hsum, N, 1, 256, detail, sizeof detail), i);
        if (i + 300 < N) { /* a later difference, in another block, does not hide this one */
            sum[i + 300] = -sum[i + 300];
            assert_int_equal(f32->check(in32, sum, N, 1, 256, detail, sizeof detail), i);
            sum[i + 300] = -sum[i + 300];
        }
        sum[i] = a[i] + b[i];
        hsum[i] ^= 1u;
    }
    /* f16 1 + 2^-11 is a tie that rounds to even: 1.0, not 1 + 2^-10 */
    const uint16_t one = 0x3C00, tiny = 0x1000, rounded = 0x3C00, up = 0x3C01;
    const void *tie[2] = { &one, &tiny };
    assert_int_equal(f16->check(tie, &rounded, 1, 1, 256, detail, sizeof detail), 1);
    assert_int_equal(f16->check(tie, &up, 1, 1, 256, detail, sizeof detail), 0);
    assert_string_equal(detail, "got 1.0009765625 (0x3c01), expected 1 (0x3c00) = add(1 (0x3c00), 0.00048828125 (0x1000))");
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
    char detail[256];
    assert_int_equal(kernel("add", "f32")->check(inputs, out, 2, 1, 256, detail, sizeof detail), 2);
    out[1] = out[0];
    assert_int_equal(kernel("add", "f32")->check(inputs, out, 2, 1, 256, detail, sizeof detail), 1);
    const uint16_t ha[1] = { 0x7E00 }, hb[1] = { 0x3C00 }, hout[2] = { 0xFE01, 0x7C00 };
    const void *hin[2] = { ha, hb };
    assert_int_equal(kernel("add", "f16")->check(hin, hout, 1, 1, 256, detail, sizeof detail), 1);
    assert_int_equal(kernel("add", "f16")->check(hin, hout + 1, 1, 1, 256, detail, sizeof detail), 0);
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
    char detail[256];
    const void *fx[1] = { x }, *fy[1] = { y };
    const tkh_kernel_info *f32 = kernel("sum", "f32"), *f64 = kernel("sum", "f64");
    const float near32 = (float)exact, off32 = (float)(exact * (1 + 0x1p-12));
    const double near64 = exact, off64 = exact * (1 + 0x1p-30);
    assert_int_equal(f32->check(fx, &near32, N, 4, 256, detail, sizeof detail), N);
    assert_int_equal(f32->check(fx, &off32, N, 4, 256, detail, sizeof detail), 0);
    assert_int_equal(f64->check(fy, &near64, N, 4, 256, detail, sizeof detail), N);
    assert_int_equal(f64->check(fy, &off64, N, 4, 256, detail, sizeof detail), 0);
    /* an infinity deep in the input: the sum is that infinity */
    x[3001] = -INFINITY;
    const float neg_inf = -INFINITY, pos_inf = INFINITY;
    assert_int_equal(f32->check(fx, &neg_inf, N, 4, 256, detail, sizeof detail), N);
    assert_int_equal(f32->check(fx, &pos_inf, N, 4, 256, detail, sizeof detail), 0);
    assert_int_equal(f32->check(fx, &near32, N, 4, 256, detail, sizeof detail), 0);
    x[17] = INFINITY; /* both infinities: NaN */
    const float nan32 = NAN;
    assert_int_equal(f32->check(fx, &nan32, N, 4, 256, detail, sizeof detail), N);
    assert_int_equal(f32->check(fx, &neg_inf, N, 4, 256, detail, sizeof detail), 0);
    /* finite f64 inputs whose sum overflows double: infinity is a right answer, a finite
     * value is not */
    for (int i = 0; i < N; ++i)
        y[i] = DBL_MAX / 1024;
    const double inf64 = INFINITY, max64 = DBL_MAX;
    assert_int_equal(f64->check(fy, &inf64, N, 4, 256, detail, sizeof detail), N);
    assert_int_equal(f64->check(fy, &max64, N, 4, 256, detail, sizeof detail), 0);
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
    char detail[256];
    for (size_t j = 0; j < sizeof at / sizeof at[0]; ++j) {
        for (int i = 0; i < N; ++i)
            x[i] = -0.0f;
        x[at[j]] = 0.0f;
        assert_int_equal(amax->check(in, &pos0, N, 1, 256, detail, sizeof detail), N);
        assert_int_equal(amax->check(in, &neg0, N, 1, 256, detail, sizeof detail), 0);
        assert_int_equal(amin->check(in, &neg0, N, 1, 256, detail, sizeof detail), N);
        for (int i = 0; i < N; ++i)
            x[i] = 0.0f;
        x[at[j]] = -0.0f;
        assert_int_equal(amin->check(in, &neg0, N, 1, 256, detail, sizeof detail), N);
        assert_int_equal(amin->check(in, &pos0, N, 1, 256, detail, sizeof detail), 0);
        assert_int_equal(amax->check(in, &pos0, N, 1, 256, detail, sizeof detail), N);
        x[at[j]] = NAN;
        assert_int_equal(amax->check(in, &nan, N, 1, 256, detail, sizeof detail), N);
        assert_int_equal(amax->check(in, &pos0, N, 1, 256, detail, sizeof detail), 0);
        assert_int_equal(amin->check(in, &nan, N, 1, 256, detail, sizeof detail), N);
        assert_int_equal(amin->check(in, &neg0, N, 1, 256, detail, sizeof detail), 0);
    }
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
    };
    return cmocka_run_group_tests_name("oracle", tests, NULL, NULL);
}
