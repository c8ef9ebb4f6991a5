/* Tensor calls of every generated kernel on a real device, each result checked by the
 * CPU oracle walking the plan: broadcast rows and columns, a transposed input, a reversed
 * (negative-stride) 3-D input into a gapped output; every reduction over each axis, both
 * with keepdims, a transposed input, and columns of whole vectors; device tensors under the device oracle; a
 * tensor of more than 2^31 elements (64-bit plan). Random inputs from a fixed, printed
 * seed (TKH_TEST_SEED replays another). Exits 77 (skipped) when there is no device. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tokitai_hip/codegen/hip_platform.h"
#include "tokitai_hip/codegen/scalar.h"
#include "tokitai_hip/tokitai_hip.h"
#include "base/base.h" /* tkhi_splitmix64 */
#include "../evidence.h"
#include "gpu_start.h"

static uint64_t seed;
static tkh_context *ctx;

static DLDataType dtype_of(const char *type)
{
    DLDataType t;
    assert_int_equal(tkh_dlpack_dtype(type, &t), TKH_OK);
    return t;
}

/* A host tensor over its own buffer of 'elems' elements (the span its strides need). */
typedef struct tensor {
    DLTensor t;
    int64_t shape[4], strides[4];
    unsigned char *buffer;
} tensor;

static void fill(const tkh_operand *x, unsigned char *v, size_t count, int moderate, uint64_t *s)
{
    for (size_t i = 0; i < count; ++i) {
        uint64_t r = tkhi_splitmix64(s);
        if (moderate) { /* values in [-1, 1): bounded float sums */
            const double d = (double)(r >> 11) * 0x1p-52 - 1.0;
            const float f = (float)d;
            const uint16_t h = strcmp(x->type, "f16") == 0 ? tkh_f32_to_f16(f) : tkh_f32_to_bf16(f);
            memcpy(v + i * x->size, x->size == 8 ? (const void *)&d : x->size == 4 ? (const void *)&f
                : (const void *)&h, x->size);
        } else {
            memcpy(v + i * x->size, &r, x->size);
            if (strcmp(x->type, "bool") == 0)
                v[i] &= 1;
        }
    }
}

/* shape and strides (NULL: compact); the buffer spans offsets [lo, hi]. */
static const DLTensor *make(tensor *x, const tkh_operand *op, int ndim, const int64_t *shape,
    const int64_t *strides, int moderate, uint64_t *s)
{
    memset(x, 0, sizeof *x);
    memcpy(x->shape, shape, sizeof(int64_t) * (size_t)ndim);
    int64_t lo = 0, hi = 0, step = 1;
    for (int d = ndim - 1; d >= 0; --d) {
        x->strides[d] = strides ? strides[d] : step;
        step *= shape[d];
        *(x->strides[d] < 0 ? &lo : &hi) += (shape[d] - 1) * x->strides[d];
    }
    const size_t count = (size_t)(hi - lo + 1);
    x->buffer = malloc(count * op->size);
    assert_non_null(x->buffer);
    fill(op, x->buffer, count, moderate, s);
    x->t = (DLTensor){ x->buffer, { kDLCPU, 0 }, ndim, dtype_of(op->type), x->shape, x->strides,
        (uint64_t)(-lo) * op->size };
    return &x->t;
}

static void run_case(const tkh_kernel_info *k, const char *what, tensor *t, const void *const *scalars,
    const int64_t *axes, unsigned axis_count, int keepdims)
{
    const DLTensor *in[TKH_MAX_INPUTS], *out[TKH_MAX_OUTPUTS];
    for (unsigned a = 0; a < k->arity; ++a)
        in[a] = &t[a].t;
    for (unsigned o = 0; o < k->output_count; ++o)
        out[o] = &t[k->arity + o].t;
    const tkh_tensor_args args = { in, k->arity, out, k->output_count, scalars, k->scalar_count, axes,
        axis_count, keepdims, NULL };
    tkh_report r;
    if (tkh_tensor_call(ctx, k, &args, &r) != TKH_OK || !r.oracle_matches)
        fail_msg("%s_%s, %s (seed %" PRIu64 "): %s", k->op, k->type, what, seed, r.message);
    for (unsigned a = 0; a < k->arity + k->output_count; ++a)
        free(t[a].buffer);
}

/* One normalization case: the input of 'shape' (and 'strides', NULL: compact) along 'axis',
 * its columns given or not; the output of the input's shape, or for a post step with the
 * axis removed or kept as 1. */
static void normalization_case(const tkh_kernel_info *k, const void *const *scalars, const char *what, int ndim,
    const int64_t *shape, const int64_t *strides, int64_t axis, int columns, int keepdims, int moderate,
    uint64_t *s)
{
    const int post = k->out_count == 1;
    const int64_t at = axis < 0 ? axis + ndim : axis, n = shape[at];
    tensor t[TKH_MAX_ARRAYS];
    make(&t[0], &k->inputs[0], ndim, shape, strides, moderate, s);
    const DLTensor *in[TKH_MAX_INPUTS], *out[1];
    in[0] = &t[0].t;
    for (unsigned a = 1; a < k->arity; ++a) {
        in[a] = NULL;
        t[a].buffer = NULL;
        if (columns)
            in[a] = make(&t[a], &k->inputs[a], 1, &n, NULL, moderate, s);
    }
    int64_t oshape[4];
    int ondim = 0;
    for (int d = 0; d < ndim; ++d)
        if (!post || d != at || keepdims)
            oshape[ondim++] = post && d == at ? 1 : shape[d];
    out[0] = make(&t[k->arity], &k->outputs[0], ondim, oshape, NULL, 0, s);
    const tkh_tensor_args args = { in, k->arity, out, 1, scalars, k->scalar_count, &axis, 1, keepdims, NULL };
    tkh_report r;
    if (tkh_tensor_call(ctx, k, &args, &r) != TKH_OK || !r.oracle_matches)
        fail_msg("%s_%s, %s (seed %" PRIu64 "): %s", k->op, k->type, what, seed, r.message);
    for (unsigned a = 0; a <= k->arity; ++a)
        free(t[a].buffer);
}

/* A normalization along an axis: rows of 129 with every column given (element by
 * element, groups of 8 threads sharing a block, the last block part full), columns of 37
 * with none (their defaults), a transposed input, the middle axis of [3, 5, 67], rows of
 * 70000 and 70001 (past what a group keeps in registers for every type; vectors, then
 * element by element), random bit patterns (NaN, infinities), and two cases for every
 * shape of the cached kernel (tkh_norm_shape_of), in 16-byte vectors: rows that fill the
 * group's registers (the kernel that tests no vector) and rows a vector short (the last
 * thread walks fewer vectors); for groups that share blocks, the last block part full.
 * Values in [-1, 1) but for the random bits; eps 1e-5. */
static size_t normalization_cases(const tkh_kernel_info *k, uint64_t *s)
{
    unsigned char eps[8];
    const float e32 = 1e-5f;
    const double e64 = 1e-5;
    const void *scalars[TKH_MAX_SCALARS];
    for (unsigned j = 0; j < k->scalar_count; ++j) {
        memcpy(eps, k->scalars[j].size == 8 ? (const void *)&e64 : (const void *)&e32, k->scalars[j].size);
        scalars[j] = eps;
    }
    const int64_t rc[2] = { 37, 129 }, transposed[2] = { 1, 37 }, cube[3] = { 3, 5, 67 },
        long_rows[2] = { 2, 70000 }, odd_rows[2] = { 2, 70001 }, bits[2] = { 5, 40 };
    const struct { const char *what; int ndim; const int64_t *shape, *strides; int64_t axis; int columns, keepdims,
        moderate; } cases[] = {
        { "[37, 129] along axis 1, columns given", 2, rc, NULL, 1, 1, 0, 1 },
        { "[37, 129] along axis 0, no columns (keepdims)", 2, rc, NULL, 0, 0, 1, 1 },
        { "[37, 129] transposed, along axis -1", 2, rc, transposed, -1, 1, 0, 1 },
        { "[3, 5, 67] along axis 1", 3, cube, NULL, 1, 1, 0, 1 },
        { "[2, 70000] along axis 1 (rows past the registers)", 2, long_rows, NULL, 1, 1, 0, 1 },
        { "[2, 70001] along axis 1 (past the registers, element by element)", 2, odd_rows, NULL, 1, 0, 0, 1 },
        { "[5, 40] along axis 1, random bits", 2, bits, NULL, 1, 1, 0, 0 },
    };
    size_t runs = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c, ++runs)
        normalization_case(k, scalars, cases[c].what, cases[c].ndim, cases[c].shape, cases[c].strides,
            cases[c].axis, cases[c].columns, cases[c].keepdims, cases[c].moderate, s);
    const int64_t per = 16 / (int64_t)k->inputs[0].size;
    for (unsigned g = 1, nv = TKH_NORM_VECTORS; g <= TKH_NORM_MOST_GROUP;) {
        for (int64_t short_by = 0; short_by <= per; short_by += per, ++runs) { /* whole, a vector short */
            const int64_t shape[2] = { g > 32 ? 3 : TKH_NORM_ROWS_BLOCK / g + 1, (int64_t)g * nv * per - short_by };
            const tkh_norm_shape want = tkh_norm_shape_of(shape[1], k->inputs[0].size);
            assert_int_equal(want.group, g);
            assert_int_equal(want.vectors, nv);
            char what[96];
            snprintf(what, sizeof what, "[%" PRId64 ", %" PRId64 "] along axis 1 (%u threads a row, %u vectors each)",
                shape[0], shape[1], g, nv);
            normalization_case(k, scalars, what, 2, shape, NULL, 1, 1, 0, 1, s);
        }
        if (g == TKH_NORM_VECTORS_GROUP && nv == TKH_NORM_VECTORS)
            nv = TKH_NORM_MOST_VECTORS;
        else
            g *= 2;
    }
    return runs;
}

/* Elementwise: [37, 129] from a transposed input, a row and a column (in turn), into a
 * compact output; [3, 5, 67] with the first input reversed along its last axis into an
 * output with gaps. Reductions: axis 1, axis 0 with keepdims, both axes, a transposed
 * input over axis 0, [5, 7, 33] over axes 0 and 2, and three of few outputs, whose
 * elements the launch splits over blocks. */
static void every_kernel_over_tensors(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    uint64_t s = seed;
    size_t runs = 0;
    for (size_t i = 0; i < reg->count; ++i) {
        const tkh_kernel_info *k = reg->kernels[i];
        const int moderate = strcmp(k->compare_rule, "sum_bound") == 0;
        unsigned char scalar_values[TKH_MAX_SCALARS][8];
        const void *scalars[TKH_MAX_SCALARS];
        for (unsigned j = 0; j < k->scalar_count; ++j) {
            fill(&k->scalars[j], scalar_values[j], 1, 0, &s);
            scalars[j] = scalar_values[j];
        }
        tensor t[TKH_MAX_ARRAYS];
        const int64_t rc[2] = { 37, 129 }, cr[2] = { 129, 37 }, transposed[2] = { 1, 37 }, row[1] = { 129 },
            col[2] = { 37, 1 }, cube[3] = { 3, 5, 67 }, reversed[3] = { 335, 67, -1 }, gapped[3] = { 670, 134, 2 };
        if (strcmp(k->shape, "elementwise") == 0) {
            for (unsigned a = 0; a < k->arity; ++a) {
                const unsigned kind = a % 3;
                make(&t[a], &k->inputs[a], kind == 1 ? 1 : 2, kind == 0 ? rc : kind == 1 ? row : col,
                    kind == 0 ? transposed : NULL, moderate, &s);
            }
            for (unsigned o = 0; o < k->output_count; ++o)
                make(&t[k->arity + o], &k->outputs[o], 2, rc, NULL, 0, &s);
            run_case(k, "[37, 129]: transposed, row and column inputs", t, scalars, NULL, 0, 0);
            for (unsigned a = 0; a < k->arity; ++a)
                make(&t[a], &k->inputs[a], 3, cube, a == 0 ? reversed : NULL, moderate, &s);
            for (unsigned o = 0; o < k->output_count; ++o)
                make(&t[k->arity + o], &k->outputs[o], 3, cube, gapped, 0, &s);
            run_case(k, "[3, 5, 67]: a reversed input, a gapped output", t, scalars, NULL, 0, 0);
            runs += 2;
            continue;
        }
        if (strcmp(k->shape, "normalization") == 0) {
            runs += normalization_cases(k, &s);
            continue;
        }
        if (strcmp(k->shape, "matmul") == 0)
            continue; /* tests/gpu/test_gpu_matmul.c */
        const int64_t one = 1, zero = 0, both[2] = { 0, 1 }, kept0[1] = { 37 }, k1[2] = { 1, 129 },
            k11[2] = { 1, 1 }, r160[2] = { 37, 160 }, c160[1] = { 160 }, c3[3] = { 5, 7, 33 }, ends[2] = { 0, -1 }, mid[1] = { 7 },
            tall[2] = { 20000, 3 }, three[1] = { 3 }, wide[2] = { 3, 70000 }, r64[2] = { 4096, 64 }, c64[1] = { 64 };
        const struct { const char *what; int ndim; const int64_t *shape, *strides, *axes; unsigned axis_count;
            int keepdims, ondim; const int64_t *oshape; } cases[] = {
            { "[37, 129] over axis 1", 2, rc, NULL, &one, 1, 0, 1, kept0 },
            { "[37, 129] over axis 0, keepdims", 2, rc, NULL, &zero, 1, 1, 2, k1 },
            { "[37, 129] over both axes, keepdims", 2, rc, NULL, both, 2, 1, 2, k11 },
            { "[37, 129] over no axis (an empty list: NumPy's axis=())", 2, rc, NULL, &zero, 0, 0, 2, rc },
            { "[129, 37] transposed over axis 0", 2, cr, transposed, &zero, 1, 0, 1, kept0 },
            { "[37, 160] over axis 0 (columns as vectors)", 2, r160, NULL, &zero, 1, 0, 1, c160 },
            { "[5, 7, 33] over axes 0 and -1", 3, c3, NULL, ends, 2, 0, 1, mid },
            /* few outputs: each output's elements split over blocks */
            { "[20000, 3] over axis 0 (split columns)", 2, tall, NULL, &zero, 1, 0, 1, three },
            { "[4096, 64] over axis 0 (split columns as vectors)", 2, r64, NULL, &zero, 1, 0, 1, c64 },
            { "[3, 70000] over axis 1 (split rows)", 2, wide, NULL, &one, 1, 0, 1, three },
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            make(&t[0], &k->inputs[0], cases[c].ndim, cases[c].shape, cases[c].strides, moderate, &s);
            for (unsigned o = 0; o < k->output_count; ++o)
                make(&t[1 + o], &k->outputs[o], cases[c].ondim, cases[c].oshape, NULL, 0, &s);
            run_case(k, cases[c].what, t, NULL, cases[c].axes, cases[c].axis_count, cases[c].keepdims);
            ++runs;
        }
    }
    printf("%zu tensor calls of %zu kernels passed\n", runs, reg->count);
}

static DLDevice device(void)
{
    const tkh_device_report *d = tkh_context_device(ctx);
    return (DLDevice){ strcmp(d->platform, "nvidia") == 0 ? kDLCUDA : kDLROCM, d->selected };
}

/* Device tensors under the device oracle: a row bias added past 2^31 elements (the 64-bit
 * plan, sampled), and a sum over rows (every output). */
static void device_tensors_checked(void **state)
{
    (void)state;
    const int64_t cols = ((int64_t)1 << 30) + 3, shape[2] = { 2, cols }, rows[1] = { cols };
    const size_t n = (size_t)(2 * cols);
    unsigned char *host = malloc(n), *d_a, *d_b, *d_out;
    assert_non_null(host);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i += 8) {
        const uint64_t r = tkhi_splitmix64(&s);
        memcpy(host + i, &r, n - i < 8 ? n - i : 8);
    }
    assert_int_equal(hipMalloc((void **)&d_a, n), hipSuccess);
    assert_int_equal(hipMalloc((void **)&d_b, (size_t)cols), hipSuccess);
    assert_int_equal(hipMalloc((void **)&d_out, n), hipSuccess);
    assert_int_equal(hipMemcpy(d_a, host, n, hipMemcpyHostToDevice), hipSuccess);
    assert_int_equal(hipMemcpy(d_b, host + 5, (size_t)cols, hipMemcpyHostToDevice), hipSuccess);
    const DLDataType u8 = { kDLUInt, 8, 1 };
    DLTensor a = { d_a, device(), 2, u8, (int64_t *)shape, NULL, 0 }, b = { d_b, device(), 1, u8, (int64_t *)rows, NULL, 0 },
        out = { d_out, device(), 2, u8, (int64_t *)shape, NULL, 0 };
    const tkh_oracle_policy sampled = { TKH_ORACLE_SAMPLED, 1000000, seed };
    assert_int_equal(tkh_context_set_device_oracle(ctx, &sampled), TKH_OK);
    tkh_report r;
    tkh_status st = tkh_add_u8_tensor(ctx, &a, &b, &out, NULL, &r);
    if (st != TKH_OK || !r.oracle_matches)
        fail_msg("add_u8 over [2, 2^30 + 3] + [2^30 + 3]: %s", r.message);
    int found = 0;
    for (size_t i = 0; i < r.evidence_count; ++i)
        found |= strstr(r.evidence[i], "64-bit indices") != NULL;
    assert_true(found);
    /* a sum over rows of f32 device tensors, every output checked */
    const int64_t m[2] = { 1000, 3001 }, kept[1] = { 1000 }, axis = 1;
    float *x = malloc(sizeof(float) * 1000 * 3001);
    for (size_t i = 0; i < 1000 * 3001; ++i)
        x[i] = (float)((double)(tkhi_splitmix64(&s) >> 11) * 0x1p-52 - 1.0);
    float *d_x, *d_sum;
    assert_int_equal(hipMalloc((void **)&d_x, sizeof(float) * 1000 * 3001), hipSuccess);
    assert_int_equal(hipMalloc((void **)&d_sum, sizeof(float) * 1000), hipSuccess);
    assert_int_equal(hipMemcpy(d_x, x, sizeof(float) * 1000 * 3001, hipMemcpyHostToDevice), hipSuccess);
    const DLDataType f32 = { kDLFloat, 32, 1 };
    DLTensor tx = { d_x, device(), 2, f32, (int64_t *)m, NULL, 0 }, ts = { d_sum, device(), 1, f32, (int64_t *)kept, NULL, 0 };
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
    assert_int_equal(tkh_context_set_device_oracle(ctx, &full), TKH_OK);
    st = tkh_sum_f32_tensor(ctx, &tx, &ts, &axis, 1, 0, NULL, &r);
    if (st != TKH_OK || !r.oracle_matches || r.oracle_compared != 1000)
        fail_msg("sum_f32 over rows of [1000, 3001]: %s", r.message);
    /* in place, x += x: the oracle reads x as the kernel did, before it was overwritten */
    st = tkh_add_f32_tensor(ctx, &tx, &tx, &tx, NULL, &r);
    if (st != TKH_OK || !r.oracle_matches || r.oracle_compared != 1000 * 3001)
        fail_msg("add_f32 in place over [1000, 3001]: %s", r.message);
    float *twice = malloc(sizeof(float) * 1000 * 3001);
    assert_non_null(twice);
    assert_int_equal(hipMemcpy(twice, d_x, sizeof(float) * 1000 * 3001, hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < 1000 * 3001; ++i)
        if (twice[i] != 2 * x[i])
            fail_msg("add_f32 in place: element %zu is %.9g, expected %.9g", i, twice[i], 2 * x[i]);
    free(twice);
    const tkh_oracle_policy off = { TKH_ORACLE_OFF, 0, 0 };
    assert_int_equal(tkh_context_set_device_oracle(ctx, &off), TKH_OK);
    hipFree(d_a);
    hipFree(d_b);
    hipFree(d_out);
    hipFree(d_x);
    hipFree(d_sum);
    free(host);
    free(x);
}

/* An output element of type 'type' as a double (bool as 0 or 1). */
static double as_double(const char *type, const unsigned char *v)
{
    union { int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint8_t u8; uint16_t u16; uint32_t u32;
        uint64_t u64; float f32; double f64; } x;
    memcpy(&x, v, 8);
    return strcmp(type, "f64") == 0 ? x.f64 : strcmp(type, "f32") == 0 ? x.f32
        : strcmp(type, "f16") == 0 ? tkh_f16_to_f32(x.u16) : strcmp(type, "bf16") == 0 ? tkh_bf16_to_f32(x.u16)
        : strcmp(type, "i8") == 0 ? x.i8 : strcmp(type, "i16") == 0 ? x.i16 : strcmp(type, "i32") == 0 ? x.i32
        : strcmp(type, "i64") == 0 ? (double)x.i64 : strcmp(type, "u16") == 0 ? x.u16
        : strcmp(type, "u32") == 0 ? x.u32 : strcmp(type, "u64") == 0 ? (double)x.u64 : x.u8;
}

/* A reduction over no elements, worked by hand (numpy and torch give the same); NaN for
 * mean's 0 / 0; 'refused' where there is no identity (amin, amax, argmin, argmax). */
static int empty_value(const char *op, double *value)
{
    static const struct { const char *op; double value; } known[] = {
        { "sum", 0 }, { "sumsq", 0 }, { "norm2", 0 }, { "count_nonzero", 0 }, { "any", 0 }, { "all", 1 },
        { "mean", NAN },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
        if (strcmp(known[i].op, op) == 0) {
            *value = known[i].value;
            return 1;
        }
    return 0;
}

/* What torch and NumPy users meet at the edges, for every kernel, on host and device
 * tensors: tensors of zero elements with NULL data (as torch exports them), reductions
 * over an empty axis (the identity, checked by the oracle and against the value worked
 * out by hand, or TKH_ERR_EMPTY without one), and normalizations' optional columns left
 * out by name in every combination. */
static void edges_torch_users_meet(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 }, off = { TKH_ORACLE_OFF, 0, 0 };
    assert_int_equal(tkh_context_set_device_oracle(ctx, &full), TKH_OK);
    unsigned char *d_out;
    assert_int_equal(hipMalloc((void **)&d_out, 3 * 8), hipSuccess);
    size_t runs = 0;
    uint64_t s = seed;
    for (int on_device = 0; on_device < 2; ++on_device) {
        const DLDevice where = on_device ? device() : (DLDevice){ kDLCPU, 0 };
        for (size_t i = 0; i < reg->count; ++i) {
            const tkh_kernel_info *k = reg->kernels[i];
            if (strcmp(k->shape, "matmul") == 0)
                continue; /* tests/gpu/test_gpu_matmul.c: empty operands there */
            unsigned char scalar_values[TKH_MAX_SCALARS][8], host_out[TKH_MAX_OUTPUTS][3 * 8];
            const void *scalars[TKH_MAX_SCALARS];
            for (unsigned j = 0; j < k->scalar_count; ++j) {
                fill(&k->scalars[j], scalar_values[j], 1, 1, &s);
                scalars[j] = scalar_values[j];
            }
            const int64_t s03[2] = { 0, 3 }, s3[1] = { 3 }, s0[1] = { 0 }, axis0 = 0;
            const int reduction = strcmp(k->shape, "reduction") == 0;
            const int post = strcmp(k->shape, "normalization") == 0 && k->out_count == 1;
            DLTensor t[TKH_MAX_ARRAYS];
            const DLTensor *in[TKH_MAX_INPUTS], *out[TKH_MAX_OUTPUTS];
            for (unsigned a = 0; a < k->arity + k->output_count; ++a) {
                const tkh_operand *op = a < k->arity ? &k->inputs[a] : &k->outputs[a - k->arity];
                const int column = a > 0 && a < k->arity && strcmp(k->shape, "normalization") == 0;
                const int kept = a >= k->arity && (reduction || post); /* the outputs of axis 0 reduced: [3] */
                void *data = !kept ? NULL : on_device ? (void *)(d_out + 0) : host_out[a - k->arity];
                t[a] = (DLTensor){ data, where, column || kept ? 1 : 2, dtype_of(op->type),
                    (int64_t *)(column ? s0 : kept ? s3 : s03), NULL, 0 };
                *(a < k->arity ? &in[a] : &out[a - k->arity]) = &t[a];
            }
            const tkh_tensor_args args = { in, k->arity, out, k->output_count, scalars, k->scalar_count,
                &axis0, reduction || strcmp(k->shape, "normalization") == 0 ? 1 : 0, 0, NULL };
            tkh_report r;
            const tkh_status st = tkh_tensor_call(ctx, k, &args, &r);
            double want;
            ++runs;
            if (!reduction && !post) { /* no elements: nothing to run */
                if (st != TKH_OK)
                    fail_msg("%s_%s over [0, 3] with NULL data (%s): %s", k->op, k->type,
                        on_device ? "device" : "host", r.message);
                continue;
            }
            if (!k->has_identity || !empty_value(k->op, &want)) {
                if (st != TKH_ERR_EMPTY || k->has_identity)
                    fail_msg("%s_%s over an empty axis (%s): expected TKH_ERR_EMPTY (no identity%s), got %s: %s",
                        k->op, k->type, on_device ? "device" : "host", k->has_identity ? " worked out here" : "",
                        tkh_status_name(st), r.message);
                continue;
            }
            if (st != TKH_OK || !r.oracle_matches || r.oracle_compared != 3)
                fail_msg("%s_%s over the empty axis 0 of [0, 3] (%s): %s", k->op, k->type,
                    on_device ? "device" : "host", r.message);
            unsigned char got[3 * 8];
            if (on_device)
                assert_int_equal(hipMemcpy(got, d_out, 3 * k->outputs[0].size, hipMemcpyDeviceToHost), hipSuccess);
            else
                memcpy(got, host_out[0], 3 * k->outputs[0].size);
            for (int e = 0; e < 3; ++e) {
                const double v = as_double(k->outputs[0].type, got + e * k->outputs[0].size);
                if (!(v == want || (isnan(v) && isnan(want))))
                    fail_msg("%s_%s over no elements gave %g, expected %g", k->op, k->type, v, want);
            }
        }
        /* layer_norm and rms_norm by name, each optional column given or left out */
        for (size_t i = 0; i < reg->count; ++i) {
            const tkh_kernel_info *k = reg->kernels[i];
            if (strcmp(k->op, "layer_norm") != 0 && strcmp(k->op, "rms_norm") != 0)
                continue;
            for (unsigned given = 0; given < 1u << (k->arity - 1); ++given) {
                const int64_t shape[2] = { 5, 33 }, n[1] = { 33 }, axis = -1;
                tensor t[TKH_MAX_ARRAYS];
                const DLTensor *in[TKH_MAX_INPUTS], *out[1];
                in[0] = make(&t[0], &k->inputs[0], 2, shape, NULL, 1, &s);
                for (unsigned a = 1; a < k->arity; ++a) {
                    t[a].buffer = NULL;
                    in[a] = given >> (a - 1) & 1 ? make(&t[a], &k->inputs[a], 1, n, NULL, 1, &s) : NULL;
                }
                out[0] = make(&t[k->arity], &k->outputs[0], 2, shape, NULL, 0, &s);
                unsigned char *d[TKH_MAX_ARRAYS] = { NULL };
                DLTensor dt[TKH_MAX_ARRAYS];
                if (on_device) /* the same tensors, copied to the device */
                    for (unsigned a = 0; a <= k->arity; ++a) {
                        const DLTensor *h = a < k->arity ? in[a] : out[0];
                        if (h == NULL)
                            continue;
                        const size_t bytes = (size_t)(h->ndim == 2 ? 5 * 33 : 33) * k->inputs[0].size;
                        assert_int_equal(hipMalloc((void **)&d[a], bytes), hipSuccess);
                        assert_int_equal(hipMemcpy(d[a], h->data, bytes, hipMemcpyHostToDevice), hipSuccess);
                        dt[a] = *h;
                        dt[a].data = d[a];
                        dt[a].device = where;
                        *(a < k->arity ? &in[a] : &out[0]) = &dt[a];
                    }
                double eps = 1e-5;
                float eps32 = 1e-5f;
                const void *sc[1] = { k->scalars[0].size == 8 ? (const void *)&eps : (const void *)&eps32 };
                const tkh_tensor_args args = { in, k->arity, out, 1, sc, 1, &axis, 1, 0, NULL };
                tkh_report r;
                if (tkh_tensor_op(ctx, reg, k->op, &args, &r) != TKH_OK || !r.oracle_matches
                    || tkh_registry_match(reg, k->op, &args) != k)
                    fail_msg("%s by name with %s_%s's columns %u given (%s): %s", k->op, k->op, k->type, given,
                        on_device ? "device" : "host", r.message);
                for (unsigned a = 0; a <= k->arity; ++a) {
                    free(t[a].buffer);
                    hipFree(d[a]);
                }
                ++runs;
            }
        }
    }
    assert_int_equal(tkh_context_set_device_oracle(ctx, &off), TKH_OK);
    hipFree(d_out);
    printf("%zu edge calls passed\n", runs);
}

/* Host tensors past the context's chunk size (16 MiB) go in pieces: a transposed input
 * (sent whole) plus a row bias, and a sum over rows of [5000, 3001]. */
static void host_tensors_in_pieces(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    const tkh_kernel_info *add = tkh_registry_find(reg, "add", "f32"), *sum = tkh_registry_find(reg, "sum", "f32");
    assert_non_null(add);
    assert_non_null(sum);
    uint64_t s = seed;
    tensor t[3];
    const int64_t rc[2] = { 3000, 3001 }, transposed[2] = { 1, 3000 }, row[1] = { 3001 };
    make(&t[0], &add->inputs[0], 2, rc, transposed, 0, &s);
    make(&t[1], &add->inputs[1], 1, row, NULL, 0, &s);
    make(&t[2], &add->outputs[0], 2, rc, NULL, 0, &s);
    const DLTensor *in[2] = { &t[0].t, &t[1].t }, *out[1] = { &t[2].t };
    const tkh_tensor_args args = { in, 2, out, 1, NULL, 0, NULL, 0, 0, NULL };
    tkh_report r;
    if (tkh_tensor_call(ctx, add, &args, &r) != TKH_OK || !r.oracle_matches || !has_evidence(&r, "pieces of"))
        fail_msg("add_f32 over [3000, 3001] (transposed) + [3001] in pieces: %s", r.message);
    for (int a = 0; a < 3; ++a)
        free(t[a].buffer);
    const int64_t x[2] = { 5000, 3001 }, kept[1] = { 5000 }, axis = 1;
    make(&t[0], &sum->inputs[0], 2, x, NULL, 1, &s);
    make(&t[1], &sum->outputs[0], 1, kept, NULL, 0, &s);
    if (tkh_sum_f32_tensor(ctx, &t[0].t, &t[1].t, &axis, 1, 0, NULL, &r) != TKH_OK || !r.oracle_matches
        || r.oracle_compared != 5000 || !has_evidence(&r, "pieces of"))
        fail_msg("sum_f32 over rows of [5000, 3001] in pieces: %s", r.message);
    free(t[0].buffer);
    free(t[1].buffer);
}

int main(void)
{
    const int start = gpu_test_start(20261202, &seed, &ctx);
    if (start >= 0)
        return start;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kernel_over_tensors),
        cmocka_unit_test(device_tensors_checked),
        cmocka_unit_test(host_tensors_in_pieces),
        cmocka_unit_test(edges_torch_users_meet),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tkh_context_destroy(ctx);
    return failed;
}
