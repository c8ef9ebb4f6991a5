/* The host path's machinery without a GPU: the runtime's own sources on a fake HIP
 * runtime (tests/fake: device memory is host memory, copies happen at once), with the
 * test's kernels computed on the host. Chunked pipeline and in-place runs, corruption in
 * any chunk, the oracle policies and the sampled oracle's detection rate, every platform
 * call failing in turn with nothing left allocated, reductions' per-stream partials, and
 * many threads on shared and own contexts (this test is also built with ThreadSanitizer).
 * The GPU twin of this test is tests/gpu/test_gpu_runtime.c. */
#define _POSIX_C_SOURCE 200809L /* setenv */
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

#include "fake_hip.h"
#include "tokitai_hip/context.h"
#include "tokitai_hip/kernel.h"
#include "base/base.h" /* tkhi_splitmix64, tkhi_format */
#include "../evidence.h"

static const char *const targets[] = { "gfx90a", NULL };
static const char *const none[] = { NULL };

static int host_add(const void *const *in, void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    const int32_t *a = in[0], *b = in[1];
    int32_t *o = out[0];
    for (size_t i = 0; i < n; ++i)
        o[i] = (int32_t)((uint32_t)a[i] + (uint32_t)b[i]);
    return 0;
}

static size_t check_add(const void *const *in, const void *const *out, const void *const *scalars,
    size_t n, unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)scalars, (void)grid, (void)block;
    const int32_t *a = in[0], *b = in[1], *o = out[0];
    for (size_t i = 0; i < n; ++i)
        if (o[i] != (int32_t)((uint32_t)a[i] + (uint32_t)b[i])) {
            snprintf(note->detail, sizeof note->detail, "got %d", (int)o[i]);
            return i;
        }
    return n;
}

static int32_t wrapping_sum(const int32_t *x, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; ++i)
        s += (uint32_t)x[i];
    return (int32_t)s;
}

static int host_sum(const void *const *in, void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)stream;
    if (scratch == NULL)
        return (int)hipErrorInvalidValue;
    *(int32_t *)out[0] = wrapping_sum(in[0], n);
    return 0;
}

static size_t check_sum(const void *const *in, const void *const *out, const void *const *scalars,
    size_t n, unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)scalars, (void)grid, (void)block;
    if (*(const int32_t *)out[0] == wrapping_sum(in[0], n))
        return n;
    snprintf(note->detail, sizeof note->detail, "got %d", (int)*(const int32_t *)out[0]);
    return 0;
}

/* The sum's check in parts, as generated reductions have it (tkh_fold_fn, ...). */
static void fold_sum(const void *input, size_t first, size_t count, tkh_fold *state)
{
    (void)first;
    uint32_t s;
    memcpy(&s, state->acc, sizeof s);
    s += (uint32_t)wrapping_sum(input, count);
    memcpy(state->acc, &s, sizeof s);
    state->started = 1;
}

static void merge_sum(tkh_fold *state, const tkh_fold *later)
{
    fold_sum(later->acc, 0, 1, state);
}

static int finish_sum(const tkh_fold *state, const void *const *outputs, size_t n, unsigned grid,
    unsigned block, tkh_check_note *note)
{
    (void)n, (void)grid, (void)block;
    const void *out = outputs[0];
    if (memcmp(state->acc, out, 4) == 0)
        return 1;
    snprintf(note->detail, sizeof note->detail, "got %d", (int)*(const int32_t *)out);
    return 0;
}

static const tkh_operand i32s[] = { { "lhs", "i32", 4, NULL, 0 }, { "rhs", "i32", 4, NULL, 0 } };
static const tkh_operand out_i32[] = { { "out", "i32", 4, "exact", 0 } };

/* The shapes by the names the KERNEL macro takes. */
#define SHAPE_elementwise TKH_SHAPE_ELEMENTWISE
#define SHAPE_reduction TKH_SHAPE_REDUCTION
#define SHAPE_normalization TKH_SHAPE_NORMALIZATION
#define KERNEL(name, shape_, arity_, out_count_, scratch_, launch_, check_)                     \
    { .catalog = "fake", .op = name, .type = "i32", .symbol = "fake_" name, .shape = #shape_, .shape_kind = SHAPE_##shape_,     \
      .signature = "i32 lhs, i32 rhs -> i32 out", .arity = arity_, .inputs = i32s,              \
      .output_count = 1, .outputs = out_i32, .out_count = out_count_, .scratch_size = scratch_,  \
      .block = 256, .vector_width = 4, .domain = "integer", .representation = "dense",           \
      .semantics = name, .compare_rule = "exact", .comparison = "exact", .platform = "amd",      \
      .targets = targets, .source_fingerprint = "", .compiler = "", .compiler_fingerprint = "", \
      .build_fingerprint = "", .build_command = "", .obligations = none,                         \
      .required_evidence = none, .degradations = none, .non_claims = none, .launch = launch_,    \
      .check = check_ }

static const tkh_kernel_info add = KERNEL("add", elementwise, 2, 0, 0, host_add, check_add);
static tkh_kernel_info sum = KERNEL("sum", reduction, 1, 1, 8, host_sum, check_sum);

/* A context whose host path cuts inputs into chunks of 'chunk_bytes' (0: the default). */
static tkh_context *make_context(const char *chunk_bytes)
{
    tkh_context *c = NULL;
    if (chunk_bytes)
        setenv("TOKITAI_HIP_CHUNK_BYTES", chunk_bytes, 1);
    tkh_status st = tkh_context_create(&c, 0);
    unsetenv("TOKITAI_HIP_CHUNK_BYTES");
    if (st != TKH_OK)
        fail_msg("%s", tkh_last_error());
    return c;
}

static void assert_nothing_live(void)
{
    for (int k = 0; k < FAKE_KINDS; ++k)
        assert_int_equal(fake_hip_live((fake_kind)k), 0);
}

typedef struct buffers {
    int32_t *a, *b, *out, *want;
} buffers;

static buffers make_buffers(size_t n, uint64_t seed)
{
    buffers b = { malloc(n * 4), malloc(n * 4), malloc(n * 4), malloc(n * 4) };
    assert_true(b.a && b.b && b.out && b.want);
    for (size_t i = 0; i < n; ++i) {
        b.a[i] = (int32_t)tkhi_splitmix64(&seed);
        b.b[i] = (int32_t)tkhi_splitmix64(&seed);
        b.want[i] = (int32_t)((uint32_t)b.a[i] + (uint32_t)b.b[i]);
    }
    return b;
}

static void free_buffers(buffers *b)
{
    free(b->a);
    free(b->b);
    free(b->out);
    free(b->want);
}

static tkh_status run_add(tkh_context *c, const int32_t *a, const int32_t *b, int32_t *out, size_t n,
    tkh_report *r)
{
    const void *in[2] = { a, b };
    return tkh_kernel_run(c, &add, in, 2, out, n, r);
}

static tkh_status run_sum(tkh_context *c, const int32_t *x, int32_t *out, size_t n, tkh_report *r)
{
    const void *in[1] = { x };
    return tkh_kernel_run(c, &sum, in, 1, out, n, r);
}

static void pipeline_matches_cpu(void **state)
{
    (void)state;
    tkh_context *c = make_context("4096"); /* 1024 elements per chunk */
    const size_t sizes[] = { 1, 1023, 1024, 1025, 4097, 100003, 300001 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        const size_t n = sizes[i];
        buffers b = make_buffers(n, i);
        tkh_report r;
        assert_int_equal(run_add(c, b.a, b.b, b.out, n, &r), TKH_OK);
        assert_memory_equal(b.out, b.want, n * 4);
        assert_int_equal(r.oracle_compared, n);
        /* chunked runs say where the host's time went */
        assert_int_equal(has_evidence(&r, "s staging and checking, "), n > 1024);
        assert_int_equal(run_add(c, b.a, b.b, b.a, n, &r), TKH_OK); /* in place */
        assert_memory_equal(b.a, b.want, n * 4);
        int32_t total = 0;
        assert_int_equal(run_sum(c, b.b, &total, n, &r), TKH_OK);
        assert_int_equal(total, wrapping_sum(b.b, n));
        assert_int_equal(has_evidence(&r, "s staging and folding, "), n > 1024);
        free_buffers(&b);
    }
    tkh_context_destroy(c);
    assert_nothing_live();
}

static void corruption_is_found_in_any_chunk(void **state)
{
    (void)state;
    tkh_context *c = make_context("4096");
    enum { N = 5000 };
    buffers b = make_buffers(N, 9);
    const size_t where[] = { 0, 1023, 1024, 2500, N - 1 };
    for (size_t i = 0; i < sizeof where / sizeof where[0]; ++i) {
        tkh_report r;
        assert_int_equal(tkh_context_corrupt_next_output(c, where[i], 17), TKH_OK);
        assert_int_equal(run_add(c, b.a, b.b, b.out, N, &r), TKH_ERR_ORACLE_MISMATCH);
        assert_int_equal(r.first_mismatch, where[i]);
        assert_false(r.oracle_matches);
    }
    int32_t total;
    assert_int_equal(tkh_context_corrupt_next_output(c, 0, 3), TKH_OK);
    assert_int_equal(run_sum(c, b.a, &total, N, NULL), TKH_ERR_ORACLE_MISMATCH);
    free_buffers(&b);
    tkh_context_destroy(c);
}

static void set_policy(tkh_context *c, tkh_oracle_mode mode, size_t samples, unsigned long long seed)
{
    const tkh_oracle_policy p = { mode, samples, seed };
    assert_int_equal(tkh_context_set_oracle(c, &p), TKH_OK);
}

static void oracle_policies(void **state)
{
    (void)state;
    tkh_context *c = make_context("4096");
    enum { N = 3000 };
    buffers b = make_buffers(N, 3);
    tkh_report r;
    set_policy(c, TKH_ORACLE_OFF, 0, 0);
    assert_int_equal(tkh_context_corrupt_next_output(c, 5, 0), TKH_OK);
    assert_int_equal(run_add(c, b.a, b.b, b.out, N, &r), TKH_OK); /* unchecked, and says so */
    assert_false(r.oracle_checked);
    assert_int_equal(r.oracle_compared, 0);
    assert_int_equal(b.out[5], b.want[5] ^ 1);
    set_policy(c, TKH_ORACLE_SAMPLED, 50, 11);
    assert_int_equal(run_add(c, b.a, b.b, b.out, N, &r), TKH_OK);
    assert_int_equal(r.oracle_mode, TKH_ORACLE_SAMPLED);
    assert_int_equal(r.oracle_seed, 11);
    assert_int_equal(r.oracle_compared, 50);
    assert_true(r.oracle_matches);
    int32_t total;
    assert_int_equal(run_sum(c, b.a, &total, N, &r), TKH_OK); /* a reduction: in full */
    assert_int_equal(r.oracle_compared, 1);
    free_buffers(&b);
    tkh_context_destroy(c);
}

/* k samples among n find one wrong output with p = 1 - (1 - 1/n)^k; T trials must find
 * T p within five standard deviations, in whole runs and in chunked ones. */
static void sampled_detection_rate(void **state)
{
    (void)state;
    enum { K = 20, T = 3000 };
    const size_t sizes[] = { 200, 4000 }; /* one chunk; four */
    for (size_t s = 0; s < 2; ++s) {
        const size_t n = sizes[s];
        tkh_context *c = make_context("4096");
        buffers b = make_buffers(n, 5);
        uint64_t rng = 77 + s;
        int found = 0;
        for (int t = 0; t < T; ++t) {
            set_policy(c, TKH_ORACLE_SAMPLED, K, tkhi_splitmix64(&rng));
            assert_int_equal(tkh_context_corrupt_next_output(c, tkhi_splitmix64(&rng) % n, 2), TKH_OK);
            tkh_status st = run_add(c, b.a, b.b, b.out, n, NULL);
            assert_true(st == TKH_OK || st == TKH_ERR_ORACLE_MISMATCH);
            found += st == TKH_ERR_ORACLE_MISMATCH;
        }
        const double p = 1 - pow(1 - 1.0 / (double)n, K), mean = T * p, sd = sqrt(T * p * (1 - p));
        printf("n = %zu: found %d of %d, expected %.1f +- %.1f\n", n, found, T, mean, sd);
        assert_true(fabs(found - mean) <= 5 * sd);
        free_buffers(&b);
        tkh_context_destroy(c);
    }
}

static void every_platform_call_can_fail(void **state)
{
    (void)state;
    static const tkh_status expected[TKH_FAULT_KINDS][3] = {
        { TKH_ERR_DEVICE_ALLOC, TKH_ERR_HOST_ALLOC, TKH_ERR_RUNTIME },
        { TKH_ERR_COPY, TKH_ERR_COPY, TKH_ERR_COPY },
        { TKH_ERR_LAUNCH, TKH_ERR_LAUNCH, TKH_ERR_LAUNCH },
        { TKH_ERR_SYNC, TKH_ERR_SYNC, TKH_ERR_SYNC },
    };
    enum { N = 3000 };
    buffers b = make_buffers(N, 1);
    for (int kind = 0; kind < TKH_FAULT_KINDS; ++kind)
        for (int shape = 0; shape < 4; ++shape) {
            tkh_context *c = make_context("4096");
            const size_t n = shape % 2 ? N : 1000; /* three chunks, or one */
            unsigned skip = 0;
            for (;; ++skip) {
                assert_int_equal(tkh_context_trim(c), TKH_OK);
                assert_nothing_live(); /* after any failure, nothing but the context's own */
                memset(b.out, 0x5A, N * 4);
                assert_int_equal(tkh_context_inject_fault(c, (tkh_fault)kind, skip), TKH_OK);
                tkh_report r;
                int32_t total = 0x5A5A5A5A;
                tkh_status st = shape < 2 ? run_add(c, b.a, b.b, b.out, n, &r) : run_sum(c, b.a, &total, n, &r);
                if (tkh_context_fault_fired(c, (tkh_fault)kind) != 1) {
                    assert_int_equal(st, TKH_OK);
                    assert_int_equal(tkh_context_inject_fault(c, (tkh_fault)kind, TKH_FAULT_NEVER), TKH_OK);
                    break;
                }
                if (st != expected[kind][0] && st != expected[kind][1] && st != expected[kind][2])
                    fail_msg("fault %d at call %u: %s: %s", kind, skip, tkh_status_name(st), r.message);
                assert_non_null(strstr(r.message, "injected"));
                if (shape >= 2)
                    assert_int_equal(total, 0x5A5A5A5A); /* a failed reduction writes nothing */
                st = shape < 2 ? run_add(c, b.a, b.b, b.out, n, &r) : run_sum(c, b.a, &total, n, &r);
                assert_int_equal(st, TKH_OK); /* and the context still works */
            }
            assert_true(skip > 0);
            tkh_context_destroy(c);
            assert_nothing_live();
        }
    free_buffers(&b);
}

static void reductions_keep_partials_per_stream(void **state)
{
    (void)state;
    tkh_context *c = make_context(NULL);
    int32_t x[100], out = 0;
    for (int i = 0; i < 100; ++i)
        x[i] = i;
    const void *in[1] = { x };
    for (uintptr_t s = 1; s <= 12; ++s) /* 8 streams get a buffer; the others borrow one */
        for (int rep = 0; rep < 2; ++rep) {
            assert_int_equal(tkh_kernel_launch(c, &sum, in, 1, &out, 100, (tkh_stream)s), TKH_OK);
            assert_int_equal(out, 4950);
        }
    assert_int_equal(fake_hip_live(FAKE_DEVICE_MEMORY), 8);
    assert_int_equal(tkh_context_trim(c), TKH_OK);
    assert_nothing_live();
    tkh_context_destroy(c);
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
    if (tkh_context_create(&own, 0) != TKH_OK) {
        w->failures = 1000;
        return NULL;
    }
    enum { N = 5000 };
    buffers b = { malloc(N * 4), malloc(N * 4), malloc(N * 4), NULL };
    for (int call = 0; call < 100 && b.a && b.b && b.out; ++call) {
        const size_t n = 1 + tkhi_splitmix64(&w->seed) % N;
        for (size_t i = 0; i < n; ++i) {
            b.a[i] = (int32_t)tkhi_splitmix64(&w->seed);
            b.b[i] = (int32_t)i;
        }
        tkh_context *c = call % 3 ? w->shared : own;
        int32_t total = 0;
        if (run_add(c, b.a, b.b, b.out, n, NULL) != TKH_OK || run_sum(c, b.a, &total, n, NULL) != TKH_OK)
            ++w->failures;
        else
            w->failures += total != wrapping_sum(b.a, n);
        if (call % 10 == 0 && tkh_context_trim(c) != TKH_OK)
            ++w->failures;
    }
    free(b.a);
    free(b.b);
    free(b.out);
    tkh_context_destroy(own);
    return NULL;
}

static void many_threads(void **state)
{
    (void)state;
    enum { THREADS = 8 };
    tkh_context *shared[2] = { make_context("4096"), make_context(NULL) };
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; ++i) {
        w[i] = (worker){ shared[i % 2], (uint64_t)i, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, hammer, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; ++i) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    tkh_context_destroy(shared[0]);
    tkh_context_destroy(shared[1]);
    assert_nothing_live();
}

/* tkhi_format (the evidence lines' formatter) against snprintf: the same text, the same
 * returned length and the same truncation at every buffer size, for what it writes itself and
 * for a conversion it hands to vsnprintf. */
static void formatting_matches_snprintf(void **state)
{
    (void)state;
    char ours[96], theirs[96];
    for (size_t size = 0; size <= 80; ++size) {
        memset(ours, 'x', sizeof ours), memset(theirs, 'x', sizeof theirs);
#define SAME(...) \
        do { \
            int a = tkhi_format(ours, size, __VA_ARGS__), b = snprintf(theirs, size, __VA_ARGS__); \
            assert_int_equal(a, b); \
            assert_memory_equal(ours, theirs, sizeof ours); \
        } while (0)
        SAME("tensor %s: %s %s, strides %s%s, on the %s", "input 0 (lhs)", "f32", "[32, 32]", "[32, 1]", "", "device");
        SAME("%d %u %ld %lu %lld %llu %zu 100%% %s", -2147483647 - 1, 4294967295u, -9223372036854775807L - 1,
            18446744073709551615UL, -5LL, 0ULL, (size_t)12345, "");
        SAME("no conversion at all");
        SAME("%5d|%.2f|%x", 42, 0.125, 255u); /* vsnprintf's */
        SAME("%s, %d, then %.3g ulps", "output 3", -7, 0.5); /* vsnprintf's from the start, after its own */
#undef SAME
    }
}

int main(void)
{
    setenv("TOKITAI_HIP_HOST_THREADS", "4", 1); /* a crew even on a small machine */
    sum.fold = fold_sum;
    sum.merge = merge_sum;
    sum.finish = finish_sum;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formatting_matches_snprintf),
        cmocka_unit_test(pipeline_matches_cpu),
        cmocka_unit_test(corruption_is_found_in_any_chunk),
        cmocka_unit_test(oracle_policies),
        cmocka_unit_test(sampled_detection_rate),
        cmocka_unit_test(every_platform_call_can_fail),
        cmocka_unit_test(reductions_keep_partials_per_stream),
        cmocka_unit_test(many_threads),
    };
    return cmocka_run_group_tests_name("fake_runtime", tests, NULL, NULL);
}
