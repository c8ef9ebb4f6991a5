/* Contexts. A context binds one GPU device; every entry point runs on the device of the
 * context it is given. It also holds what the host path reuses from call to call (device
 * buffers, pinned staging buffers, a stream), the oracle policy, and the test hooks.
 * Every function here may be called from any thread; calls on one context are safe to
 * make concurrently. */
#ifndef TOKITAI_HIP_CONTEXT_H
#define TOKITAI_HIP_CONTEXT_H

#include <stddef.h>

#include "tokitai_hip/device.h"
#include "tokitai_hip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tkh_context tkh_context;

/* Creates a context on 'device' (or TKH_DEVICE_FROM_ENV); *out is NULL on failure.
 * Fails with: TKH_ERR_NULL_POINTER (out), TKH_ERR_HOST_ALLOC, TKH_ERR_RUNTIME (a lock
 * could not be made), and every failure of tkh_device_query. */
TKH_API tkh_status tkh_context_create(tkh_context **out, int device);

/* Releases the context and everything it cached; NULL is a no-op. Device buffers the
 * caller made stay theirs. No call on the context may be running or follow. */
TKH_API void tkh_context_destroy(tkh_context *ctx);

/* The report of the context's device; NULL for a NULL context. */
TKH_API const tkh_device_report *tkh_context_device(const tkh_context *ctx);

/* Frees the buffers the context keeps between calls (they are made again when needed).
 * Waits for work the context enqueued itself; work on the caller's streams that uses a
 * reduction's partials must be finished first.
 * Fails with: TKH_ERR_NULL_POINTER (ctx), TKH_ERR_RUNTIME (selecting the device). */
TKH_API tkh_status tkh_context_trim(tkh_context *ctx);

/* How much of a host entry point's result is compared with the CPU oracle. */
typedef enum tkh_oracle_mode {
    TKH_ORACLE_FULL = 0,    /* every output (the default) */
    TKH_ORACLE_SAMPLED = 1, /* 'samples' outputs at indices drawn uniformly, with
                               replacement, by splitmix64 from 'seed'; one wrong output
                               among n is found with probability 1 - (1 - 1/n)^samples.
                               Reductions have one output and are always fully checked. */
    TKH_ORACLE_OFF = 2,     /* none: the device result is returned unchecked */
    TKH_ORACLE_PROJECTED = 3 /* matrix products whose epilogue adds at most a column to the
                               sum (matmul, linear): every output checked through its row's
                               sums over blocks of columns with random signs from 'seed',
                               against the same sums worked out from the inputs, in O(mk)
                               per block of columns rather than the product's O(mnk)
                               (docs/matmul.md says what it is certain to catch); every
                               other kernel: as full */
} tkh_oracle_mode;

typedef struct tkh_oracle_policy {
    tkh_oracle_mode mode;
    size_t samples;             /* TKH_ORACLE_SAMPLED: at least 1 */
    unsigned long long seed;    /* TKH_ORACLE_SAMPLED, TKH_ORACLE_PROJECTED */
} tkh_oracle_policy;

/* "full", "sampled", "off", "projected"; "unknown" for a value not in the enum. */
TKH_API const char *tkh_oracle_mode_name(tkh_oracle_mode mode);

/* Sets the policy of the host entry points on this context (every report says which ran).
 * Fails with: TKH_ERR_NULL_POINTER (ctx, policy), TKH_ERR_INVALID_ARGUMENT (an unknown
 * mode, or sampled with 0 samples); the policy is unchanged on failure. */
TKH_API tkh_status tkh_context_set_oracle(tkh_context *ctx, const tkh_oracle_policy *policy);

/* Sets the policy of tensor calls over device tensors (tkh_tensor_call): off by default
 * (enqueued and returned); full or sampled: the call waits for its stream, copies the
 * inputs and outputs back and compares them with the CPU oracle like the host path.
 * Fails as tkh_context_set_oracle does. */
TKH_API tkh_status tkh_context_set_device_oracle(tkh_context *ctx, const tkh_oracle_policy *policy);

/* Test hook: the next host entry point or device tensor call on this context flips bit
 * 'bit' of output element 'index' on the device after the kernel ran, before the check (a
 * device call's index in the outputs' index space, row-major), so a test can prove on
 * real hardware that the oracle check catches a wrong result.
 * Fails with: TKH_ERR_NULL_POINTER (ctx), TKH_ERR_INVALID_ARGUMENT (bit > 63). */
TKH_API tkh_status tkh_context_corrupt_next_output(tkh_context *ctx, size_t index, unsigned bit);

/* The platform calls a fault can be injected into. */
typedef enum tkh_fault {
    TKH_FAULT_ALLOC = 0,  /* device or pinned memory, streams, events */
    TKH_FAULT_COPY = 1,   /* enqueueing a copy */
    TKH_FAULT_LAUNCH = 2, /* enqueueing a kernel */
    TKH_FAULT_SYNC = 3    /* waiting for the device */
} tkh_fault;
#define TKH_FAULT_KINDS 4
#define TKH_FAULT_NEVER 0xFFFFFFFFu /* as 'skip': cancels the plan */

/* Test hook: after 'skip' more successful platform calls of kind 'kind' made for this
 * context, the next one fails as the runtime would (out of memory for TKH_FAULT_ALLOC,
 * an invalid value otherwise); the message of the failure says it was injected. A later
 * call replaces the plan for that kind. A test makes the fault fire at each call in
 * turn (skip = 0, 1, 2, ...) until a run finishes with the fault still pending; skip =
 * TKH_FAULT_NEVER cancels the plan.
 * Fails with: TKH_ERR_NULL_POINTER (ctx), TKH_ERR_INVALID_ARGUMENT (an unknown kind). */
TKH_API tkh_status tkh_context_inject_fault(tkh_context *ctx, tkh_fault kind, unsigned skip);

/* 1 when the fault last planned for 'kind' has fired, 0 while it is pending (or none was
 * planned), -1 for a NULL context or an unknown kind. */
TKH_API int tkh_context_fault_fired(const tkh_context *ctx, tkh_fault kind);

#ifdef __cplusplus
}
#endif

#endif
