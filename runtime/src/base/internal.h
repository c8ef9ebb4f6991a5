/* What the runtime's files share and nobody else sees. */
#ifndef TOKITAI_HIP_INTERNAL_H
#define TOKITAI_HIP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tokitai_hip/tokitai_hip.h"

/* Host path: chunks in flight. With three instead of two, the H200 builder's host path at
 * 2^28 took 0.92 x the time on average over 15 cases (docs/performance.md). */
#define TKHI_SLOTS 3
#define TKHI_PARTIAL_STREAMS 8 /* device path: streams with cached reduction partials */

/* Buffers reused from call to call. Each grows when a call needs more; none shrinks
 * before tkh_context_trim or the context's end. */
typedef struct tkhi_buffer {
    void *ptr;
    size_t bytes;
} tkhi_buffer;

/* One chunk in flight on the host path: its stream, device buffers, the pinned staging
 * copies of its inputs and output, and the event that says its copy back has finished.
 * Slots on their own streams let one chunk's copy in overlap another's copy out. */
typedef struct tkhi_slot {
    void *stream;  /* hipStream_t */
    void *done;    /* hipEvent_t */
    tkhi_buffer dev_in[TKH_MAX_INPUTS], dev_out[TKH_MAX_OUTPUTS];
    tkhi_buffer pinned_in[TKH_MAX_INPUTS], pinned_out[TKH_MAX_OUTPUTS];
} tkhi_slot;

/* A reduction's partials on the device path, one buffer per stream: work on one stream
 * runs in order, so a buffer is never used by two kernels at once. */
typedef struct tkhi_partials {
    void *stream;
    tkhi_buffer buffer;
} tkhi_partials;

struct tkh_context {
    tkh_device_report device;

    /* Guards everything below except the fault plan (atomics). */
    pthread_mutex_t lock;
    tkh_oracle_policy oracle;
    tkh_oracle_policy device_oracle; /* tensor calls over device tensors */
    size_t corrupt_index;    /* test hook: element to corrupt on the next run, or SIZE_MAX */
    unsigned corrupt_bit;
    size_t chunk_bytes;      /* host path: bytes of each input per chunk */
    tkhi_slot slots[TKHI_SLOTS];
    tkhi_buffer scratch;     /* host path: a reduction's partials */
    tkhi_partials partials[TKHI_PARTIAL_STREAMS];

    /* Test hook: per fault kind, calls left before the injected failure (0: none planned),
     * and whether the last plan fired. */
    atomic_uint fault_countdown[TKH_FAULT_KINDS];
    atomic_int fault_fired[TKH_FAULT_KINDS];
};

#if defined(__GNUC__)
#define TKHI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TKHI_PRINTF(f, a)
#endif

/* Records the failure message for tkh_last_error() on this thread; returns status. */
TKH_HIDDEN tkh_status tkhi_fail(tkh_status status, const char *fmt, ...) TKHI_PRINTF(2, 3);

/* Like tkhi_fail, appending the runtime's error code, name and text: "...: hipErrorX (2):
 * text", and "(injected)" when the platform layer's fault hook made the error. */
TKH_HIDDEN tkh_status tkhi_fail_runtime(tkh_status status, int code, const char *fmt, ...)
    TKHI_PRINTF(3, 4);

/* Clears the message on this thread at the start of a public call. */
TKH_HIDDEN void tkhi_clear_error(void);

/* Bounded formatting that always NUL-terminates (also on truncation). */
TKH_HIDDEN void tkhi_copy(char *dst, size_t size, const char *src);

/* The next number of splitmix64 from *state (the selftest's inputs, the sampled
 * oracle's indices: both reproducible from a seed). */
TKH_HIDDEN uint64_t tkhi_splitmix64(uint64_t *state);

/* Frees everything the context cached; the caller holds the lock. */
TKH_HIDDEN void tkhi_release_buffers(tkh_context *ctx);

#endif
