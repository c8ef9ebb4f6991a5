/* Every matrix product of the core catalog on a real device: tiles cut at their edges,
 * shapes in whole 16-byte chunks (the matrix-instruction kernels) and not, transposed
 * views, batches broadcast, 1-D operands, k = 0, a long k, a bias given and left out,
 * inputs in pieces, the device path, corrupted outputs caught (under the projected check,
 * every change past its stated threshold). Each call is checked
 * by the oracle (every output; again under the projected check) and then, independently
 * of it, against this file's own reference: the torch semantics of the op (x @ w^T + b,
 * then relu, gelu or silu) in long double, within the sum's worst-case rounding; integers
 * exactly, modulo 2^32. Random inputs from a fixed, printed seed (TKH_TEST_SEED replays
 * another). Exits 77 (skipped) when there is no device. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
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
#include "tokitai_hip/tokitai_hip.h"
#include "base/base.h" /* tkhi_splitmix64 */
#include "../evidence.h"
#include "gpu_start.h"

static uint64_t seed;
static tkh_context *ctx;
static const char *expect; /* evidence every report of product_case must have, if not NULL */
static int mma_device;     /* whether the device runs mma.sync (NVIDIA sm_80 and later) */

typedef struct tensor {
    DLTensor t;
    int64_t shape[4], strides[4];
    unsigned char *buffer;
    const tkh_scalar_type *type;
} tensor;

/* A host tensor of 'shape' over its own buffer: compact, or at 'strides'; floats in
 * [-1, 1), integers random bits. */
static const DLTensor *make(tensor *x, const tkh_operand *op, int ndim, const int64_t *shape, const int64_t *strides,
    uint64_t *s)
{
    memset(x, 0, sizeof *x);
    memcpy(x->shape, shape, sizeof(int64_t) * (size_t)ndim);
    x->type = tkh_scalar_type_find(op->type);
    int64_t hi = 0, step = 1;
    for (int d = ndim - 1; d >= 0; --d) {
        x->strides[d] = strides ? strides[d] : step;
        step *= shape[d];
        hi += (shape[d] > 0 ? shape[d] - 1 : 0) * x->strides[d];
    }
    const size_t count = (size_t)hi + 1;
    x->buffer = malloc(count * op->size);
    assert_non_null(x->buffer);
    for (size_t i = 0; i < count; ++i) {
        const uint64_t r = tkhi_splitmix64(s);
        if (x->type->from_double != NULL)
            x->type->from_double((double)(r >> 11) * 0x1p-52 - 1.0, x->buffer + i * op->size);
        else
            memcpy(x->buffer + i * op->size, &r, op->size);
    }
    x->t = (DLTensor){ x->buffer, { kDLCPU, 0 }, ndim, { x->type->dlpack_code, x->type->bits, 1 }, x->shape,
        x->strides, 0 };
    return &x->t;
}

/* Element at offset 'off' (elements) as a long double: floats exactly, integers signed. */
static long double value(const tensor *x, int64_t off)
{
    const unsigned char *p = x->buffer + off * (int64_t)x->type->size;
    if (x->type->to_double != NULL)
        return x->type->to_double(p);
    if (x->type->bits == 8)
        return *(const int8_t *)p;
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* What the op computes from the sum v (its bias added), as torch defines it. */
static long double epilogue(const char *op, long double v)
{
    if (strcmp(op, "linear_relu") == 0)
        return v > 0 ? v : 0;
    if (strcmp(op, "linear_gelu") == 0)
        return v * 0.5L * (1 + erfl(v / sqrtl(2.0L)));
    if (strcmp(op, "linear_silu") == 0)
        return v / (1 + expl(-v));
    if (strcmp(op, "matmul") != 0 && strcmp(op, "linear") != 0)
        fail_msg("%s: a matrix product this test has no reference for: add it here", op);
    return v;
}

/* Offset of the matrix element (row, col) of operand x at batch index 'batch' (of the
 * output's 'bn' batch dimensions), NumPy's rules: a 1-D x is a row (a) or a column (b). */
static int64_t offset(const tensor *x, const int64_t *batch, int bn, int64_t row, int64_t col, int is_b)
{
    const DLTensor *t = &x->t;
    if (t->ndim == 1)
        return (is_b ? row : col) * t->strides[0];
    int64_t off = row * t->strides[t->ndim - 2] + col * t->strides[t->ndim - 1];
    for (int d = 0; d < t->ndim - 2; ++d)
        off += (t->shape[d] == 1 ? 0 : batch[bn - (t->ndim - 2) + d]) * t->strides[d];
    return off;
}

/* Every output against the reference: integers modulo 2^32; floats within the worst case
 * of k additions in the accumulator (k of its unit roundoffs of the sum of |products| where
 * the report r says the sums were rounded to nearest, else 2k + 2 of twice it, through an
 * epilogue that amplifies an error at most 1.2 times), the epilogue's own few roundings and
 * the output's rounding. */
static void compare(const tkh_kernel_info *k, const char *what, tensor *t, int64_t m, int64_t n, int64_t depth,
    int bn, const int64_t *bshape, const tkh_report *r)
{
    const int nearest = r != NULL && has_evidence(r, "sum bound: k roundings to nearest");
    const long double steps = nearest ? depth : 2 * depth + 2, unit = nearest ? 1 : 2;
    tensor *a = &t[0], *b = &t[1], *bias = k->arity > 2 && t[2].buffer ? &t[2] : NULL, *o = &t[k->arity];
    const int integer = o->type->to_double == NULL;
    const long double u_acc = integer ? 0 : strcmp(k->type, "f64") == 0 ? 0x1p-53L : 0x1p-24L;
    const long double u_out = integer ? 0 : ldexpl(1, -o->type->mantissa);
    int64_t batch[4] = { 0 }, count = 0;
    do {
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                long double sum = bias ? value(bias, j * bias->t.strides[0]) : 0, mag = fabsl(sum);
                uint32_t wrapped = 0;
                for (int64_t q = 0; q < depth; ++q) {
                    const long double p = value(a, offset(a, batch, bn, i, q, 0))
                        * value(b, k->b_nk ? offset(b, batch, bn, j, q, 0) : offset(b, batch, bn, q, j, 1));
                    sum += p;
                    mag += fabsl(p);
                    wrapped += (uint32_t)(int64_t)p;
                }
                int64_t off = 0;
                for (int d = 0; d < bn; ++d)
                    off += batch[d] * o->t.strides[d];
                if (a->t.ndim > 1)
                    off += i * o->t.strides[bn];
                if (b->t.ndim > 1)
                    off += j * o->t.strides[o->t.ndim - 1];
                const long double got = value(o, off), want = integer ? (int32_t)wrapped : epilogue(k->op, sum);
                const long double tol = 1.2L * steps * unit * u_acc * mag + 8 * u_acc * fabsl(want)
                    + 2 * u_out * fabsl(want) + 0x1p-60L;
                if (!(fabsl(got - want) <= tol))
                    fail_msg("%s_%s, %s (seed %" PRIu64 "): output (%" PRId64 ", %" PRId64 ") of batch %" PRId64
                        " is %.9Lg, the reference %.9Lg (tolerance %.3Lg, %s)", k->op, k->type, what, seed, i, j,
                        count, got, want, tol, nearest ? "sums rounded to nearest" : "matrix instructions");
            }
        ++count;
        int d = bn - 1;
        for (; d >= 0 && ++batch[d] == bshape[d]; --d)
            batch[d] = 0;
        if (d < 0)
            break;
    } while (1);
}

/* One case: a of shape sa (strides ta, NULL: compact), b of sb (tb), the bias given or
 * not, the output of numpy.matmul's shape; checked by the oracle, then compared. */
static void product_case(const tkh_kernel_info *k, const char *what, int na, const int64_t *sa, const int64_t *ta,
    int nb, const int64_t *sb, const int64_t *tb, int with_bias, uint64_t *s)
{
    tensor t[4];
    memset(t, 0, sizeof t);
    if (getenv("TKH_TEST_TRACE")) /* where a slow or hung case is */
        printf("%s_%s, %s\n", k->op, k->type, what);
    make(&t[0], &k->inputs[0], na, sa, ta, s);
    make(&t[1], &k->inputs[1], nb, sb, tb, s);
    const int64_t m = na > 1 ? sa[na - 2] : 1, depth = sa[na - 1];
    const int64_t n = nb == 1 ? 1 : k->b_nk ? sb[nb - 2] : sb[nb - 1];
    int64_t oshape[4], bshape[4];
    const int ba = na > 2 ? na - 2 : 0, bb = nb > 2 ? nb - 2 : 0, bn = ba > bb ? ba : bb;
    for (int d = 0; d < bn; ++d) {
        const int64_t x = bn - d <= ba ? sa[ba - (bn - d)] : 1, y = bn - d <= bb ? sb[bb - (bn - d)] : 1;
        bshape[d] = oshape[d] = x > y ? x : y;
    }
    int on = bn;
    if (na > 1)
        oshape[on++] = m;
    if (nb > 1)
        oshape[on++] = n;
    const DLTensor *in[3] = { &t[0].t, &t[1].t, NULL }, *out[1];
    if (k->arity > 2 && with_bias)
        in[2] = make(&t[2], &k->inputs[2], 1, &n, NULL, s);
    out[0] = make(&t[k->arity], &k->outputs[0], on, oshape, NULL, s);
    const tkh_tensor_args args = { in, k->arity, out, 1, NULL, 0, NULL, 0, 0, NULL };
    tkh_report r;
    int64_t outputs = 1;
    for (int d = 0; d < on; ++d)
        outputs *= oshape[d];
    if (tkh_tensor_call(ctx, k, &args, &r) != TKH_OK || !r.oracle_matches || r.oracle_compared != (size_t)outputs)
        fail_msg("%s_%s, %s (seed %" PRIu64 "): %s", k->op, k->type, what, seed, r.message);
    if (expect != NULL && !has_evidence(&r, expect))
        fail_msg("%s_%s, %s (seed %" PRIu64 "): the report does not say \"%s\"", k->op, k->type, what, seed, expect);
    /* the bound of sums rounded to nearest wherever no matrix instruction can run: f32 has
     * none, and the small-m kernel takes every product of at most 16 rows, on fused
     * multiply-adds but for f16 and bf16 on a device of mma.sync (NVIDIA sm_80 and later).
     * (Elsewhere either: the host path's pieces of fewer rows may go to the small-m kernel.) */
    const int half = strcmp(k->type, "f16") == 0 || strcmp(k->type, "bf16") == 0;
    if (strcmp(k->domain, "integer") != 0 && (strcmp(k->type, "f32") == 0 || (m <= 16 && !(half && mma_device)))
        && !has_evidence(&r, "sum bound: k roundings to nearest"))
        fail_msg("%s_%s, %s (seed %" PRIu64 "): the report does not take the bound of sums rounded to nearest", k->op,
            k->type, what, seed);
    compare(k, what, t, m, n, depth, bn, bshape, &r);
    /* again under the projected check: the same verdict, every output by projection where
     * the op allows (no block past its bound, none cut), else all in full */
    const tkh_oracle_policy projected = { TKH_ORACLE_PROJECTED, 0, seed }, full = { TKH_ORACLE_FULL, 0, 0 };
    assert_int_equal(tkh_context_set_oracle(ctx, &projected), TKH_OK);
    const tkh_status st = tkh_tensor_call(ctx, k, &args, &r);
    assert_int_equal(tkh_context_set_oracle(ctx, &full), TKH_OK);
    if (st != TKH_OK || !r.oracle_matches || r.oracle_compared != (size_t)outputs
        || has_evidence(&r, "by projection") != k->projectable
        || r.oracle_projected != (k->projectable ? (size_t)outputs : 0))
        fail_msg("%s_%s, %s, projected (seed %" PRIu64 "): %s", k->op, k->type, what, seed, r.message);
    compare(k, what, t, m, n, depth, bn, bshape, &r);
    for (int x = 0; x < 4; ++x)
        free(t[x].buffer);
}

/* b's shape for a product of k x n: [k, n], or [n, k] for a weight. */
#define B(k_, n_) (kernel->b_nk ? (const int64_t[]){ n_, k_ } : (const int64_t[]){ k_, n_ })

static void every_product_over_tensors(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    uint64_t s = seed;
    size_t runs = 0, kernels = 0;
    for (size_t i = 0; i < reg->count; ++i) {
        const tkh_kernel_info *kernel = reg->kernels[i];
        if (strcmp(kernel->shape, "matmul") != 0)
            continue;
        ++kernels;
        const int64_t a37[2] = { 37, 129 }, a_t[2] = { 1, 37 }, row[1] = { 129 };
        const int64_t bt[2] = { 1, kernel->b_nk ? 53 : 129 }; /* b's transpose, stored so */
        product_case(kernel, "[37, 129] @ [129, 53], a bias", 2, a37, NULL, 2, B(129, 53), NULL, 1, &s);
        product_case(kernel, "transposed views of a and b, no bias", 2, a37, a_t, 2, B(129, 53), bt, 0, &s);
        const int64_t a4[4] = { 3, 1, 37, 20 }, b3[3] = { 2, kernel->b_nk ? 45 : 20, kernel->b_nk ? 20 : 45 };
        product_case(kernel, "[3, 1, 37, 20] @ [2, 20, 45]: batches broadcast", 4, a4, NULL, 3, b3, NULL, 1, &s);
        product_case(kernel, "1-D a [129] @ [129, 53]", 1, row, NULL, 2, B(129, 53), NULL, 1, &s);
        product_case(kernel, "[37, 129] @ 1-D b [129]", 2, a37, NULL, 1, row, NULL, 0, &s);
        /* a of 4.5 to 18 MB comes in about four pieces on the host path; n is small because this
         * test's own reference, one thread in long double, costs m n k for each case */
        const int64_t a0[2] = { 5, 0 }, along[2] = { 24, 4099 }, tall[2] = { 4100, 1100 };
        product_case(kernel, "k = 0: the empty sums, a bias", 2, a0, NULL, 2, B(0, 7), NULL, 1, &s);
        product_case(kernel, "[24, 4099] @ [4099, 9]: a long k", 2, along, NULL, 2, B(4099, 9), NULL, 1, &s);
        product_case(kernel, "[4100, 1100] @ [1100, 16]: a in pieces", 2, tall, NULL, 2, B(1100, 16), NULL, 1, &s);
        /* whole 16-byte chunks along k (and along m or n where those are contiguous), of every
         * element size: on NVIDIA sm_80 and later the 16-bit, i8 and f64 products run on the
         * matrix instructions, with each operand K-major or MN-major as it lies */
        const int64_t a144[2] = { 144, 272 }, a144_t[2] = { 1, 144 }, a5[4] = { 2, 3, 80, 64 };
        const int64_t bt208[2] = { 1, kernel->b_nk ? 208 : 272 }, long8[2] = { 32, 8200 };
        const int64_t b48[3] = { 3, kernel->b_nk ? 48 : 64, kernel->b_nk ? 64 : 48 };
        product_case(kernel, "[144, 272] @ [272, 208], a bias: whole chunks", 2, a144, NULL, 2, B(272, 208), NULL, 1, &s);
        product_case(kernel, "[144, 272] @ [272, 208]: whole chunks, transposed views", 2, a144, a144_t, 2, B(272, 208),
            bt208, 0, &s);
        product_case(kernel, "[144, 272] @ [272, 208]: whole chunks, a transposed view", 2, a144, a144_t, 2,
            B(272, 208), NULL, 1, &s);
        product_case(kernel, "[144, 272] @ [272, 208]: whole chunks, b transposed view", 2, a144, NULL, 2, B(272, 208),
            bt208, 1, &s);
        product_case(kernel, "[2, 3, 80, 64] @ [3, 64, 48]: whole chunks, batched", 4, a5, NULL, 3, b48, NULL, 1, &s);
        product_case(kernel, "[32, 8200] @ [8200, 24]: whole chunks of 8 elements, a long k", 2, long8, NULL, 2,
            B(8200, 24), NULL, 1, &s);
        /* two tiles against k = 2048 (4 of them for 6 batches): k in slices whose sums a second
         * kernel adds before the epilogue (shapes/matmul.c: 8 slices on any device of 8
         * multiprocessors or more), for every kernel and layout of a and b */
        const int64_t a_sl[2] = { 144, 2048 }, a_sl_t[2] = { 1, 144 }, a_slb[4] = { 2, 3, 80, 2048 };
        const int64_t bt_sl[2] = { 1, kernel->b_nk ? 80 : 2048 };
        const int64_t b_slb[3] = { 3, kernel->b_nk ? 48 : 2048, kernel->b_nk ? 2048 : 48 };
        expect = "their partials folded by a second kernel";
        product_case(kernel, "[144, 2048] @ [2048, 80], a bias: k in slices", 2, a_sl, NULL, 2, B(2048, 80), NULL, 1, &s);
        product_case(kernel, "[144, 2048] @ [2048, 80]: k in slices, transposed views", 2, a_sl, a_sl_t, 2, B(2048, 80),
            bt_sl, 0, &s);
        product_case(kernel, "[2, 3, 80, 2048] @ [3, 2048, 48], a bias: k in slices, batched", 4, a_slb, NULL, 3, b_slb,
            NULL, 1, &s);
        expect = NULL;
        runs += 17;
    }
    printf("%zu tensor calls of %zu matrix products passed\n", runs, kernels);
}

/* The small-m kernel (at most 16 rows, docs/matmul.md) and the threshold's edge (17 rows:
 * the tiles): m = 1, 2, 5, 16 and 17 (groups of 1, 2, 8 and 16 rows in vectors, of 1, 4 and 16
 * element by element), k odd (elements one by one) and in whole 16-byte chunks
 * (vectors), n not a whole number of a block's columns, b as the op lays it and its
 * transposed view (K-major and MN-major), rows of a and of b padded off the chunks (the
 * element-by-element fallback), batches whose b is the same for every batch (their rows
 * folded: 6, and 20 in two groups) and batches of b, a 1-D a. */
static void small_m_products(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    uint64_t s = seed;
    size_t runs = 0;
    for (size_t i = 0; i < reg->count; ++i) {
        const tkh_kernel_info *kernel = reg->kernels[i];
        if (strcmp(kernel->shape, "matmul") != 0)
            continue;
        const int64_t n = 300, ms[5] = { 1, 2, 5, 16, 17 }, ks[2] = { 257, 512 };
        char what[160];
        for (int x = 0; x < 5; ++x)
            for (int y = 0; y < 2; ++y) {
                const int64_t m = ms[x], depth = ks[y], sa[2] = { m, depth }, pad_a[2] = { depth + 1, 1 };
                const int64_t bt[2] = { 1, kernel->b_nk ? n : depth }, pad_b[2] = { kernel->b_nk ? depth + 1 : n + 1, 1 };
                snprintf(what, sizeof what, "small m: [%" PRId64 ", %" PRId64 "] @ [%" PRId64 ", %" PRId64 "], a bias",
                    m, depth, depth, n);
                product_case(kernel, what, 2, sa, NULL, 2, B(depth, n), NULL, 1, &s);
                snprintf(what, sizeof what, "small m: [%" PRId64 ", %" PRId64 "] @ [%" PRId64 ", %" PRId64 "], b "
                    "transposed view", m, depth, depth, n);
                product_case(kernel, what, 2, sa, NULL, 2, B(depth, n), bt, 1, &s);
                snprintf(what, sizeof what, "small m: [%" PRId64 ", %" PRId64 "] @ [%" PRId64 ", %" PRId64 "], b's "
                    "rows padded", m, depth, depth, n);
                product_case(kernel, what, 2, sa, NULL, 2, B(depth, n), pad_b, 0, &s);
                snprintf(what, sizeof what, "small m: [%" PRId64 ", %" PRId64 "] @ [%" PRId64 ", %" PRId64 "], a's "
                    "rows padded", m, depth, depth, n);
                product_case(kernel, what, 2, sa, pad_a, 2, B(depth, n), NULL, 1, &s);
                runs += 4;
            }
        const int64_t depth = 512, row[1] = { 512 }, a6[3] = { 3, 2, 512 }, a20[3] = { 5, 4, 512 };
        const int64_t b3[3] = { 3, kernel->b_nk ? n : depth, kernel->b_nk ? depth : n };
        product_case(kernel, "small m: 1-D a [512] @ [512, 300]", 1, row, NULL, 2, B(depth, n), NULL, 1, &s);
        product_case(kernel, "small m: [3, 2, 512] @ [512, 300]: 6 rows folded", 3, a6, NULL, 2, B(depth, n), NULL, 1, &s);
        product_case(kernel, "small m: [5, 4, 512] @ [512, 300]: 20 rows folded, two groups", 3, a20, NULL, 2,
            B(depth, n), NULL, 1, &s);
        product_case(kernel, "small m: [3, 2, 512] @ [3, 512, 300]: batches of b", 3, a6, NULL, 3, b3, NULL, 1, &s);
        runs += 4;
    }
    printf("%zu small-m tensor calls passed\n", runs);
}

/* The projected check catches what it claims on the real kernels: one output of each
 * projectable product (whole chunks: the matrix instructions where there are some) changed
 * by flipping each of its bits in turn, over seeds of the inputs and the weights: every
 * change past the report's threshold caught, and every change of an integer; the share of
 * smaller float changes caught is printed beside it. */
static void projection_detection(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
    const int64_t m = 144, n = 208, depth = 272, sa[2] = { m, depth }, so[2] = { m, n };
    for (size_t i = 0; i < reg->count; ++i) {
        const tkh_kernel_info *kernel = reg->kernels[i];
        if (strcmp(kernel->shape, "matmul") != 0 || !kernel->projectable)
            continue;
        size_t above = 0, below = 0, below_caught = 0;
        double threshold = 0;
        for (int trial = 0; trial < 6; ++trial) {
            uint64_t s = seed + (uint64_t)trial;
            tensor t[4];
            memset(t, 0, sizeof t);
            const DLTensor *in[3] = { make(&t[0], &kernel->inputs[0], 2, sa, NULL, &s),
                make(&t[1], &kernel->inputs[1], 2, B(depth, n), NULL, &s), NULL }, *out[1];
            if (kernel->arity > 2)
                in[2] = make(&t[2], &kernel->inputs[2], 1, &n, NULL, &s);
            out[0] = make(&t[kernel->arity], &kernel->outputs[0], 2, so, NULL, &s);
            const tkh_tensor_args args = { in, kernel->arity, out, 1, NULL, 0, NULL, 0, 0, NULL };
            const tkh_oracle_policy projected = { TKH_ORACLE_PROJECTED, 0, tkhi_splitmix64(&s) };
            assert_int_equal(tkh_context_set_oracle(ctx, &projected), TKH_OK);
            tkh_report r;
            if (tkh_tensor_call(ctx, kernel, &args, &r) != TKH_OK || r.oracle_projected != (size_t)(m * n))
                fail_msg("%s_%s, projected (seed %" PRIu64 "): %s", kernel->op, kernel->type, seed, r.message);
            threshold = r.oracle_threshold > threshold ? r.oracle_threshold : threshold;
            const tensor *o = &t[kernel->arity];
            const size_t size = o->type->size, at = (size_t)(tkhi_splitmix64(&s) % (uint64_t)(m * n));
            unsigned char clean[8], changed[8];
            memcpy(clean, o->buffer + at * size, size);
            for (unsigned bit = 0; bit < 8 * size; ++bit) {
                memcpy(changed, clean, size);
                changed[bit / 8] ^= (unsigned char)(1u << (bit % 8)); /* little-endian, as the device's */
                const double was = o->type->to_double ? o->type->to_double(clean) : 0;
                const double now = o->type->to_double ? o->type->to_double(changed) : 0;
                const double by = o->type->to_double == NULL ? INFINITY : isfinite(now) ? fabs(now - was) : INFINITY;
                assert_int_equal(tkh_context_corrupt_next_output(ctx, at, bit), TKH_OK);
                const int caught = tkh_tensor_call(ctx, kernel, &args, NULL) == TKH_ERR_ORACLE_MISMATCH;
                if (by > r.oracle_threshold) {
                    if (!caught)
                        fail_msg("%s_%s (seed %" PRIu64 ", trial %d): output %zu changed by %g (bit %u), past the "
                            "threshold %g, not caught", kernel->op, kernel->type, seed, trial, at, by, bit,
                            r.oracle_threshold);
                    ++above;
                } else {
                    ++below;
                    below_caught += (size_t)caught;
                }
            }
            assert_int_equal(tkh_context_set_oracle(ctx, &full), TKH_OK);
            for (int x = 0; x < 4; ++x)
                free(t[x].buffer);
        }
        printf("%s_%s: %zu changed outputs past the threshold (at most %.3g), all caught; %zu below it, %zu of them "
               "caught\n", kernel->op, kernel->type, above, threshold, below, below_caught);
    }
}

/* A flipped exponent bit of one output is caught and named; the device path under the
 * device oracle. */
static void corruption_and_device_path(void **state)
{
    (void)state;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), "matmul", "f32");
    if (k == NULL)
        skip();
    uint64_t s = seed;
    tensor t[3];
    const int64_t sa[2] = { 37, 129 }, sb[2] = { 129, 53 }, so[2] = { 37, 53 };
    const DLTensor *in[2] = { make(&t[0], &k->inputs[0], 2, sa, NULL, &s), make(&t[1], &k->inputs[1], 2, sb, NULL, &s) },
        *out[1] = { make(&t[2], &k->outputs[0], 2, so, NULL, &s) };
    const tkh_tensor_args args = { in, 2, out, 1, NULL, 0, NULL, 0, 0, NULL };
    tkh_report r;
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 100, 30), TKH_OK);
    if (tkh_tensor_call(ctx, k, &args, &r) != TKH_ERR_ORACLE_MISMATCH
        || strstr(r.message, "element [1, 47] of [37, 53] differs from the CPU oracle") == NULL)
        fail_msg("a corrupted output of matmul_f32 (seed %" PRIu64 "): %s", seed, r.message);
    /* and under the projected check */
    const tkh_oracle_policy projected = { TKH_ORACLE_PROJECTED, 0, seed }, checked = { TKH_ORACLE_FULL, 0, 0 };
    assert_int_equal(tkh_context_set_oracle(ctx, &projected), TKH_OK);
    assert_int_equal(tkh_context_corrupt_next_output(ctx, 1000, 30), TKH_OK);
    const tkh_status st = tkh_tensor_call(ctx, k, &args, &r);
    assert_int_equal(tkh_context_set_oracle(ctx, &checked), TKH_OK);
    if (st != TKH_ERR_ORACLE_MISMATCH || strstr(r.message, "element [18, 46] of [37, 53] differs") == NULL)
        fail_msg("a corrupted output of matmul_f32 under the projected check (seed %" PRIu64 "): %s", seed, r.message);
    /* the device path: the flat device entry point, checked under the device oracle */
    float *d[3];
    const size_t bytes[3] = { 37 * 129 * 4, 129 * 53 * 4, 37 * 53 * 4 };
    for (int x = 0; x < 3; ++x) {
        assert_int_equal(hipMalloc((void **)&d[x], bytes[x]), hipSuccess);
        if (x < 2)
            assert_int_equal(hipMemcpy(d[x], t[x].buffer, bytes[x], hipMemcpyHostToDevice), hipSuccess);
    }
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 }, off = { TKH_ORACLE_OFF, 0, 0 };
    assert_int_equal(tkh_context_set_device_oracle(ctx, &full), TKH_OK);
    const void *ins[2] = { d[0], d[1] };
    void *outs[1] = { d[2] };
    const tkh_args flat = { ins, 2, outs, 1, NULL, 0 };
    if (tkh_product_enqueue(ctx, k, &flat, 37, 53, 129, NULL) != TKH_OK)
        fail_msg("matmul_f32 on the device path: %s", tkh_last_error());
    assert_int_equal(hipMemcpy(t[2].buffer, d[2], bytes[2], hipMemcpyDeviceToHost), hipSuccess);
    compare(k, "the device path", t, 37, 53, 129, 0, NULL, NULL);
    assert_int_equal(tkh_context_set_device_oracle(ctx, &off), TKH_OK);
    for (int x = 0; x < 3; ++x) {
        hipFree(d[x]);
        free(t[x].buffer);
    }
}

/* The projected check on the device path, for every projectable product: device tensors of
 * a batch of 2 (three blocks a row, the last cut short), checked by the projection kernels
 * on the device with the threshold the host path's check states for the same inputs; an
 * output corrupted on the device (the test hook) sent to the host's check and named. */
static void projection_on_device(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    const tkh_device_report *dev = tkh_context_device(ctx);
    const DLDevice on = { strcmp(dev->platform, "nvidia") == 0 ? kDLCUDA : kDLROCM, dev->selected };
    const tkh_oracle_policy projected = { TKH_ORACLE_PROJECTED, 0, seed }, off = { TKH_ORACLE_OFF, 0, 0 };
    const tkh_oracle_policy full = { TKH_ORACLE_FULL, 0, 0 };
    size_t kernels = 0;
    for (size_t i = 0; i < reg->count; ++i) {
        const tkh_kernel_info *k = reg->kernels[i];
        if (k->check_product == NULL || !k->projectable || tkh_kernel_admit(k, dev->arch) != TKH_OK)
            continue;
        uint64_t s = seed + i;
        const int64_t batch = 2, m = 37, n = 300, depth = 144;
        const int64_t sa[3] = { batch, m, depth }, sb[2] = { k->b_nk ? n : depth, k->b_nk ? depth : n },
            so[3] = { batch, m, n };
        tensor t[4];
        memset(t, 0, sizeof t);
        const DLTensor *in[3] = { make(&t[0], &k->inputs[0], 3, sa, NULL, &s), make(&t[1], &k->inputs[1], 2, sb, NULL, &s),
            NULL };
        if (k->arity > 2)
            in[2] = make(&t[2], &k->inputs[2], 1, &n, NULL, &s);
        const DLTensor *out[1] = { make(&t[k->arity], &k->outputs[0], 3, so, NULL, &s) };
        const tkh_tensor_args args = { in, k->arity, out, 1, NULL, 0, NULL, 0, 0, NULL };
        tkh_report host, r;
        assert_int_equal(tkh_context_set_oracle(ctx, &projected), TKH_OK);
        const tkh_status hs = tkh_tensor_call(ctx, k, &args, &host);
        assert_int_equal(tkh_context_set_oracle(ctx, &full), TKH_OK);
        if (hs != TKH_OK)
            fail_msg("%s_%s on the host path (seed %" PRIu64 "): %s", k->op, k->type, seed, host.message);
        /* the same tensors on the device */
        void *d[4] = { NULL };
        for (unsigned x = 0; x <= k->arity; ++x) {
            if (t[x].buffer == NULL)
                continue;
            size_t count = 1;
            for (int e = 0; e < t[x].t.ndim; ++e)
                count *= (size_t)t[x].shape[e];
            const size_t bytes = count * (x < k->arity ? k->inputs[x].size : k->outputs[0].size);
            assert_int_equal(hipMalloc(&d[x], bytes), hipSuccess);
            assert_int_equal(hipMemcpy(d[x], t[x].buffer, bytes, hipMemcpyHostToDevice), hipSuccess);
            t[x].t.data = d[x];
            t[x].t.device = on;
        }
        assert_int_equal(tkh_context_set_device_oracle(ctx, &projected), TKH_OK);
        const tkh_status st = tkh_tensor_call(ctx, k, &args, &r);
        const int64_t outputs = batch * m * n;
        if (st != TKH_OK || !r.oracle_matches || r.oracle_projected != (size_t)outputs
            || !has_evidence(&r, "by the projection kernels on the device")
            || !(fabs(r.oracle_threshold - host.oracle_threshold) <= 1e-9 * host.oracle_threshold))
            fail_msg("%s_%s, projected on the device (seed %" PRIu64 "): %s (threshold %g, the host's %g)", k->op,
                k->type, seed, r.message, r.oracle_threshold, host.oracle_threshold);
        const size_t bad = (size_t)(outputs - n - 3); /* [1, 35, 297]: in the last block, cut short */
        const unsigned bit = (unsigned)k->outputs[0].size * 8 - 2; /* the exponent's top bit, or an integer's */
        assert_int_equal(tkh_context_corrupt_next_output(ctx, bad, bit), TKH_OK);
        if (tkh_tensor_call(ctx, k, &args, &r) != TKH_ERR_ORACLE_MISMATCH
            || strstr(r.message, "element [1, 35, 297] of [2, 37, 300] differs") == NULL
            || !has_evidence(&r, "found 1 of 222 blocks outside their bounds"))
            fail_msg("%s_%s, a corrupted output, projected on the device (seed %" PRIu64 "): %s", k->op, k->type,
                seed, r.message);
        assert_int_equal(tkh_context_set_device_oracle(ctx, &off), TKH_OK);
        for (int x = 0; x < 4; ++x) {
            hipFree(d[x]);
            free(t[x].buffer);
        }
        ++kernels;
    }
    printf("projected on the device: %zu products, each agreeing with the host's threshold and catching a flipped bit\n",
        kernels);
}

int main(void)
{
    const int start = gpu_test_start(20261204, &seed, &ctx);
    if (start >= 0)
        return start;
    tkh_device_report dev;
    mma_device = tkh_device_query(TKH_DEVICE_FROM_ENV, &dev) == TKH_OK && strncmp(dev.arch, "sm_", 3) == 0
        && atoi(dev.arch + 3) >= 80;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_product_over_tensors),
        cmocka_unit_test(small_m_products),
        cmocka_unit_test(corruption_and_device_path),
        cmocka_unit_test(projection_detection),
        cmocka_unit_test(projection_on_device),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tkh_context_destroy(ctx);
    return failed;
}
