/* Copies into memory that is not read again soon. */
#ifndef TOKITAI_HIP_STREAM_COPY_H
#define TOKITAI_HIP_STREAM_COPY_H

#include <stddef.h>

#include "tokitai_hip/export.h"

/* memcpy, but with non-temporal stores where the CPU has them (SSE2), for the host
 * path's copies into the caller's output, which nothing reads again during the call: an
 * ordinary store first reads each destination line it does not hold, a third of an
 * ordinary copy's memory traffic. Fenced, so the data is in memory on return. */
TKH_HIDDEN void tkhi_stream_copy(void *dst, const void *src, size_t bytes);

#endif
