/* The plan walked on the host: offsets of linear indices, elements gathered into blocks
 * that the shapes' checks compare, sample indices, results scattered into tensors. */
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

/* The indices to compare: all of [0, count), or the policy's samples (with replacement,
 * splitmix64 from the seed, as the flat host path draws them). */
int64_t *tkhi_draw_samples(const tkh_oracle_policy *policy, int64_t count)
{
    if (policy->mode != TKH_ORACLE_SAMPLED)
        return NULL;
    int64_t *s = malloc(policy->samples * sizeof *s);
    uint64_t state = policy->seed;
    for (size_t i = 0; s != NULL && i < policy->samples; ++i)
        s[i] = (int64_t)(tkhi_splitmix64(&state) % (uint64_t)count);
    return s;
}

void tkhi_tensor_scatter(const tkhi_call *c, unsigned output, const void *dense)
{
    const tkh_plan *p = &c->plan;
    const unsigned a = c->kernel->arity + output;
    const int from = c->drops ? p->reduced : 0;
    const int64_t count = tkhi_plan_outputs(c, p);
    int64_t off[TKHI_BATCH];
    for (int64_t first = 0; first < count; first += TKHI_BATCH) {
        const size_t len = (size_t)(count - first < TKHI_BATCH ? count - first : TKHI_BATCH);
        tkhi_walk(p, from, p->ndim, p->stride[a], first, len, off);
        for (size_t j = 0; j < len; ++j)
            memcpy(c->base[a] + off[j] * (int64_t)c->size[a],
                (const unsigned char *)dense + (size_t)(first + (int64_t)j) * c->size[a], c->size[a]);
    }
}
