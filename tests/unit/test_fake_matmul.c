/* Matrix products without a GPU: the runtime's own sources on the fake HIP runtime
 * (tests/fake), with i32 kernels on the host walking the plan the way the tiled kernel
 * does. NumPy's matmul rules (1-D operands, batches broadcast), strides (transposed views,
 * gaps, stride 0), b given as [n, k], a bias column, the flat entry point, pieces, every
 * bad input with its message, the oracle naming an output's multi-index, all against a
 * plain triple loop over the tensors, on random cases from a printed seed (TKH_TEST_SEED
 * replays one); the projected check of integers and floats. */
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

#include "fake_f32_product.h"
#include "fake_hip.h"
#include "random_strides.h"
#include "platform/platform.h" /* tkhi_splitmix64, the context's chunk size */
#include "shapes/shapes.h"     /* tkhi_real */
#include "tokitai_hip/context.h"
#include "tokitai_hip/tensor.h"
#include "../evidence.h"

static const char *const targets[] = { "gfx90a", NULL };
static const char *const none[] = { NULL };

static int32_t mul_add(int32_t acc, int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)acc + (uint32_t)a * (uint32_t)b);
}

/* The kernel: every output of the plan (dimension 0 k, 1 n, 2 m, the rest the batch) the
 * sum over k, wrapping, plus each extra input (arrays 2 .. 1 + extras: a bias, a row, an
 * addend; 0 where not given), each at its own strides. */
static int product_plan(const void *const *in, void *const *out, const tkh_plan *p, unsigned extras)
{
    const int32_t *a = in[0], *b = in[1];
    const unsigned o = 2 + extras;
    for (int64_t e = 0; e < p->count; ++e) {
        int64_t off[5] = { 0, 0, 0, 0, 0 }, rest = e / (p->size[1] * p->size[2]);
        const int64_t j = e % p->size[1], i = e / p->size[1] % p->size[2];
        for (int d = 3; d < p->ndim; ++d, rest /= p->size[d - 1])
            for (unsigned x = 0; x <= o; ++x)
                off[x] += rest % p->size[d] * p->stride[x][d];
        for (unsigned x = 0; x <= o; ++x)
            off[x] += i * p->stride[x][2] + j * p->stride[x][1];
        int32_t s = 0;
        for (unsigned x = 2; x < o; ++x)
            s = mul_add(s, in[x] ? ((const int32_t *)in[x])[off[x]] : 0, 1);
        for (int64_t kk = 0; kk < p->size[0]; ++kk)
            s = mul_add(s, a[off[0] + kk * p->stride[0][0]], b[off[1] + kk * p->stride[1][0]]);
        ((int32_t *)out[0])[off[o]] = s;
    }
    return 0;
}

static int matmul_plan(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    return product_plan(in, out, p, 0);
}

static int linear_plan(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    return product_plan(in, out, p, 1);
}

static int two_extras_plan(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    return product_plan(in, out, p, 2);
}

/* The oracle's check, as templates/matmul.c.tpl's for integers: exact. */
static size_t check_extras(unsigned extras, const void *a, int64_t a_k, const void *b, int64_t b_k, int64_t b_n,
    const void *const *columns, const int64_t *column_n, const void *out, int64_t out_n, size_t k, size_t count,
    tkh_check_note *note)
{
    for (size_t j = 0; j < count; ++j) {
        int32_t s = 0;
        for (unsigned x = 0; x < extras; ++x)
            s = mul_add(s, columns[x] ? ((const int32_t *)columns[x])[(int64_t)j * column_n[x]] : 0, 1);
        for (size_t i = 0; i < k; ++i)
            s = mul_add(s, ((const int32_t *)a)[(int64_t)i * a_k], ((const int32_t *)b)[(int64_t)i * b_k
                + (int64_t)j * b_n]);
        const int32_t got = ((const int32_t *)out)[(int64_t)j * out_n];
        if (got != s) {
            snprintf(note->detail, sizeof note->detail, "got %d, expected %d", (int)got, (int)s);
            return j;
        }
    }
    return count;
}

/* For the kernels below of no extra inputs or one (matmul, linear), and of two. */
static size_t check_product(const void *a, int64_t a_k, const void *b, int64_t b_k, int64_t b_n,
    const void *const *columns, const int64_t *column_n, const void *out, int64_t out_n,
    const void *const *scalars, size_t k, int nearest, size_t count, tkh_check_note *note)
{
    (void)scalars, (void)nearest;
    return check_extras(1, a, a_k, b, b_k, b_n, columns, column_n, out, out_n, k, count, note);
}

static size_t check_two(const void *a, int64_t a_k, const void *b, int64_t b_k, int64_t b_n,
    const void *const *columns, const int64_t *column_n, const void *out, int64_t out_n,
    const void *const *scalars, size_t k, int nearest, size_t count, tkh_check_note *note)
{
    (void)scalars, (void)nearest;
    return check_extras(2, a, a_k, b, b_k, b_n, columns, column_n, out, out_n, k, count, note);
}

static const tkh_operand ab[] = { { "a", "i32", 4, NULL, 0, 0, NULL }, { "b", "i32", 4, NULL, 0, 0, NULL } };
static const tkh_operand xwb[] = { { "x", "i32", 4, NULL, 0, 0, NULL }, { "weight", "i32", 4, NULL, 0, 0, NULL },
    { "bias", "i32", 4, NULL, 0, 0, "0" } };
static const tkh_operand out_i32[] = { { "out", "i32", 4, "exact", 0, 0, NULL } };

#define PRODUCT(name, arity_, inputs_, plan_, nk)                                                  \
    .catalog = "fake", .op = name, .type = "i32", .symbol = "fake_" name, .shape = "matmul",        \
    .shape_kind = TKH_SHAPE_MATMUL, .signature = name, .arity = arity_, .inputs = inputs_,         \
    .output_count = 1, .outputs = out_i32, .block = 256, .vector_width = 1, .domain = "integer",    \
    .representation = "dense", .semantics = name, .compare_rule = "exact", .comparison = "exact",   \
    .platform = "amd", .targets = targets, .source_fingerprint = "", .compiler = "",               \
    .compiler_fingerprint = "", .build_fingerprint = "", .build_command = "", .obligations = none,  \
    .required_evidence = none, .degradations = none, .non_claims = none, .launch_plan = plan_,     \
    .check_product = check_product, .b_nk = nk, .projectable = 1, .accumulator = "i32"

static const tkh_kernel_info matmul = { PRODUCT("matmul", 2, ab, matmul_plan, 0) };
/* a @ b + r + c: r a row along m (optional), c an addend broadcast to the output */
static const tkh_operand abrc[] = { { "a", "i32", 4, NULL, 0, 0, NULL, NULL }, { "b", "i32", 4, NULL, 0, 0, NULL, NULL },
    { "r", "i32", 4, NULL, 0, 0, "0", "m" }, { "c", "i32", 4, NULL, 0, 0, NULL, "mn" } };
static const tkh_kernel_info gemm = { PRODUCT("gemm", 4, abrc, two_extras_plan, 0), .check_product = check_two,
    .projectable = 0 };
/* a @ b + c, c an addend (a residual): projectable */
static const tkh_operand abc[] = { { "a", "i32", 4, NULL, 0, 0, NULL, NULL }, { "b", "i32", 4, NULL, 0, 0, NULL, NULL },
    { "c", "i32", 4, NULL, 0, 0, NULL, "mn" } };
static const tkh_kernel_info residual = { PRODUCT("residual", 3, abc, linear_plan, 0) };
/* linear: x @ weight^T + bias, weight [n, k], bias optional */
static const tkh_kernel_info linear = { PRODUCT("linear", 3, xwb, linear_plan, 1) };

/* Where batch bi of array x starts (the plan's dimensions 3 on). */
static int64_t batch_offset(const tkh_plan *p, int x, int64_t bi)
{
    int64_t off = 0;
    for (int d = 3; d < p->ndim; ++d, bi /= p->size[d - 1])
        off += bi % p->size[d] * p->stride[x][d];
    return off;
}

/* linear with the generated launcher's split of k (templates/matmul_launch.hip.tpl): where the
 * plan has slices (shapes/matmul.c chooses them where the tiles are few for the fake's 4
 * compute units), the kernel runs over tkh_plan_slices' plan, each slice's sums into the
 * partials ('scratch', 4 bytes an output and slice), then each output's partials are added
 * in the order of the slices, and the bias. */
static int sliced_plan(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)stream;
    tkh_plan q;
    if (p->split <= 1)
        return product_plan(in, out, p, 1);
    if (scratch == NULL || !tkh_plan_slices(p, 4, 3, &q) || q.mode != TKH_PLAN_PARTIALS)
        return 1;
    const void *ab[3] = { in[0], in[1], NULL };
    void *part[1] = { scratch };
    product_plan(ab, part, &q, 1);
    const int32_t *sums = scratch, *bias = in[2];
    for (int64_t e = 0; e < p->count; ++e) {
        const int64_t j = e % p->size[1], i = e / p->size[1] % p->size[2], bi = e / (p->size[1] * p->size[2]);
        int64_t off[4] = { 0 };
        for (int x = 2; x < 4; ++x)
            off[x] = batch_offset(p, x, bi) + i * p->stride[x][2] + j * p->stride[x][1];
        int32_t s = 0;
        for (int sl = 0; sl < p->split; ++sl)
            s = mul_add(s, sums[sl * p->count + e], 1);
        ((int32_t *)out[0])[off[3]] = mul_add(s, bias ? bias[off[2]] : 0, 1);
    }
    return 0;
}

static const tkh_kernel_info sliced = { PRODUCT("linear", 3, xwb, sliced_plan, 1), .scratch_size = 4 };

/* An f32 product, for the projected check's float path: the kernel sums along k in f32
 * fused multiply-adds (as the FMA tiles do). Its kernel description says so or not
 * (nearest): the checks' bounds then take k roundings to nearest, or those of matrix
 * instructions. */
static int f32_plan(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    const float *a = in[0], *b = in[1];
    for (int64_t e = 0; e < p->count; ++e) {
        const int64_t j = e % p->size[1], i = e / p->size[1] % p->size[2], bi = e / (p->size[1] * p->size[2]);
        const float *ar = a + batch_offset(p, 0, bi) + i * p->stride[0][2], *bc = b + batch_offset(p, 1, bi) + j * p->stride[1][1];
        float s = 0;
        for (int64_t q = 0; q < p->size[0]; ++q)
            s = fmaf(ar[q * p->stride[0][0]], bc[q * p->stride[1][0]], s);
        ((float *)out[0])[batch_offset(p, 2, bi) + i * p->stride[2][2] + j * p->stride[2][1]] = s;
    }
    return 0;
}

static int always_nearest(const tkh_plan *p)
{
    (void)p;
    return 1;
}

static const tkh_kernel_info matmul_f32 = { FAKE_F32_PRODUCT(f32_plan) };
static const tkh_kernel_info matmul_f32_nearest = { FAKE_F32_PRODUCT(f32_plan), .nearest = always_nearest };

static const DLDataType I32 = { kDLInt, 32, 1 };

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

static tkh_context *context(void *const *state)
{
    tkh_context *c = NULL;
    if (tkh_context_create(&c, 0) != TKH_OK)
        fail_msg("%s", tkh_last_error());
    if (state != NULL && *state != NULL)
        c->chunk_bytes = *(const size_t *)*state;
    return c;
}

static tkh_status call(tkh_context *ctx, const tkh_kernel_info *k, const DLTensor *a, const DLTensor *b,
    const DLTensor *bias, const DLTensor *out, tkh_report *report)
{
    const DLTensor *in[3] = { a, b, bias }, *outs[1] = { out };
    const tkh_tensor_args args = { in, k->arity, outs, 1, NULL, 0, NULL, 0, 0, NULL };
    return tkh_tensor_call(ctx, k, &args, report);
}

static void ok(tkh_status got)
{
    if (got != TKH_OK)
        fail_msg("got %s: %s", tkh_status_name(got), tkh_last_error());
}

static void expect(tkh_status got, tkh_status want, const char *text)
{
    if (got != want || strstr(tkh_last_error(), text) == NULL)
        fail_msg("got %s (%s), expected %s with '%s'", tkh_status_name(got), tkh_last_error(),
            tkh_status_name(want), text);
}

/* [[1, 2, 3], [4, 5, 6]] times [[1, 0], [0, 1], [1, 1]] and its kin, worked by hand. */
static void test_products_by_hand(void **state)
{
    tkh_context *ctx = context(state);
    tkh_report r;
    int32_t a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 1, 0, 0, 1, 1, 1 }, out[8], bias[2] = { 100, 200 };
    tensor ta, tb, tc, to;
    const int64_t s23[2] = { 2, 3 }, s32[2] = { 3, 2 }, s22[2] = { 2, 2 }, s2[1] = { 2 }, s3[1] = { 3 };
    ok(call(ctx, &matmul, make(&ta, a, 2, s23, NULL), make(&tb, b, 2, s32, NULL), NULL,
        make(&to, out, 2, s22, NULL), &r));
    const int32_t ab22[4] = { 4, 5, 10, 11 };
    assert_memory_equal(out, ab22, sizeof ab22);
    assert_true(r.oracle_matches);
    assert_int_equal(r.oracle_compared, 4);
    assert_true(has_evidence(&r, "matrix product: 1 product of [2, 3] x [3, 2], each output a sum of 3 products"));
    assert_true(has_evidence(&r, "in 2 pieces of 1 rows") == (*state != NULL)); /* a row of m a piece */
    /* a 1-D a is a row, a 1-D b a column, each dropped from the result */
    ok(call(ctx, &matmul, make(&ta, a, 1, s3, NULL), make(&tb, b, 2, s32, NULL), NULL,
        make(&to, out, 1, s2, NULL), &r));
    assert_int_equal(out[0], 4);
    assert_int_equal(out[1], 5);
    ok(call(ctx, &matmul, make(&ta, a, 2, s23, NULL), make(&tb, a, 1, s3, NULL), NULL,
        make(&to, out, 1, s2, NULL), &r));
    assert_int_equal(out[0], 14);
    assert_int_equal(out[1], 32);
    const int64_t none_[1] = { 0 };
    ok(call(ctx, &matmul, make(&ta, a, 1, s3, NULL), make(&tb, a, 1, s3, NULL), NULL,
        make(&to, out, 0, none_, NULL), &r));
    assert_int_equal(out[0], 14);
    /* b as a transposed view: [[1, 4], [2, 5], [3, 6]] is a's memory at strides [1, 3] */
    const int64_t t13[2] = { 1, 3 };
    ok(call(ctx, &matmul, make(&ta, a, 2, s23, NULL), make(&tb, a, 2, s32, t13), NULL,
        make(&to, out, 2, s22, NULL), &r));
    const int32_t aat[4] = { 14, 32, 32, 77 };
    assert_memory_equal(out, aat, sizeof aat);
    /* batched: [2, 2, 3] @ [3, 2], b broadcast over the batch; the output transposed */
    int32_t a2[12] = { 1, 2, 3, 4, 5, 6, 1, 1, 1, 0, 0, 0 };
    const int64_t s223[3] = { 2, 2, 3 }, s222[3] = { 2, 2, 2 }, o_t[3] = { 4, 1, 2 };
    ok(call(ctx, &matmul, make(&ta, a2, 3, s223, NULL), make(&tb, b, 2, s32, NULL), NULL,
        make(&to, out, 3, s222, o_t), &r));
    const int32_t batched[8] = { 4, 10, 5, 11, 2, 0, 2, 0 }; /* each product stored transposed */
    assert_memory_equal(out, batched, sizeof batched);
    assert_true(has_evidence(&r, "2 products of [2, 3] x [3, 2]"));
    /* linear: x @ weight^T + bias, weight [n, k]; bias left out: 0 */
    ok(call(ctx, &linear, make(&ta, a, 2, s23, NULL), make(&tb, a, 2, s23, NULL),
        make(&tc, bias, 1, s2, NULL), make(&to, out, 2, s22, NULL), &r));
    const int32_t lin[4] = { 114, 232, 132, 277 };
    assert_memory_equal(out, lin, sizeof lin);
    assert_true(has_evidence(&r, "(b given as [n, k])"));
    ok(call(ctx, &linear, make(&ta, a, 2, s23, NULL), make(&tb, a, 2, s23, NULL), NULL,
        make(&to, out, 2, s22, NULL), &r));
    assert_memory_equal(out, aat, sizeof aat);
    /* the flat entry point: m, n, k, dense row-major; a NULL column its default */
    const void *ins[3] = { a, b, NULL };
    void *outs[1] = { out };
    const tkh_args flat = { ins, 2, outs, 1, NULL, 0 };
    ok(tkh_product_call(ctx, &matmul, &flat, 2, 2, 3, &r));
    assert_memory_equal(out, ab22, sizeof ab22);
    const tkh_args flat_linear = { ins, 3, outs, 1, NULL, 0 };
    ins[1] = a;
    ok(tkh_product_call(ctx, &linear, &flat_linear, 2, 2, 3, &r));
    assert_memory_equal(out, aat, sizeof aat);
    ins[2] = bias;
    ok(tkh_product_call(ctx, &linear, &flat_linear, 2, 2, 3, &r));
    assert_memory_equal(out, lin, sizeof lin);
    /* k = 0: every output is the empty sum (plus the bias) */
    const int64_t s20[2] = { 2, 0 }, s02[2] = { 0, 2 };
    ok(call(ctx, &matmul, make(&ta, a, 2, s20, NULL), make(&tb, b, 2, s02, NULL), NULL,
        make(&to, out, 2, s22, NULL), &r));
    const int32_t zeros[4] = { 0, 0, 0, 0 };
    assert_memory_equal(out, zeros, sizeof zeros);
    tkh_context_destroy(ctx);
}

/* Every refusal names the value and what was expected. */
static void test_bad_products(void **state)
{
    (void)state;
    tkh_context *ctx = context(NULL);
    int32_t a[12] = { 0 }, out[12];
    tensor ta, tb, tc, to;
    const int64_t s23[2] = { 2, 3 }, s22[2] = { 2, 2 }, s32[2] = { 3, 2 }, s2[1] = { 2 }, s3[1] = { 3 };
    expect(call(ctx, &matmul, make(&ta, a, 2, s23, NULL), make(&tb, a, 2, s23, NULL), NULL,
        make(&to, out, 2, s23, NULL), NULL), TKH_ERR_INVALID_ARGUMENT,
        "tensors a [2, 3] and b [2, 3] do not multiply: a's k is 3 and b's 2");
    expect(call(ctx, &linear, make(&ta, a, 2, s23, NULL), make(&tb, a, 2, s32, NULL), NULL,
        make(&to, out, 2, s23, NULL), NULL), TKH_ERR_INVALID_ARGUMENT, "as linear's weight [n, k]");
    expect(call(ctx, &matmul, make(&ta, a, 2, s23, NULL), make(&tb, a, 2, s32, NULL), NULL,
        make(&to, out, 2, s23, NULL), NULL), TKH_ERR_INVALID_ARGUMENT,
        "tensor out has shape [2, 3]: expected [2, 2] (numpy.matmul's");
    const int64_t none_[1] = { 0 };
    expect(call(ctx, &matmul, make(&ta, a, 0, none_, NULL), make(&tb, a, 2, s32, NULL), NULL,
        make(&to, out, 1, s2, NULL), NULL), TKH_ERR_INVALID_ARGUMENT, "tensor a has no dimensions");
    const int64_t s223[3] = { 2, 2, 3 }, s332[3] = { 3, 3, 2 }, s222[3] = { 2, 2, 2 };
    expect(call(ctx, &matmul, make(&ta, a, 3, s223, NULL), make(&tb, a, 3, s332, NULL), NULL,
        make(&to, out, 3, s222, NULL), NULL), TKH_ERR_INVALID_ARGUMENT,
        "the batch dimensions of a [2, 2, 3] and b [3, 3, 2] do not broadcast: 2 against 3");
    expect(call(ctx, &linear, make(&ta, a, 2, s23, NULL), make(&tb, a, 2, s23, NULL), make(&tc, a, 1, s3, NULL),
        make(&to, out, 2, s22, NULL), NULL), TKH_ERR_INVALID_ARGUMENT, "has shape [3]: expected [2], a column along n");
    /* the flat calls: tkh_kernel_call has one size; tkh_product_call needs a product */
    const void *ins[2] = { a, a };
    void *outs[1] = { out };
    const tkh_args flat = { ins, 2, outs, 1, NULL, 0 };
    expect(tkh_kernel_call(ctx, &matmul, &flat, 4, NULL), TKH_ERR_INVALID_ARGUMENT,
        "matmul_i32 is a matrix product, whose flat call has three sizes: call tkh_product_call");
    const tkh_args one = { ins, 1, outs, 1, NULL, 0 };
    expect(tkh_product_call(ctx, &matmul, &one, 2, 2, 3, NULL), TKH_ERR_ARITY, "takes 2 inputs, 1 output and 0 scalars");
    expect(tkh_product_call(ctx, &matmul, &flat, (size_t)INT64_MAX + 1, 2, 3, NULL), TKH_ERR_SIZE_OVERFLOW,
        "each must fit a tensor's shape");
    const int64_t axis = 0;
    const DLTensor *in[2] = { make(&ta, a, 2, s23, NULL), make(&tb, a, 2, s32, NULL) }, *o[1] = {
        make(&to, out, 2, s22, NULL) };
    const tkh_tensor_args with_axis = { in, 2, o, 1, NULL, 0, &axis, 1, 0, NULL };
    expect(tkh_tensor_call(ctx, &matmul, &with_axis, NULL), TKH_ERR_INVALID_ARGUMENT, "which takes no axes");
    tkh_context_destroy(ctx);
}

/* A corrupted output is named by its multi-index in the output; the device path checks
 * under its oracle policy. */
static void test_mismatch_and_device(void **state)
{
    (void)state;
    tkh_context *ctx = context(NULL);
    int32_t a[12] = { 1, 2, 3, 4, 5, 6, 1, 1, 1, 0, 0, 0 }, b[6] = { 1, 0, 0, 1, 1, 1 }, out[8];
    tensor ta, tb, to;
    const int64_t s223[3] = { 2, 2, 3 }, s32[2] = { 3, 2 }, s222[3] = { 2, 2, 2 };
    tkh_report r;
    ok(tkh_context_corrupt_next_output(ctx, 5, 1));
    expect(call(ctx, &matmul, make(&ta, a, 3, s223, NULL), make(&tb, b, 2, s32, NULL), NULL,
        make(&to, out, 3, s222, NULL), &r), TKH_ERR_ORACLE_MISMATCH,
        "matmul_i32: element [1, 0, 1] of [2, 2, 2] differs from the CPU oracle: got 0, expected 2");
    make(&ta, a, 3, s223, NULL);
    make(&tb, b, 2, s32, NULL);
    make(&to, out, 3, s222, NULL);
    ta.t.device = tb.t.device = to.t.device = (DLDevice){ kDLROCM, 0 };
    ok(call(ctx, &matmul, &ta.t, &tb.t, NULL, &to.t, &r));
    assert_false(r.oracle_checked);
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
    ok(tkh_context_set_device_oracle(ctx, &full));
    ok(call(ctx, &matmul, &ta.t, &tb.t, NULL, &to.t, &r));
    assert_true(r.oracle_matches);
    assert_int_equal(r.oracle_compared, 8);
    const void *ins[2] = { a, b };
    void *outs[1] = { out };
    const tkh_args flat = { ins, 2, outs, 1, NULL, 0 };
    ok(tkh_product_enqueue(ctx, &matmul, &flat, 2, 2, 3, NULL));
    assert_int_equal(out[3], 11);
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
        buffer[i] = (int32_t)(tkhi_splitmix64(rng) % 2001) - 1000;
    make(x, buffer, ndim, shape, stride);
    x->buffer = buffer;
    x->t.byte_offset = (uint64_t)(-lo) * sizeof(int32_t);
}

/* Element 'index' (the leading 'batch' of it broadcast to x's own leading dimensions,
 * then row and col for x's last two, or only col for a 1-D x). */
static int32_t element(const tensor *x, const int64_t *batch, int batch_ndim, int64_t row, int64_t col)
{
    const DLTensor *t = &x->t;
    int64_t off = 0;
    if (t->ndim == 1)
        off = col * t->strides[0];
    else {
        for (int d = 0; d < t->ndim - 2; ++d)
            off += (t->shape[d] == 1 ? 0 : batch[batch_ndim - (t->ndim - 2) + d]) * t->strides[d];
        off += row * t->strides[t->ndim - 2] + col * t->strides[t->ndim - 1];
    }
    return ((const int32_t *)((const unsigned char *)t->data + t->byte_offset))[off];
}

/* k in slices where the tiles are few for the device (the fake's 4 compute units: about 4
 * tiles of 128 x 128 wanted): x [200, 1024] @ w^T makes 2 tiles, so 2 slices of 512; batched
 * over random layouts, 2 tiles and 2 slices; pieces of 64 rows on the host path, each split in 4;
 * k = 1000, no slices of whole 64s; and the device path. The oracle's full check is exact for
 * i32, and the report names the split. */
static void test_split_products(void **state)
{
    (void)state;
    tkh_context *ctx = context(NULL);
    const uint64_t seed = 0x5117c3ull;
    printf("test_split_products: seed %#" PRIx64 "\n", seed);
    uint64_t rng = seed;
    tkh_report r;
    tensor tx, tw, tb, to;
    const int64_t x2[2] = { 200, 1024 }, w2[2] = { 100, 1024 }, n1[1] = { 100 }, o2[2] = { 200, 100 };
    const int64_t x3[3] = { 2, 60, 1024 }, o3[3] = { 2, 60, 100 }, x1000[2] = { 200, 1000 }, w1000[2] = { 100, 1000 };
    struct { const char *what; int ndim; const int64_t *xs, *ws, *os; int device; size_t piece; const char *evidence; } cases[] = {
        { "[200, 1024] @ [100, 1024]^T", 2, x2, w2, o2, 0, 0, "grid 2 x 2 (each output's elements in 2 blocks of up to 512" },
        { "[2, 60, 1024] @ [100, 1024]^T", 3, x3, w2, o3, 0, 0, "in 2 blocks of up to 512, their partials folded" },
        { "[200, 1024] @ [100, 1024]^T, pieces of 64 rows", 2, x2, w2, o2, 0, 64 * 1024 * 4, "in 4 blocks of up to 256" },
        { "[200, 1024] @ [100, 1024]^T on the device", 2, x2, w2, o2, 1, 0, "in 2 blocks of up to 512" },
        { "[200, 1000] @ [100, 1000]^T", 2, x1000, w1000, o2, 0, 0, NULL },
    };
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
    ok(tkh_context_set_device_oracle(ctx, &full));
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        ctx->chunk_bytes = cases[c].piece ? cases[c].piece : ctx->chunk_bytes;
        random_layout(&rng, &tx, cases[c].ndim, cases[c].xs, 1);
        random_layout(&rng, &tw, 2, cases[c].ws, 1);
        random_layout(&rng, &tb, 1, n1, 1);
        random_layout(&rng, &to, cases[c].ndim, cases[c].os, 0);
        if (cases[c].device)
            tx.t.device = tw.t.device = tb.t.device = to.t.device = (DLDevice){ kDLROCM, 0 };
        if (call(ctx, &sliced, &tx.t, &tw.t, &tb.t, &to.t, &r) != TKH_OK || !r.oracle_matches
            || r.oracle_compared != (size_t)(cases[c].os[0] * cases[c].os[1] * (cases[c].ndim > 2 ? cases[c].os[2] : 1)))
            fail_msg("%s: %s", cases[c].what, tkh_last_error());
        const int split = has_evidence(&r, "their partials folded by a second kernel");
        if (cases[c].evidence ? !has_evidence(&r, cases[c].evidence) : split)
            fail_msg("%s: the report %s the split%s%s", cases[c].what, cases[c].evidence ? "does not state" : "states",
                cases[c].evidence ? ": " : "", cases[c].evidence ? cases[c].evidence : "");
        free(tx.buffer);
        free(tw.buffer);
        free(tb.buffer);
        free(to.buffer);
    }
    tkh_context_destroy(ctx);
}

static void test_random_products(void **state)
{
    const char *env = getenv("TKH_TEST_SEED");
    const uint64_t seed = env ? strtoull(env, NULL, 0) : 0x3a7a11ull;
    printf("test_random_products: seed %#" PRIx64 " (TKH_TEST_SEED replays it)\n", seed);
    tkh_context *ctx = context(state);
    for (int c = 0; c < 300; ++c) {
        uint64_t rng = seed + (uint64_t)c;
        const tkh_kernel_info *k = tkhi_splitmix64(&rng) % 2 ? &linear : &matmul;
        const int64_t m = 1 + (int64_t)(tkhi_splitmix64(&rng) % 5), n = 1 + (int64_t)(tkhi_splitmix64(&rng) % 5);
        const int64_t kk = (int64_t)(tkhi_splitmix64(&rng) % 6); /* 0: empty sums */
        const int batch = (int)(tkhi_splitmix64(&rng) % 4);
        int64_t bshape[TKH_MAX_DIMS], sa[TKH_MAX_DIMS], sb[TKH_MAX_DIMS], so[TKH_MAX_DIMS];
        for (int d = 0; d < batch; ++d)
            bshape[d] = 1 + (int64_t)(tkhi_splitmix64(&rng) % 3);
        /* each operand: a suffix of the batch, some of it 1; or 1-D (a row of a, a column of b) */
        const int a1 = tkhi_splitmix64(&rng) % 6 == 0, b1 = tkhi_splitmix64(&rng) % 6 == 0;
        const int ba = a1 ? 0 : batch - (int)(tkhi_splitmix64(&rng) % (uint64_t)(batch + 1));
        const int bb = b1 ? 0 : batch - (int)(tkhi_splitmix64(&rng) % (uint64_t)(batch + 1));
        for (int d = 0; d < ba; ++d)
            sa[d] = tkhi_splitmix64(&rng) % 3 == 0 ? 1 : bshape[batch - ba + d];
        for (int d = 0; d < bb; ++d)
            sb[d] = tkhi_splitmix64(&rng) % 3 == 0 ? 1 : bshape[batch - bb + d];
        const int ob = ba > bb ? ba : bb;
        int on = 0;
        for (int d = 0; d < ob; ++d) {
            const int64_t x = ob - d <= ba ? sa[ba - (ob - d)] : 1, y = ob - d <= bb ? sb[bb - (ob - d)] : 1;
            so[on++] = x > y ? x : y;
        }
        const int ma = a1 ? 1 : ba + 2, mb = b1 ? 1 : bb + 2;
        if (a1)
            sa[0] = kk;
        else
            sa[ba] = m, sa[ba + 1] = kk;
        if (b1)
            sb[0] = kk; /* a 1-D b (or weight) is k long: n is dropped */
        else if (k->b_nk)
            sb[bb] = n, sb[bb + 1] = kk;
        else
            sb[bb] = kk, sb[bb + 1] = n;
        if (!a1)
            so[on++] = m;
        if (!b1)
            so[on++] = n;
        tensor ta, tb, tc, to;
        random_layout(&rng, &ta, ma, sa, 1);
        random_layout(&rng, &tb, mb, sb, 1);
        const int64_t sn[1] = { b1 ? 1 : n }; /* a 1-D b: n is 1, then dropped */
        const int with_bias = k == &linear && tkhi_splitmix64(&rng) % 2;
        if (with_bias)
            random_layout(&rng, &tc, 1, sn, 1);
        random_layout(&rng, &to, on, so, 0);
        tkh_report r;
        if (call(ctx, k, &ta.t, &tb.t, with_bias ? &tc.t : NULL, &to.t, &r) != TKH_OK)
            fail_msg("case %d (seed %#" PRIx64 "): %s", c, seed, tkh_last_error());
        int64_t index[TKH_MAX_DIMS] = { 0 };
        const int64_t rows = a1 ? 1 : m, cols = b1 ? 1 : n;
        do {
            for (int64_t i = 0; i < rows; ++i)
                for (int64_t j = 0; j < cols; ++j) {
                    int32_t want = with_bias ? element(&tc, index, ob, 0, j) : 0;
                    for (int64_t q = 0; q < kk; ++q)
                        want = mul_add(want, element(&ta, index, ob, i, q),
                            b1 ? element(&tb, index, ob, 0, q) : k->b_nk ? element(&tb, index, ob, j, q)
                            : element(&tb, index, ob, q, j));
                    int64_t off = 0;
                    for (int d = 0; d < ob; ++d)
                        off += index[d] * to.t.strides[d];
                    if (!a1)
                        off += i * to.t.strides[ob];
                    if (!b1)
                        off += j * to.t.strides[on - 1];
                    const int32_t got = ((const int32_t *)((const unsigned char *)to.t.data + to.t.byte_offset))[off];
                    if (got != want)
                        fail_msg("case %d (seed %#" PRIx64 "): output (%" PRId64 ", %" PRId64 ") is %d, expected %d",
                            c, seed, i, j, (int)got, (int)want);
                }
            int d = ob - 1;
            for (; d >= 0 && ++index[d] == so[d]; --d)
                index[d] = 0;
            if (d < 0)
                break;
        } while (1);
        free(ta.buffer);
        free(tb.buffer);
        if (with_bias)
            free(tc.buffer);
        free(to.buffer);
    }
    tkh_context_destroy(ctx);
}

/* The projected check: products of several blocks of columns, in pieces and whole, agree;
 * one output corrupted is caught and named (the block that differs, recomputed in full);
 * integers exactly, floats within the blocks' bounds, whose threshold the report states. */
static void test_projected_check(void **state)
{
    tkh_context *ctx = context(state);
    const tkh_oracle_policy projected = { TKH_ORACLE_PROJECTED, 0, 7 };
    ok(tkh_context_set_oracle(ctx, &projected));
    /* three blocks a row, the last cut short; m n k past 2^18, so that a crew of two threads
     * (where there are two processors) checks each piece, by whole rows */
    const int64_t m = 9, n = 300, kk = 100;
    int32_t *a = malloc(sizeof(int32_t) * m * kk), *b = malloc(sizeof(int32_t) * kk * n), *out = malloc(sizeof(int32_t) * m * n);
    float *fa = malloc(sizeof(float) * m * kk), *fb = malloc(sizeof(float) * kk * n), *fo = malloc(sizeof(float) * m * n);
    assert_true(a && b && out && fa && fb && fo);
    uint64_t s = 42;
    for (int64_t i = 0; i < m * kk; ++i) {
        a[i] = (int32_t)tkhi_splitmix64(&s);
        fa[i] = (float)((double)(tkhi_splitmix64(&s) >> 11) * 0x1p-52 - 0.5);
    }
    for (int64_t i = 0; i < kk * n; ++i) {
        b[i] = (int32_t)tkhi_splitmix64(&s);
        fb[i] = (float)((double)(tkhi_splitmix64(&s) >> 11) * 0x1p-52 - 0.5);
    }
    tensor ta, tb, to;
    const int64_t sa[2] = { m, kk }, sb[2] = { kk, n }, so[2] = { m, n };
    tkh_report r;
    ok(call(ctx, &matmul, make(&ta, a, 2, sa, NULL), make(&tb, b, 2, sb, NULL), NULL, make(&to, out, 2, so, NULL), &r));
    assert_int_equal(r.oracle_compared, (size_t)(m * n));
    assert_true(has_evidence(&r, "checked 2700 of 2700 outputs by projection (seed 7)"));
    assert_true(has_evidence(&r, "; 0 in full: all agree"));
    assert_true(has_evidence(&r, "any one wrong output in a block is certain to be caught"));
    assert_int_equal(r.oracle_projected, (size_t)(m * n));
    assert_true(r.oracle_threshold == 0);
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 4 * n + 137, 20), TKH_OK);
    expect(call(ctx, &matmul, make(&ta, a, 2, sa, NULL), make(&tb, b, 2, sb, NULL), NULL, make(&to, out, 2, so, NULL),
        NULL), TKH_ERR_ORACLE_MISMATCH, "matmul_i32: element [4, 137] of [9, 300] differs from the CPU oracle");
    /* floats: each block within its bound; a change past the stated threshold caught */
    make(&ta, fa, 2, sa, NULL);
    ta.t.dtype = (DLDataType){ kDLFloat, 32, 1 };
    make(&tb, fb, 2, sb, NULL);
    tb.t.dtype = ta.t.dtype;
    make(&to, fo, 2, so, NULL);
    to.t.dtype = ta.t.dtype;
    ok(call(ctx, &matmul_f32, &ta.t, &tb.t, NULL, &to.t, &r));
    assert_true(has_evidence(&r, "projection: one output wrong by more than"));
    assert_true(has_evidence(&r, "checked 2700 of 2700 outputs by projection"));
    assert_int_equal(r.oracle_projected, (size_t)(m * n));
    /* twice the largest block's bound, whose main term is g sum |a| |b| over its 128 columns,
     * g = (2k + 2) 2^-23 (k additions and the bias's, both ways, at twice f32's unit
     * roundoff 2^-24) */
    double most = 0;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j0 = 0; j0 < n; j0 += 128) {
            double mag = 0;
            for (int64_t j = j0; j < j0 + 128 && j < n; ++j)
                for (int64_t q = 0; q < kk; ++q)
                    mag += fabs((double)fa[i * kk + q] * fb[q * n + j]);
            most = mag > most ? mag : most;
        }
    const double g = (2.0 * kk + 2) * 0x1p-23, main_term = 2 * g / (1 - g) * most;
    assert_true(r.oracle_threshold >= main_term && r.oracle_threshold <= 1.05 * main_term);
    assert_true(has_evidence(&r, "sum bound: 2k + 2 roundings at twice the accumulator's unit roundoff"));
    /* the kernel that sums in round-to-nearest operations: k roundings at 2^-24, 4 x less */
    ok(call(ctx, &matmul_f32_nearest, &ta.t, &tb.t, NULL, &to.t, &r));
    assert_true(has_evidence(&r, "sum bound: k roundings to nearest at the accumulator's unit roundoff"));
    const double gn = (double)kk * 0x1p-24, nearest_term = 2 * gn / (1 - gn) * most;
    assert_true(r.oracle_threshold >= nearest_term && r.oracle_threshold <= 1.05 * nearest_term);
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 8 * n + 299, 30), TKH_OK); /* an exponent bit */
    expect(call(ctx, &matmul_f32, &ta.t, &tb.t, NULL, &to.t, NULL), TKH_ERR_ORACLE_MISMATCH,
        "matmul_f32: element [8, 299] of [9, 300] differs from the CPU oracle");
    /* a kernel whose epilogue is not the sum plus a column: checked as under full */
    tkh_kernel_info relu = matmul;
    relu.projectable = 0;
    ok(call(ctx, &relu, make(&ta, a, 2, sa, NULL), make(&tb, b, 2, sb, NULL), NULL, make(&to, out, 2, so, NULL), &r));
    assert_false(has_evidence(&r, "by projection"));
    assert_int_equal(r.oracle_compared, (size_t)(m * n));
    assert_int_equal(r.oracle_projected, 0);
    free(a), free(b), free(out), free(fa), free(fb), free(fo);
    tkh_context_destroy(ctx);
}

/* The projection kernels (templates/matmul_projection.hip.tpl) as the fake device runs them, for the
 * f32 and i32 products without extra inputs: each row of b's block sums, then each row
 * and block of the output against them, into the result. 'lost' blocks go uncounted, as
 * kernels that did not cover the call would leave them. */
static int lost;

static int fake_project(const void *const *in, const void *out, const tkh_plan *p, const tkh_projection_args *pa,
    void *sums, tkh_projection_result *res, void *stream)
{
    (void)stream;
    const int integer = pa->u_acc == 0, B = TKH_PROJECTION_BLOCK;
    const int64_t kk = p->size[0], n = p->size[1], m = p->size[2], rows = p->count / (n * m) * kk;
    double *y = sums, *z = y + rows * pa->blocks;
    uint64_t *yi = sums;
    *res = (tkh_projection_result){ 0, 0, ~0ull, 0, 0 };
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t blk = 0; blk < pa->blocks; ++blk) {
            const int64_t off = batch_offset(p, 1, r / kk) + r % kk * p->stride[1][0], e = r * pa->blocks + blk;
            y[e] = z[e] = 0;
            for (int64_t j = blk * B; j < (blk + 1) * B && j < n; ++j) {
                const uint64_t w = tkh_projection_weight(pa->seed, j);
                if (integer)
                    yi[e] += (w | 1) * (uint64_t)((const int32_t *)in[1])[off + j * p->stride[1][1]];
                else {
                    const double v = ((const float *)in[1])[off + j * p->stride[1][1]];
                    y[e] += w & 1 ? v : -v;
                    z[e] += fabs(v);
                }
            }
        }
    for (int64_t row = 0; row < p->count / n; ++row)
        for (int64_t blk = 0; blk < pa->blocks; ++blk) {
            const int64_t bi = row / m, i = row % m, j0 = blk * B, j1 = j0 + B < n ? j0 + B : n;
            const int64_t ao = batch_offset(p, 0, bi) + i * p->stride[0][2], oo = batch_offset(p, 2, bi) + i * p->stride[2][2];
            const size_t e0 = (size_t)(bi * kk * pa->blocks + blk);
            double rhs = 0, mag = 0, lhs = 0, sabs = 0;
            uint64_t rhs_i = 0, lhs_i = 0;
            for (int64_t q = 0; q < kk; ++q)
                if (integer)
                    rhs_i += (uint64_t)((const int32_t *)in[0])[ao + q * p->stride[0][0]] * yi[e0 + (size_t)(q * pa->blocks)];
                else {
                    const double v = ((const float *)in[0])[ao + q * p->stride[0][0]];
                    rhs += v * y[e0 + (size_t)(q * pa->blocks)];
                    mag += fabs(v) * z[e0 + (size_t)(q * pa->blocks)];
                }
            for (int64_t j = j0; j < j1; ++j) {
                const uint64_t w = tkh_projection_weight(pa->seed, j);
                if (integer)
                    lhs_i += (w | 1) * (uint64_t)((const int32_t *)out)[oo + j * p->stride[2][1]];
                else {
                    const double v = ((const float *)out)[oo + j * p->stride[2][1]];
                    lhs += w & 1 ? v : -v;
                    sabs += fabs(v);
                }
            }
            const double bound = integer ? 0 : tkh_projection_bound(kk, pa->nearest, j1 - j0, pa->u_acc, pa->tiny_acc, pa->u_out,
                pa->tiny_out, lhs, rhs, mag, sabs, 0);
            const int fail = integer ? ((lhs_i - rhs_i) & pa->mask) != 0 : !(bound >= 0 && fabs(lhs - rhs) <= bound);
            res->blocks += lost > 0 && row == 0 && blk < lost ? 0 : 1;
            res->failed += (unsigned long long)fail;
            if (fail && (unsigned long long)(row * n + j0) < res->first)
                res->first = (unsigned long long)(row * n + j0);
            if (!integer && bound > 0) {
                const float ratio = (float)(fabs(lhs - rhs) / bound);
                const double twice = 2 * bound;
                uint32_t rb;
                unsigned long long tb;
                memcpy(&rb, &ratio, sizeof rb);
                memcpy(&tb, &twice, sizeof tb);
                const unsigned long long worst = (unsigned long long)rb << 32 | (unsigned long long)(row * pa->blocks + blk);
                res->worst = worst > res->worst ? worst : res->worst;
                res->threshold = tb > res->threshold ? tb : res->threshold;
            }
        }
    return 0;
}

/* The device path under the projected policy: the projection kernels give the verdict, the
 * report saying so, with the threshold and the projected count the host's check states; a
 * block outside its bound (an output corrupted on the device by the test hook), or blocks
 * the kernels did not compare, sent to the host's check, whose verdict stands. */
static void test_projected_on_device(void **state)
{
    (void)state;
    tkh_context *ctx = context(NULL);
    const tkh_oracle_policy projected = { TKH_ORACLE_PROJECTED, 0, 11 };
    ok(tkh_context_set_device_oracle(ctx, &projected));
    ok(tkh_context_set_oracle(ctx, &projected));
    const int64_t batch = 2, m = 5, n = 260, kk = 70; /* three blocks a row, the last cut short */
    float *fa = malloc(sizeof(float) * batch * m * kk), *fb = malloc(sizeof(float) * kk * n);
    float *fo = malloc(sizeof(float) * batch * m * n);
    int32_t *a = malloc(sizeof(int32_t) * batch * m * kk), *b = malloc(sizeof(int32_t) * kk * n);
    int32_t *out = malloc(sizeof(int32_t) * batch * m * n);
    assert_true(fa && fb && fo && a && b && out);
    uint64_t s = 3;
    for (int64_t i = 0; i < batch * m * kk; ++i) {
        fa[i] = (float)((double)(tkhi_splitmix64(&s) >> 11) * 0x1p-52 - 0.5);
        a[i] = (int32_t)tkhi_splitmix64(&s);
    }
    for (int64_t i = 0; i < kk * n; ++i) {
        fb[i] = (float)((double)(tkhi_splitmix64(&s) >> 11) * 0x1p-52 - 0.5);
        b[i] = (int32_t)tkhi_splitmix64(&s);
    }
    tensor ta, tb, to;
    const int64_t sa[3] = { batch, m, kk }, sb[2] = { kk, n }, so[3] = { batch, m, n };
    const DLDevice dev = { kDLROCM, 0 };
    const DLDataType F32 = { kDLFloat, 32, 1 };
    tkh_kernel_info k = matmul_f32;
    k.project_device = fake_project;
    make(&ta, fa, 3, sa, NULL), make(&tb, fb, 2, sb, NULL), make(&to, fo, 3, so, NULL);
    ta.t.device = tb.t.device = to.t.device = dev;
    ta.t.dtype = tb.t.dtype = to.t.dtype = F32;
    tkh_report r, host;
    ok(call(ctx, &k, &ta.t, &tb.t, NULL, &to.t, &r));
    assert_true(has_evidence(&r, "block sums by the projection kernels on the device (fake_matmul_proj_b"));
    assert_true(has_evidence(&r, "checked 2600 of 2600 outputs by projection (seed 11)"));
    assert_false(has_evidence(&r, "copied the tensors back"));
    assert_int_equal(r.oracle_projected, 2600);
    assert_true(r.oracle_matches && r.max_ulp_error > 0 && r.max_ulp_error <= 1);
    /* the host path's check of the same product states the same threshold */
    ta.t.device = tb.t.device = to.t.device = (DLDevice){ kDLCPU, 0 };
    ok(call(ctx, &k, &ta.t, &tb.t, NULL, &to.t, &host));
    assert_true(host.oracle_threshold > 0 && fabs(r.oracle_threshold - host.oracle_threshold) <= 1e-12 * host.oracle_threshold);
    ta.t.device = tb.t.device = to.t.device = dev;
    /* integers, exactly */
    tkh_kernel_info ki = matmul;
    ki.project_device = fake_project;
    make(&ta, a, 3, sa, NULL), make(&tb, b, 2, sb, NULL), make(&to, out, 3, so, NULL);
    ta.t.device = tb.t.device = to.t.device = dev;
    ok(call(ctx, &ki, &ta.t, &tb.t, NULL, &to.t, &r));
    assert_true(has_evidence(&r, "by the projection kernels on the device"));
    assert_true(has_evidence(&r, "any one wrong output in a block is certain to be caught"));
    /* a wrong output: its block flagged on the device, then named by the host's check */
    make(&ta, fa, 3, sa, NULL), make(&tb, fb, 2, sb, NULL), make(&to, fo, 3, so, NULL);
    ta.t.device = tb.t.device = to.t.device = dev;
    ta.t.dtype = tb.t.dtype = to.t.dtype = F32;
    ok(tkh_context_corrupt_next_output(ctx, 2 * n + 7, 30)); /* [0, 2, 7], an exponent bit */
    expect(call(ctx, &k, &ta.t, &tb.t, NULL, &to.t, &r), TKH_ERR_ORACLE_MISMATCH,
        "matmul_f32: element [0, 2, 7] of [2, 5, 260] differs from the CPU oracle");
    assert_true(has_evidence(&r, "test hook: flipped bit 30 of output element 527 on the device"));
    assert_true(has_evidence(&r, "found 1 of 30 blocks outside their bounds (compared 30): checking on the host"));
    /* blocks the kernels left out: the host checks, and a right result passes */
    lost = 2;
    ok(call(ctx, &k, &ta.t, &tb.t, NULL, &to.t, &r));
    lost = 0;
    assert_true(has_evidence(&r, "found 0 of 30 blocks outside their bounds (compared 28): checking on the host"));
    assert_true(has_evidence(&r, "copied the tensors back"));
    assert_int_equal(r.oracle_projected, 2600);
    free(fa), free(fb), free(fo), free(a), free(b), free(out);
    tkh_context_destroy(ctx);
}

/* Extra inputs of every extent: a row along m and an addend broadcast to the output (from
 * [n], from [batch, 1, n], and whole at permuted strides), the row left out for its
 * default, the flat call, shapes refused with their messages, and an addend under the
 * projected check; each output against a plain loop. */
static void expect_gemm(const char *what, const int32_t *a, const int32_t *b, const int32_t *r, const int32_t *c,
    const int64_t *c_at, const int32_t *out)
{
    for (int64_t bt = 0; bt < 2; ++bt)
        for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 5; ++j) {
                int32_t want = mul_add(r ? r[i] : 0, c[c_at[0] * bt + c_at[1] * i + c_at[2] * j], 1);
                for (int64_t q = 0; q < 4; ++q)
                    want = mul_add(want, a[bt * 12 + i * 4 + q], b[q * 5 + j]);
                if (out[bt * 15 + i * 5 + j] != want)
                    fail_msg("c %s: output (%" PRId64 ", %" PRId64 ", %" PRId64 ") is %d, expected %d", what, bt, i, j,
                        (int)out[bt * 15 + i * 5 + j], (int)want);
            }
}

static void test_extra_inputs(void **state)
{
    tkh_context *ctx = context(state);
    int32_t a[24], b[20], r[3], c[31], out[30];
    uint64_t s = 77;
    for (int i = 0; i < 24; ++i)
        a[i] = (int32_t)(tkhi_splitmix64(&s) % 201) - 100;
    for (int i = 0; i < 20; ++i)
        b[i] = (int32_t)(tkhi_splitmix64(&s) % 201) - 100;
    for (int i = 0; i < 31; ++i)
        c[i] = (int32_t)(tkhi_splitmix64(&s) % 2001) - 1000;
    r[0] = 1000000, r[1] = -7, r[2] = 4;
    tensor ta, tb, tr, tc, to;
    const int64_t sa[3] = { 2, 3, 4 }, sb[2] = { 4, 5 }, sr[1] = { 3 }, so[3] = { 2, 3, 5 };
    const int64_t s5[1] = { 5 }, s215[3] = { 2, 1, 5 }, c_strides[3] = { 1, 10, 2 };
    tkh_report rep;
    struct { int ndim; const int64_t *shape, *strides, at[3]; const char *what; } cases[] = {
        { 1, s5, NULL, { 0, 0, 1 }, "[5], broadcast over the batch and m" },
        { 3, s215, NULL, { 5, 0, 1 }, "[2, 1, 5], broadcast over m" },
        { 3, so, c_strides, { 1, 10, 2 }, "[2, 3, 5] at strides (1, 10, 2)" },
    };
    for (size_t x = 0; x < sizeof cases / sizeof cases[0]; ++x) {
        const DLTensor *in[4] = { make(&ta, a, 3, sa, NULL), make(&tb, b, 2, sb, NULL), make(&tr, r, 1, sr, NULL),
            make(&tc, c, cases[x].ndim, cases[x].shape, cases[x].strides) }, *outs[1] = { make(&to, out, 3, so, NULL) };
        const tkh_tensor_args args = { in, 4, outs, 1, NULL, 0, NULL, 0, 0, NULL };
        memset(out, 0, sizeof out);
        ok(tkh_tensor_call(ctx, &gemm, &args, &rep));
        expect_gemm(cases[x].what, a, b, r, c, cases[x].at, out);
        in[2] = NULL; /* the row left out: its default, 0 */
        memset(out, 0, sizeof out);
        ok(tkh_tensor_call(ctx, &gemm, &args, &rep));
        expect_gemm(cases[x].what, a, b, NULL, c, cases[x].at, out);
    }
    /* refused: a row of the wrong length, an addend that does not broadcast */
    const int64_t sr4[1] = { 4 }, s34[2] = { 3, 4 };
    const DLTensor *in[4] = { make(&ta, a, 3, sa, NULL), make(&tb, b, 2, sb, NULL), make(&tr, r, 1, sr4, NULL),
        make(&tc, c, 1, s5, NULL) }, *outs[1] = { make(&to, out, 3, so, NULL) };
    const tkh_tensor_args args = { in, 4, outs, 1, NULL, 0, NULL, 0, 0, NULL };
    expect(tkh_tensor_call(ctx, &gemm, &args, NULL), TKH_ERR_INVALID_ARGUMENT, "has shape [4]: expected [3], a row along m");
    make(&tr, r, 1, sr, NULL);
    make(&tc, c, 2, s34, NULL);
    expect(tkh_tensor_call(ctx, &gemm, &args, NULL), TKH_ERR_INVALID_ARGUMENT,
        "has shape [3, 4]: expected one that broadcasts to the output's [2, 3, 5]");
    /* the flat call: the first batch, r m elements, c m x n */
    const void *flat_in[4] = { a, b, r, c };
    void *flat_out[1] = { out };
    const tkh_args flat = { flat_in, 4, flat_out, 1, NULL, 0 };
    memset(out, 0, sizeof out);
    ok(tkh_product_call(ctx, &gemm, &flat, 3, 5, 4, &rep));
    memcpy(out + 15, out, 15 * sizeof out[0]); /* the second batch as the first: compared below */
    memcpy(a + 12, a, 12 * sizeof a[0]);
    expect_gemm("m x n, flat", a, b, r, c, (const int64_t[]){ 0, 5, 1 }, out);
    /* an addend under the projected check: every output by projection; a wrong one caught */
    const tkh_oracle_policy projected = { TKH_ORACLE_PROJECTED, 0, 5 };
    ok(tkh_context_set_oracle(ctx, &projected));
    const DLTensor *in3[3] = { make(&ta, a, 3, sa, NULL), make(&tb, b, 2, sb, NULL), make(&tc, c, 3, so, c_strides) };
    const tkh_tensor_args args3 = { in3, 3, outs, 1, NULL, 0, NULL, 0, 0, NULL };
    ok(tkh_tensor_call(ctx, &residual, &args3, &rep));
    assert_int_equal(rep.oracle_projected, 30);
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 22, 3), TKH_OK);
    expect(tkh_tensor_call(ctx, &residual, &args3, NULL), TKH_ERR_ORACLE_MISMATCH,
        "residual_i32: element [1, 1, 2] of [2, 3, 5] differs from the CPU oracle");
    /* the self-test (a downstream project's generated GPU test) gives each extra input its
     * extent's elements: the row m, the addend m x n (given n, it read past the addend's end) */
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
    ok(tkh_context_set_oracle(ctx, &full));
    const tkh_kernel_info *const mine[2] = { &gemm, &residual };
    const tkh_registry reg = { "extras", mine, 2 };
    const size_t sizes[2] = { 100, 1000 };
    tkh_selftest_result result;
    ok(tkh_registry_selftest(ctx, &reg, sizes, 2, 20261205, &result));
    assert_int_equal(result.passed, 4);
    tkh_context_destroy(ctx);
}

/* The projected check catches what it claims: one output changed by flipping each of its
 * bits in turn, over many seeds (the inputs' and the weights'): every change past the stated
 * threshold is caught, and for integers every change at all; the share of smaller float
 * changes caught is printed beside the theory (caught once past the threshold; below it,
 * the signs of the others' rounding errors decide). */
static void test_projection_detection(void **state)
{
    tkh_context *ctx = context(state);
    const char *env = getenv("TKH_TEST_SEED");
    const uint64_t seed = env ? strtoull(env, NULL, 0) : 0x9e37ull;
    printf("test_projection_detection: seed %#" PRIx64 " (TKH_TEST_SEED replays it)\n", seed);
    const int64_t m = 3, n = 200, kk = 64, trials = 48;
    float fa[3 * 64], fb[64 * 200], fo[3 * 200], clean[3 * 200];
    int32_t a[3 * 64], b[64 * 200], out[3 * 200];
    const int64_t sa[2] = { m, kk }, sb[2] = { kk, n }, so[2] = { m, n };
    /* per bound (that of matrix instructions, then of sums rounded to nearest) */
    size_t above[2] = { 0 }, below[2][3] = { { 0 } }, below_caught[2][3] = { { 0 } };
    for (int64_t t = 0; t < trials; ++t) {
        uint64_t rng = seed + (uint64_t)t;
        const tkh_oracle_policy projected = { TKH_ORACLE_PROJECTED, 0, tkhi_splitmix64(&rng) };
        ok(tkh_context_set_oracle(ctx, &projected));
        const float scale = ldexpf(1, (int)(t % 9) - 4);
        for (int64_t i = 0; i < m * kk; ++i) {
            fa[i] = scale * (float)((double)(tkhi_splitmix64(&rng) >> 11) * 0x1p-52 - 1);
            a[i] = (int32_t)tkhi_splitmix64(&rng);
        }
        for (int64_t i = 0; i < kk * n; ++i) {
            fb[i] = (float)((double)(tkhi_splitmix64(&rng) >> 11) * 0x1p-52 - 1);
            b[i] = (int32_t)tkhi_splitmix64(&rng);
        }
        tensor ta, tb, to;
        tkh_report r;
        const size_t at = (size_t)(tkhi_splitmix64(&rng) % (uint64_t)(m * n));
        for (int near = 0; near < 2; ++near) {
            const tkh_kernel_info *k = near ? &matmul_f32_nearest : &matmul_f32;
            make(&ta, fa, 2, sa, NULL), make(&tb, fb, 2, sb, NULL), make(&to, fo, 2, so, NULL);
            ta.t.dtype = tb.t.dtype = to.t.dtype = (DLDataType){ kDLFloat, 32, 1 };
            ok(call(ctx, k, &ta.t, &tb.t, NULL, &to.t, &r));
            assert_int_equal(r.oracle_projected, (size_t)(m * n));
            const double threshold = r.oracle_threshold;
            memcpy(clean, fo, sizeof clean);
            for (unsigned bit = 0; bit < 32; ++bit) {
                uint32_t u;
                memcpy(&u, &clean[at], 4);
                u ^= 1u << bit;
                float changed;
                memcpy(&changed, &u, 4);
                const double by = isfinite(changed) ? fabs((double)changed - clean[at]) : INFINITY;
                assert_int_equal(tkh_context_corrupt_next_output(ctx, at, bit), TKH_OK);
                const int caught = call(ctx, k, &ta.t, &tb.t, NULL, &to.t, NULL) == TKH_ERR_ORACLE_MISMATCH;
                if (by > threshold) {
                    if (!caught)
                        fail_msg("trial %" PRId64 " (seed %#" PRIx64 "), %s bound: output %zu changed by %g past the "
                            "threshold %g, not caught", t, seed, near ? "nearest" : "matrix", at, by, threshold);
                    ++above[near];
                } else {
                    const int band = by > threshold / 4 ? 0 : by > threshold / 64 ? 1 : 2;
                    ++below[near][band];
                    below_caught[near][band] += (size_t)caught;
                }
            }
        }
        make(&ta, a, 2, sa, NULL), make(&tb, b, 2, sb, NULL), make(&to, out, 2, so, NULL);
        for (unsigned bit = 0; bit < 32; ++bit) { /* integers: every change */
            assert_int_equal(tkh_context_corrupt_next_output(ctx, at, bit), TKH_OK);
            expect(call(ctx, &matmul, &ta.t, &tb.t, NULL, &to.t, NULL), TKH_ERR_ORACLE_MISMATCH, "differs from");
        }
    }
    for (int near = 0; near < 2; ++near)
        printf("test_projection_detection, the bound of %s: %zu float changes past the threshold, all caught; below "
               "it, caught %zu of %zu within 4 x, %zu of %zu within 64 x, %zu of %zu smaller\n",
            near ? "sums rounded to nearest" : "matrix instructions", above[near], below_caught[near][0],
            below[near][0], below_caught[near][1], below[near][1], below_caught[near][2], below[near][2]);
    printf("test_projection_detection: %" PRId64 " integer changes, all caught\n", trials * 32);
    assert_true(above[0] > 0 && above[1] > above[0]);
    tkh_context_destroy(ctx);
}

/* The projected check's own decoding of floats equals the scalar types' to_double: every
 * f16 and bf16 bit pattern, and f32 and f64 at their edges (NaN as NaN). */
static void test_float_decoding(void **state)
{
    (void)state;
    const char *const names[] = { "f16", "bf16", "f32", "f64" };
    for (int x = 0; x < 4; ++x) {
        const tkh_scalar_type *t = tkh_scalar_type_find(names[x]);
        assert_non_null(t);
        uint64_t s = 3;
        for (uint64_t i = 0; i < 70000; ++i) {
            uint64_t bits = t->bits == 16 ? i % 65536 : i < 8 ? (uint64_t[]){ 0, 1, 0x7f800000, 0x7fc00000,
                0x80000001, 0x7ff0000000000000, 0x000fffffffffffff, 0x8010000000000000 }[i] : tkhi_splitmix64(&s);
            unsigned char p[8];
            memcpy(p, &bits, sizeof p);
            const double want = t->to_double(p), got = tkhi_real(t, p);
            if (!(got == want || (isnan(got) && isnan(want))) || signbit(got) != signbit(want))
                fail_msg("%s %#" PRIx64 ": decoded %a, to_double %a", names[x], bits, got, want);
        }
    }
}

int main(void)
{
    static size_t small_pieces = 16; /* bytes: a row or so a piece, so that products are cut */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_products_by_hand),
        cmocka_unit_test_prestate(test_products_by_hand, &small_pieces),
        cmocka_unit_test(test_bad_products),
        cmocka_unit_test(test_split_products),
        cmocka_unit_test(test_mismatch_and_device),
        cmocka_unit_test(test_random_products),
        cmocka_unit_test_prestate(test_random_products, &small_pieces),
        cmocka_unit_test(test_projected_check),
        cmocka_unit_test_prestate(test_projected_check, &small_pieces),
        cmocka_unit_test(test_projection_detection),
        cmocka_unit_test(test_extra_inputs),
        cmocka_unit_test(test_float_decoding),
        cmocka_unit_test(test_projected_on_device),
        cmocka_unit_test_prestate(test_extra_inputs, &small_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
