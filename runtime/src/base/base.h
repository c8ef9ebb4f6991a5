/* The runtime's bottom layer, its one door: failures and their messages, the clock, the
 * seeded random numbers, evidence lines, host threads and streaming copies. It knows
 * the public types (reports, kernels) but nothing of contexts or devices. */
#ifndef TOKITAI_HIP_BASE_H
#define TOKITAI_HIP_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "crew.h"
#include "stream_copy.h"
#include "tokitai_hip/tokitai_hip.h"

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

/* Clears the message (and the fault mark) on this thread at the start of a public call. */
TKH_HIDDEN void tkhi_clear_error(void);

/* The platform layer marks a runtime error its fault hook made (1) or a real call (0), so
 * that tkhi_fail_runtime can say which. Per thread. */
TKH_HIDDEN void tkhi_fault_mark(int injected);

/* Bounded formatting that always NUL-terminates (also on truncation). */
TKH_HIDDEN void tkhi_copy(char *dst, size_t size, const char *src);

/* The next number of splitmix64 from *state (the selftest's inputs, the sampled
 * oracle's indices: both reproducible from a seed). */
TKH_HIDDEN uint64_t tkhi_splitmix64(uint64_t *state);

/* CLOCK_MONOTONIC, in seconds. */
TKH_HIDDEN double tkhi_now_seconds(void);

/* vsnprintf, with %s, %d and %u (modifiers l, ll, z) and %% written here: once a process has
 * registered a printf handler (libquadmath does when it loads, as NumPy's BLAS does under
 * Python) glibc takes a slow path for every printf, most of a report's cost (docs/python.md).
 * Any other conversion goes to vsnprintf. Returns the length the whole text needs, as
 * vsnprintf; the text is NUL-terminated when size > 0. */
TKH_HIDDEN int tkhi_vformat(char *buf, size_t size, const char *fmt, va_list ap);
TKH_HIDDEN int tkhi_format(char *buf, size_t size, const char *fmt, ...) TKHI_PRINTF(3, 4);

/* n bytes of s at buf[len], as many as fit with the NUL (snprintf's truncation), and an
 * integer in decimal the same way: the new length (not NUL-terminated). */
TKH_HIDDEN size_t tkhi_append(char *buf, size_t size, size_t len, const char *s, size_t n);
TKH_HIDDEN size_t tkhi_append_int(char *buf, size_t size, size_t len, int negative, unsigned long long magnitude);

/* Appends a line to the report's evidence (dropped beyond TKH_REPORT_MAX_EVIDENCE; nothing
 * without a report). */
TKH_HIDDEN void tkhi_evidence(tkh_report *r, const char *fmt, ...) TKHI_PRINTF(2, 3);

/* The ulp rule's line of evidence: the largest error, at output 'where', against the bound
 * (and the absolute floor, where the kernel has one). */
TKH_HIDDEN void tkhi_ulp_evidence(tkh_report *r, const tkh_kernel_info *k, double worst, const char *where);

/* A report's start (zeroed, the kernel, n, the device when given) and end (status, the
 * time since 'start', the message). Both do nothing without a report. */
TKH_HIDDEN void tkhi_report_begin(tkh_report *r, const tkh_device_report *device, const tkh_kernel_info *kernel,
    size_t n);
TKH_HIDDEN tkh_status tkhi_report_end(tkh_report *r, tkh_status st, double start);

/* "alpha = 2, beta = -0.5": the scalars' values, for the report. */
TKH_HIDDEN void tkhi_describe_scalars(const tkh_kernel_info *k, const void *const *scalars, char *buf,
    size_t size);

/* The name of input or output i in messages: "input 0 (lhs)", "output 1 (r)". */
TKH_HIDDEN const char *tkhi_array_name(const tkh_kernel_info *kernel, int output, unsigned i,
    char *buf, size_t size);

#endif
