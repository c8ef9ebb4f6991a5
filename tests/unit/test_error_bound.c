/* tokitai_hip/codegen/error_bound.h: bounds that hold for an evaluation in f32 (the host's own
 * float arithmetic and libm, whose functions are within the bound given them), that are
 * tight enough to catch a wrong result, and special values by rule. Random operands from
 * a fixed seed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "tokitai_hip/codegen/error_bound.h"

#define U TKH_EB_F32
#define LIBM_ULPS 2.0L /* glibc's expf, logf, tanhf: within 1 ulp; rsqrt as 1 / sqrtf: 1 */

static uint64_t rng = 20261202;

static float uniform(float lo, float hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (float)((rng >> 40) * 0x1p-24);
}

/* softmax of a row and layer_norm's centred, scaled value, as a device would in f32,
 * against the bound carried in long double. */
static void f32_evaluations_stay_within_their_bounds(void **state)
{
    (void)state;
    printf("seed 20261202\n");
    enum { N = 1000 };
    static float x[N];
    for (int trial = 0; trial < 50; ++trial) {
        const float scale = trial < 25 ? 1.0f : 30.0f;
        for (int i = 0; i < N; ++i)
            x[i] = uniform(-scale, scale);
        float m = x[0], s = 0;
        tkh_eb M = tkh_eb_exact(x[0]), S = tkh_eb_exact(0);
        for (int i = 1; i < N; ++i) {
            m = fmaxf(m, x[i]);
            M = tkh_eb_fmax(M, tkh_eb_exact(x[i]));
        }
        for (int i = 0; i < N; ++i) { /* one running sum: depth N */
            s += expf(x[i] - m);
            S = tkh_eb_add(S, tkh_eb_exp(tkh_eb_sub(tkh_eb_exact(x[i]), M, U), LIBM_ULPS, U), U);
        }
        double worst = 0;
        for (int i = 0; i < N; ++i) {
            const float got = expf(x[i] - m) / s;
            const tkh_eb want = tkh_eb_div(tkh_eb_exp(tkh_eb_sub(tkh_eb_exact(x[i]), M, U), LIBM_ULPS, U), S, U);
            if (!tkh_eb_accepts(want, got, TKH_EB_STORED(FLT_MAX)))
                fail_msg("softmax trial %d element %d: %.9g, expected %.12Lg +- %.3Lg", trial, i, got, want.v, want.e);
            const double used = fabsl(got - want.v) / want.e;
            worst = used > worst ? used : worst;
            /* tight enough: a result off by 2^-12 (a lost term, a wrong scale) is refused */
            assert_false(tkh_eb_accepts(want, got * (1 + 0x1p-12f), TKH_EB_STORED(FLT_MAX)));
        }
        assert_true(worst < 1);
        /* layer_norm's (x - mean) * rstd, mean and variance from running sums */
        float sum = 0, sq = 0;
        tkh_eb SUM = tkh_eb_exact(0), SQ = tkh_eb_exact(0);
        for (int i = 0; i < N; ++i) {
            sum += x[i];
            SUM = tkh_eb_add(SUM, tkh_eb_exact(x[i]), U);
        }
        const float mean = sum / N;
        const tkh_eb MEAN = tkh_eb_div(SUM, tkh_eb_exact(N), U);
        for (int i = 0; i < N; ++i) {
            sq += (x[i] - mean) * (x[i] - mean);
            const tkh_eb d = tkh_eb_sub(tkh_eb_exact(x[i]), MEAN, U);
            SQ = tkh_eb_add(SQ, tkh_eb_mul(d, d, U), U);
        }
        const float rstd = 1 / sqrtf(sq / N + 1e-5f);
        const tkh_eb RSTD = tkh_eb_rsqrt(tkh_eb_add(tkh_eb_div(SQ, tkh_eb_exact(N), U),
            tkh_eb_const(1e-5L, 1e-5f), U), LIBM_ULPS, U);
        for (int i = 0; i < N; ++i) {
            const float got = (x[i] - mean) * rstd;
            const tkh_eb want = tkh_eb_mul(tkh_eb_sub(tkh_eb_exact(x[i]), MEAN, U), RSTD, U);
            if (!tkh_eb_accepts(want, got, TKH_EB_STORED(FLT_MAX)))
                fail_msg("layer_norm trial %d element %d: %.9g, expected %.12Lg +- %.3Lg", trial, i, got, want.v, want.e);
        }
    }
}

static void special_values_follow_their_rules(void **state)
{
    (void)state;
    /* exact operands: the special value itself must come out */
    const tkh_eb nan_in = tkh_eb_exp(tkh_eb_exact(NAN), LIBM_ULPS, U);
    assert_true(tkh_eb_accepts(nan_in, NAN, TKH_EB_F16));
    assert_false(tkh_eb_accepts(nan_in, 1, TKH_EB_F16));
    const tkh_eb all_minus_inf = tkh_eb_sub(tkh_eb_exact(-INFINITY), tkh_eb_exact(-INFINITY), U);
    assert_true(isnan(all_minus_inf.v) && all_minus_inf.e == 0);
    const tkh_eb zero = tkh_eb_exp(tkh_eb_exact(-INFINITY), LIBM_ULPS, U);
    assert_true(tkh_eb_accepts(zero, 0, TKH_EB_F16) && !tkh_eb_accepts(zero, 0x1p-100f, TKH_EB_STORED(FLT_MAX)));
    assert_true(tkh_eb_accepts(tkh_eb_log(tkh_eb_exact(0), LIBM_ULPS, U), -INFINITY, TKH_EB_F16));
    /* an overflow the device may take to infinity; a pole within an operand's bound */
    assert_true(tkh_eb_accepts(tkh_eb_exp(tkh_eb_exact(100), LIBM_ULPS, U), INFINITY, TKH_EB_STORED(FLT_MAX)));
    assert_true(tkh_eb_accepts(tkh_eb_exact(70000), INFINITY, TKH_EB_F16));
    assert_false(tkh_eb_accepts(tkh_eb_exact(60000), INFINITY, TKH_EB_F16));
    const tkh_eb near_zero = { 1e-30L, 1e-29L };
    assert_true(tkh_eb_log(near_zero, LIBM_ULPS, U).e == INFINITY);
    assert_true(tkh_eb_rsqrt(near_zero, LIBM_ULPS, U).e == INFINITY);
    assert_true(tkh_eb_div(tkh_eb_exact(1), near_zero, U).e == INFINITY);
    /* a literal the compute type cannot hold carries its own rounding */
    assert_true(tkh_eb_const(0.1L, 0.1f).e > 1e-9L && tkh_eb_const(0.5L, 0.5f).e == 0);
    /* f16 storage adds half an f16 ulp: 1 + 2^-11 is taken, 1 + 2^-10 is not */
    assert_true(tkh_eb_accepts(tkh_eb_exact(1), 1 + 0x1p-11L, TKH_EB_F16));
    assert_false(tkh_eb_accepts(tkh_eb_exact(1), 1 + 0x1p-10L, TKH_EB_F16));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f32_evaluations_stay_within_their_bounds),
        cmocka_unit_test(special_values_follow_their_rules),
    };
    return cmocka_run_group_tests_name("error_bound", tests, NULL, NULL);
}
