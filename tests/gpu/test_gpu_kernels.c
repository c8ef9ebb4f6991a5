/* Every generated kernel on a real device: random inputs with edge values
 * (seed printed; TKH_TEST_SEED replays a run), poisoned outputs, odd and large sizes,
 * both entry points, device selection, an injected fault and admission. Exits 77
 * (skipped) when there is no device. */
#define _POSIX_C_SOURCE 200809L /* setenv */
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

#include "tokitai_hip/hip_platform.h"
#include "tokitai_hip/tokitai_hip.h"

#define POISON 0xA5
static uint64_t seed;
static tkh_context *ctx;

static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Edge bit patterns of any integer width: 0, all ones (-1 / max), the sign bit alone
 * (INT_MIN), all but the sign bit (INT_MAX), 1. */
static void edge(unsigned char *elem, size_t size, int which)
{
    memset(elem, which == 1 || which == 3 ? 0xFF : 0x00, size);
    if (which == 2)
        elem[size - 1] = 0x80;
    if (which == 3)
        elem[size - 1] = 0x7F;
    if (which == 4)
        elem[0] = 1;
}

/* Values in [-1, 1) for float sums, whose bound is only meaningful on finite inputs. */
static void fill_moderate(const tkh_kernel_info *k, unsigned char *in, size_t n, uint64_t *s)
{
    for (size_t i = 0; i < n; ++i) {
        double v = (double)(next_random(s) >> 11) * 0x1p-52 - 1.0;
        if (strcmp(k->type, "f64") == 0)
            memcpy(in + i * 8, &v, 8);
        else if (strcmp(k->type, "f32") == 0)
            ((float *)(void *)in)[i] = (float)v;
        else if (strcmp(k->type, "f16") == 0)
            ((uint16_t *)(void *)in)[i] = tkh_f32_to_f16((float)v);
        else
            ((uint16_t *)(void *)in)[i] = tkh_f32_to_bf16((float)v);
    }
}

/* Random bits (every NaN, infinity and subnormal included); the first elements hold
 * every pair of edge values. Float sums get moderate values instead. */
static void fill_inputs(const tkh_kernel_info *k, unsigned char **in, size_t n, uint64_t *s)
{
    if (strcmp(k->op, "sum") == 0 && strcmp(k->domain, "float") == 0) {
        fill_moderate(k, in[0], n, s);
        return;
    }
    for (unsigned a = 0; a < k->arity; ++a)
        for (size_t i = 0; i < n * k->elem_size; i += 8) {
            uint64_t r = next_random(s);
            size_t take = n * k->elem_size - i < 8 ? n * k->elem_size - i : 8;
            memcpy(in[a] + i, &r, take);
        }
    for (size_t i = 0; i < 25 && i < n; ++i)
        for (unsigned a = 0; a < k->arity; ++a)
            edge(in[a] + i * k->elem_size, k->elem_size, a == 0 ? (int)(i / 5) : (int)(i % 5));
}

typedef struct buffers {
    unsigned char *in[2];
    unsigned char *out;
} buffers;

static buffers alloc_buffers(const tkh_kernel_info *k, size_t n)
{
    buffers b = { { NULL, NULL }, NULL };
    for (unsigned a = 0; a < k->arity; ++a)
        assert_non_null(b.in[a] = malloc(n * k->elem_size));
    assert_non_null(b.out = malloc(n * k->elem_size));
    memset(b.out, POISON, n * k->elem_size);
    return b;
}

static void free_buffers(buffers *b)
{
    free(b->in[0]);
    free(b->in[1]);
    free(b->out);
}

/* One oracle-checked host run that must pass; the output is then checked again here. */
static void run_and_check(const tkh_kernel_info *k, size_t n)
{
    uint64_t s = seed ^ (n * 0x100000001B3ull);
    buffers b = alloc_buffers(k, n);
    fill_inputs(k, b.in, n, &s);
    const void *inputs[2] = { b.in[0], b.in[1] };
    tkh_report report;
    tkh_status st = tkh_kernel_run(ctx, k, inputs, k->arity, b.out, n, &report);
    if (st != TKH_OK)
        fail_msg("%s_%s n=%zu seed=%" PRIu64 ": %s: %s", k->op, k->type, n, seed,
            tkh_status_name(st), report.message);
    assert_true(report.oracle_checked && report.oracle_matches);
    assert_int_equal(report.first_mismatch, n);
    char detail[256];
    assert_int_equal(k->check(inputs, b.out, n, report.launch_grid, report.launch_block, detail,
                         sizeof detail), n);
    free_buffers(&b);
}

static void every_kernel_at_odd_sizes(void **state)
{
    (void)state;
    const size_t sizes[] = { 1, 3, 255, 256, 257, (1u << 20) + 3 };
    const tkh_registry *reg = tkh_registry_core();
    for (size_t i = 0; i < reg->count; ++i)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; ++j)
            run_and_check(reg->kernels[i], sizes[j]);
}

/* At 2^28 elements: an elementwise kernel and the integer and float sums. */
static void at_two_to_the_28(void **state)
{
    (void)state;
    const char *const kernels[][2] = { { "add", "i32" }, { "sum", "i32" }, { "sum", "f32" } };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i) {
        const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), kernels[i][0], kernels[i][1]);
        if (k != NULL) /* absent when TOKITAI_HIP_OPS / _TYPES left it out */
            run_and_check(k, (size_t)1 << 28);
    }
}

static void in_place_output(void **state)
{
    (void)state;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), "add", "i32");
    enum { N = 4099 };
    static int32_t a[N], b[N], a0[N];
    uint64_t s = seed;
    for (int i = 0; i < N; ++i) {
        a[i] = a0[i] = (int32_t)next_random(&s);
        b[i] = (int32_t)next_random(&s);
    }
    assert_int_equal(tkh_add_i32(ctx, a, b, a, N, NULL), TKH_OK);
    const void *inputs[2] = { a0, b };
    char detail[256];
    assert_int_equal(k->check(inputs, a, N, 1, 256, detail, sizeof detail), N);
}

static void device_buffer_entry_point(void **state)
{
    (void)state;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), "add", "i32");
    const size_t n = (1u << 20) + 7, bytes = n * sizeof(int32_t);
    buffers h = alloc_buffers(k, n);
    uint64_t s = seed + 1;
    fill_inputs(k, h.in, n, &s);
    void *d[3] = { NULL, NULL, NULL };
    for (int i = 0; i < 3; ++i)
        assert_int_equal(hipMalloc(&d[i], bytes), hipSuccess);
    assert_int_equal(hipMemcpy(d[0], h.in[0], bytes, hipMemcpyHostToDevice), hipSuccess);
    assert_int_equal(hipMemcpy(d[1], h.in[1], bytes, hipMemcpyHostToDevice), hipSuccess);
    assert_int_equal(hipMemcpy(d[2], h.out, bytes, hipMemcpyHostToDevice), hipSuccess);
    assert_int_equal(tkh_add_i32_device(ctx, d[0], d[1], d[2], n, NULL), TKH_OK);
    assert_int_equal(hipDeviceSynchronize(), hipSuccess);
    assert_int_equal(hipMemcpy(h.out, d[2], bytes, hipMemcpyDeviceToHost), hipSuccess);
    const void *inputs[2] = { h.in[0], h.in[1] };
    char detail[256];
    assert_int_equal(k->check(inputs, h.out, n, 1, 256, detail, sizeof detail), n);
    for (int i = 0; i < 3; ++i)
        hipFree(d[i]);
    free_buffers(&h);
}

static void device_selection(void **state)
{
    (void)state;
    const tkh_device_report *dev = tkh_context_device(ctx);
    tkh_context *other = NULL;
    assert_int_equal(tkh_context_create(&other, 0), TKH_OK);
    assert_int_equal(tkh_context_device(other)->selected, 0);
    tkh_context_destroy(other);
    char index[16];
    snprintf(index, sizeof index, "%d", dev->device_count - 1);
    setenv("TOKITAI_HIP_DEVICE", index, 1);
    assert_int_equal(tkh_context_create(&other, TKH_DEVICE_FROM_ENV), TKH_OK);
    assert_int_equal(tkh_context_device(other)->selected, dev->device_count - 1);
    tkh_context_destroy(other);
    snprintf(index, sizeof index, "%d", dev->device_count);
    setenv("TOKITAI_HIP_DEVICE", index, 1);
    assert_int_equal(tkh_context_create(&other, TKH_DEVICE_FROM_ENV), TKH_ERR_DEVICE_INDEX);
    assert_null(other);
    unsetenv("TOKITAI_HIP_DEVICE");
    assert_int_equal(tkh_context_create(&other, dev->device_count), TKH_ERR_DEVICE_INDEX);
}

static void injected_fault_is_caught(void **state)
{
    (void)state;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), "add", "i32");
    enum { N = 1000 };
    static int32_t a[N], b[N], out[N];
    for (int i = 0; i < N; ++i) {
        a[i] = i;
        b[i] = 3 * i;
    }
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 7, 3), TKH_OK);
    tkh_report report;
    assert_int_equal(tkh_add_i32(ctx, a, b, out, N, &report), TKH_ERR_ORACLE_MISMATCH);
    assert_int_equal(report.first_mismatch, 7);
    assert_false(report.oracle_matches);
    /* 7 + 21 = 28; bit 3 flipped gives 20 */
    assert_non_null(strstr(report.message, "element 7 of 1000 differs from the CPU oracle: got 20, expected 28"));
    /* The hook fires once; the context stays usable. */
    assert_int_equal(tkh_add_i32(ctx, a, b, out, N, &report), TKH_OK);
    (void)k;
}

static void admission_refuses_foreign_kernel(void **state)
{
    (void)state;
    static const char *const foreign[] = { "gfx000", "sm_10", NULL };
    tkh_kernel_info k = *tkh_registry_find(tkh_registry_core(), "add", "i32");
    k.targets = foreign;
    int32_t a[4] = { 1, 2, 3, 4 }, out[4] = { -9, -9, -9, -9 };
    const void *inputs[2] = { a, a };
    tkh_report report;
    assert_int_equal(tkh_kernel_run(ctx, &k, inputs, 2, out, 4, &report), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_non_null(strstr(report.message, tkh_context_device(ctx)->arch));
    assert_non_null(strstr(report.message, "[gfx000, sm_10]"));
    for (int i = 0; i < 4; ++i)
        assert_int_equal(out[i], -9);
}

int main(void)
{
    tkh_device_report dev;
    tkh_status st = tkh_device_query(TKH_DEVICE_FROM_ENV, &dev);
    if (st == TKH_ERR_NO_DEVICE) {
        printf("SKIP: %s\n", dev.reason);
        return 77;
    }
    const char *env = getenv("TKH_TEST_SEED");
    seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("device %d: %s (%s); seed %" PRIu64 " (replay with TKH_TEST_SEED=%" PRIu64 ")\n",
        dev.selected, dev.name, dev.arch, seed, seed);
    st = tkh_context_create(&ctx, TKH_DEVICE_FROM_ENV);
    if (st != TKH_OK) {
        printf("FAIL: %s: %s\n", tkh_status_name(st), tkh_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kernel_at_odd_sizes),
        cmocka_unit_test(at_two_to_the_28),
        cmocka_unit_test(in_place_output),
        cmocka_unit_test(device_buffer_entry_point),
        cmocka_unit_test(device_selection),
        cmocka_unit_test(injected_fault_is_caught),
        cmocka_unit_test(admission_refuses_foreign_kernel),
    };
    int failed = cmocka_run_group_tests_name("gpu_kernels", tests, NULL, NULL);
    tkh_context_destroy(ctx);
    return failed;
}
