/* The tool's host tensors (tensors.h). */
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

/* A tensor of 'ndim' dimensions over a new buffer: compact row-major, or reversed in
 * memory ('transposed': the layout of a transpose's view). */
static int make_one(tool_tensors *t, unsigned a, const tkh_operand *op, int ndim, int transposed,
    uint64_t *state, int fill)
{
    int64_t count = 1;
    for (int d = 0; d < ndim; ++d) {
        const int dim = transposed ? d : ndim - 1 - d;
        t->strides[a][dim] = count;
        count *= t->shape[a][dim];
    }
    const size_t bytes = (size_t)count * op->size;
    unsigned char *data = malloc(bytes ? bytes : 1);
    if (data == NULL) {
        fprintf(stderr, "tokitai-hip: allocating %zu bytes of host memory failed\n", bytes);
        return 2;
    }
    for (size_t i = 0; fill && i < bytes; i += 8) {
        const uint64_t r = tkh_tool_random(state);
        memcpy(data + i, &r, bytes - i < 8 ? bytes - i : 8);
    }
    if (fill && strcmp(op->type, "bool") == 0)
        for (size_t i = 0; i < bytes; ++i)
            data[i] &= 1;
    DLDataType dtype;
    tkh_dlpack_dtype(op->type, &dtype);
    t->t[a] = (DLTensor){ data, { kDLCPU, 0 }, ndim, dtype, t->shape[a], t->strides[a], 0 };
    return 0;
}

int tool_tensors_make(tool_tensors *t, const tkh_kernel_info *k, const char *const *shapes,
    unsigned shape_count, unsigned transposed, const char *axes, int keepdims, uint64_t *state)
{
    memset(t, 0, sizeof *t);
    if (shape_count != 1 && shape_count != k->arity) {
        fprintf(stderr, "tokitai-hip: %s_%s takes %u inputs: give one --shape for all, or one each (got %u)\n",
            k->op, k->type, k->arity, shape_count);
        return 2;
    }
    int ndim[TKH_MAX_INPUTS], out_ndim = 0;
    int64_t out_shape[TKH_MAX_DIMS];
    for (unsigned i = 0; i < k->arity; ++i) {
        const char *text = shapes[shape_count == 1 ? 0 : i];
        if ((ndim[i] = parse_dims(text, t->shape[i], TKH_MAX_DIMS, 0)) < 0) {
            fprintf(stderr, "tokitai-hip: --shape '%s' is not a list of sizes like 4096,4096 (at most %d)\n",
                text, TKH_MAX_DIMS);
            return 2;
        }
        out_ndim = ndim[i] > out_ndim ? ndim[i] : out_ndim;
    }
    /* NumPy's broadcast for elementwise outputs (the library names a mismatch); a
     * reduction's outputs: the input's shape without (or with 1 at) the axes. */
    for (int d = 0; d < out_ndim; ++d)
        out_shape[d] = 1;
    for (unsigned i = 0; i < k->arity; ++i)
        for (int d = 0; d < ndim[i]; ++d)
            if (t->shape[i][d] != 1)
                out_shape[out_ndim - ndim[i] + d] = t->shape[i][d];
    if (strcmp(k->shape, "reduction") == 0) {
        int reduced[TKH_MAX_DIMS] = { 0 }, n = axes ? parse_dims(axes, t->axes, TKH_MAX_DIMS, 1) : 0;
        if (n < 0) {
            fprintf(stderr, "tokitai-hip: --axes '%s' is not a list like 0,-1\n", axes);
            return 2;
        }
        t->axis_count = (unsigned)n;
        for (int j = 0; j < n; ++j) {
            const int64_t a = t->axes[j] < 0 ? t->axes[j] + out_ndim : t->axes[j];
            if (a >= 0 && a < out_ndim)
                reduced[a] = 1;
        }
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
        const int rc = make_one(t, a, output ? &k->outputs[a - k->arity] : &k->inputs[a],
            output ? out_ndim : ndim[a], !output && ((transposed >> a) & 1), state, !output);
        if (rc != 0)
            return rc;
        *(output ? &t->out[a - k->arity] : &t->in[a]) = &t->t[a];
    }
    return 0;
}

void tool_tensors_free(tool_tensors *t)
{
    for (unsigned a = 0; a < t->arrays; ++a)
        free(t->t[a].data);
}
