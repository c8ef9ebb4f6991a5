/* tkh_tensor_output_shapes: the outputs' shapes of each shape kind (broadcasting, reduced
 * axes with keepdims, a normalization's map and post step, numpy.matmul's 1-D operands,
 * broadcast batches and b as [n, k]) against shapes worked out by hand, and against the
 * call itself: outputs of the shapes given pass tkh_tensor_call's planning (it then stops
 * at the context's missing device), and a bad input fails both with one message. Also the
 * shapes as messages write them (tkhi_format_dims). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plan/plan.h"
#include "platform/platform.h" /* a context made here: no device */
#include "tokitai_hip/tensor.h"

static int no_launch(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)in, (void)out, (void)scalars, (void)p, (void)grid, (void)block, (void)scratch, (void)stream;
    return 1; /* never run: these calls stop before any device work */
}

static const tkh_operand two_in[] = { { "lhs", "f32", 4, NULL, 0, 0, NULL, NULL },
    { "rhs", "f32", 4, NULL, 0, 0, NULL, NULL } };
static const tkh_operand one_out[] = { { "out", "f32", 4, "exact", 0, 0, NULL, NULL } };
static const tkh_operand two_out[] = { { "value", "f32", 4, "exact", 0, 0, NULL, NULL },
    { "index", "f32", 4, "exact", 0, 0, NULL, NULL } };
static const tkh_operand norm_in[] = { { "x", "f32", 4, NULL, 0, 0, NULL, NULL },
    { "weight", "f32", 4, NULL, 0, 0, "1", NULL } };
static const tkh_operand mm_in[] = { { "a", "f32", 4, NULL, 0, 0, NULL, NULL },
    { "b", "f32", 4, NULL, 0, 0, NULL, NULL }, { "bias", "f32", 4, NULL, 0, 0, "0", "n" } };

#define KERNEL(op_, kind, arity_, in, outs, nout) .catalog = "test", .op = op_, .type = "f32", \
    .signature = op_ "'s", .shape = #kind, .shape_kind = kind, .arity = arity_, .inputs = in, \
    .output_count = nout, .outputs = outs, .launch_plan = no_launch

static const tkh_kernel_info add = { KERNEL("add", TKH_SHAPE_ELEMENTWISE, 2, two_in, one_out, 1) };
/* argmax-like: two outputs, no identity */
static const tkh_kernel_info amax = { KERNEL("amax", TKH_SHAPE_REDUCTION, 1, two_in, two_out, 2), .out_count = 1 };
static const tkh_kernel_info sum = { KERNEL("sum", TKH_SHAPE_REDUCTION, 1, two_in, one_out, 1), .out_count = 1,
    .has_identity = 1 };
static const tkh_kernel_info softmax = { KERNEL("softmax", TKH_SHAPE_NORMALIZATION, 2, norm_in, one_out, 1) };
static const tkh_kernel_info lse = { KERNEL("lse", TKH_SHAPE_NORMALIZATION, 2, norm_in, one_out, 1), .out_count = 1 };
static const tkh_kernel_info matmul = { KERNEL("matmul", TKH_SHAPE_MATMUL, 3, mm_in, one_out, 1) };
static const tkh_kernel_info linear = { KERNEL("linear", TKH_SHAPE_MATMUL, 3, mm_in, one_out, 1), .b_nk = 1 };

static float data[TKH_MAX_ARRAYS][4096];

/* A compact host tensor of 'ndim' sizes at 'dims', over its own buffer 'slot'. */
static DLTensor tensor(int slot, int ndim, int64_t *dims)
{
    return (DLTensor){ data[slot], { kDLCPU, 0 }, ndim, { kDLFloat, 32, 1 }, dims, NULL, 0 };
}

typedef struct call {
    const tkh_kernel_info *k;
    DLTensor in[3];
    int given;                 /* inputs given; the rest NULL (their defaults) */
    int64_t axes[4];
    unsigned axis_count;
    int keepdims;
} call;

static tkh_tensor_args args_of(const call *c, const DLTensor **in)
{
    for (int i = 0; i < (int)c->k->arity; ++i)
        in[i] = i < c->given ? &c->in[i] : NULL;
    return (tkh_tensor_args){ in, c->k->arity, NULL, 0, NULL, 0, c->axis_count ? c->axes : NULL, c->axis_count,
        c->keepdims, NULL };
}

/* tkh_tensor_call over c with outputs of 'shapes', on a context without a device: its
 * status, which is TKH_ERR_NO_DEVICE once the plan passed. */
static tkh_status call_with(const call *c, const tkh_tensor_shape *shapes)
{
    static tkh_context ctx; /* zero: no device */
    const DLTensor *in[3], *out[2];
    DLTensor outs[2];
    tkh_tensor_args a = args_of(c, in);
    for (unsigned o = 0; o < c->k->output_count; ++o) {
        outs[o] = tensor(4 + (int)o, shapes[o].ndim, (int64_t *)shapes[o].shape);
        out[o] = &outs[o];
    }
    a.outputs = out;
    a.output_count = c->k->output_count;
    return tkh_tensor_call(&ctx, c->k, &a, NULL);
}

/* The outputs' shapes of c are 'want' (every output), and a call with outputs of those
 * shapes plans, while one with the last dimension one larger (or a dimension added) does not. */
static void expect(const call *c, int ndim, const int64_t *want)
{
    const DLTensor *in[3];
    const tkh_tensor_args a = args_of(c, in);
    tkh_tensor_shape shapes[2];
    assert_int_equal(tkh_tensor_output_shapes(c->k, &a, shapes), TKH_OK);
    for (unsigned o = 0; o < c->k->output_count; ++o) {
        assert_int_equal(shapes[o].ndim, ndim);
        assert_memory_equal(shapes[o].shape, want, sizeof(int64_t) * (size_t)ndim);
    }
    assert_int_equal(call_with(c, shapes), TKH_ERR_NO_DEVICE);
    if (ndim > 0)
        ++shapes[0].shape[ndim - 1];
    else
        shapes[0] = (tkh_tensor_shape){ 1, { 1 } };
    assert_int_equal(call_with(c, shapes), TKH_ERR_INVALID_ARGUMENT);
}

/* c fails with 'status' and 'message' (the entry point's name first), the shapes untouched,
 * and a call with any outputs fails with the same message, named tkh_tensor_call. */
static void refused(const call *c, tkh_status status, const char *message)
{
    const DLTensor *in[3];
    const tkh_tensor_args a = args_of(c, in);
    tkh_tensor_shape shapes[2];
    memset(shapes, 0x5A, sizeof shapes);
    assert_int_equal(tkh_tensor_output_shapes(c->k, &a, shapes), status);
    char want[512];
    snprintf(want, sizeof want, "tkh_tensor_output_shapes: %s", message);
    assert_string_equal(tkh_last_error(), want);
    for (size_t i = 0; i < sizeof shapes; ++i)
        assert_int_equal(((unsigned char *)shapes)[i], 0x5A);
    const tkh_tensor_shape any[2] = { { 1, { 1 } }, { 1, { 1 } } };
    assert_int_equal(call_with(c, any), status);
    snprintf(want, sizeof want, "tkh_tensor_call: %s", message);
    assert_string_equal(tkh_last_error(), want);
}

#define DIMS(...) (int64_t[]){ __VA_ARGS__ }
#define T(slot, ...) tensor(slot, (int)(sizeof DIMS(__VA_ARGS__) / sizeof(int64_t)), DIMS(__VA_ARGS__))
#define T0(slot) tensor(slot, 0, NULL)

static void elementwise_broadcasts(void **state)
{
    (void)state;
    expect(&(call){ &add, { T(0, 3, 1), T(1, 4) }, 2 }, 2, DIMS(3, 4));
    expect(&(call){ &add, { T(0, 2, 3), T0(1) }, 2 }, 2, DIMS(2, 3));
    expect(&(call){ &add, { T0(0), T0(1) }, 2 }, 0, NULL);
    expect(&(call){ &add, { T(0, 0, 4), T(1, 4) }, 2 }, 2, DIMS(0, 4));
    refused(&(call){ &add, { T(0, 2, 3), T(1, 2) }, 2 }, TKH_ERR_INVALID_ARGUMENT, "tensor input 1 (rhs) of "
        "shape [2] does not broadcast with the inputs before it ([2, 3] so far): dimension 0 is 2, expected 3 or 1");
}

static void reductions_drop_or_keep_axes(void **state)
{
    (void)state;
    expect(&(call){ &amax, { T(0, 2, 3, 4) }, 1, { 1 }, 1 }, 2, DIMS(2, 4));
    expect(&(call){ &amax, { T(0, 2, 3, 4) }, 1, { 1 }, 1, 1 }, 3, DIMS(2, 1, 4));
    expect(&(call){ &amax, { T(0, 2, 3, 4) }, 1, { -1, 0 }, 2 }, 1, DIMS(3));
    expect(&(call){ &amax, { T(0, 2, 3, 4) }, 1 }, 0, NULL);
    expect(&(call){ &amax, { T(0, 2, 3, 4) }, 1, { 0 }, 0, 1 }, 3, DIMS(1, 1, 1));
    expect(&(call){ &sum, { T(0, 2, 0) }, 1, { 1 }, 1 }, 1, DIMS(2)); /* the identity */
    refused(&(call){ &amax, { T(0, 2, 3) }, 1, { 2 }, 1 }, TKH_ERR_INVALID_ARGUMENT,
        "axis 2 is out of range for tensor lhs of 2 dimensions: expected -2 to 1");
    refused(&(call){ &amax, { T(0, 2, 3) }, 1, { 0, -2 }, 2 }, TKH_ERR_INVALID_ARGUMENT, "axis -2 is given twice");
    refused(&(call){ &amax, { T(0, 2, 0) }, 1, { 1 }, 1 }, TKH_ERR_EMPTY, "amax_f32 reduces over zero elements "
        "(axis 1 of tensor lhs, shape [2, 0], has size 0) and has no identity to give: expected at least one "
        "element (as NumPy and torch refuse it)");
}

static void normalizations_map_or_post(void **state)
{
    (void)state;
    expect(&(call){ &softmax, { T(0, 4, 5) }, 1, { -1 }, 1 }, 2, DIMS(4, 5));
    expect(&(call){ &softmax, { T(0, 4, 5), T(1, 5) }, 2, { 1 }, 1 }, 2, DIMS(4, 5));
    expect(&(call){ &lse, { T(0, 4, 5) }, 1, { 0 }, 1 }, 1, DIMS(5));
    expect(&(call){ &lse, { T(0, 4, 5) }, 1, { 0 }, 1, 1 }, 2, DIMS(1, 5));
    refused(&(call){ &softmax, { T(0, 4, 5), T(1, 4) }, 2, { -1 }, 1 }, TKH_ERR_INVALID_ARGUMENT,
        "tensor input 1 (weight) has shape [4]: expected [5], a column along axis 1 of tensor x (shape [4, 5])");
    refused(&(call){ &lse, { T(0, 3, 0) }, 1, { 1 }, 1 }, TKH_ERR_EMPTY, "lse_f32 reduces rows of zero elements "
        "(axis 1 of tensor x, shape [3, 0], has size 0): expected at least one");
}

static void matmul_as_numpy(void **state)
{
    (void)state;
    expect(&(call){ &matmul, { T(0, 2, 3), T(1, 3, 4) }, 2 }, 2, DIMS(2, 4));
    expect(&(call){ &matmul, { T(0, 3), T(1, 3, 4) }, 2 }, 1, DIMS(4));
    expect(&(call){ &matmul, { T(0, 2, 3), T(1, 3) }, 2 }, 1, DIMS(2));
    expect(&(call){ &matmul, { T(0, 3), T(1, 3) }, 2 }, 0, NULL);
    expect(&(call){ &matmul, { T(0, 5, 1, 2, 3), T(1, 4, 3, 6), T(2, 6) }, 3 }, 4, DIMS(5, 4, 2, 6));
    expect(&(call){ &matmul, { T(0, 3), T(1, 7, 3, 6) }, 2 }, 2, DIMS(7, 6));
    expect(&(call){ &linear, { T(0, 8, 2, 3), T(1, 4, 3) }, 2 }, 3, DIMS(8, 2, 4));
    expect(&(call){ &linear, { T(0, 2, 3), T(1, 3) }, 2 }, 1, DIMS(2));
    refused(&(call){ &matmul, { T(0, 2, 3), T(1, 4, 5) }, 2 }, TKH_ERR_INVALID_ARGUMENT, "tensors a [2, 3] and b "
        "[4, 5] do not multiply: a's k is 3 and b's 4 (its second-to-last dimension, or its only one)");
    refused(&(call){ &matmul, { T(0, 2, 2, 3), T(1, 3, 3, 4) }, 2 }, TKH_ERR_INVALID_ARGUMENT, "the batch "
        "dimensions of a [2, 2, 3] and b [3, 3, 4] do not broadcast: 2 against 3");
    refused(&(call){ &matmul, { T(0, 2, 3), T(1, 3, 4), T(2, 2) }, 3 }, TKH_ERR_INVALID_ARGUMENT,
        "tensor input 2 (bias) has shape [2]: expected [4], a column along n");
}

static void arguments_checked(void **state)
{
    (void)state;
    DLTensor x = T(0, 2, 3);
    const DLTensor *in[2] = { &x, &x }, *out[1] = { &x };
    tkh_tensor_args a = { in, 2, NULL, 0, NULL, 0, NULL, 0, 0, NULL };
    tkh_tensor_shape shapes[1];
    assert_int_equal(tkh_tensor_output_shapes(&add, &a, NULL), TKH_ERR_NULL_POINTER);
    assert_string_equal(tkh_last_error(), "tkh_tensor_output_shapes: shapes is NULL");
    assert_int_equal(tkh_tensor_output_shapes(NULL, &a, shapes), TKH_ERR_NULL_POINTER);
    assert_string_equal(tkh_last_error(), "tkh_tensor_output_shapes: kernel is NULL");
    a.outputs = out;
    a.output_count = 1;
    assert_int_equal(tkh_tensor_output_shapes(&add, &a, shapes), TKH_ERR_ARITY);
    assert_string_equal(tkh_last_error(), "tkh_tensor_output_shapes: add_f32 (add's) takes 2 input tensors and "
        "no outputs (it gives their shapes), got 2 and 1");
    a.output_count = 0;
    in[1] = NULL;
    assert_int_equal(tkh_tensor_output_shapes(&add, &a, shapes), TKH_ERR_NULL_POINTER);
    assert_string_equal(tkh_last_error(), "tkh_tensor_output_shapes: tensor input 1 (rhs) is NULL");
}

/* As snprintf's "%" PRId64 would write them, truncated as snprintf truncates. */
static void dims_formatted(void **state)
{
    (void)state;
    char buf[64];
    const int64_t dims[] = { 4096, 0, -7, INT64_MIN, INT64_MAX };
    assert_string_equal(tkhi_format_dims(buf, sizeof buf, 5, dims),
        "[4096, 0, -7, -9223372036854775808, 9223372036854775807]");
    assert_string_equal(tkhi_format_dims(buf, sizeof buf, 0, dims), "[]");
    assert_string_equal(tkhi_format_dims(buf, 8, 2, dims), "[4096, ");
    buf[0] = 'x';
    tkhi_format_dims(buf, 0, 2, dims);
    assert_int_equal(buf[0], 'x'); /* nothing written where nothing fits */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(elementwise_broadcasts),
        cmocka_unit_test(reductions_drop_or_keep_axes),
        cmocka_unit_test(normalizations_map_or_post),
        cmocka_unit_test(matmul_as_numpy),
        cmocka_unit_test(arguments_checked),
        cmocka_unit_test(dims_formatted),
    };
    return cmocka_run_group_tests_name("output_shapes", tests, NULL, NULL);
}
