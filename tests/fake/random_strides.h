/* Random tensor layouts for the fake runtime's random cases (test_fake_tensor,
 * test_fake_matmul). */
#ifndef TOKITAI_HIP_FAKE_RANDOM_STRIDES_H
#define TOKITAI_HIP_FAKE_RANDOM_STRIDES_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h" /* tkhi_splitmix64 */
#include "tokitai_hip/tensor.h" /* TKH_MAX_DIMS */

/* Strides of a random layout of 'shape': the dimensions in a random memory order, some with
 * gaps, some reversed; an input may also get stride 0 along one (an expanded view). Returns
 * how many elements the layout spans; *lo (at most 0) is the offset of the lowest. */
static inline size_t fake_random_strides(uint64_t *rng, int ndim, const int64_t *shape, int input, int64_t *stride,
    int64_t *lo)
{
    int order[TKH_MAX_DIMS];
    for (int d = 0; d < ndim; ++d)
        order[d] = d;
    for (int d = ndim - 1; d > 0; --d) {
        const int j = (int)(tkhi_splitmix64(rng) % (uint64_t)(d + 1)), t = order[d];
        order[d] = order[j];
        order[j] = t;
    }
    int64_t step = 1, hi = 0;
    *lo = 0;
    for (int q = ndim - 1; q >= 0; --q) {
        const int d = order[q];
        const uint64_t pick = tkhi_splitmix64(rng) % 8;
        stride[d] = input && pick == 0 ? 0 : step * (pick == 1 ? 2 : 1) * (pick == 2 ? -1 : 1);
        step *= (pick == 1 ? 2 : 1) * (shape[d] > 0 ? shape[d] : 1);
        const int64_t reach = (shape[d] > 0 ? shape[d] - 1 : 0) * stride[d];
        *(reach < 0 ? lo : &hi) += reach;
    }
    return (size_t)(hi - *lo + 1);
}

#endif
