/* Every generated kernel on a real device: random inputs with edge values
 * (a fixed seed, printed; TKH_TEST_SEED sets another), poisoned outputs, odd and large sizes,
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

#include <cmocka.h>

#include "tokitai_hip/codegen/hip_platform.h"
#include "tokitai_hip/tokitai_hip.h"
#include "base/base.h" /* tkhi_splitmix64 */
#include "gpu_start.h"

/* The one output of a kernel's check, as the list of outputs it takes. */
#define OUT(p) ((const void *const[]){ (p) })

static uint64_t seed;
static tkh_context *ctx;

static void selftest(const tkh_registry *reg, const size_t *sizes, size_t count)
{
    tkh_selftest_result result;
    tkh_status st = tkh_registry_selftest(ctx, reg, sizes, count, seed, &result);
    printf("%zu of %zu runs passed\n", result.passed, result.runs);
    if (st != TKH_OK)
        fail_msg("%s", result.failure);
    assert_int_equal(result.runs, reg->count * count);
}

/* Every kernel, random inputs with edge values, poisoned outputs, odd sizes. */
static void every_kernel_at_odd_sizes(void **state)
{
    (void)state;
    const size_t sizes[] = { 1, 3, 255, 256, 257, ((size_t)1 << 20) + 3 };
    selftest(tkh_registry_core(), sizes, sizeof sizes / sizeof sizes[0]);
}

/* At 2^28 elements: an elementwise kernel and the integer and float sums. */
static void at_two_to_the_28(void **state)
{
    (void)state;
    const tkh_kernel_info *large[] = {
        tkh_registry_find(tkh_registry_core(), "add", "i32"),
        tkh_registry_find(tkh_registry_core(), "sum", "i32"),
        tkh_registry_find(tkh_registry_core(), "sum", "f32"),
    };
    const tkh_registry reg = { "large", large, sizeof large / sizeof large[0] };
    const size_t sizes[] = { (size_t)1 << 28 };
    selftest(&reg, sizes, 1);
}

static void in_place_output(void **state)
{
    (void)state;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), "add", "i32");
    enum { N = 4099 };
    static int32_t a[N], b[N], a0[N];
    uint64_t s = seed;
    for (int i = 0; i < N; ++i) {
        a[i] = a0[i] = (int32_t)tkhi_splitmix64(&s);
        b[i] = (int32_t)tkhi_splitmix64(&s);
    }
    assert_int_equal(tkh_add_i32(ctx, a, b, a, N, NULL), TKH_OK);
    const void *inputs[2] = { a0, b };
    tkh_check_note note = { 0 };
    assert_int_equal(k->check(inputs, OUT(a), NULL, N, 1, 256, &note), N);
}

static void device_buffer_entry_point(void **state)
{
    (void)state;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), "add", "i32");
    enum { N = (1 << 20) + 7 };
    const size_t bytes = N * sizeof(int32_t);
    static int32_t a[N], b[N], out[N];
    uint64_t s = seed + 1;
    for (int i = 0; i < N; ++i) {
        a[i] = (int32_t)tkhi_splitmix64(&s);
        b[i] = (int32_t)tkhi_splitmix64(&s);
        out[i] = -559038737; /* poison */
    }
    void *d[3] = { NULL, NULL, NULL };
    for (int i = 0; i < 3; ++i)
        assert_int_equal(hipMalloc(&d[i], bytes), hipSuccess);
    assert_int_equal(hipMemcpy(d[0], a, bytes, hipMemcpyHostToDevice), hipSuccess);
    assert_int_equal(hipMemcpy(d[1], b, bytes, hipMemcpyHostToDevice), hipSuccess);
    assert_int_equal(hipMemcpy(d[2], out, bytes, hipMemcpyHostToDevice), hipSuccess);
    assert_int_equal(tkh_add_i32_device(ctx, d[0], d[1], d[2], N, NULL), TKH_OK);
    assert_int_equal(hipDeviceSynchronize(), hipSuccess);
    assert_int_equal(hipMemcpy(out, d[2], bytes, hipMemcpyDeviceToHost), hipSuccess);
    const void *inputs[2] = { a, b };
    tkh_check_note note = { 0 };
    assert_int_equal(k->check(inputs, OUT(out), NULL, N, 1, 256, &note), N);
    /* Buffers one element off 16-byte alignment take the element-wise kernel. */
    assert_int_equal(tkh_add_i32_device(ctx, (int32_t *)d[0] + 1, (int32_t *)d[1] + 1,
                         (int32_t *)d[2] + 1, N - 1, NULL), TKH_OK);
    assert_int_equal(hipDeviceSynchronize(), hipSuccess);
    assert_int_equal(hipMemcpy(out, d[2], bytes, hipMemcpyDeviceToHost), hipSuccess);
    assert_int_equal(k->check(inputs, OUT(out), NULL, N, 1, 256, &note), N);
    /* a reduction through its device entry point */
    assert_int_equal(tkh_sum_i32_device(ctx, d[0], d[2], N, NULL), TKH_OK);
    int64_t total = 0; /* integer sums accumulate in 64 bits */
    assert_int_equal(hipMemcpy(&total, d[2], sizeof total, hipMemcpyDeviceToHost), hipSuccess);
    const void *sum_inputs[1] = { a };
    const tkh_kernel_info *sum = tkh_registry_find(tkh_registry_core(), "sum", "i32");
    assert_int_equal(sum->check(sum_inputs, OUT(&total), NULL, N, 1, 256, &note), N);
    for (int i = 0; i < 3; ++i)
        hipFree(d[i]);
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
    const int start = gpu_test_start(20261201, &seed, &ctx);
    if (start >= 0)
        return start;
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
