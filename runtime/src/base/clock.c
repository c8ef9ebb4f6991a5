/* The clock of reports and timed steps, and the seeded random numbers of the sampled
 * oracle and the selftest. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <time.h>

#include "base.h"

double tkhi_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t tkhi_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
