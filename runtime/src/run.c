/* The generic entry points: the oracle-checked host path and the device path. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "tokitai_hip/hip_platform.h"

#define TKHI_MAX_INPUTS 3
#define TKHI_BLOCKS_PER_UNIT 32u   /* reductions: partials per compute unit */
#define TKHI_MAX_GRID ((1u << 24) - 1) /* x 256 threads stays below HIP's 2^32 work-items */

static const char *const input_names[TKHI_MAX_INPUTS] = { "input 0 (lhs)", "input 1 (rhs)", "input 2" };

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void evidence(tkh_report *r, const char *fmt, ...) TKHI_PRINTF(2, 3);
static void evidence(tkh_report *r, const char *fmt, ...)
{
    if (r == NULL || r->evidence_count >= TKH_REPORT_MAX_EVIDENCE)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->evidence[r->evidence_count++], sizeof r->evidence[0], fmt, ap);
    va_end(ap);
}

/* [a, a+alen) and [b, b+blen) share bytes but do not start at the same address. */
static int partial_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x != y && x < y + blen && y < x + alen;
}

typedef struct sizes {
    size_t in;   /* bytes of each input */
    size_t out;  /* bytes of the output */
} sizes;

/* Checks shared by both paths; on success *bytes holds the buffer sizes. */
static tkh_status check_args(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, const void *out, size_t n, sizes *bytes)
{
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    if (kernel == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: kernel is NULL", fn);
    if (inputs == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: inputs is NULL", fn);
    if (input_count != kernel->arity || input_count > TKHI_MAX_INPUTS)
        return tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s takes %u inputs, got %u", fn, kernel->op,
            kernel->type, kernel->arity, input_count);
    for (unsigned i = 0; i < input_count; ++i)
        if (inputs[i] == NULL)
            return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, input_names[i]);
    if (out == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: out is NULL", fn);
    if (n == 0)
        return tkhi_fail(TKH_ERR_EMPTY, "%s: n is 0: expected at least one element", fn);
    if (n > SIZE_MAX / kernel->elem_size)
        return tkhi_fail(TKH_ERR_SIZE_OVERFLOW,
            "%s: n = %zu elements of %zu bytes overflows size_t (at most %zu elements)", fn, n,
            kernel->elem_size, SIZE_MAX / kernel->elem_size);
    bytes->in = n * kernel->elem_size;
    bytes->out = (kernel->out_count ? kernel->out_count : n) * kernel->elem_size;
    for (unsigned i = 0; i < input_count; ++i)
        if (partial_overlap(inputs[i], bytes->in, out, bytes->out))
            return tkhi_fail(TKH_ERR_OVERLAP,
                "%s: out [%p, +%zu bytes) partially overlaps %s at %p: expected the same "
                "address or disjoint buffers", fn, out, bytes->out, input_names[i], inputs[i]);
    if (!ctx->device.available)
        return tkhi_fail(TKH_ERR_NO_DEVICE, "%s: the context has no usable device", fn);
    return tkh_kernel_admit(kernel, ctx->device.arch);
}

/* Elementwise kernels get a block per block-sized slice, as many as the hardware takes
 * (the grid-stride loop covers the rest); reductions a few blocks per compute unit, each
 * folding a long slice, so there are few partials. */
static void launch_shape(const tkh_context *ctx, const tkh_kernel_info *kernel, size_t n,
    unsigned *grid, unsigned *block)
{
    const size_t per_block = (size_t)kernel->block * (kernel->vector_width ? kernel->vector_width : 1);
    size_t blocks = (n + per_block - 1) / per_block;
    size_t cap = kernel->scratch_size == 0 ? TKHI_MAX_GRID
        : (size_t)(ctx->device.compute_units > 0 ? ctx->device.compute_units : 1) * TKHI_BLOCKS_PER_UNIT;
    *grid = (unsigned)(blocks < cap ? blocks : cap);
    *block = kernel->block;
}

static tkh_status launch(const tkh_kernel_info *kernel, const void *const *inputs, void *out,
    size_t n, unsigned grid, unsigned block, void *scratch, void *stream)
{
    int err = kernel->launch(inputs, out, n, grid, block, scratch, stream);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_LAUNCH, err, "launching %s (grid %u, block %u, n %zu) failed",
            kernel->symbol, grid, block, n);
    return TKH_OK;
}

tkh_status tkh_kernel_launch(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_stream stream)
{
    tkhi_clear_error();
    sizes bytes;
    tkh_status st = check_args("tkh_kernel_launch", ctx, kernel, inputs, input_count, out, n, &bytes);
    if (st != TKH_OK)
        return st;
    for (unsigned i = 0; i <= input_count; ++i) {
        const void *p = i < input_count ? inputs[i] : out;
        if ((uintptr_t)p % kernel->elem_size != 0)
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
                "tkh_kernel_launch: %s %p is not aligned to the element size (%zu bytes)",
                i < input_count ? input_names[i] : "out", p, kernel->elem_size);
    }
    hipError_t err = hipSetDevice(ctx->device.selected);
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, (int)err, "selecting device %d failed",
            ctx->device.selected);
    unsigned grid, block;
    launch_shape(ctx, kernel, n, &grid, &block);
    if (kernel->scratch_size == 0)
        return launch(kernel, inputs, out, n, grid, block, NULL, stream);
    /* A reduction's partials live only as long as its kernels: wait for them, then free. */
    void *scratch = NULL;
    err = hipMalloc(&scratch, (size_t)grid * kernel->scratch_size);
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_DEVICE_ALLOC, (int)err,
            "allocating %zu bytes of partials on device %d failed",
            (size_t)grid * kernel->scratch_size, ctx->device.selected);
    st = launch(kernel, inputs, out, n, grid, block, scratch, stream);
    err = hipStreamSynchronize((hipStream_t)stream);
    hipFree(scratch);
    if (st == TKH_OK && err != hipSuccess)
        st = tkhi_fail_runtime(TKH_ERR_SYNC, (int)err, "running %s on device %d failed",
            kernel->symbol, ctx->device.selected);
    return st;
}

/* Test hook: flip one bit of one output element on the device. */
static tkh_status corrupt_output(tkh_context *ctx, const tkh_kernel_info *kernel, void *d_out,
    size_t n, tkh_report *r)
{
    size_t index = ctx->corrupt_index;
    ctx->corrupt_index = SIZE_MAX;
    if (index >= n)
        return TKH_OK;
    unsigned char element[8] = { 0 };
    unsigned bit = ctx->corrupt_bit % (unsigned)(kernel->elem_size * 8);
    unsigned char *d = (unsigned char *)d_out + index * kernel->elem_size;
    hipError_t err = hipMemcpy(element, d, kernel->elem_size, hipMemcpyDeviceToHost);
    element[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    if (err == hipSuccess)
        err = hipMemcpy(d, element, kernel->elem_size, hipMemcpyHostToDevice);
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_COPY, (int)err, "corrupting output element %zu failed", index);
    evidence(r, "test hook: flipped bit %u of output element %zu on the device", bit, index);
    return TKH_OK;
}

typedef struct device_buffers {
    void *in[TKHI_MAX_INPUTS];
    void *out;
    void *scratch;
} device_buffers;

static void free_buffers(device_buffers *b)
{
    void *all[] = { b->in[0], b->in[1], b->in[2], b->out, b->scratch };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (all[i] != NULL)
            hipFree(all[i]);
}

static tkh_status device_alloc(void **slot, size_t bytes, const char *what, int dev)
{
    hipError_t err = hipMalloc(slot, bytes);
    if (err == hipSuccess)
        return TKH_OK;
    *slot = NULL;
    return tkhi_fail_runtime(TKH_ERR_DEVICE_ALLOC, (int)err,
        "allocating %zu bytes for %s on device %d failed", bytes, what, dev);
}

/* Everything between admission and the copy back; 'host_out' receives the result. */
static tkh_status run_on_device(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, void *host_out, size_t n, sizes bytes, unsigned grid,
    unsigned block, device_buffers *b, tkh_report *r)
{
    const int dev = ctx->device.selected;
    hipError_t err = hipSetDevice(dev);
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, (int)err, "selecting device %d failed", dev);
    tkh_status st = TKH_OK;
    for (unsigned i = 0; i < kernel->arity && st == TKH_OK; ++i)
        st = device_alloc(&b->in[i], bytes.in, input_names[i], dev);
    if (st == TKH_OK)
        st = device_alloc(&b->out, bytes.out, "out", dev);
    if (st == TKH_OK && kernel->scratch_size > 0)
        st = device_alloc(&b->scratch, (size_t)grid * kernel->scratch_size, "partials", dev);
    if (st != TKH_OK)
        return st;
    evidence(r, "allocated %u device buffers of %zu bytes and an output of %zu bytes on device %d (%s)",
        kernel->arity, bytes.in, bytes.out, dev, ctx->device.arch);
    for (unsigned i = 0; i < kernel->arity; ++i) {
        err = hipMemcpy(b->in[i], inputs[i], bytes.in, hipMemcpyHostToDevice);
        if (err != hipSuccess)
            return tkhi_fail_runtime(TKH_ERR_COPY, (int)err, "copying %s to device %d failed",
                input_names[i], dev);
    }
    evidence(r, "copied %u input%s host to device", kernel->arity, kernel->arity == 1 ? "" : "s");
    if (r != NULL) {
        r->launch_grid = grid;
        r->launch_block = block;
    }
    const void *d_inputs[TKHI_MAX_INPUTS] = { b->in[0], b->in[1], b->in[2] };
    st = launch(kernel, d_inputs, b->out, n, grid, block, b->scratch, NULL);
    if (st != TKH_OK)
        return st;
    err = hipDeviceSynchronize();
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_SYNC, (int)err, "running %s on device %d failed",
            kernel->symbol, dev);
    evidence(r, "ran %s with grid %u x block %u and synchronized", kernel->symbol, grid, block);
    st = corrupt_output(ctx, kernel, b->out, bytes.out / kernel->elem_size, r);
    if (st != TKH_OK)
        return st;
    err = hipMemcpy(host_out, b->out, bytes.out, hipMemcpyDeviceToHost);
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_COPY, (int)err, "copying out from device %d failed", dev);
    evidence(r, "copied the output device to host");
    return TKH_OK;
}

/* grid and block are the shape the kernel ran with: a float sum's bound depends on it. */
static tkh_status compare_with_oracle(const tkh_kernel_info *kernel, const void *const *inputs,
    const void *result, size_t n, unsigned grid, unsigned block, tkh_report *r)
{
    char detail[256] = "";
    size_t bad = kernel->check(inputs, result, n, grid, block, detail, sizeof detail);
    if (r != NULL) {
        r->oracle_checked = 1;
        r->oracle_matches = bad == n;
        r->first_mismatch = bad;
    }
    const size_t outputs = kernel->out_count ? kernel->out_count : n;
    if (bad != n) {
        evidence(r, "compared %zu outputs with the CPU oracle: output %zu differs", outputs, bad);
        return tkhi_fail(TKH_ERR_ORACLE_MISMATCH, "%s_%s: element %zu of %zu differs from the CPU oracle: %s",
            kernel->op, kernel->type, bad, outputs, detail);
    }
    evidence(r, "compared all %zu outputs (from %zu inputs) with the CPU oracle, %s: all agree",
        outputs, n, kernel->comparison);
    return TKH_OK;
}

static void begin_report(tkh_report *r, const tkh_context *ctx, const tkh_kernel_info *kernel,
    size_t n)
{
    if (r == NULL)
        return;
    memset(r, 0, sizeof *r);
    r->kernel = kernel;
    r->len = n;
    r->first_mismatch = n;
    if (ctx != NULL)
        r->device = ctx->device;
}

static tkh_status end_report(tkh_report *r, tkh_status st, double start)
{
    if (r != NULL) {
        r->status = st;
        r->seconds = now_seconds() - start;
        tkhi_copy(r->message, sizeof r->message, st == TKH_OK ? "" : tkh_last_error());
    }
    return st;
}

tkh_status tkh_kernel_run(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_report *report)
{
    const double start = now_seconds();
    tkhi_clear_error();
    begin_report(report, ctx, kernel, n);
    sizes bytes;
    tkh_status st = check_args("tkh_kernel_run", ctx, kernel, inputs, input_count, out, n, &bytes);
    if (st != TKH_OK)
        return end_report(report, st, start);
    evidence(report, "admitted: %s_%s is built for %s", kernel->op, kernel->type, ctx->device.arch);

    /* When out is also an input, the inputs must outlive the comparison: stage the
     * result. Otherwise it lands in out directly and is checked there. */
    int aliased = 0;
    for (unsigned i = 0; i < input_count; ++i)
        aliased |= inputs[i] == out;
    void *result = out;
    if (aliased && (result = malloc(bytes.out)) == NULL)
        return end_report(report, tkhi_fail(TKH_ERR_HOST_ALLOC,
            "tkh_kernel_run: allocating %zu bytes to stage an in-place result failed", bytes.out), start);

    unsigned grid, block;
    launch_shape(ctx, kernel, n, &grid, &block);
    device_buffers buffers = { { NULL, NULL, NULL }, NULL, NULL };
    st = run_on_device(ctx, kernel, inputs, result, n, bytes, grid, block, &buffers, report);
    free_buffers(&buffers);
    if (st == TKH_OK)
        st = compare_with_oracle(kernel, inputs, result, n, grid, block, report);
    if (aliased) {
        if (st == TKH_OK || st == TKH_ERR_ORACLE_MISMATCH)
            memcpy(out, result, bytes.out);
        free(result);
    }
    return end_report(report, st, start);
}
