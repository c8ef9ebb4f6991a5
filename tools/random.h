/* splitmix64: the tool's seeded, portable stream of random inputs (run, accuracy). The
 * library keeps its own copy hidden, so the tool, linked to the shared library, has this. */
#ifndef TOKITAI_HIP_TOOL_RANDOM_H
#define TOKITAI_HIP_TOOL_RANDOM_H

#include <stdint.h>

static inline uint64_t tkh_tool_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
