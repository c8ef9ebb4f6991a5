/* Tensor calls without a GPU: the runtime's own sources on the fake HIP runtime
 * (tests/fake), with the test's kernels on the host walking the plan their own way.
 * Broadcasting, strides (transposed, gapped, negative, zero) and axis reductions are
 * compared with a plain loop over the tensors' multi-indices, on random cases from a
 * printed seed (TKH_TEST_SEED replays one); hand-worked cases; every bad input with its
 * status; the oracle naming a multi-index; the device path with its oracle. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_hip.h"
#include "fake_i32_sum.h"
#include "random_strides.h"
#include "platform/platform.h" /* tkhi_splitmix64, the context's chunk size */
#include "tokitai_hip/context.h"
#include "tokitai_hip/tensor.h"
#include "../evidence.h"

static const char *const targets[] = { "gfx90a", NULL };
static const char *const none[] = { NULL };

static int host_add(const void *const *in, void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    for (size_t i = 0; i < n; ++i)
        ((int32_t *)out[0])[i] = wrap_add(((const int32_t *)in[0])[i], ((const int32_t *)in[1])[i]);
    return 0;
}

static int host_add_plan(const void *const *in, void *const *out, const void *const *scalars,
    const tkh_plan *p, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    for (int64_t i = 0; i < p->count; ++i) {
        int64_t off[3] = { 0, 0, 0 };
        plan_offsets(p, 0, p->ndim, i, 3, off);
        ((int32_t *)out[0])[off[2]] = wrap_add(((const int32_t *)in[0])[off[0]], ((const int32_t *)in[1])[off[1]]);
    }
    return 0;
}

static size_t check_add(const void *const *in, const void *const *out, const void *const *scalars,
    size_t n, unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)scalars, (void)grid, (void)block;
    const int32_t *a = in[0], *b = in[1], *o = out[0];
    for (size_t i = 0; i < n; ++i)
        if (o[i] != wrap_add(a[i], b[i])) {
            snprintf(note->detail, sizeof note->detail, "got %d, expected %d = add(%d, %d)", (int)o[i],
                (int)wrap_add(a[i], b[i]), (int)a[i], (int)b[i]);
            return i;
        }
    return n;
}

static const tkh_operand i32s[] = { { "lhs", "i32", 4, NULL, 0 }, { "rhs", "i32", 4, NULL, 0 } };
static const tkh_operand out_i32[] = { { "out", "i32", 4, "exact", 0 } };

/* The shapes by the names the KERNEL macro takes. */
#define SHAPE_elementwise TKH_SHAPE_ELEMENTWISE
#define SHAPE_reduction TKH_SHAPE_REDUCTION
#define SHAPE_normalization TKH_SHAPE_NORMALIZATION
#define KERNEL(name, shape_, arity_, out_count_, scratch_, launch_, check_, plan_)                  \
    .catalog = "fake", .op = name, .type = "i32", .symbol = "fake_" name, .shape = #shape_, .shape_kind = SHAPE_##shape_,          \
    .signature = "i32 lhs, i32 rhs -> i32 out", .arity = arity_, .inputs = i32s,                   \
    .output_count = 1, .outputs = out_i32, .out_count = out_count_, .scratch_size = scratch_,       \
    .block = 256, .vector_width = 4, .domain = "integer", .representation = "dense",                \
    .semantics = name, .compare_rule = "exact", .comparison = "exact", .platform = "amd",           \
    .targets = targets, .source_fingerprint = "", .compiler = "", .compiler_fingerprint = "",      \
    .build_fingerprint = "", .build_command = "", .obligations = none, .required_evidence = none,   \
    .degradations = none, .non_claims = none, .launch = launch_, .check = check_, .launch_plan = plan_

static const tkh_kernel_info add = { KERNEL("add", elementwise, 2, 0, 0, host_add, check_add, host_add_plan) };
static const tkh_kernel_info sum = { KERNEL("sum", reduction, 1, 1, 8, host_sum, check_sum, host_sum_plan),
    .fold = fold_sum, .finish = finish_sum, .has_identity = 1 };
/* The same fold declared without an identity (as amax is): zero elements refused. */
static const tkh_kernel_info sum_start = { KERNEL("sum_start", reduction, 1, 1, 8, host_sum, check_sum,
    host_sum_plan), .fold = fold_sum, .finish = finish_sum };
/* A normalization: out = (x - the row's sum) * w, w a column (1 when not given); as a post
 * step ("rowsum"), the row's sum. Integers wrap, so the check is exact. */
static int32_t row_sum(const int32_t *x, size_t n)
{
    int32_t s = 0;
    for (size_t i = 0; i < n; ++i)
        s = wrap_add(s, x[i]);
    return s;
}

static int host_center_plan(const void *const *in, void *const *out, const void *const *scalars,
    const tkh_plan *p, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    const int32_t *x = in[0], *w = in[1];
    int32_t *o = out[0];
    for (int64_t row = 0; row < p->count; ++row) {
        int64_t at[3] = { 0, 0, 0 };
        plan_offsets(p, 1, p->ndim, row, 3, at);
        int32_t s = 0;
        for (int64_t r = 0; r < p->reduce_count; ++r)
            s = wrap_add(s, x[at[0] + r * p->stride[0][0]]);
        for (int64_t r = 0; r < p->reduce_count; ++r)
            o[at[2] + r * p->stride[2][0]] = (int32_t)((uint32_t)wrap_add(x[at[0] + r * p->stride[0][0]], -s)
                * (uint32_t)(w ? w[at[1] + r * p->stride[1][0]] : 1));
    }
    return 0;
}

static int host_rowsum_plan(const void *const *in, void *const *out, const void *const *scalars,
    const tkh_plan *p, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    for (int64_t row = 0; row < p->count; ++row) {
        int64_t at[2] = { 0, 0 };
        plan_offsets(p, 1, p->ndim, row, 2, at);
        int32_t s = 0;
        for (int64_t r = 0; r < p->reduce_count; ++r)
            s = wrap_add(s, ((const int32_t *)in[0])[at[0] + r * p->stride[0][0]]);
        ((int32_t *)out[0])[at[1]] = s;
    }
    return 0;
}

static size_t check_center_row(const void *const *in, const void *output, const void *const *scalars,
    size_t n, int64_t depth, tkh_check_note *note)
{
    (void)scalars, (void)depth;
    const int32_t *x = in[0], *w = in[1], *o = output;
    const int32_t s = row_sum(x, n);
    for (size_t i = 0; i < n; ++i) {
        const int32_t want = (int32_t)((uint32_t)wrap_add(x[i], -s) * (uint32_t)(w ? w[i] : 1));
        if (o[i] != want) {
            snprintf(note->detail, sizeof note->detail, "got %d, expected %d", (int)o[i], (int)want);
            return i;
        }
    }
    return n;
}

static size_t check_rowsum_row(const void *const *in, const void *output, const void *const *scalars,
    size_t n, int64_t depth, tkh_check_note *note)
{
    (void)scalars, (void)depth;
    if (*(const int32_t *)output == row_sum(in[0], n))
        return n;
    snprintf(note->detail, sizeof note->detail, "got %d", (int)*(const int32_t *)output);
    return 0;
}

static int no_flat_launch(const void *const *in, void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)in, (void)out, (void)scalars, (void)n, (void)grid, (void)block, (void)scratch, (void)stream;
    return 1; /* a normalization's flat calls go through the plan */
}

static const tkh_operand x_weight[] = { { "lhs", "i32", 4, NULL, 0, 0, NULL }, { "rhs", "i32", 4, NULL, 0, 0, "1" } };
static const tkh_kernel_info center = { KERNEL("center", normalization, 2, 0, 0, no_flat_launch, check_add,
    host_center_plan), .check_row = check_center_row, .inputs = x_weight };
static const tkh_kernel_info rowsum = { KERNEL("rowsum", normalization, 1, 1, 0, no_flat_launch, check_add,
    host_rowsum_plan), .check_row = check_rowsum_row };

static const tkh_kernel_info *const kernels[] = { &add, &sum, &center };
static const tkh_registry registry = { "fake", kernels, 3 };

static const DLDataType I32 = { kDLInt, 32, 1 };

/* A tensor and the storage of its shape and strides. */
typedef struct tensor {
    DLTensor t;
    int64_t shape[TKH_MAX_DIMS + 1], strides[TKH_MAX_DIMS + 1];
    int32_t *buffer; /* owned by the random cases */
} tensor;

static const DLTensor *make(tensor *x, void *data, int ndim, const int64_t *shape, const int64_t *strides)
{
    memset(x, 0, sizeof *x);
    if (ndim > 0)
        memcpy(x->shape, shape, sizeof(int64_t) * (size_t)ndim);
    if (strides)
        memcpy(x->strides, strides, sizeof(int64_t) * (size_t)ndim);
    x->t = (DLTensor){ data, { kDLCPU, 0 }, ndim, I32, x->shape, strides ? x->strides : NULL, 0 };
    return &x->t;
}

static tkh_context *context(void)
{
    tkh_context *c = NULL;
    if (tkh_context_create(&c, 0) != TKH_OK)
        fail_msg("%s", tkh_last_error());
    return c;
}

/* A context whose host path goes in pieces of about 'state' bytes (NULL: the default,
 * 16 MiB, so these tests' tensors go whole); below TOKITAI_HIP_CHUNK_BYTES' least 4096, so
 * that small tensors are cut too. */
static tkh_context *context_chunked(void *const *state)
{
    tkh_context *c = context();
    if (*state != NULL)
        c->chunk_bytes = *(const size_t *)*state;
    return c;
}

static tkh_status add_call(tkh_context *ctx, const DLTensor *a, const DLTensor *b, const DLTensor *out,
    tkh_report *report)
{
    const DLTensor *in[2] = { a, b }, *outs[1] = { out };
    const tkh_tensor_args args = { in, 2, outs, 1, NULL, 0, NULL, 0, 0, NULL };
    return tkh_tensor_call(ctx, &add, &args, report);
}

static tkh_status sum_call(tkh_context *ctx, const DLTensor *x, const int64_t *axes, unsigned count,
    int keepdims, const DLTensor *out, tkh_report *report)
{
    const DLTensor *in[1] = { x }, *outs[1] = { out };
    const tkh_tensor_args args = { in, 1, outs, 1, NULL, 0, axes, count, keepdims, NULL };
    return tkh_tensor_call(ctx, &sum, &args, report);
}

/* A row bias, a column and a transposed view, worked by hand. */
static void test_broadcast_by_hand(void **state)
{
    tkh_context *ctx = context_chunked(state);
    tkh_report r;
    int32_t m[6] = { 1, 2, 3, 4, 5, 6 }, row[3] = { 10, 20, 30 }, col[2] = { 100, 200 }, out[6];
    tensor a, b, o;
    const int64_t s23[2] = { 2, 3 }, s3[1] = { 3 }, s21[2] = { 2, 1 }, s32[2] = { 3, 2 }, t[2] = { 1, 3 };
    assert_int_equal(add_call(ctx, make(&a, m, 2, s23, NULL), make(&b, row, 1, s3, NULL),
        make(&o, out, 2, s23, NULL), &r), TKH_OK);
    const int32_t by_row[6] = { 11, 22, 33, 14, 25, 36 };
    assert_memory_equal(out, by_row, sizeof out);
    assert_true(has_evidence(&r, "broadcast shape [2, 3]"));
    assert_true(has_evidence(&r, "strides [3, 1] [0, 1] [3, 1]"));
    assert_true(r.oracle_matches);
    assert_true(has_evidence(&r, "in 2 pieces of 1 rows") == (*state != NULL));
    assert_int_equal(add_call(ctx, make(&a, m, 2, s23, NULL), make(&b, col, 2, s21, NULL),
        make(&o, out, 2, s23, NULL), &r), TKH_OK);
    const int32_t by_col[6] = { 101, 102, 103, 204, 205, 206 };
    assert_memory_equal(out, by_col, sizeof out);
    /* m seen as its transpose [3, 2] (strides 1, 3), plus a compact [3, 2] */
    int32_t c32[6] = { 0, 1, 2, 3, 4, 5 };
    assert_int_equal(add_call(ctx, make(&a, m, 2, s32, t), make(&b, c32, 2, s32, NULL),
        make(&o, out, 2, s32, NULL), &r), TKH_OK);
    const int32_t by_t[6] = { 1, 5, 4, 8, 7, 11 };
    assert_memory_equal(out, by_t, sizeof out);
    /* contiguous tensors of one shape merge to one dimension: the flat kernel */
    assert_int_equal(add_call(ctx, make(&a, m, 2, s23, NULL), make(&b, c32, 2, s23, NULL),
        make(&o, out, 2, s23, NULL), &r), TKH_OK);
    assert_true(has_evidence(&r, "merged to [6]"));
    assert_true(has_evidence(&r, "the flat kernel"));
    /* sums over each axis, with and without keepdims */
    int32_t s[3];
    const int64_t axis0 = 0, axis1 = -1, k13[2] = { 1, 3 }, k21[2] = { 2, 1 };
    assert_int_equal(sum_call(ctx, make(&a, m, 2, s23, NULL), &axis0, 1, 0, make(&o, s, 1, s3, NULL), &r), TKH_OK);
    assert_int_equal(s[0], 5);
    assert_int_equal(s[1], 7);
    assert_int_equal(s[2], 9);
    assert_true(has_evidence(&r, "a thread column per output"));
    assert_int_equal(sum_call(ctx, make(&a, m, 2, s23, NULL), &axis1, 1, 1, make(&o, s, 2, k21, NULL), &r), TKH_OK);
    assert_int_equal(s[0], 6);
    assert_int_equal(s[1], 15);
    assert_true(has_evidence(&r, "a block per output"));
    assert_int_equal(sum_call(ctx, make(&a, m, 2, s23, NULL), &axis0, 1, 1, make(&o, s, 2, k13, NULL), &r), TKH_OK);
    assert_int_equal(s[2], 9);
    /* every axis: the flat reduction, into a tensor of no dimensions */
    assert_int_equal(sum_call(ctx, make(&a, m, 2, s23, NULL), NULL, 0, 0, make(&o, s, 0, NULL, NULL), &r), TKH_OK);
    assert_int_equal(s[0], 21);
    assert_true(has_evidence(&r, "the flat kernel"));
    /* no axis (an empty list, NumPy's axis=()): each output its one element */
    int32_t same[6];
    assert_int_equal(sum_call(ctx, make(&a, m, 2, s23, NULL), &axis0, 0, 0, make(&o, same, 2, s23, NULL), &r), TKH_OK);
    for (int i = 0; i < 6; ++i)
        assert_int_equal(same[i], m[i]);
    assert_true(has_evidence(&r, "6 outputs of 1 elements each"));
    tkh_context_destroy(ctx);
}

/* A thread keeps its last plan's evidence lines: calls alike copy them, and a call that
 * differs in anything a line shows (one input's strides, the kernel) gets its own. */
static void test_repeated_plans(void **state)
{
    (void)state;
    tkh_context *ctx = context();
    tkh_report first, r;
    int32_t m[6] = { 1, 2, 3, 4, 5, 6 }, out[6];
    int32_t gapped[2][10] = { { 1, 2, 3, 0, 4, 5, 6 }, { 1, 2, 3, 0, 0, 4, 5, 6 } };
    tensor a, b, o;
    const int64_t s23[2] = { 2, 3 }, s32[2] = { 3, 2 }, t[2] = { 1, 3 }, rows[2][2] = { { 4, 1 }, { 5, 1 } };
    for (int call = 0; call < 5; ++call) {
        const int other = call % 2; /* rhs with rows 4 apart, then 5: lines differ in its strides alone */
        assert_int_equal(add_call(ctx, make(&a, m, 2, s23, NULL), make(&b, gapped[other], 2, s23, rows[other]),
            make(&o, out, 2, s23, NULL), &r), TKH_OK);
        const int32_t twice[6] = { 2, 4, 6, 8, 10, 12 };
        assert_memory_equal(out, twice, sizeof out);
        if (call == 0)
            first = r;
        assert_true(has_evidence(&r, other ? "tensor input 1 (rhs): i32 [2, 3], strides [5, 1], on the host"
            : "tensor input 1 (rhs): i32 [2, 3], strides [4, 1], on the host"));
        assert_true(has_evidence(&r, other ? "strides [3, 1] [5, 1] [3, 1]" : "strides [3, 1] [4, 1] [3, 1]"));
        if (!other)
            for (size_t i = 0; i < first.evidence_count; ++i)
                assert_string_equal(r.evidence[i], first.evidence[i]);
    }
    /* the other layout of the same tensors, then another kernel: their own lines */
    assert_int_equal(add_call(ctx, make(&a, m, 2, s32, t), make(&b, m, 2, s32, t), make(&o, out, 2, s32, NULL), &r),
        TKH_OK);
    assert_true(has_evidence(&r, "tensor input 0 (lhs): i32 [3, 2], strides [1, 3], on the host"));
    int32_t s[3];
    const int64_t axis0 = 0, s3[1] = { 3 };
    assert_int_equal(sum_call(ctx, make(&a, m, 2, s23, NULL), &axis0, 1, 0, make(&o, s, 1, s3, NULL), &r), TKH_OK);
    assert_true(has_evidence(&r, "reduced axes [0] of [2, 3]"));
    assert_false(has_evidence(&r, "broadcast shape"));
    tkh_context_destroy(ctx);
}

static void expect(tkh_status got, tkh_status want, const char *text)
{
    if (got != want || strstr(tkh_last_error(), text) == NULL)
        fail_msg("got %s (%s), expected %s with '%s'", tkh_status_name(got), tkh_last_error(),
            tkh_status_name(want), text);
}

static tkh_status norm_call(tkh_context *ctx, const tkh_kernel_info *k, const DLTensor *x, const DLTensor *w,
    int64_t axis, int keepdims, const DLTensor *out, tkh_report *report)
{
    const DLTensor *in[2] = { x, w }, *outs[1] = { out };
    const tkh_tensor_args args = { in, k->arity, outs, 1, NULL, 0, &axis, 1, keepdims, NULL };
    return tkh_tensor_call(ctx, k, &args, report);
}

/* Normalizations along each axis, with and without the column, a post step with and
 * without keepdims, the flat entry point, and the bad inputs, worked by hand. */
static void test_normalizations_by_hand(void **state)
{
    tkh_context *ctx = context_chunked(state);
    tkh_report r;
    int32_t m[6] = { 1, 2, 3, 4, 5, 6 }, w3[3] = { 1, 10, 100 }, w2[2] = { 2, 3 }, out[6];
    tensor a, c, o;
    const int64_t s23[2] = { 2, 3 }, s3[1] = { 3 }, s2[1] = { 2 }, s13[2] = { 1, 3 },
        s32[2] = { 3, 2 }, t[2] = { 1, 3 };
    /* rows along axis 1 (sums 6, 15), the column weighting each position */
    assert_int_equal(norm_call(ctx, &center, make(&a, m, 2, s23, NULL), make(&c, w3, 1, s3, NULL), 1, 0,
        make(&o, out, 2, s23, NULL), &r), TKH_OK);
    const int32_t along1[6] = { -5, -40, -300, -11, -100, -900 };
    assert_memory_equal(out, along1, sizeof out);
    assert_true(r.oracle_matches);
    assert_true(has_evidence(&r, "normalized along axis 1 of [2, 3]: 2 rows of 3 elements"));
    assert_true(has_evidence(&r, "a block per row"));
    assert_true(has_evidence(&r, "in 2 pieces of 1 rows") == (*state != NULL));
    /* the oracle names a multi-index of the output: dense element 4 is [1, 1] (along axis
     * 0, the plan's rows are the columns: element 4 is [0, 2]) */
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 4, 1), TKH_OK);
    expect(norm_call(ctx, &center, make(&a, m, 2, s23, NULL), make(&c, w3, 1, s3, NULL), 1, 0,
        make(&o, out, 2, s23, NULL), &r), TKH_ERR_ORACLE_MISMATCH,
        "center_i32: element [1, 1] of [2, 3] differs from the CPU oracle: got -98, expected -100");
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 4, 1), TKH_OK);
    expect(norm_call(ctx, &center, make(&a, m, 2, s23, NULL), NULL, 0, 0, make(&o, out, 2, s23, NULL), &r),
        TKH_ERR_ORACLE_MISMATCH, "center_i32: element [0, 2] of [2, 3] differs from the CPU oracle");
    /* along axis 0 (column sums 5, 7, 9) without the column: its default 1; columns layout */
    assert_int_equal(norm_call(ctx, &center, make(&a, m, 2, s23, NULL), NULL, -2, 0, make(&o, out, 2, s23, NULL),
        &r), TKH_OK);
    const int32_t along0[6] = { -4, -5, -6, -1, -2, -3 };
    assert_memory_equal(out, along0, sizeof out);
    assert_true(has_evidence(&r, "tensor weight: not given (its default)") || has_evidence(&r, "not given"));
    assert_true(has_evidence(&r, "a thread per row"));
    /* a transposed view [3, 2] along axis 1 (rows {1, 4}, {2, 5}, {3, 6}), weight [2, 3] */
    assert_int_equal(norm_call(ctx, &center, make(&a, m, 2, s32, t), make(&c, w2, 1, s2, NULL), 1, 0,
        make(&o, out, 2, s32, NULL), &r), TKH_OK);
    const int32_t transposed[6] = { -8, -3, -10, -6, -12, -9 };
    assert_memory_equal(out, transposed, sizeof out);
    /* the post step: the axis removed, or kept as 1 */
    int32_t sums[3];
    assert_int_equal(norm_call(ctx, &rowsum, make(&a, m, 2, s23, NULL), NULL, 1, 0, make(&o, sums, 1, s2, NULL), &r),
        TKH_OK);
    assert_int_equal(sums[0], 6);
    assert_int_equal(sums[1], 15);
    assert_int_equal(norm_call(ctx, &rowsum, make(&a, m, 2, s23, NULL), NULL, 0, 1, make(&o, sums, 2, s13, NULL), &r),
        TKH_OK);
    assert_int_equal(sums[2], 9);
    /* the flat entry point: the n elements one row, a NULL column its default */
    const void *ins[2] = { m, NULL };
    void *outs[1] = { out };
    const tkh_args flat = { ins, 2, outs, 1, NULL, 0 };
    assert_int_equal(tkh_kernel_call(ctx, &center, &flat, 6, &r), TKH_OK);
    const int32_t whole[6] = { -20, -19, -18, -17, -16, -15 };
    assert_memory_equal(out, whole, sizeof out);
    expect(tkh_kernel_call(ctx, &center, &flat, 0, NULL), TKH_ERR_EMPTY, "n is 0");
    /* rows of no elements: a map has nothing to write; a post step has nothing to fold */
    const int64_t s20[2] = { 2, 0 };
    assert_int_equal(norm_call(ctx, &center, make(&a, m, 2, s20, NULL), NULL, 1, 0, make(&o, out, 2, s20, NULL),
        &r), TKH_OK);
    assert_true(has_evidence(&r, "no elements: nothing to run"));
    expect(norm_call(ctx, &rowsum, make(&a, m, 2, s20, NULL), NULL, 1, 0, make(&o, sums, 1, s2, NULL), NULL),
        TKH_ERR_EMPTY, "reduces rows of zero elements (axis 1 of tensor lhs, shape [2, 0], has size 0)");
    /* bad inputs */
    expect(norm_call(ctx, &center, make(&a, m, 2, s23, NULL), NULL, 2, 0, make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "axis 2 is out of range for tensor lhs of 2 dimensions: expected -2 to 1");
    expect(norm_call(ctx, &center, make(&a, m, 2, s23, NULL), make(&c, w2, 1, s2, NULL), 1, 0,
        make(&o, out, 2, s23, NULL), NULL), TKH_ERR_INVALID_ARGUMENT, "has shape [2]: expected [3], a column along axis 1");
    expect(norm_call(ctx, &center, make(&a, m, 2, s23, NULL), NULL, 1, 0, make(&o, out, 2, s32, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "has shape [3, 2]: expected [2, 3] (the input's shape)");
    expect(norm_call(ctx, &rowsum, make(&a, m, 2, s23, NULL), NULL, 1, 1, make(&o, sums, 1, s2, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "expected [2, 1] (the input's, the axis kept as 1)");
    const DLTensor *in1[1] = { make(&a, m, 2, s23, NULL) }, *out1[1] = { make(&o, out, 2, s23, NULL) };
    const int64_t two[2] = { 0, 1 };
    const tkh_tensor_args both = { in1, 1, out1, 1, NULL, 0, two, 2, 0, NULL };
    expect(tkh_tensor_call(ctx, &rowsum, &both, NULL), TKH_ERR_INVALID_ARGUMENT, "normalizes along one axis");
    tkh_context_destroy(ctx);
}

static void test_bad_tensors(void **state)
{
    (void)state;
    tkh_context *ctx = context();
    int32_t m[12] = { 0 }, v[4] = { 0 }, out[12];
    tensor a, b, o;
    const int64_t s23[2] = { 2, 3 }, s2[1] = { 2 }, s32[2] = { 3, 2 }, s6[1] = { 6 }, neg[1] = { -1 };
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), make(&b, v, 1, s2, NULL), make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "tensor input 1 (rhs) of shape [2] does not broadcast with the inputs before it ([2, 3] so far): dimension 0 is 2, expected 3 or 1");
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), make(&b, m, 2, s23, NULL), make(&o, out, 2, s32, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "tensor out has shape [3, 2]: expected the inputs' broadcast shape [2, 3]");
    make(&b, v, 1, s2, NULL);
    b.t.dtype = (DLDataType){ kDLFloat, 32, 1 };
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), &b.t, make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "tensor input 1 (rhs) has dtype f32: expected i32");
    make(&b, v, 1, s2, NULL);
    b.t.dtype.lanes = 4;
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), &b.t, make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "has dtype code 0, 32 bits, 4 lanes: expected i32");
    make(&b, v, 1, s2, NULL);
    b.t.ndim = TKH_MAX_DIMS + 1;
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), &b.t, make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "has ndim 17: expected 0 to 16");
    make(&b, v, 1, neg, NULL);
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), &b.t, make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "has shape[0] = -1: expected a size of 0 or more");
    make(&b, v, 1, s2, NULL);
    b.t.device = (DLDevice){ kDLROCM, 0 };
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), &b.t, make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "tensor input 1 (rhs) is on the device, the first tensor on the host");
    b.t.device = (DLDevice){ kDLVulkan, 0 };
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), &b.t, make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "is on DLPack device type 7");
    b.t.device = (DLDevice){ kDLROCM, 3 };
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), &b.t, make(&o, out, 2, s23, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "is on device 3: expected the context's device 0");
    make(&b, v, 1, s2, NULL);
    b.t.byte_offset = 2;
    expect(add_call(ctx, make(&a, m, 1, s2, NULL), &b.t, make(&o, out, 1, s2, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "is not aligned to its element size (4 bytes)");
    /* overlaps: a shifted output, an output that repeats an element, in place exactly */
    expect(add_call(ctx, make(&a, m, 1, s6, NULL), make(&b, m, 1, s6, NULL), make(&o, m + 1, 1, s6, NULL), NULL),
        TKH_ERR_OVERLAP, "tensor out shares memory with tensor input 0 (lhs) other than as the same elements in place");
    const int64_t zero[2] = { 0, 1 };
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), make(&b, m, 2, s23, NULL), make(&o, out, 2, s23, zero), NULL),
        TKH_ERR_OVERLAP, "tensor out (shape [2, 3], strides [0, 1]) may write one element twice");
    int32_t x[6] = { 1, 2, 3, 4, 5, 6 };
    assert_int_equal(add_call(ctx, make(&a, x, 1, s6, NULL), make(&b, x, 1, s6, NULL), make(&o, x, 1, s6, NULL), NULL), TKH_OK);
    assert_int_equal(x[5], 12);
    /* axes */
    const int64_t axis2 = 2, twice[2] = { 1, -1 }, s3[1] = { 3 };
    expect(sum_call(ctx, make(&a, m, 2, s23, NULL), &axis2, 1, 0, make(&o, out, 1, s3, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "axis 2 is out of range for tensor lhs of 2 dimensions: expected -2 to 1");
    expect(sum_call(ctx, make(&a, m, 2, s23, NULL), twice, 2, 0, make(&o, out, 0, NULL, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "axis -1 is given twice");
    expect(sum_call(ctx, make(&a, m, 2, s23, NULL), &axis2, 1, 0, make(&o, out, 1, s3, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "expected -2 to 1");
    const int64_t axis0 = 0;
    expect(sum_call(ctx, make(&a, m, 2, s23, NULL), &axis0, 1, 0, make(&o, out, 1, s2, NULL), NULL),
        TKH_ERR_INVALID_ARGUMENT, "tensor out has shape [2]: expected [3] (the input's shape [2, 3] reduced)");
    const int64_t s03[2] = { 0, 3 };
    /* no elements: success without work */
    assert_int_equal(add_call(ctx, make(&a, m, 2, s03, NULL), make(&b, m, 1, s3, NULL), make(&o, out, 2, s03, NULL), NULL), TKH_OK);
    /* dispatch by dtype */
    const DLTensor *in[2] = { make(&a, m, 1, s2, NULL), make(&b, v, 1, s2, NULL) }, *outs[1] = { make(&o, out, 1, s2, NULL) };
    tkh_tensor_args args = { in, 2, outs, 1, NULL, 0, NULL, 0, 0, NULL };
    assert_ptr_equal(tkh_registry_match(&registry, "add", &args), &add);
    assert_int_equal(tkh_tensor_op(ctx, &registry, "add", &args, NULL), TKH_OK);
    b.t.dtype = (DLDataType){ kDLFloat, 16, 1 };
    expect(tkh_tensor_op(ctx, &registry, "add", &args, NULL), TKH_ERR_NOT_FOUND,
        "no kernel of op 'add' taking 2 input and 1 output tensors of dtypes i32, f16, i32");
    tkh_context_destroy(ctx);
}

/* What torch and NumPy users meet at the edges: zero-element tensors (torch exports their
 * data as NULL), reductions over an empty axis (the identity, or a refusal without one),
 * and optional operands left out of a call by name. */
static void test_edges(void **state)
{
    tkh_context *ctx = context();
    if (*state != NULL) { /* on the (fake) device, checked under the device oracle */
        const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
        assert_int_equal(tkh_context_set_device_oracle(ctx, &full), TKH_OK);
    }
    const DLDevice where = *state != NULL ? (DLDevice){ kDLROCM, 0 } : (DLDevice){ kDLCPU, 0 };
    tkh_report r;
    int32_t row[3] = { 1, 2, 3 }, sums[3] = { 7, 7, 7 }, m[6] = { 1, 2, 3, 4, 5, 6 }, out[6];
    tensor a, b, o, w;
    const int64_t s03[2] = { 0, 3 }, s30[2] = { 3, 0 }, s3[1] = { 3 }, s0[1] = { 0 }, s23[2] = { 2, 3 };
    const int64_t axis0 = 0, axis1 = 1;
#define ON(x, ...) (make(x, __VA_ARGS__), (x)->t.device = where, (const DLTensor *)&(x)->t)
    /* elementwise: [0, 3] + [3] into [0, 3], both empty ones with NULL data */
    assert_int_equal(add_call(ctx, ON(&a, NULL, 2, s03, NULL), ON(&b, row, 1, s3, NULL),
        ON(&o, NULL, 2, s03, NULL), &r), TKH_OK);
    assert_true(has_evidence(&r, "no elements: nothing to run"));
    /* NULL data with elements is still refused */
    expect(add_call(ctx, ON(&a, NULL, 1, s3, NULL), ON(&b, row, 1, s3, NULL),
        ON(&o, out, 1, s3, NULL), NULL), TKH_ERR_NULL_POINTER,
        "tensor input 0 (lhs) has NULL data and elements: expected NULL only for a tensor of zero elements");
    /* sum over the empty axis 0 of [0, 3]: three identities, each checked by the oracle */
    assert_int_equal(sum_call(ctx, ON(&a, NULL, 2, s03, NULL), &axis0, 1, 0, ON(&o, sums, 1, s3, NULL),
        &r), TKH_OK);
    const int32_t zeros[3] = { 0, 0, 0 };
    assert_memory_equal(sums, zeros, sizeof sums);
    assert_true(r.oracle_checked && r.oracle_matches);
    assert_int_equal(r.oracle_compared, 3);
    /* ... the whole of an empty tensor, keepdims [1, 1] */
    const int64_t s11[2] = { 1, 1 };
    sums[0] = 7;
    assert_int_equal(sum_call(ctx, ON(&a, NULL, 2, s30, NULL), NULL, 0, 1, ON(&o, sums, 2, s11, NULL),
        &r), TKH_OK);
    assert_int_equal(sums[0], 0);
    /* ... a wrong identity is caught (the corruption hook is the host path's) */
    if (*state == NULL) {
        assert_int_equal(tkh_context_corrupt_next_output(ctx, 1, 0), TKH_OK);
        expect(sum_call(ctx, ON(&a, NULL, 2, s03, NULL), &axis0, 1, 0, ON(&o, sums, 1, s3, NULL), &r),
            TKH_ERR_ORACLE_MISMATCH, "sum_i32: element [:, 1] of the reduction differs from the CPU oracle: got 1");
    }
    /* over axis 1 of [0, 3]: no outputs at all */
    assert_int_equal(sum_call(ctx, ON(&a, NULL, 2, s03, NULL), &axis1, 1, 0, ON(&o, NULL, 1, s0, NULL),
        &r), TKH_OK);
    /* a reduction without an identity refuses */
    const DLTensor *in1[1] = { ON(&a, NULL, 2, s03, NULL) }, *out1[1] = { ON(&o, sums, 1, s3, NULL) };
    const tkh_tensor_args no_identity = { in1, 1, out1, 1, NULL, 0, &axis0, 1, 0, NULL };
    expect(tkh_tensor_call(ctx, &sum_start, &no_identity, NULL), TKH_ERR_EMPTY, "sum_start_i32 reduces over zero "
        "elements (axis 0 of tensor lhs, shape [0, 3], has size 0) and has no identity to give");
    /* a normalization's map over [0, 3] with NULL data, along either axis: nothing to do */
    for (int64_t axis = 0; axis < 2; ++axis) {
        const DLTensor *inz[2] = { ON(&a, NULL, 2, s03, NULL), NULL }, *outz[1] = { ON(&o, NULL, 2, s03, NULL) };
        const tkh_tensor_args empty_rows = { inz, 2, outz, 1, NULL, 0, &axis, 1, 0, NULL };
        assert_int_equal(tkh_tensor_op(ctx, &registry, "center", &empty_rows, &r), TKH_OK);
        assert_true(has_evidence(&r, "no elements: nothing to run"));
    }
    /* a normalization over [2, 3] by name, its optional column left out (NULL), then given */
    const DLTensor *in2[2] = { ON(&a, m, 2, s23, NULL), NULL }, *out2[1] = { ON(&o, out, 2, s23, NULL) };
    const tkh_tensor_args by_name = { in2, 2, out2, 1, NULL, 0, &axis1, 1, 0, NULL };
    assert_ptr_equal(tkh_registry_match(&registry, "center", &by_name), &center);
    assert_int_equal(tkh_tensor_op(ctx, &registry, "center", &by_name, &r), TKH_OK);
    const int32_t centred[6] = { -5, -4, -3, -11, -10, -9 };
    assert_memory_equal(out, centred, sizeof out);
    assert_true(has_evidence(&r, "not given (its default)"));
    in2[1] = ON(&w, row, 1, s3, NULL);
    assert_int_equal(tkh_tensor_op(ctx, &registry, "center", &by_name, &r), TKH_OK);
    assert_int_equal(out[5], -27);
    /* a required operand left out matches nothing */
    const DLTensor *in3[2] = { ON(&a, m, 2, s23, NULL), NULL };
    const tkh_tensor_args no_rhs = { in3, 2, out2, 1, NULL, 0, NULL, 0, 0, NULL };
    expect(tkh_tensor_op(ctx, &registry, "add", &no_rhs, NULL), TKH_ERR_NOT_FOUND, "of dtypes i32, NULL, i32");
    expect(tkh_tensor_call(ctx, &add, &no_rhs, NULL), TKH_ERR_NULL_POINTER, "tensor input 1 (rhs) is NULL");
#undef ON
    tkh_context_destroy(ctx);
}

/* The oracle names the multi-index of a wrong element. */
static void test_mismatch_names_index(void **state)
{
    (void)state;
    tkh_context *ctx = context();
    int32_t m[6] = { 1, 2, 3, 4, 5, 6 }, row[3] = { 10, 20, 30 }, out[6];
    tensor a, b, o;
    const int64_t s23[2] = { 2, 3 }, s3[1] = { 3 };
    tkh_report r;
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 5, 1), TKH_OK);
    expect(add_call(ctx, make(&a, m, 2, s23, NULL), make(&b, row, 1, s3, NULL), make(&o, out, 2, s23, NULL), &r),
        TKH_ERR_ORACLE_MISMATCH, "add_i32: element [1, 2] of [2, 3] differs from the CPU oracle: got 38, expected 36 = add(6, 30)");
    assert_int_equal(r.first_mismatch, 5);
    tkh_context_destroy(ctx);
}

/* Device tensors (the fake's device memory is host memory): enqueued, and checked under
 * the device oracle policy. */
static void test_device_tensors(void **state)
{
    (void)state;
    tkh_context *ctx = context();
    int32_t m[6] = { 1, 2, 3, 4, 5, 6 }, row[3] = { 10, 20, 30 }, out[6];
    tensor a, b, o;
    const int64_t s23[2] = { 2, 3 }, s3[1] = { 3 };
    make(&a, m, 2, s23, NULL);
    make(&b, row, 1, s3, NULL);
    make(&o, out, 2, s23, NULL);
    a.t.device = b.t.device = o.t.device = (DLDevice){ kDLROCM, 0 };
    tkh_report r;
    assert_int_equal(add_call(ctx, &a.t, &b.t, &o.t, &r), TKH_OK);
    assert_int_equal(out[5], 36);
    assert_false(r.oracle_checked);
    assert_true(has_evidence(&r, "device oracle policy off"));
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
    assert_int_equal(tkh_context_set_device_oracle(ctx, &full), TKH_OK);
    assert_int_equal(add_call(ctx, &a.t, &b.t, &o.t, &r), TKH_OK);
    assert_true(r.oracle_matches);
    assert_int_equal(r.oracle_compared, 6);
    /* in place, a += row: the oracle reads a as it was before the kernel overwrote it, and a
     * wrong output is still caught */
    assert_int_equal(add_call(ctx, &a.t, &b.t, &a.t, &r), TKH_OK);
    assert_int_equal(m[5], 36);
    assert_true(r.oracle_matches && has_evidence(&r, "the inputs an output overwrites: before the launch"));
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 4, 3), TKH_OK);
    expect(add_call(ctx, &a.t, &b.t, &a.t, &r), TKH_ERR_ORACLE_MISMATCH, "element [1, 1] of [2, 3] differs");
    for (int i = 0; i < 6; ++i)
        m[i] = i + 1;
    const int64_t axis1 = 1, s2[1] = { 2 };
    int32_t s[2];
    make(&o, s, 1, s2, NULL);
    o.t.device = a.t.device;
    assert_int_equal(sum_call(ctx, &a.t, &axis1, 1, 0, &o.t, &r), TKH_OK);
    assert_int_equal(s[1], 15);
    assert_true(r.oracle_matches);
    tkh_context_destroy(ctx);
}

/* Few outputs of many elements: the launch splits each output's elements over blocks
 * (the fake device has 4 compute units), on the host and the device path. */
static void test_split_reductions(void **state)
{
    (void)state;
    tkh_context *ctx = context();
    enum { R = 3000, C = 20000 };
    int32_t *x = malloc(sizeof(int32_t) * R * 3), *y = malloc(sizeof(int32_t) * 2 * C), s[3];
    assert_non_null(x);
    assert_non_null(y);
    for (int i = 0; i < R * 3; ++i)
        x[i] = i; /* x[r][c] = 3r + c */
    for (int i = 0; i < 2 * C; ++i)
        y[i] = i % C + i / C; /* y[r][c] = c + r */
    tensor a, o;
    const int64_t x_shape[2] = { R, 3 }, y_shape[2] = { 2, C }, s3[1] = { 3 }, s2[1] = { 2 }, axis0 = 0, axis1 = 1;
    tkh_report r;
    for (int device = 0; device < 2; ++device) {
        const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
        assert_int_equal(tkh_context_set_device_oracle(ctx, &full), TKH_OK);
        make(&a, x, 2, x_shape, NULL);
        make(&o, s, 1, s3, NULL);
        if (device)
            a.t.device = o.t.device = (DLDevice){ kDLROCM, 0 };
        assert_int_equal(sum_call(ctx, &a.t, &axis0, 1, 0, &o.t, &r), TKH_OK);
        for (int c = 0; c < 3; ++c) /* 3 (R - 1) R / 2 + R c */
            assert_int_equal(s[c], 3 * (R - 1) * R / 2 + R * c);
        assert_true(r.oracle_matches);
        assert_true(has_evidence(&r, "in 8 blocks of up to 384"));
        make(&a, y, 2, y_shape, NULL);
        make(&o, s, 1, s2, NULL);
        if (device)
            a.t.device = o.t.device = (DLDevice){ kDLROCM, 0 };
        assert_int_equal(sum_call(ctx, &a.t, &axis1, 1, 0, &o.t, &r), TKH_OK);
        for (int row = 0; row < 2; ++row) /* (C - 1) C / 2 + C row */
            assert_int_equal(s[row], (C - 1) * C / 2 + C * row);
        assert_true(has_evidence(&r, "in 4 blocks of up to 5008"));
    }
    free(x);
    free(y);
    tkh_context_destroy(ctx);
}

/* A random layout of 'shape' in a buffer of its own (fake_random_strides). */
static void random_layout(uint64_t *rng, tensor *x, int ndim, const int64_t *shape, int input)
{
    int64_t stride[TKH_MAX_DIMS], lo;
    const size_t count = fake_random_strides(rng, ndim, shape, input, stride, &lo);
    int32_t *buffer = malloc(count * sizeof(int32_t));
    assert_non_null(buffer);
    for (size_t i = 0; i < count; ++i)
        buffer[i] = (int32_t)tkhi_splitmix64(rng);
    make(x, buffer, ndim, shape, stride);
    x->buffer = buffer; /* after make, which clears x */
    x->t.byte_offset = (uint64_t)(-lo) * sizeof(int32_t);
}

static int32_t *at(const tensor *x, const int64_t *index, int index_ndim)
{
    int64_t off = 0;
    for (int d = 0; d < x->t.ndim; ++d) {
        const int64_t i = x->t.shape[d] == 1 ? 0 : index[index_ndim - x->t.ndim + d];
        off += i * x->t.strides[d];
    }
    return (int32_t *)((unsigned char *)x->t.data + x->t.byte_offset) + off;
}

/* The next multi-index of 'shape' in row-major order; 0 after the last. */
static int next_index(int64_t *index, int ndim, const int64_t *shape)
{
    for (int d = ndim - 1; d >= 0; --d) {
        if (++index[d] < shape[d])
            return 1;
        index[d] = 0;
    }
    return 0;
}

static void test_random_broadcasts(void **state)
{
    const char *env = getenv("TKH_TEST_SEED");
    const uint64_t seed = env ? strtoull(env, NULL, 0) : 0x7e50a11ull;
    printf("test_random_broadcasts: seed %#" PRIx64 " (TKH_TEST_SEED replays it)\n", seed);
    tkh_context *ctx = context_chunked(state);
    for (int c = 0; c < 300; ++c) {
        uint64_t rng = seed + (uint64_t)c;
        const int ndim = (int)(tkhi_splitmix64(&rng) % 6);
        int64_t shape[TKH_MAX_DIMS], sa[TKH_MAX_DIMS], sb[TKH_MAX_DIMS];
        for (int d = 0; d < ndim; ++d)
            shape[d] = 1 + (int64_t)(tkhi_splitmix64(&rng) % 5);
        /* each input: a suffix of the dimensions, some of them 1 */
        const int na = ndim - (int)(tkhi_splitmix64(&rng) % (uint64_t)(ndim + 1) / 2);
        const int nb = ndim - (int)(tkhi_splitmix64(&rng) % (uint64_t)(ndim + 1) / 2);
        for (int d = 0; d < na; ++d)
            sa[d] = tkhi_splitmix64(&rng) % 4 == 0 ? 1 : shape[ndim - na + d];
        for (int d = 0; d < nb; ++d)
            sb[d] = tkhi_splitmix64(&rng) % 4 == 0 ? 1 : shape[ndim - nb + d];
        const int bndim = na > nb ? na : nb; /* what broadcasting gives */
        int64_t bshape[TKH_MAX_DIMS];
        for (int d = 0; d < bndim; ++d) {
            const int64_t x = bndim - d <= na ? sa[na - (bndim - d)] : 1, y = bndim - d <= nb ? sb[nb - (bndim - d)] : 1;
            bshape[d] = x > y ? x : y;
        }
        tensor a, b, o;
        random_layout(&rng, &a, na, sa, 1);
        random_layout(&rng, &b, nb, sb, 1);
        random_layout(&rng, &o, bndim, bshape, 0);
        tkh_report r;
        if (add_call(ctx, &a.t, &b.t, &o.t, &r) != TKH_OK)
            fail_msg("case %d (seed %#" PRIx64 "): %s", c, seed, tkh_last_error());
        int64_t index[TKH_MAX_DIMS] = { 0 };
        do {
            const int32_t want = wrap_add(*at(&a, index, bndim), *at(&b, index, bndim));
            if (*at(&o, index, bndim) != want)
                fail_msg("case %d (seed %#" PRIx64 "): an element differs: %s", c, seed, r.evidence[r.evidence_count - 1]);
        } while (bndim > 0 && next_index(index, bndim, bshape));
        free(a.buffer);
        free(b.buffer);
        free(o.buffer);
    }
    tkh_context_destroy(ctx);
}

static void test_random_reductions(void **state)
{
    const char *env = getenv("TKH_TEST_SEED");
    const uint64_t seed = env ? strtoull(env, NULL, 0) : 0x5eed5ull;
    printf("test_random_reductions: seed %#" PRIx64 " (TKH_TEST_SEED replays it)\n", seed);
    tkh_context *ctx = context_chunked(state);
    for (int c = 0; c < 300; ++c) {
        uint64_t rng = seed + (uint64_t)c;
        const int ndim = 1 + (int)(tkhi_splitmix64(&rng) % 5);
        int64_t shape[TKH_MAX_DIMS], axes[TKH_MAX_DIMS], oshape[TKH_MAX_DIMS];
        int reduced[TKH_MAX_DIMS];
        unsigned count = 0;
        for (int d = 0; d < ndim; ++d) {
            shape[d] = 1 + (int64_t)(tkhi_splitmix64(&rng) % 5);
            reduced[d] = tkhi_splitmix64(&rng) % 2 == 0;
            if (reduced[d])
                axes[count++] = tkhi_splitmix64(&rng) % 2 ? d : d - ndim;
        }
        /* no axis drawn: axes NULL (every axis, axis=None) or an empty list (none, axis=()) */
        const int all = count == 0 && tkhi_splitmix64(&rng) % 2 == 0;
        const int keepdims = (int)(tkhi_splitmix64(&rng) % 2);
        int ondim = 0;
        for (int d = 0; d < ndim; ++d)
            if (!(reduced[d] || all) || keepdims)
                oshape[ondim++] = reduced[d] || all ? 1 : shape[d];
        tensor x, o;
        random_layout(&rng, &x, ndim, shape, 0);
        random_layout(&rng, &o, ondim, oshape, 0);
        if (sum_call(ctx, &x.t, all ? NULL : axes, count, keepdims, &o.t, NULL) != TKH_OK)
            fail_msg("case %d (seed %#" PRIx64 "): %s", c, seed, tkh_last_error());
        /* the plain loop: every input element into its output */
        int64_t index[TKH_MAX_DIMS] = { 0 }, oindex[TKH_MAX_DIMS];
        int64_t ocount = 1;
        for (int d = 0; d < ondim; ++d)
            ocount *= oshape[d];
        int32_t *want = calloc((size_t)ocount, sizeof(int32_t));
        do {
            int64_t lin = 0;
            for (int d = 0, k = 0; d < ndim; ++d) {
                if (!(reduced[d] || all) || keepdims)
                    oindex[k++] = reduced[d] || all ? 0 : index[d];
            }
            for (int d = 0; d < ondim; ++d)
                lin = lin * oshape[d] + oindex[d];
            want[lin] = wrap_add(want[lin], *at(&x, index, ndim));
        } while (next_index(index, ndim, shape));
        memset(oindex, 0, sizeof oindex);
        for (int64_t lin = 0; lin < ocount; ++lin) {
            if (*at(&o, oindex, ondim) != want[lin])
                fail_msg("case %d (seed %#" PRIx64 "): output %" PRId64 " is %d, expected %d", c, seed, lin,
                    (int)*at(&o, oindex, ondim), (int)want[lin]);
            next_index(oindex, ondim, oshape);
        }
        free(want);
        free(x.buffer);
        free(o.buffer);
    }
    tkh_context_destroy(ctx);
}

static void assert_nothing_live(void)
{
    for (int k = 0; k < FAKE_KINDS; ++k)
        assert_int_equal(fake_hip_live((fake_kind)k), 0);
}

/* Every platform call of a tensor call failing in turn (host path, a row bias and a sum
 * over columns; device path under its oracle): the status names it, the outputs are
 * untouched, nothing is left allocated after trim, and the next call succeeds. */
static void every_platform_call_can_fail(void **state)
{
    static const tkh_status expected[TKH_FAULT_KINDS] = { TKH_ERR_DEVICE_ALLOC, TKH_ERR_COPY, TKH_ERR_LAUNCH,
        TKH_ERR_SYNC };
    int32_t m[6] = { 1, 2, 3, 4, 5, 6 }, row[3] = { 10, 20, 30 }, out[6], s[3];
    const int64_t s23[2] = { 2, 3 }, s3[1] = { 3 }, axis0 = 0;
    for (int kind = 0; kind < TKH_FAULT_KINDS; ++kind)
        for (int shape = 0; shape < 3; ++shape) {
            tkh_context *ctx = context_chunked(state);
            const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
            assert_int_equal(tkh_context_set_device_oracle(ctx, &full), TKH_OK);
            for (unsigned skip = 0;; ++skip) {
                tensor a, b, o;
                make(&a, m, 2, s23, NULL);
                make(&b, row, 1, s3, NULL);
                make(&o, shape == 1 ? s : out, shape == 1 ? 1 : 2, shape == 1 ? s3 : s23, NULL);
                if (shape == 2)
                    a.t.device = b.t.device = o.t.device = (DLDevice){ kDLROCM, 0 };
                memset(out, 0x5A, sizeof out);
                memset(s, 0x5A, sizeof s);
                assert_int_equal(tkh_context_inject_fault(ctx, (tkh_fault)kind, skip), TKH_OK);
                tkh_report r;
                tkh_status st = shape == 1 ? sum_call(ctx, &a.t, &axis0, 1, 0, &o.t, &r)
                    : add_call(ctx, &a.t, &b.t, &o.t, &r);
                if (tkh_context_fault_fired(ctx, (tkh_fault)kind) != 1) {
                    assert_int_equal(st, TKH_OK);
                    assert_int_equal(tkh_context_inject_fault(ctx, (tkh_fault)kind, TKH_FAULT_NEVER), TKH_OK);
                    break;
                }
                if (st != expected[kind] && !(kind == TKH_FAULT_ALLOC && st == TKH_ERR_RUNTIME))
                    fail_msg("fault %d at call %u, case %d: %s: %s", kind, skip, shape, tkh_status_name(st), r.message);
                assert_non_null(strstr(r.message, "injected"));
                if (shape == 0 && kind != TKH_FAULT_SYNC)
                    assert_int_equal(out[0], 0x5A5A5A5A); /* the host path writes outputs after the check */
                assert_int_equal(tkh_context_trim(ctx), TKH_OK);
                st = shape == 1 ? sum_call(ctx, &a.t, &axis0, 1, 0, &o.t, &r) : add_call(ctx, &a.t, &b.t, &o.t, &r);
                assert_int_equal(st, TKH_OK);
            }
            tkh_context_destroy(ctx);
            assert_nothing_live();
        }
}

/* Two devices (the fake runtime's, each on a bus of its own): a context of device 1 runs
 * there and its report says so, by index and PCI bus id; an index past the last names the
 * count; TOKITAI_HIP_DEVICE picks the device; device tensors of device 1 are refused by a
 * context of device 0, naming both. */
static void test_two_devices(void **state)
{
    (void)state;
    fake_hip_set_devices(2);
    tkh_context *one = NULL, *zero = NULL, *past = NULL;
    assert_int_equal(tkh_context_create(&one, 1), TKH_OK);
    assert_int_equal(tkh_context_create(&zero, 0), TKH_OK);
    int32_t m[6] = { 1, 2, 3, 4, 5, 6 }, row[3] = { 10, 20, 30 }, out[6] = { 0 };
    const int64_t s23[2] = { 2, 3 }, s3[1] = { 3 };
    tensor a, b, o;
    tkh_report r;
    assert_int_equal(add_call(one, make(&a, m, 2, s23, NULL), make(&b, row, 1, s3, NULL), make(&o, out, 2, s23, NULL),
        &r), TKH_OK);
    assert_int_equal(r.device.selected, 1);
    assert_string_equal(r.device.pci_bus_id, "0000:42:00.0");
    char json[16384];
    assert_int_equal(tkh_report_to_json(&r, json, sizeof json, NULL), TKH_OK);
    assert_non_null(strstr(json, "\"device_index\": 1"));
    assert_non_null(strstr(json, "\"device_pci_bus_id\": \"0000:42:00.0\""));
    expect(tkh_context_create(&past, 2), TKH_ERR_DEVICE_INDEX, "device 2 requested, but 2 present (valid: 0..1)");
    assert_null(past);
    const char *was = getenv("TOKITAI_HIP_DEVICE");
    char saved[64] = "";
    if (was)
        snprintf(saved, sizeof saved, "%s", was);
    setenv("TOKITAI_HIP_DEVICE", "1", 1);
    tkh_device_report d;
    assert_int_equal(tkh_device_query(TKH_DEVICE_FROM_ENV, &d), TKH_OK);
    assert_int_equal(d.selected, 1);
    assert_string_equal(d.pci_bus_id, "0000:42:00.0");
    if (was)
        setenv("TOKITAI_HIP_DEVICE", saved, 1);
    else
        unsetenv("TOKITAI_HIP_DEVICE");
    make(&a, m, 2, s23, NULL);
    make(&b, row, 1, s3, NULL);
    make(&o, out, 2, s23, NULL);
    a.t.device = b.t.device = o.t.device = (DLDevice){ kDLROCM, 1 };
    expect(add_call(zero, &a.t, &b.t, &o.t, NULL), TKH_ERR_INVALID_ARGUMENT,
        "tensor input 0 (lhs) is on device 1: expected the context's device 0");
    memset(out, 0, sizeof out);
    assert_int_equal(add_call(one, &a.t, &b.t, &o.t, NULL), TKH_OK);
    for (int i = 0; i < 6; ++i)
        assert_int_equal(out[i], m[i] + row[i % 3]);
    tkh_context_destroy(one);
    tkh_context_destroy(zero);
    fake_hip_set_devices(1);
}

int main(void)
{
    static size_t small_pieces = 16; /* bytes: a row or so of these tests' tensors a piece */
    static int on_device = 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast_by_hand),
        cmocka_unit_test_prestate(test_broadcast_by_hand, &small_pieces),
        cmocka_unit_test(test_normalizations_by_hand),
        cmocka_unit_test_prestate(test_normalizations_by_hand, &small_pieces),
        cmocka_unit_test(test_repeated_plans),
        cmocka_unit_test(test_bad_tensors),
        cmocka_unit_test(test_two_devices),
        cmocka_unit_test(test_mismatch_names_index),
        cmocka_unit_test(test_edges),
        cmocka_unit_test_prestate(test_edges, &on_device),
        cmocka_unit_test(test_device_tensors),
        cmocka_unit_test(test_split_reductions),
        cmocka_unit_test(test_random_broadcasts),
        cmocka_unit_test_prestate(test_random_broadcasts, &small_pieces),
        cmocka_unit_test(test_random_reductions),
        cmocka_unit_test_prestate(test_random_reductions, &small_pieces),
        cmocka_unit_test(every_platform_call_can_fail),
        cmocka_unit_test_prestate(every_platform_call_can_fail, &small_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
