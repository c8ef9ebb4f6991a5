/* What generated oracle headers need to compile both as CPU code (C11) and as device
 * code (HIP or CUDA): fixed-width types and a host-and-device mark. */
#ifndef TOKITAI_HIP_SCALAR_H
#define TOKITAI_HIP_SCALAR_H

#include <stdint.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#define TKH_HD __host__ __device__
#else
#define TKH_HD
#endif

#endif
