/* The host work of one call, on the fake HIP runtime with a kernel that does nothing:
 * a [32, 32] + [32] device tensor call (the plan kernel) and the flat tkh_kernel_enqueue
 * of 1024 elements, in ns per call, the median of 7 runs of 200000 calls each. Not a
 * test: nothing asserts a time (docs/performance.md quotes it, before and after a change).
 *   fake_host_cost */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tokitai_hip/tokitai_hip.h"

static int no_launch(const void *const *in, void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)in, (void)out, (void)scalars, (void)n, (void)grid, (void)block, (void)scratch, (void)stream;
    return 0;
}

static int no_launch_plan(const void *const *in, void *const *out, const void *const *scalars,
    const tkh_plan *p, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)in, (void)out, (void)scalars, (void)p, (void)grid, (void)block, (void)scratch, (void)stream;
    return 0;
}

static size_t no_check(const void *const *in, const void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)in, (void)out, (void)scalars, (void)grid, (void)block, (void)note;
    return n;
}

static const char *const targets[] = { "gfx90a", NULL };
static const char *const none[] = { NULL };
static const tkh_operand f32s[] = { { "lhs", "f32", 4, NULL, 0, 0, NULL }, { "rhs", "f32", 4, NULL, 0, 0, NULL } };
static const tkh_operand out_f32[] = { { "out", "f32", 4, "exact", 0, 0, NULL } };
static const tkh_kernel_info add = {
    .catalog = "fake", .op = "add", .type = "f32", .signature = "f32 lhs, f32 rhs -> f32 out",
    .symbol = "fake_add", .shape = "elementwise",
#ifdef TKH_SHAPE_KINDS
    .shape_kind = TKH_SHAPE_ELEMENTWISE,
#endif
    .arity = 2, .inputs = f32s, .output_count = 1, .outputs = out_f32, .block = 256, .vector_width = 4,
    .domain = "float", .representation = "dense", .semantics = "lhs + rhs", .compare_rule = "exact",
    .comparison = "exact", .platform = "amd", .targets = targets, .source_fingerprint = "", .compiler = "",
    .compiler_fingerprint = "", .build_fingerprint = "", .build_command = "", .obligations = none,
    .required_evidence = none, .degradations = none, .non_claims = none, .launch = no_launch,
    .check = no_check, .launch_plan = no_launch_plan,
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { RUNS = 7, CALLS = 200000 };

int main(void)
{
    tkh_context *ctx = NULL;
    if (tkh_context_create(&ctx, 0) != TKH_OK) {
        fprintf(stderr, "fake_host_cost: %s\n", tkh_last_error());
        return 1;
    }
    static float a[1024], b[32], out[1024];
    int64_t shape_a[2] = { 32, 32 }, shape_b[1] = { 32 };
    const DLDevice dev = { kDLROCM, 0 };
    DLTensor ta = { a, dev, 2, { kDLFloat, 32, 1 }, shape_a, NULL, 0 };
    DLTensor tb = { b, dev, 1, { kDLFloat, 32, 1 }, shape_b, NULL, 0 };
    DLTensor to = { out, dev, 2, { kDLFloat, 32, 1 }, shape_a, NULL, 0 };
    const DLTensor *in[2] = { &ta, &tb }, *outs[1] = { &to };
    const tkh_tensor_args targs = { in, 2, outs, 1, NULL, 0, NULL, 0, 0, NULL };
    const void *flat_in[2] = { a, a };
    void *flat_out[1] = { out };
    const tkh_args fargs = { flat_in, 2, flat_out, 1, NULL, 0 };
    double tensor[RUNS], flat[RUNS];
    for (int r = 0; r < RUNS; ++r) {
        double t0 = now();
        for (int i = 0; i < CALLS; ++i)
            if (tkh_tensor_call(ctx, &add, &targs, NULL) != TKH_OK) {
                fprintf(stderr, "fake_host_cost: %s\n", tkh_last_error());
                return 1;
            }
        tensor[r] = (now() - t0) / CALLS * 1e9;
        t0 = now();
        for (int i = 0; i < CALLS; ++i)
            if (tkh_kernel_enqueue(ctx, &add, &fargs, 1024, NULL) != TKH_OK) {
                fprintf(stderr, "fake_host_cost: %s\n", tkh_last_error());
                return 1;
            }
        flat[r] = (now() - t0) / CALLS * 1e9;
    }
    qsort(tensor, RUNS, sizeof tensor[0], by_value);
    qsort(flat, RUNS, sizeof flat[0], by_value);
    printf("host work per call (fake runtime, kernel doing nothing), median of %d x %d calls:\n", RUNS, CALLS);
    printf("  tkh_tensor_call [32, 32] + [32] on the device: %.0f ns\n", tensor[RUNS / 2]);
    printf("  tkh_kernel_enqueue of 1024 elements:           %.0f ns\n", flat[RUNS / 2]);
    tkh_context_destroy(ctx);
    return 0;
}
