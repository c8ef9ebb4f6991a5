/* Every error path of the entry points that is reached before the device is touched, on a
 * context made here (no GPU needed): a distinct status, a message with the values, a
 * filled report, and 'out' untouched. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform/platform.h" /* the context's state */

enum { N = 8, POISON = 0x5A5A5A5A };

typedef struct fixture {
    tkh_context ctx;
    int32_t lhs[N], rhs[N], out[N];
    tkh_report report;
} fixture;

/* A context whose device is usable and matches the first target of add_i32. */
static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), "add", "i32");
    f->ctx.device.available = 1;
    f->ctx.device.selected = 0;
    f->ctx.device.compute_units = 4;
    snprintf(f->ctx.device.arch, sizeof f->ctx.device.arch, "%s", k->targets[0]);
    f->ctx.corrupt_index = SIZE_MAX;
    for (int i = 0; i < N; ++i) {
        f->lhs[i] = i;
        f->rhs[i] = 10 * i;
        f->out[i] = POISON;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void assert_out_untouched(const fixture *f)
{
    for (int i = 0; i < N; ++i)
        assert_int_equal(f->out[i], POISON);
}

static void assert_failed(fixture *f, tkh_status got, tkh_status want, const char *message)
{
    assert_int_equal(got, want);
    assert_int_equal(f->report.status, want);
    assert_string_equal(f->report.message, message);
    assert_string_equal(tkh_last_error(), message);
    assert_int_equal(f->report.oracle_checked, 0);
    assert_out_untouched(f);
}

static void null_context(void **state)
{
    fixture *f = *state;
    assert_failed(f, tkh_add_i32(NULL, f->lhs, f->rhs, f->out, N, &f->report),
        TKH_ERR_NULL_POINTER, "tkh_kernel_run: ctx is NULL");
}

static void null_buffers(void **state)
{
    fixture *f = *state;
    assert_failed(f, tkh_add_i32(&f->ctx, NULL, f->rhs, f->out, N, &f->report),
        TKH_ERR_NULL_POINTER, "tkh_kernel_run: input 0 (lhs) is NULL");
    assert_failed(f, tkh_add_i32(&f->ctx, f->lhs, NULL, f->out, N, &f->report),
        TKH_ERR_NULL_POINTER, "tkh_kernel_run: input 1 (rhs) is NULL");
    assert_int_equal(tkh_add_i32(&f->ctx, f->lhs, f->rhs, NULL, N, &f->report), TKH_ERR_NULL_POINTER);
    assert_string_equal(f->report.message, "tkh_kernel_run: out is NULL");
    assert_int_equal(tkh_kernel_run(&f->ctx, NULL, NULL, 2, f->out, N, NULL), TKH_ERR_NULL_POINTER);
    assert_string_equal(tkh_last_error(), "tkh_kernel_run: kernel is NULL");
}

static void empty_input(void **state)
{
    fixture *f = *state;
    assert_failed(f, tkh_add_i32(&f->ctx, f->lhs, f->rhs, f->out, 0, &f->report),
        TKH_ERR_EMPTY, "tkh_kernel_run: n is 0: expected at least one element");
}

static void size_overflow(void **state)
{
    fixture *f = *state;
    char want[200];
    size_t n = SIZE_MAX / 4 + 1;
    snprintf(want, sizeof want, "tkh_kernel_run: n = %zu elements of 4 bytes overflows size_t "
        "(at most %zu elements)", n, SIZE_MAX / 4);
    assert_failed(f, tkh_add_i32(&f->ctx, f->lhs, f->rhs, f->out, n, &f->report),
        TKH_ERR_SIZE_OVERFLOW, want);
}

static void partial_overlap_is_refused(void **state)
{
    fixture *f = *state;
    int32_t buf[N + 1] = { 0 };
    assert_int_equal(tkh_add_i32(&f->ctx, buf, f->rhs, buf + 1, N, &f->report), TKH_ERR_OVERLAP);
    assert_non_null(strstr(f->report.message, "partially overlaps input 0 (lhs)"));
    for (int i = 0; i <= N; ++i)
        assert_int_equal(buf[i], 0);
}

static void wrong_arity(void **state)
{
    fixture *f = *state;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), "add", "i32");
    const void *inputs[1] = { f->lhs };
    assert_failed(f, tkh_kernel_run(&f->ctx, k, inputs, 1, f->out, N, &f->report), TKH_ERR_ARITY,
        "tkh_kernel_run: add_i32 takes 2 inputs, got 1");
}

static void unusable_device(void **state)
{
    fixture *f = *state;
    f->ctx.device.available = 0;
    assert_failed(f, tkh_add_i32(&f->ctx, f->lhs, f->rhs, f->out, N, &f->report), TKH_ERR_NO_DEVICE,
        "tkh_kernel_run: the context has no usable device");
}

static void kernel_not_built_for_device(void **state)
{
    fixture *f = *state;
    snprintf(f->ctx.device.arch, sizeof f->ctx.device.arch, "gfx000");
    assert_int_equal(tkh_add_i32(&f->ctx, f->lhs, f->rhs, f->out, N, &f->report),
        TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_non_null(strstr(f->report.message, "but the device is gfx000"));
    assert_non_null(strstr(f->report.message, tkh_registry_core()->kernels[0]->targets[0]));
    assert_out_untouched(f);
}

static void device_path_checks_alignment(void **state)
{
    fixture *f = *state;
    char *bytes = (char *)f->out;
    assert_int_equal(tkh_add_i32_device(&f->ctx, f->lhs, f->rhs, (int32_t *)(void *)(bytes + 2),
                         N - 1, NULL), TKH_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tkh_last_error(), "is not aligned to the element size (4 bytes)"));
    assert_int_equal(tkh_add_i32_device(&f->ctx, f->lhs, f->rhs, f->out, 0, NULL), TKH_ERR_EMPTY);
    assert_int_equal(tkh_add_i32_device(NULL, f->lhs, f->rhs, f->out, N, NULL), TKH_ERR_NULL_POINTER);
    assert_out_untouched(f);
}

static int have_device(void)
{
    tkh_device_report r;
    return tkh_device_query(0, &r) == TKH_OK;
}

/* Without a GPU the first runtime call fails: a runtime status, 'out' untouched. */
static void runtime_failure_without_device(void **state)
{
    fixture *f = *state;
    if (have_device())
        skip();
    tkh_status st = tkh_add_i32(&f->ctx, f->lhs, f->rhs, f->out, N, &f->report);
    assert_int_equal(st, TKH_ERR_RUNTIME);
    assert_non_null(strstr(f->report.message, "selecting device 0 failed: "));
    assert_out_untouched(f);
}

static void context_arguments(void **state)
{
    (void)state;
    tkh_context *ctx = (tkh_context *)&ctx;
    assert_int_equal(tkh_context_create(NULL, 0), TKH_ERR_NULL_POINTER);
    assert_int_equal(tkh_context_create(&ctx, -5), TKH_ERR_INVALID_ARGUMENT);
    assert_null(ctx);
    assert_string_equal(tkh_last_error(),
        "device index -5 is invalid: expected >= 0, or TKH_DEVICE_FROM_ENV (-1)");
    setenv("TOKITAI_HIP_DEVICE", "abc", 1);
    assert_int_equal(tkh_context_create(&ctx, TKH_DEVICE_FROM_ENV), TKH_ERR_INVALID_ARGUMENT);
    assert_string_equal(tkh_last_error(),
        "TOKITAI_HIP_DEVICE='abc' is invalid: expected a device index (0, 1, ...)");
    unsetenv("TOKITAI_HIP_DEVICE");
    assert_int_equal(tkh_context_create(&ctx, 100000), have_device() ? TKH_ERR_DEVICE_INDEX : TKH_ERR_NO_DEVICE);
    assert_null(ctx);
    tkh_context_destroy(NULL);
    assert_null(tkh_context_device(NULL));
    assert_int_equal(tkh_context_corrupt_next_output(NULL, 0, 0), TKH_ERR_NULL_POINTER);
}

static void no_device_is_reported_plainly(void **state)
{
    (void)state;
    if (have_device())
        skip();
    tkh_device_report r;
    assert_int_equal(tkh_device_query(TKH_DEVICE_FROM_ENV, &r), TKH_ERR_NO_DEVICE);
    assert_int_equal(r.available, 0);
    assert_int_equal(r.selected, -1);
    assert_non_null(strstr(r.reason, "GPU is usable"));
    assert_int_equal(tkh_device_query(0, NULL), TKH_ERR_NULL_POINTER);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(null_context), T(null_buffers), T(empty_input), T(size_overflow),
        T(partial_overlap_is_refused), T(wrong_arity), T(unusable_device),
        T(kernel_not_built_for_device), T(device_path_checks_alignment),
        T(runtime_failure_without_device), T(context_arguments),
        T(no_device_is_reported_plainly),
    };
    return cmocka_run_group_tests_name("entry_errors", tests, NULL, NULL);
}
