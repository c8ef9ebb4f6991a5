/* The plan walked on the host: offsets of linear indices, elements gathered into blocks
 * that the shapes' checks compare, results scattered into tensors. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

/* Offsets (elements) of 'count' consecutive linear indices from 'first' over plan
 * dimensions [from, to), row-major with 'from' the fastest. */
void tkhi_walk(const tkh_plan *p, int from, int to, const int64_t *stride, int64_t first,
    size_t count, int64_t *off)
{
    int64_t coord[TKH_MAX_DIMS], at = 0, rest = first;
    for (int d = from; d < to; ++d) {
        coord[d] = rest % p->size[d];
        rest /= p->size[d];
        at += coord[d] * stride[d];
    }
    for (size_t j = 0; j < count; ++j) {
        off[j] = at;
        for (int d = from; d < to; ++d) { /* the next index: carry */
            at += stride[d];
            if (++coord[d] < p->size[d])
                break;
            at -= coord[d] * stride[d];
            coord[d] = 0;
        }
    }
}

int64_t tkhi_offset_at(const tkh_plan *p, int from, int to, const int64_t *stride, int64_t linear)
{
    int64_t off;
    tkhi_walk(p, from, to, stride, linear, 1, &off);
    return off;
}

void tkhi_gather(unsigned char *dst, const unsigned char *base, const int64_t *off, size_t count, size_t size)
{
    for (size_t j = 0; j < count; ++j)
        memcpy(dst + j * size, base + off[j] * (int64_t)size, size);
}

void tkhi_tensor_scatter(const tkhi_call *c, unsigned output, const unsigned char *dense, int64_t first,
    int64_t count)
{
    const tkh_plan *p = &c->plan;
    const unsigned a = c->kernel->arity + output;
    const size_t size = c->size[a];
    const int from = c->drops ? p->reduced : 0; /* the outputs' innermost dimension */
    if (from >= p->ndim) { /* a reduction's one output */
        if (count > 0)
            memcpy(c->base[a], dense, size);
        return;
    }
    const int64_t row = p->size[from], step = p->stride[a][from];
    for (int64_t at = first; at < first + count;) { /* a row of dimension 'from' at a time */
        const int64_t col = at % row, len = row - col < first + count - at ? row - col : first + count - at;
        unsigned char *dst = c->base[a] + (tkhi_offset_at(p, from + 1, p->ndim, p->stride[a], at / row)
            + col * step) * (int64_t)size;
        const unsigned char *src = dense + (at - first) * (int64_t)size;
        if (step == 1)
            tkhi_stream_copy(dst, src, (size_t)len * size);
        else
            for (int64_t j = 0; j < len; ++j)
                memcpy(dst + j * step * (int64_t)size, src + j * (int64_t)size, size);
        at += len;
    }
}
