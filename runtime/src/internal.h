/* What the runtime's files share and nobody else sees. */
#ifndef TOKITAI_HIP_INTERNAL_H
#define TOKITAI_HIP_INTERNAL_H

#include <stddef.h>

#include "tokitai_hip/tokitai_hip.h"

struct tkh_context {
    tkh_device_report device;
    size_t corrupt_index;   /* test hook: element to corrupt on the next run, or SIZE_MAX */
    unsigned corrupt_bit;
};

#if defined(__GNUC__)
#define TKHI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TKHI_PRINTF(f, a)
#endif

/* Records the failure message for tkh_last_error() on this thread; returns status. */
TKH_HIDDEN tkh_status tkhi_fail(tkh_status status, const char *fmt, ...) TKHI_PRINTF(2, 3);

/* Like tkhi_fail, appending the runtime's error code, name and text: "...: hipErrorX (2): text". */
TKH_HIDDEN tkh_status tkhi_fail_runtime(tkh_status status, int code, const char *fmt, ...)
    TKHI_PRINTF(3, 4);

/* Clears the message on this thread at the start of a public call. */
TKH_HIDDEN void tkhi_clear_error(void);

/* Bounded formatting that always NUL-terminates (also on truncation). */
TKH_HIDDEN void tkhi_copy(char *dst, size_t size, const char *src);

#endif
