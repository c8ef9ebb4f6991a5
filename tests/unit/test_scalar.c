/* The f16 and bf16 conversions that the device and the oracle share: every f16 and bf16
 * value round-trips, ties round to even, sampled f32 values round to the nearest f16
 * found by brute force over all finite f16 values, and the block conversions agree with
 * one at a time. Built twice: in software, and with F16C (test_scalar_f16c, where the
 * library's own are). And which copy of the CPU checks runs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tokitai_hip/codegen/scalar.h"
#include "tokitai_hip/tokitai_hip.h"

#if defined(TKH_TEST_F16C) != defined(TKH_F16_HARDWARE)
#error "test_scalar_f16c must test F16C's conversions, test_scalar the software ones"
#endif

static int is_nan16(uint16_t h, unsigned exp_mask, unsigned man_mask)
{
    return (h & exp_mask) == exp_mask && (h & man_mask) != 0;
}

static void every_f16_round_trips(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000; ++h) {
        float f = tkh_f16_to_f32((uint16_t)h);
        if (is_nan16((uint16_t)h, 0x7C00, 0x3FF)) {
            assert_true(isnan(f));
            assert_true(is_nan16(tkh_f32_to_f16(f), 0x7C00, 0x3FF));
        } else {
            assert_int_equal(tkh_f32_to_f16(f), h);
        }
    }
    /* by hand: 1.0, -2.0, the largest, the smallest subnormal, infinity */
    assert_true(tkh_f16_to_f32(0x3C00) == 1.0f);
    assert_true(tkh_f16_to_f32(0xC000) == -2.0f);
    assert_true(tkh_f16_to_f32(0x7BFF) == 65504.0f);
    assert_true(tkh_f16_to_f32(0x0001) == 0x1p-24f);
    assert_true(isinf(tkh_f16_to_f32(0x7C00)));
}

static void every_bf16_round_trips(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000; ++h) {
        float f = tkh_bf16_to_f32((uint16_t)h);
        if (is_nan16((uint16_t)h, 0x7F80, 0x7F))
            assert_true(is_nan16(tkh_f32_to_bf16(f), 0x7F80, 0x7F));
        else
            assert_int_equal(tkh_f32_to_bf16(f), h);
    }
    assert_int_equal(tkh_f32_to_bf16(1.0f), 0x3F80);
    assert_int_equal(tkh_f32_to_bf16(0x1.01p0f), 0x3F80);  /* tie, even stays */
    assert_int_equal(tkh_f32_to_bf16(0x1.03p0f), 0x3F82);  /* tie, odd rounds up */
    assert_int_equal(tkh_f32_to_bf16(0x1.fffffep127f), 0x7F80); /* rounds up to infinity */
}

static void f16_ties_round_to_even(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x7BFF; ++h) {
        double lo = tkh_f16_to_f32((uint16_t)h), hi = tkh_f16_to_f32((uint16_t)(h + 1));
        float mid = (float)((lo + hi) / 2);
        assert_true((double)mid == (lo + hi) / 2); /* every f16 midpoint is an f32 */
        assert_int_equal(tkh_f32_to_f16(mid), (h & 1) ? h + 1 : h);
        assert_int_equal(tkh_f32_to_f16(-mid), 0x8000 | ((h & 1) ? h + 1 : h));
    }
    assert_int_equal(tkh_f32_to_f16(65519.0f), 0x7BFF);
    assert_int_equal(tkh_f32_to_f16(65520.0f), 0x7C00); /* the midpoint to 2^16 rounds to inf */
    assert_int_equal(tkh_f32_to_f16(0x1p-25f), 0x0000);  /* half the smallest subnormal: even */
    assert_int_equal(tkh_f32_to_f16(0x1.000002p-25f), 0x0001);
}

/* Nearest finite f16 by exhaustive search, ties to the even encoding. */
static uint16_t nearest_f16(float f)
{
    double v = fabs((double)f), best_d = INFINITY;
    uint16_t best = 0;
    for (uint32_t h = 0; h < 0x7C00; ++h) {
        double d = fabs(v - tkh_f16_to_f32((uint16_t)h));
        if (d < best_d || (d == best_d && (h & 1) == 0)) {
            best_d = d;
            best = (uint16_t)h;
        }
    }
    if (v >= 65520.0)
        best = 0x7C00;
    return (uint16_t)(best | (signbit(f) ? 0x8000 : 0));
}

static void f32_to_f16_is_nearest(void **state)
{
    (void)state;
    uint64_t s = 42;
    for (int i = 0; i < 3000; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t bits = (uint32_t)(s >> 32);
        bits = (bits & 0x807FFFFFu) | ((uint32_t)(100 + (s >> 20) % 50) << 23); /* near f16's range */
        float f = tkh_f32_from_bits(bits);
        assert_int_equal(tkh_f32_to_f16(f), nearest_f16(f));
    }
}

/* The block conversions (8 at a time with F16C, then one at a time) against the scalar
 * ones: every f16 value, and f32 values between each pair of neighbours (ties among
 * them), in blocks of 1001 (ending in 1, starting at every offset modulo 8); and 0 to 19
 * values from each of 8 offsets, nothing written past the end. */
enum { BLOCK = 1001 };

/* The length of the block at 'at' of n values. */
static size_t block_len(size_t at, size_t n)
{
    return n - at < BLOCK ? n - at : BLOCK;
}

static void block_conversions_agree(void **state)
{
    (void)state;
    static uint16_t h[0x10000], back[0x10000];
    static float f[0x10000];
    for (uint32_t i = 0; i < 0x10000; ++i)
        h[i] = (uint16_t)i;
    for (size_t at = 0; at < 0x10000; at += BLOCK) {
        tkh_f16_to_f32_n(h + at, f + at, block_len(at, 0x10000));
        tkh_f32_to_f16_n(f + at, back + at, block_len(at, 0x10000));
    }
    for (uint32_t i = 0; i < 0x10000; ++i) {
        const float one = tkh_f16_to_f32(h[i]);
        assert_memory_equal(&f[i], &one, sizeof one);
        assert_int_equal(back[i], tkh_f32_to_f16(f[i]));
    }
    /* rounding: a quarter, half and three quarters of the way to the next f16 up */
    static float between[3 * 0x7C00];
    static uint16_t rounded[3 * 0x7C00];
    for (uint32_t i = 0; i < 0x7C00; ++i) {
        const double lo = tkh_f16_to_f32((uint16_t)i), hi = tkh_f16_to_f32((uint16_t)(i + 1));
        for (int q = 1; q <= 3; ++q)
            between[3 * i + q - 1] = (float)(lo + (hi - lo) * q / 4);
    }
    for (size_t at = 0; at < 3 * 0x7C00; at += BLOCK)
        tkh_f32_to_f16_n(between + at, rounded + at, block_len(at, 3 * 0x7C00));
    for (uint32_t i = 0; i < 3 * 0x7C00; ++i)
        assert_int_equal(rounded[i], tkh_f32_to_f16(between[i]));
    for (size_t at = 0; at < 8; ++at)
        for (size_t len = 0; len <= 19; ++len) {
            float g[20];
            uint16_t r[20];
            g[len] = -1.0f;
            r[len] = 0xABCD;
            tkh_f16_to_f32_n(h + 0x3C00 + at, g, len);
            tkh_f32_to_f16_n(g, r, len);
            for (size_t i = 0; i < len; ++i)
                assert_int_equal(r[i], h[0x3C00 + at + i]);
            assert_true(g[len] == -1.0f && r[len] == 0xABCD);
        }
}

/* The level of the CPU checks that run: a clone only where the CMake option made them,
 * and then the highest this CPU supports. */
static void host_check_level_follows_the_build(void **state)
{
    (void)state;
#if defined(TKH_TEST_HOST_CLONES)
    __builtin_cpu_init();
    const char *want = __builtin_cpu_supports("x86-64-v4") ? "x86-64-v4"
        : __builtin_cpu_supports("x86-64-v3")              ? "x86-64-v3"
                                                           : "baseline";
#else
    const char *want = "baseline";
#endif
    assert_string_equal(tkh_host_check_level(), want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_f16_round_trips),
        cmocka_unit_test(every_bf16_round_trips),
        cmocka_unit_test(f16_ties_round_to_even),
        cmocka_unit_test(f32_to_f16_is_nearest),
        cmocka_unit_test(block_conversions_agree),
        cmocka_unit_test(host_check_level_follows_the_build),
    };
    return cmocka_run_group_tests_name("scalar", tests, NULL, NULL);
}
