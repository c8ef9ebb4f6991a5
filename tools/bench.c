/* tokitai-hip bench: throughput of the device entry points (GPU events), per-call
 * overhead against the raw launcher, and the oracle-checked host path against a raw
 * round trip (two copies in, the kernel, a copy out) and against the same bytes moved by
 * pinned copies alone, all measured in one process; with --shape, the throughput of a
 * tensor call over device tensors. Medians of many repetitions after a warm-up; JSON on
 * stdout. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "tokitai_hip/codegen/hip_platform.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, 10th and 90th percentiles (nearest rank), in place. */
static void spread(double *v, int n, double out[3])
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    out[0] = v[n / 2];
    out[1] = v[n / 10];
    out[2] = v[(n * 9) / 10];
}

#define CHECK_OR(call, action)                                                             \
    do {                                                                                   \
        int err_ = (int)(call);                                                            \
        if (err_ != 0) {                                                                   \
            fprintf(stderr, "tokitai-hip: bench: %s failed: %s\n", #call,                  \
                hipGetErrorString((hipError_t)err_));                                      \
            action;                                                                        \
        }                                                                                  \
    } while (0)
#define CHECK(call) CHECK_OR(call, goto done)

/* Times 'reps' enqueues of kernel k after 3 warm-ups with GPU events: the tensor call
 * over 'tensors' when given, else the device entry point when grid is 0, else the raw
 * launcher at that grid. 'times' gets the median, 10th and 90th percentiles in seconds, and
 * 'enqueue' (unless NULL; then 'samples' holds 2 reps) those of the call's own time on the
 * host's clock (its host work: the device is idle under it where the call's first kernel
 * waits for it, as in every timing). Returns 0; 1 after a runtime failure (said on stderr);
 * 2 when the entry point failed (tkh_last_error says why). */
static int time_on_device(tkh_context *ctx, const tkh_kernel_info *k, const tkh_args *args,
    const tkh_tensor_args *tensors, size_t n, unsigned grid, hipEvent_t start, hipEvent_t stop,
    double *samples, int reps, double times[3], double enqueue[3])
{
    for (int r = -3; r < reps; ++r) {
        CHECK_OR(hipEventRecord(start, NULL), return 1);
        const double t0 = now();
        if (tensors != NULL) {
            if (tkh_tensor_call(ctx, k, tensors, NULL) != TKH_OK)
                return 2;
        } else if (grid == 0) {
            if (tkh_kernel_enqueue(ctx, k, args, n, NULL) != TKH_OK)
                return 2;
        } else {
            CHECK_OR(k->launch(args->inputs, args->outputs, args->scalars, n, grid, k->block, NULL, NULL), return 1);
        }
        const double host = now() - t0;
        CHECK_OR(hipEventRecord(stop, NULL), return 1);
        CHECK_OR(hipEventSynchronize(stop), return 1);
        float ms = 0;
        CHECK_OR(hipEventElapsedTime(&ms, start, stop), return 1);
        if (r >= 0)
            samples[r] = ms * 1e-3;
        if (r >= 0 && enqueue != NULL)
            samples[reps + r] = host;
    }
    spread(samples, reps, times);
    if (enqueue != NULL)
        spread(samples + reps, reps, enqueue);
    return 0;
}

/* Scalars: bytes 0x3F, normal values of every float width, ordinary integers (bool: 1). */
static void bench_scalars(const tkh_kernel_info *k, unsigned char (*bytes)[8], const void **scalars)
{
    for (unsigned j = 0; j < k->scalar_count; ++j) {
        memset(bytes[j], strcmp(k->scalars[j].type, "bool") == 0 ? 1 : 0x3F, 8);
        scalars[j] = bytes[j];
    }
}

/* One JSON object per (kernel, n). Returns 0 on success. */
int tkh_bench_case(tkh_context *ctx, const tkh_kernel_info *k, size_t n, int reps, int first)
{
    int rc = 1, timed = 0;  /* timed: what time_on_device returned */
    const size_t outputs = k->out_count ? k->out_count : n;
    size_t in_bytes[TKH_MAX_INPUTS] = { 0 }, out_bytes[TKH_MAX_OUTPUTS] = { 0 }, widest = 0;
    double bytes = 0; /* read and written by the kernel */
    for (unsigned a = 0; a < k->arity; ++a) {
        in_bytes[a] = n * k->inputs[a].size;
        widest = in_bytes[a] > widest ? in_bytes[a] : widest;
        bytes += (double)in_bytes[a];
    }
    for (unsigned o = 0; o < k->output_count; ++o) {
        out_bytes[o] = outputs * k->outputs[o].size;
        widest = out_bytes[o] > widest ? out_bytes[o] : widest;
        bytes += (double)out_bytes[o];
    }
    void *d_in[TKH_MAX_INPUTS] = { NULL }, *d_out[TKH_MAX_OUTPUTS] = { NULL }, *scratch = NULL, *d_copy = NULL;
    unsigned char *h_in[TKH_MAX_INPUTS] = { NULL }, *h_out[TKH_MAX_OUTPUTS] = { NULL };
    unsigned char scalar_bytes[TKH_MAX_SCALARS][8];
    const void *scalars[TKH_MAX_SCALARS];
    bench_scalars(k, scalar_bytes, scalars);
    double *samples = malloc(sizeof(double) * 3 * (size_t)reps); /* three series at most */
    hipEvent_t start = NULL, stop = NULL;
    void *pinned_in = NULL, *pinned_out = NULL;
    double device[3] = { 0 }, host[3] = { 0 }, raw_trip[3] = { 0 }, pinned[3] = { 0 };
    double api_call = 0, raw_call = 0, call_ratio = 0;
    unsigned grid = 0, block = k->block;
    if (samples == NULL)
        goto done;
    for (unsigned a = 0; a < k->arity; ++a) {
        /* Bytes 0x3F, 0x40, 0x41, ...: normal floats of every width (no slow subnormal
         * arithmetic in the oracle), ordinary integers; bool arrays hold 1. */
        const int fill = strcmp(k->inputs[a].type, "bool") == 0 ? 1 : 0x3F + (int)a;
        CHECK(hipMalloc(&d_in[a], in_bytes[a]));
        CHECK(hipMemset(d_in[a], fill, in_bytes[a]));
        if ((h_in[a] = malloc(in_bytes[a])) == NULL)
            goto done;
        memset(h_in[a], fill, in_bytes[a]);
    }
    for (unsigned o = 0; o < k->output_count; ++o) {
        CHECK(hipMalloc(&d_out[o], out_bytes[o]));
        if ((h_out[o] = malloc(out_bytes[o])) == NULL)
            goto done;
    }
    CHECK(hipMalloc(&d_copy, in_bytes[0]));
    CHECK(hipEventCreate(&start));
    CHECK(hipEventCreate(&stop));
    const tkh_args dev_args = { (const void *const *)d_in, k->arity, d_out, k->output_count, scalars,
        k->scalar_count };
    const tkh_args host_args = { (const void *const *)h_in, k->arity, (void *const *)h_out, k->output_count,
        scalars, k->scalar_count };

    /* Device entry point, timed on the GPU; then a device-to-device copy of the first
     * input's bytes, the bandwidth an elementwise kernel is held to (bytes read + written). */
    if ((timed = time_on_device(ctx, k, &dev_args, NULL, n, 0, start, stop, samples, reps, device, NULL)) != 0)
        goto fail_or_done;
    double copy[3] = { INFINITY, 0, 0 }; /* outputs of n elements: a reduction's is one */
    for (int r = -3; r < reps && k->out_count == 0; ++r) {
        CHECK(hipEventRecord(start, NULL));
        CHECK(hipMemcpyAsync(d_copy, d_in[0], in_bytes[0], hipMemcpyDeviceToDevice, NULL));
        CHECK(hipEventRecord(stop, NULL));
        CHECK(hipEventSynchronize(stop));
        float ms = 0;
        CHECK(hipEventElapsedTime(&ms, start, stop));
        if (r >= 0)
            samples[r] = ms * 1e-3;
    }
    if (k->out_count == 0)
        spread(samples, reps, copy);

    /* Per-call cost, pipelined: our device entry point against the raw launcher, in
     * rounds of back-to-back calls that alternate between the two (and which goes first),
     * so that drift in the host's or the GPU's speed falls on both; the medians of the
     * rounds, and the median of the rounds' ratios. */
    {
        tkh_report probe;
        if (tkh_kernel_call(ctx, k, &host_args, n, &probe) != TKH_OK)
            goto fail;
        grid = probe.launch_grid;
        if (k->scratch_size)
            CHECK(hipMalloc(&scratch, (size_t)grid * k->scratch_size));
        enum { rounds = 10, calls = 200 };
        double per[2][rounds], ratio[rounds];
        for (int round = 0; round < rounds; ++round) {
            for (int i = 0; i < 2; ++i) {
                const int raw = (round + i) % 2; /* 0: the entry point, 1: the raw launcher */
                CHECK(hipDeviceSynchronize());
                double t0 = now();
                for (int c = 0; c < calls; ++c) {
                    if (!raw) {
                        if (tkh_kernel_enqueue(ctx, k, &dev_args, n, NULL) != TKH_OK)
                            goto fail;
                    } else if (k->launch(dev_args.inputs, d_out, scalars, n, grid, block, scratch, NULL) != 0) {
                        goto fail;
                    }
                }
                CHECK(hipDeviceSynchronize());
                per[raw][round] = (now() - t0) / calls;
            }
            ratio[round] = per[0][round] / per[1][round];
        }
        double med[3];
        spread(per[0], rounds, med);
        api_call = med[0];
        spread(per[1], rounds, med);
        raw_call = med[0];
        spread(ratio, rounds, med);
        call_ratio = med[0];
    }

    /* Elementwise: the raw launcher at other grids (blocks per compute unit; the kernel's
     * grid-stride loop covers n at any grid), against the entry point's own shape. */
    char sweep[512] = "";
    if (k->scratch_size == 0) {
        static const unsigned per_unit[] = { 1, 2, 4, 8, 16, 32 };
        const unsigned units = (unsigned)tkh_context_device(ctx)->compute_units;
        size_t used = 0;
        for (size_t m = 0; m < sizeof per_unit / sizeof per_unit[0] && units > 0; ++m) {
            double med[3];
            if ((timed = time_on_device(ctx, k, &dev_args, NULL, n, units * per_unit[m], start,
                     stop, samples, reps, med, NULL)) != 0)
                goto fail_or_done;
            used += (size_t)snprintf(sweep + used, sizeof sweep - used, "%s{\"blocks_per_unit\": %u, \"tb_per_s\": %.6g}",
                m ? ", " : "", per_unit[m], bytes / med[0] * 1e-12);
        }
    }

    /* Host path (oracle-checked) against a raw round trip over pageable memory and against
     * the floor the host path is held to, the same bytes moved by pinned copies alone. The
     * three alternate within each repetition, so that they share the host's conditions
     * (its memory bandwidth is shared with other work). Every byte crosses PCIe twice:
     * few repetitions at large n keep a run short; small n, where the times are a few
     * microseconds and scatter, gets all of them. */
    const int cap = n >= ((size_t)1 << 24) ? 5 : n >= ((size_t)1 << 20) ? 20 : reps;
    const int host_reps = reps < cap ? reps : cap;
    double *host_s = samples, *raw_s = samples + reps, *pinned_s = samples + 2 * (size_t)reps;
    CHECK(hipHostMalloc(&pinned_in, widest, hipHostMallocDefault));
    CHECK(hipHostMalloc(&pinned_out, widest, hipHostMallocDefault));
    for (int r = -1; r < host_reps; ++r) {
        double t0 = now();
        if (tkh_kernel_call(ctx, k, &host_args, n, NULL) != TKH_OK)
            goto fail;
        double t1 = now();
        for (unsigned a = 0; a < k->arity; ++a)
            CHECK(hipMemcpy(d_in[a], h_in[a], in_bytes[a], hipMemcpyHostToDevice));
        CHECK(k->launch(dev_args.inputs, d_out, scalars, n, grid, block, scratch, NULL));
        for (unsigned o = 0; o < k->output_count; ++o)
            CHECK(hipMemcpy(h_out[o], d_out[o], out_bytes[o], hipMemcpyDeviceToHost));
        double t2 = now();
        for (unsigned a = 0; a < k->arity; ++a)
            CHECK(hipMemcpy(d_in[a], pinned_in, in_bytes[a], hipMemcpyHostToDevice));
        for (unsigned o = 0; o < k->output_count; ++o)
            CHECK(hipMemcpy(pinned_out, d_out[o], out_bytes[o], hipMemcpyDeviceToHost));
        double t3 = now();
        if (r >= 0) {
            host_s[r] = t1 - t0;
            raw_s[r] = t2 - t1;
            pinned_s[r] = t3 - t2;
        }
    }
    spread(host_s, host_reps, host);
    spread(raw_s, host_reps, raw_trip);
    spread(pinned_s, host_reps, pinned);

    printf("%s  {\"op\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"bytes\": %.0f, \"reps\": %d,\n"
           "   \"device_seconds\": {\"median\": %.9g, \"p10\": %.9g, \"p90\": %.9g},"
           " \"device_tb_per_s\": %.6g, \"copy_tb_per_s\": %.6g,\n"
           "   \"call_seconds\": {\"entry_point\": %.9g, \"raw_launch\": %.9g, \"ratio\": %.4g},\n"
           "   \"host_path_seconds\": {\"median\": %.9g, \"p10\": %.9g, \"p90\": %.9g},\n"
           "   \"raw_round_trip_seconds\": {\"median\": %.9g, \"p10\": %.9g, \"p90\": %.9g},"
           " \"host_path_ratio\": %.4g,\n"
           "   \"pinned_transfer_seconds\": {\"median\": %.9g, \"p10\": %.9g, \"p90\": %.9g},"
           " \"host_path_over_pinned\": %.4g,\n"
           "   \"grid_sweep\": [%s]}",
        first ? "" : ",\n", k->op, k->type, n, bytes, reps, device[0], device[1], device[2],
        bytes / device[0] * 1e-12, 2.0 * (double)in_bytes[0] / copy[0] * 1e-12, api_call, raw_call, call_ratio, host[0], host[1], host[2],
        raw_trip[0], raw_trip[1], raw_trip[2], host[0] / raw_trip[0], pinned[0], pinned[1],
        pinned[2], host[0] / pinned[0], sweep);
    fflush(stdout);
    rc = 0;
    goto done;
fail_or_done:
    if (timed == 1)
        goto done;
fail:
    fprintf(stderr, "tokitai-hip: bench %s_%s n=%zu: %s\n", k->op, k->type, n, tkh_last_error());
done:
    for (unsigned a = 0; a < TKH_MAX_INPUTS; ++a) {
        hipFree(d_in[a]);
        free(h_in[a]);
    }
    for (unsigned o = 0; o < TKH_MAX_OUTPUTS; ++o) {
        hipFree(d_out[o]);
        free(h_out[o]);
    }
    hipFree(d_copy);
    hipFree(scratch);
    if (pinned_in)
        hipHostFree(pinned_in);
    if (pinned_out)
        hipHostFree(pinned_out);
    free(samples);
    if (start)
        hipEventDestroy(start);
    if (stop)
        hipEventDestroy(stop);
    return rc;
}

/* Appends to the string in buf, truncating at its size. */
static void append(char *buf, size_t size, const char *fmt, ...)
{
    const size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (used + 1 < size)
        vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* One JSON object per tensor case: t's shapes and layouts on the device, the inputs
 * copied from t's host tensors. */
int tkh_bench_tensor_case(tkh_context *ctx, const tkh_kernel_info *k, const tool_tensors *t,
    const tkh_oracle_policy *check, int reps, int first)
{
    int rc = 1, timed = 0;
    const tkh_device_report *d = tkh_context_device(ctx);
#ifdef TKH_PLATFORM_NVIDIA
    const DLDevice where = { kDLCUDA, d->selected };
#else
    const DLDevice where = { kDLROCM, d->selected };
#endif
    DLTensor dev[TKH_MAX_ARRAYS];
    const DLTensor *in[TKH_MAX_INPUTS] = { NULL }, *out[TKH_MAX_OUTPUTS] = { NULL };
    memset(dev, 0, sizeof dev);
    unsigned char scalar_bytes[TKH_MAX_SCALARS][8];
    const void *scalars[TKH_MAX_SCALARS];
    bench_scalars(k, scalar_bytes, scalars);
    double *samples = malloc(sizeof(double) * 2 * (size_t)reps), device[3] = { 0 }, enqueue[3] = { 0 };
    hipEvent_t start = NULL, stop = NULL;
    const tkh_oracle_policy off = { TKH_ORACLE_OFF, 0, 0 };
    /* Bytes moved: each input's own elements read once, plus the outputs written once (a
     * broadcast row [C] counts its C elements, not the output's R x C; a transposed input
     * all of its elements): what the kernel must move at least, as scripts/bench_tensor.py
     * counts them. Every tool tensor is dense, so that is its buffer's size. */
    double bytes = 0;
    if (samples == NULL)
        goto done;
    for (unsigned a = 0; a < t->arrays; ++a) {
        dev[a] = t->t[a];
        dev[a].data = NULL;
        dev[a].device = where;
        CHECK(hipMalloc(&dev[a].data, t->bytes[a] ? t->bytes[a] : 1));
        if (a < k->arity)
            CHECK(hipMemcpy(dev[a].data, t->t[a].data, t->bytes[a], hipMemcpyHostToDevice));
        *(a < k->arity ? &in[a] : &out[a - k->arity]) = &dev[a];
        bytes += (double)t->bytes[a];
    }
    const tkh_tensor_args args = { in, k->arity, out, k->output_count, scalars, k->scalar_count,
        t->axis_count ? t->axes : NULL, t->axis_count, t->keepdims, NULL };
    /* One call checked by the oracle first (under --oracle, through the device path's own
     * check), so that what is timed is known to be right; then the timed calls, unchecked. */
    if (check->mode != TKH_ORACLE_OFF && (tkh_context_set_device_oracle(ctx, check) != TKH_OK
            || tkh_tensor_call(ctx, k, &args, NULL) != TKH_OK || tkh_context_set_device_oracle(ctx, &off) != TKH_OK))
        goto fail;
    CHECK(hipEventCreate(&start));
    CHECK(hipEventCreate(&stop));
    if ((timed = time_on_device(ctx, k, NULL, &args, 0, 0, start, stop, samples, reps, device, enqueue)) != 0)
        goto fail_or_done;
    /* Then, warm, the fastest of 3 checked calls on the host's clock (enqueue, the device
     * oracle's check, its verdict): beside the device time, what the check costs. */
    double checked = 0;
    for (int r = 0; r < 3 && check->mode != TKH_ORACLE_OFF; ++r) {
        CHECK(hipDeviceSynchronize());
        const double t0 = now();
        if (tkh_context_set_device_oracle(ctx, check) != TKH_OK || tkh_tensor_call(ctx, k, &args, NULL) != TKH_OK
            || tkh_context_set_device_oracle(ctx, &off) != TKH_OK)
            goto fail;
        CHECK(hipDeviceSynchronize());
        const double took = now() - t0;
        checked = r == 0 || took < checked ? took : checked;
    }

    const int axial = k->shape_kind == TKH_SHAPE_REDUCTION || k->shape_kind == TKH_SHAPE_NORMALIZATION;
    char shapes[4096] = "", dims[512], transposed[64] = "", axes[128] = "null", out_shape[512] = "";
    for (unsigned i = 0; i < k->arity; ++i) {
        append(shapes, sizeof shapes, i ? ", " : "");
        append(shapes, sizeof shapes, "%s", tool_format_dims(dims, sizeof dims, t->t[i].ndim, t->shape[i]));
        if ((t->transposed >> i) & 1)
            append(transposed, sizeof transposed, "%s%u", transposed[0] ? ", " : "", i);
    }
    if (axial) { /* as non-negative indices; none given (a reduction): every axis */
        const int ndim = t->t[0].ndim;
        snprintf(axes, sizeof axes, "[");
        for (unsigned j = 0; j < (t->axis_count ? t->axis_count : (unsigned)ndim); ++j)
            append(axes, sizeof axes, "%s%" PRId64, j ? ", " : "",
                t->axis_count == 0 ? (int64_t)j : t->axes[j] < 0 ? t->axes[j] + ndim : t->axes[j]);
        append(axes, sizeof axes, "]");
    }
    tool_format_dims(out_shape, sizeof out_shape, t->t[k->arity].ndim, t->shape[k->arity]);
    /* a matrix product's operations: a multiply and an add per term, k terms an output */
    double ops = 0;
    if (k->check_product != NULL) {
        ops = 2.0 * (double)t->shape[0][t->t[0].ndim - 1];
        for (int j = 0; j < t->t[k->arity].ndim; ++j)
            ops *= (double)t->shape[k->arity][j];
    }
    printf("%s  {\"op\": \"%s\", \"type\": \"%s\", \"shapes\": [%s], \"transpose\": [%s], \"axes\": %s,"
           " \"keepdims\": %s,\n   \"output_shape\": %s, \"bytes\": %.0f, \"reps\": %d,\n"
           "   \"device_seconds\": {\"median\": %.9g, \"p10\": %.9g, \"p90\": %.9g}, \"device_tb_per_s\": %.6g",
        first ? "" : ",\n", k->op, k->type, shapes, transposed, axes, axial && t->keepdims ? "true" : "false",
        out_shape, bytes, reps, device[0], device[1], device[2], bytes / device[0] * 1e-12);
    printf(",\n   \"enqueue_seconds\": {\"median\": %.9g, \"p10\": %.9g, \"p90\": %.9g}", enqueue[0], enqueue[1],
        enqueue[2]);
    if (ops > 0)
        printf(", \"operations\": %.0f, \"device_tops_per_s\": %.6g", ops, ops / device[0] * 1e-12);
    if (checked > 0)
        printf(", \"checked_call_seconds\": %.9g", checked);
    printf("}");
    fflush(stdout);
    rc = 0;
    goto done;
fail_or_done:
    if (timed == 1)
        goto done;
fail:
    fprintf(stderr, "tokitai-hip: bench %s_%s over tensors: %s\n", k->op, k->type, tkh_last_error());
done:
    tkh_context_set_device_oracle(ctx, &off); /* after a failed check too (and after its message) */
    for (unsigned a = 0; a < TKH_MAX_ARRAYS; ++a)
        hipFree(dev[a].data);
    free(samples);
    if (start)
        hipEventDestroy(start);
    if (stop)
        hipEventDestroy(stop);
    return rc;
}
