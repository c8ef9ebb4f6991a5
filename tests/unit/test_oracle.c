/* The CPU oracle against values worked out by hand, and the generated check functions
 * against outputs with known mismatches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
    };
    return cmocka_run_group_tests_name("oracle", tests, NULL, NULL);
}
