/* The host path's machinery on a real device: the chunked pipeline (small chunks, odd
 * tails, in place), the oracle policies and the sampled oracle's detection rate, a fault
 * injected into every platform call in turn, and many threads on shared and separate
 * contexts. Exits 77 (skipped) when there is no device. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tokitai_hip/tokitai_hip.h"
#include "base/base.h" /* tkhi_splitmix64 */
#include "gpu_start.h"

static uint64_t seed;
static tkh_context *ctx;      /* default chunks */
static tkh_context *chunky;   /* 4 KiB chunks: every input past 1024 i32 is pipelined */

static void fill(int32_t *v, size_t n, uint64_t *s)
{
    for (size_t i = 0; i < n; ++i)
        v[i] = (int32_t)tkhi_splitmix64(s);
}

/* add_i32 over n on 'c' (out may be a), checked here against a + b computed on the CPU. */
static void add_and_compare(tkh_context *c, size_t n, int in_place, uint64_t s)
{
    int32_t *a = malloc(n * 4), *b = malloc(n * 4), *want = malloc(n * 4), *out = malloc(n * 4);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(want);
    assert_non_null(out);
    fill(a, n, &s);
    fill(b, n, &s);
    for (size_t i = 0; i < n; ++i)
        want[i] = (int32_t)((uint32_t)a[i] + (uint32_t)b[i]);
    tkh_report report;
    int32_t *dst = in_place ? a : out;
    tkh_status st = tkh_add_i32(c, a, b, dst, n, &report);
    if (st != TKH_OK)
        fail_msg("n = %zu: %s", n, report.message);
    assert_memory_equal(dst, want, n * 4);
    assert_true(report.oracle_matches);
    assert_int_equal(report.oracle_compared, n);
    free(a);
    free(b);
    free(want);
    free(out);
}

static void chunked_pipeline(void **state)
{
    (void)state;
    const size_t sizes[] = { 1024, 1025, 2048, 3 * 1024 + 1, 10007, (1 << 20) + 3 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        add_and_compare(chunky, sizes[i], 0, seed + i);
        add_and_compare(chunky, sizes[i], 1, seed + i);
    }
    add_and_compare(ctx, (size_t)5 << 22, 1, seed); /* 20 MiB inputs: default chunks */
}

static void chunked_reductions(void **state)
{
    (void)state;
    enum { N = 100003 };
    static float x[N];
    static int32_t xi[N];
    static int64_t xl[N];
    uint64_t s = seed;
    int64_t total = 0;
    for (int i = 0; i < N; ++i) {
        x[i] = (float)((double)(tkhi_splitmix64(&s) >> 11) * 0x1p-53);
        xi[i] = (int32_t)(tkhi_splitmix64(&s) % 1000);
        total += xi[i];
        xl[i] = xi[i];
    }
    float sum = 0;
    int64_t isum = 0; /* integer sums accumulate in 64 bits */
    tkh_report report;
    assert_int_equal(tkh_sum_f32(chunky, x, &sum, N, &report), TKH_OK);
    assert_true(report.oracle_matches);
    assert_int_equal(tkh_sum_i32(chunky, xi, &isum, N, &report), TKH_OK);
    assert_int_equal(isum, total);
    /* in place (input and output of one type): the sum lands on element 0 */
    assert_int_equal(tkh_sum_i64(chunky, xl, xl, N, &report), TKH_OK);
    assert_int_equal(xl[0], total);
}

static void corruption_found_in_any_chunk(void **state)
{
    (void)state;
    enum { N = 10007 };
    static int32_t a[N], b[N], out[N];
    uint64_t s = seed;
    fill(a, N, &s);
    fill(b, N, &s);
    const size_t where[] = { 0, 1023, 1024, 5000, N - 1 };
    for (size_t i = 0; i < sizeof where / sizeof where[0]; ++i) {
        tkh_report report;
        assert_int_equal(tkh_context_corrupt_next_output(chunky, where[i], 31), TKH_OK);
        assert_int_equal(tkh_add_i32(chunky, a, b, out, N, &report), TKH_ERR_ORACLE_MISMATCH);
        assert_int_equal(report.first_mismatch, where[i]);
    }
    float x[1000], sum;
    for (int i = 0; i < 1000; ++i)
        x[i] = 1.0f;
    tkh_report report;
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 0, 30), TKH_OK);
    assert_int_equal(tkh_sum_f32(ctx, x, &sum, 1000, &report), TKH_ERR_ORACLE_MISMATCH);
    assert_int_equal(tkh_sum_f32(ctx, x, &sum, 1000, &report), TKH_OK);
    assert_true(sum == 1000.0f);
}

static void set_policy(tkh_context *c, tkh_oracle_mode mode, size_t samples, unsigned long long s)
{
    const tkh_oracle_policy p = { mode, samples, s };
    assert_int_equal(tkh_context_set_oracle(c, &p), TKH_OK);
}

static void oracle_policies(void **state)
{
    (void)state;
    enum { N = 4096 };
    static int32_t a[N], b[N], out[N];
    uint64_t s = seed;
    fill(a, N, &s);
    fill(b, N, &s);
    tkh_report report;
    set_policy(ctx, TKH_ORACLE_OFF, 0, 0);
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 9, 0), TKH_OK);
    assert_int_equal(tkh_add_i32(ctx, a, b, out, N, &report), TKH_OK); /* off: unchecked */
    assert_int_equal(report.oracle_mode, TKH_ORACLE_OFF);
    assert_false(report.oracle_checked);
    assert_int_equal(report.oracle_compared, 0);
    assert_int_equal(out[9], (int32_t)(((uint32_t)a[9] + (uint32_t)b[9]) ^ 1u));
    set_policy(ctx, TKH_ORACLE_SAMPLED, 100, 42);
    assert_int_equal(tkh_add_i32(ctx, a, b, out, N, &report), TKH_OK);
    assert_int_equal(report.oracle_mode, TKH_ORACLE_SAMPLED);
    assert_int_equal(report.oracle_seed, 42);
    assert_int_equal(report.oracle_compared, 100);
    char json[16384];
    assert_int_equal(tkh_report_to_json(&report, json, sizeof json, NULL), TKH_OK);
    assert_non_null(strstr(json, "\"cpu_oracle_mode\": \"sampled\""));
    /* sampling a chunked run */
    set_policy(chunky, TKH_ORACLE_SAMPLED, 1000, 7);
    assert_int_equal(tkh_add_i32(chunky, a, b, out, N, &report), TKH_OK);
    assert_int_equal(report.oracle_compared, 1000);
    set_policy(ctx, TKH_ORACLE_FULL, 0, 0);
    set_policy(chunky, TKH_ORACLE_FULL, 0, 0);
}

/* One wrong output among n, k samples: found with p = 1 - (1 - 1/n)^k. Over T trials
 * with fresh seeds and positions, the count found must lie within 5 standard deviations
 * of T p (a false failure has odds below 1 in a million). */
static void sampled_detection_rate(void **state)
{
    (void)state;
    enum { N = 256, K = 32, T = 400 };
    static int32_t a[N], b[N], out[N];
    uint64_t s = seed;
    fill(a, N, &s);
    fill(b, N, &s);
    int found = 0;
    for (int t = 0; t < T; ++t) {
        set_policy(ctx, TKH_ORACLE_SAMPLED, K, tkhi_splitmix64(&s));
        assert_int_equal(tkh_context_corrupt_next_output(ctx, tkhi_splitmix64(&s) % N, 5), TKH_OK);
        tkh_status st = tkh_add_i32(ctx, a, b, out, N, NULL);
        assert_true(st == TKH_OK || st == TKH_ERR_ORACLE_MISMATCH);
        found += st == TKH_ERR_ORACLE_MISMATCH;
    }
    set_policy(ctx, TKH_ORACLE_FULL, 0, 0);
    const double p = 1 - pow(1 - 1.0 / N, K), mean = T * p, sd = sqrt(T * p * (1 - p));
    printf("sampled oracle: found %d of %d corruptions, expected %.1f +- %.1f\n", found, T, mean, sd);
    assert_true(fabs(found - mean) <= 5 * sd);
}

/* Runs one host-path call on 'c' with a fault planned at call 'skip' of 'kind'; returns
 * 1 while the fault still fires (there are more calls to try). */
static int faulted_run(tkh_context *c, tkh_fault kind, unsigned skip, int reduction, size_t n)
{
    static int32_t a[8192], b[8192], out[8192];
    for (size_t i = 0; i < n; ++i) {
        a[i] = (int32_t)i;
        b[i] = 2;
        out[i] = -1;
    }
    /* from an empty context, so that every allocation happens in this call */
    assert_int_equal(tkh_context_trim(c), TKH_OK);
    assert_int_equal(tkh_context_inject_fault(c, kind, skip), TKH_OK);
    tkh_report report;
    int64_t sum = 0;
    tkh_status st = reduction ? tkh_sum_i32(c, a, &sum, n, &report) : tkh_add_i32(c, a, b, out, n, &report);
    const int fired = tkh_context_fault_fired(c, kind) == 1;
    if (!fired) {
        assert_int_equal(st, TKH_OK);
        assert_int_equal(tkh_context_inject_fault(c, kind, TKH_FAULT_NEVER), TKH_OK);
        return 0;
    }
    static const tkh_status expected[TKH_FAULT_KINDS][3] = {
        { TKH_ERR_DEVICE_ALLOC, TKH_ERR_HOST_ALLOC, TKH_ERR_RUNTIME },
        { TKH_ERR_COPY, TKH_ERR_COPY, TKH_ERR_COPY },
        { TKH_ERR_LAUNCH, TKH_ERR_LAUNCH, TKH_ERR_LAUNCH },
        { TKH_ERR_SYNC, TKH_ERR_SYNC, TKH_ERR_SYNC },
    };
    if (st != expected[kind][0] && st != expected[kind][1] && st != expected[kind][2])
        fail_msg("fault %d at call %u: got %s: %s", (int)kind, skip, tkh_status_name(st), report.message);
    assert_int_equal(report.status, st);
    assert_non_null(strstr(report.message, "injected"));
    /* the context is still usable, and right */
    st = reduction ? tkh_sum_i32(c, a, &sum, n, &report) : tkh_add_i32(c, a, b, out, n, &report);
    if (st != TKH_OK)
        fail_msg("after fault %d at call %u: %s", (int)kind, skip, report.message);
    return 1;
}

static void every_platform_call_can_fail(void **state)
{
    (void)state;
    for (int kind = 0; kind < TKH_FAULT_KINDS; ++kind) {
        for (int shape = 0; shape < 4; ++shape) {
            tkh_context *c = NULL;
            setenv("TOKITAI_HIP_CHUNK_BYTES", "4096", 1);
            assert_int_equal(tkh_context_create(&c, TKH_DEVICE_FROM_ENV), TKH_OK);
            unsetenv("TOKITAI_HIP_CHUNK_BYTES");
            const int reduction = shape >= 2;
            const size_t n = shape % 2 ? 8192 : 1000; /* one chunk, or eight */
            unsigned skip = 0;
            while (faulted_run(c, (tkh_fault)kind, skip, reduction, n))
                ++skip;
            printf("fault kind %d, %s n=%zu: %u calls, each failed cleanly\n", kind,
                reduction ? "sum" : "add", n, skip);
            assert_true(skip > 0);
            tkh_context_destroy(c);
        }
    }
}

typedef struct worker {
    tkh_context *shared;
    uint64_t seed;
    int failures;
} worker;

static void *hammer(void *arg)
{
    worker *w = arg;
    tkh_context *own = NULL;
    if (tkh_context_create(&own, TKH_DEVICE_FROM_ENV) != TKH_OK) {
        w->failures = -1;
        return NULL;
    }
    enum { N = 3000 };
    int32_t *a = malloc(N * 4), *b = malloc(N * 4), *out = malloc(N * 4);
    uint64_t s = w->seed;
    for (int call = 0; call < 60 && a && b && out; ++call) {
        const size_t n = 1 + tkhi_splitmix64(&s) % N;
        fill(a, n, &s);
        fill(b, n, &s);
        tkh_context *c = call % 2 ? own : w->shared;
        int64_t sum = 0;
        if (tkh_add_i32(c, a, b, out, n, NULL) != TKH_OK || tkh_sum_i32(c, a, &sum, n, NULL) != TKH_OK) {
            ++w->failures;
            continue;
        }
        for (size_t i = 0; i < n; ++i)
            w->failures += out[i] != (int32_t)((uint32_t)a[i] + (uint32_t)b[i]);
    }
    free(a);
    free(b);
    free(out);
    tkh_context_destroy(own);
    return NULL;
}

static void many_threads(void **state)
{
    (void)state;
    enum { THREADS = 8 };
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; ++i) {
        w[i] = (worker){ i % 2 ? chunky : ctx, seed + (uint64_t)i, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, hammer, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; ++i) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
}

int main(void)
{
    const int start = gpu_test_start(20261201, &seed, &ctx);
    if (start >= 0)
        return start;
    setenv("TOKITAI_HIP_CHUNK_BYTES", "4096", 1);
    const tkh_status st = tkh_context_create(&chunky, TKH_DEVICE_FROM_ENV);
    unsetenv("TOKITAI_HIP_CHUNK_BYTES");
    if (st != TKH_OK) {
        printf("FAIL: %s: %s\n", tkh_status_name(st), tkh_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunked_pipeline),
        cmocka_unit_test(chunked_reductions),
        cmocka_unit_test(corruption_found_in_any_chunk),
        cmocka_unit_test(oracle_policies),
        cmocka_unit_test(sampled_detection_rate),
        cmocka_unit_test(every_platform_call_can_fail),
        cmocka_unit_test(many_threads),
    };
    int failed = cmocka_run_group_tests_name("gpu_runtime", tests, NULL, NULL);
    tkh_context_destroy(chunky);
    tkh_context_destroy(ctx);
    return failed;
}
