/* The tool's host tensors (tensors.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "tensors.h"

/* "4096,4096" into dims; returns the count, or -1. "" is a tensor of no dimensions. */
static int parse_dims(const char *text, int64_t *dims, int most, int negative)
{
    int n = 0;
    for (const char *p = text; *p != '\0';) {
        char *end = NULL;
        const long long v = strtoll(p, &end, 10);
        if (end == p || (v < 0 && !negative) || n == most || (*end != ',' && *end != '\0'))
            return -1;
        dims[n++] = v;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

const char *tool_format_dims(char *buf, size_t size, int ndim, const int64_t *dims)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < ndim && used < size; ++d)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, d ? ", " : "", dims[d]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

/* Array a's strides over its shape, compact row-major or reversed in memory ('transposed':
 * the layout of a transpose's view), and its bytes. A shape of more than 2^62 bytes (past
 * any memory, and before a size could overflow) is refused, naming 'text' (its --shape;
 * NULL: an output). */
static int lay_out(tool_tensors *t, const tkh_kernel_info *k, unsigned a, int ndim, int transposed,
    const char *text)
{
    const tkh_operand *op = a < k->arity ? &k->inputs[a] : &k->outputs[a - k->arity];
    double bytes = (double)op->size;
    for (int d = 0; d < ndim; ++d)
        bytes *= (double)t->shape[a][d];
    if (bytes > 0x1p62) {
        char s[400];
        fprintf(stderr, "tokitai-hip: %s%s%s of %s_%s is too large: %.4g bytes (shape %s), expected at most 2^62\n",
            text ? "--shape '" : "output ", text ? text : op->name, text ? "'" : "", k->op, k->type, bytes,
            tool_format_dims(s, sizeof s, ndim, t->shape[a]));
        return 2;
    }
    int64_t count = 1;
    for (int d = 0; d < ndim; ++d) {
        const int dim = transposed ? d : ndim - 1 - d;
        t->strides[a][dim] = count;
        count *= t->shape[a][dim];
    }
    t->bytes[a] = (size_t)count * op->size;
    DLDataType dtype;
    tkh_dlpack_dtype(op->type, &dtype);
    t->t[a] = (DLTensor){ NULL, { kDLCPU, 0 }, ndim, dtype, t->shape[a], t->strides[a], 0 };
    *(a >= k->arity ? &t->out[a - k->arity] : &t->in[a]) = &t->t[a];
    return 0;
}

/* --axes over an input of ndim dimensions ('shape', for messages): t->axes, t->axis_count
 * and a flag for each reduced dimension; 2 after a message. */
static int take_axes(tool_tensors *t, const tkh_kernel_info *k, const char *axes, int ndim, const int64_t *shape,
    int *reduced)
{
    char s[400];
    const int n = axes ? parse_dims(axes, t->axes, TKH_MAX_DIMS, 1) : 0;
    if (n < 0) {
        fprintf(stderr, "tokitai-hip: --axes '%s' is not a list like 0,-1 (at most %d)\n", axes, TKH_MAX_DIMS);
        return 2;
    }
    t->axis_count = (unsigned)n;
    for (int j = 0; j < n; ++j) {
        const int64_t a = t->axes[j] < 0 ? t->axes[j] + ndim : t->axes[j];
        if (a < 0 || a >= ndim) {
            char range[64] = "no axis (no dimensions)";
            if (ndim > 0)
                snprintf(range, sizeof range, "%d to %d", -ndim, ndim - 1);
            fprintf(stderr, "tokitai-hip: --axes '%s': axis %" PRId64 " is out of range for input 0 of %s_%s, "
                "shape %s: expected %s\n", axes, t->axes[j], k->op, k->type, tool_format_dims(s, sizeof s, ndim, shape),
                range);
            return 2;
        }
        if (reduced[a]) {
            fprintf(stderr, "tokitai-hip: --axes '%s': axis %" PRId64 " is given twice\n", axes, t->axes[j]);
            return 2;
        }
        reduced[a] = 1;
    }
    return 0;
}

/* A normalization's tensors: one axis (--axes, the last when not given); its columns, unless
 * given a --shape each, as long as that axis; the output of the input's shape, or for a
 * post step without the axis (kept as 1 with --keepdims). */
static int normalization_shapes(tool_tensors *t, const tkh_kernel_info *k, const char *const *shapes,
    unsigned shape_count, const int *ndim, const char *axes, int keepdims)
{
    int reduced[TKH_MAX_DIMS] = { 0 };
    if (take_axes(t, k, axes ? axes : "-1", ndim[0], t->shape[0], reduced) != 0)
        return 2;
    if (t->axis_count != 1) {
        fprintf(stderr, "tokitai-hip: --axes '%s': %s_%s normalizes along one axis, expected one\n",
            axes ? axes : "", k->op, k->type);
        return 2;
    }
    const int axis = (int)(t->axes[0] < 0 ? t->axes[0] + ndim[0] : t->axes[0]);
    int out_ndim = 0;
    const unsigned out = k->arity;
    for (int d = 0; d < ndim[0]; ++d)
        if (d != axis || k->out_count != 1 || keepdims)
            t->shape[out][out_ndim++] = d == axis && k->out_count == 1 ? 1 : t->shape[0][d];
    t->arrays = k->arity + 1;
    for (unsigned a = 0; a < t->arrays; ++a) {
        int n = a == out ? out_ndim : ndim[a];
        if (a > 0 && a < out && shape_count == 1) { /* a column */
            t->shape[a][0] = t->shape[0][axis];
            n = 1;
        }
        const int rc = lay_out(t, k, a, n, a < out && ((t->transposed >> a) & 1),
            a < out ? shapes[shape_count == 1 ? 0 : a] : NULL);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* A matrix product's tensors: a and b (one --shape: both), numpy.matmul's output (the
 * broadcast batch, m unless a is 1-D, n unless b is 1-D), each column [n] unless given a
 * --shape of its own. The library checks the rest (that k agrees, that batches broadcast). */
static int matmul_shapes(tool_tensors *t, const tkh_kernel_info *k, const char *const *shapes,
    unsigned shape_count, const int *ndim, const char *axes)
{
    const unsigned out = k->arity;
    if (axes != NULL) {
        fprintf(stderr, "tokitai-hip: --axes '%s': %s_%s is a matrix product, which takes no axes\n", axes, k->op,
            k->type);
        return 2;
    }
    if (ndim[0] == 0 || ndim[1] == 0) {
        fprintf(stderr, "tokitai-hip: --shape '%s': the operands of %s_%s have at least one dimension\n",
            shapes[ndim[0] == 0 ? 0 : shape_count == 1 ? 0 : 1], k->op, k->type);
        return 2;
    }
    const int64_t *a = t->shape[0], *b = t->shape[1];
    const int batch_a = ndim[0] - 2 > 0 ? ndim[0] - 2 : 0, batch_b = ndim[1] - 2 > 0 ? ndim[1] - 2 : 0;
    const int batch = batch_a > batch_b ? batch_a : batch_b;
    int out_ndim = 0;
    for (int d = 0; d < batch; ++d) {
        const int da = d - (batch - batch_a), db = d - (batch - batch_b);
        const int64_t sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
        t->shape[out][out_ndim++] = sa == 1 ? sb : sa;
    }
    const int64_t n = ndim[1] == 1 ? (k->b_nk ? b[0] : 1) : b[ndim[1] - (k->b_nk ? 2 : 1)];
    if (ndim[0] > 1)
        t->shape[out][out_ndim++] = a[ndim[0] - 2];
    if (ndim[1] > 1)
        t->shape[out][out_ndim++] = n;
    t->arrays = k->arity + 1;
    for (unsigned x = 0; x < t->arrays; ++x) {
        int d = x == out ? out_ndim : ndim[x];
        if (x >= 2 && x < out && shape_count < k->arity) { /* a column along n */
            t->shape[x][0] = n;
            d = 1;
        }
        const int rc = lay_out(t, k, x, d, x < out && ((t->transposed >> x) & 1),
            x < out ? shapes[shape_count <= x ? 0 : x] : NULL);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int tool_tensors_shape(tool_tensors *t, const tkh_kernel_info *k, const char *const *shapes,
    unsigned shape_count, unsigned transposed, const char *axes, int keepdims)
{
    memset(t, 0, sizeof *t);
    t->transposed = transposed;
    t->keepdims = keepdims;
    const int product = k->check_product != NULL;
    if (shape_count != 1 && shape_count != k->arity && !(product && shape_count == 2)) {
        fprintf(stderr, "tokitai-hip: %s_%s takes %u inputs: give one --shape for all, or one each (got %u)\n",
            k->op, k->type, k->arity, shape_count);
        return 2;
    }
    for (unsigned i = k->arity; i < 32; ++i)
        if ((transposed >> i) & 1) {
            fprintf(stderr, "tokitai-hip: --transpose %u: %s_%s has %u input%s, expected 0 to %d\n", i, k->op,
                k->type, k->arity, k->arity == 1 ? "" : "s", (int)k->arity - 1);
            return 2;
        }
    int ndim[TKH_MAX_INPUTS], out_ndim = 0;
    int64_t out_shape[TKH_MAX_DIMS];
    char s[400];
    for (unsigned i = 0; i < k->arity; ++i) {
        const char *text = shapes[shape_count <= i ? 0 : i];
        if (product && i >= shape_count) /* a column, laid out by matmul_shapes */
            continue;
        if ((ndim[i] = parse_dims(text, t->shape[i], TKH_MAX_DIMS, 0)) < 0) {
            fprintf(stderr, "tokitai-hip: --shape '%s' is not a list of sizes like 4096,4096 (at most %d)\n",
                text, TKH_MAX_DIMS);
            return 2;
        }
        out_ndim = ndim[i] > out_ndim ? ndim[i] : out_ndim;
    }
    if (product)
        return matmul_shapes(t, k, shapes, shape_count, ndim, axes);
    if (k->shape_kind == TKH_SHAPE_NORMALIZATION)
        return normalization_shapes(t, k, shapes, shape_count, ndim, axes, keepdims);
    /* NumPy's broadcast for elementwise outputs, checked here as the library checks it so
     * that a mismatch is a usage error before any device is needed; a reduction's
     * outputs: the input's shape without (or with 1 at) the axes. */
    for (int d = 0; d < out_ndim; ++d)
        out_shape[d] = 1;
    for (unsigned i = 0; i < k->arity; ++i)
        for (int d = 0; d < ndim[i]; ++d) {
            int64_t *b = &out_shape[out_ndim - ndim[i] + d];
            if (t->shape[i][d] != 1 && *b != 1 && *b != t->shape[i][d]) {
                fprintf(stderr, "tokitai-hip: --shape '%s' (input %u of %s_%s) does not broadcast with the inputs "
                    "before it (%s so far): dimension %d is %" PRId64 ", expected %" PRId64 " or 1\n",
                    shapes[shape_count == 1 ? 0 : i], i, k->op, k->type, tool_format_dims(s, sizeof s, out_ndim, out_shape),
                    d, t->shape[i][d], *b);
                return 2;
            }
            if (t->shape[i][d] != 1)
                *b = t->shape[i][d];
        }
    if (strcmp(k->shape, "reduction") == 0) {
        int reduced[TKH_MAX_DIMS] = { 0 };
        if (take_axes(t, k, axes, out_ndim, out_shape, reduced) != 0)
            return 2;
        const int n = (int)t->axis_count;
        int m = 0;
        for (int d = 0; d < out_ndim; ++d)
            if (!(reduced[d] || n == 0) || keepdims)
                out_shape[m++] = reduced[d] || n == 0 ? 1 : out_shape[d];
        out_ndim = m;
    }
    t->arrays = k->arity + k->output_count;
    for (unsigned a = 0; a < t->arrays; ++a) {
        const int output = a >= k->arity;
        if (output)
            memcpy(t->shape[a], out_shape, sizeof out_shape);
        const int rc = lay_out(t, k, a, output ? out_ndim : ndim[a], !output && ((transposed >> a) & 1),
            output ? NULL : shapes[shape_count == 1 ? 0 : a]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int tool_tensors_make(tool_tensors *t, const tkh_kernel_info *k, const char *const *shapes,
    unsigned shape_count, unsigned transposed, const char *axes, int keepdims, uint64_t *state)
{
    const int rc = tool_tensors_shape(t, k, shapes, shape_count, transposed, axes, keepdims);
    for (unsigned a = 0; a < t->arrays && rc == 0; ++a) {
        const size_t bytes = t->bytes[a];
        unsigned char *data = t->t[a].data = malloc(bytes ? bytes : 1);
        if (data == NULL) {
            fprintf(stderr, "tokitai-hip: allocating %zu bytes of host memory failed\n", bytes);
            return 2;
        }
        if (a >= k->arity)
            continue; /* outputs: written by the kernel */
        const tkh_scalar_type *st = tkh_scalar_type_find(k->inputs[a].type);
        if (k->check_product != NULL && st != NULL && st->from_double != NULL) {
            /* a product's float operands in [-1, 1): random bits would make most sums inf or NaN */
            for (size_t i = 0; i < bytes / k->inputs[a].size; ++i)
                st->from_double((double)(tkh_tool_random(state) >> 11) * 0x1p-52 - 1.0, data + i * k->inputs[a].size);
            continue;
        }
        for (size_t i = 0; i < bytes; i += 8) {
            const uint64_t r = tkh_tool_random(state);
            memcpy(data + i, &r, bytes - i < 8 ? bytes - i : 8);
        }
        if (strcmp(k->inputs[a].type, "bool") == 0)
            for (size_t i = 0; i < bytes; ++i)
                data[i] &= 1;
    }
    return rc;
}

void tool_tensors_free(tool_tensors *t)
{
    for (unsigned a = 0; a < t->arrays; ++a)
        free(t->t[a].data);
}
