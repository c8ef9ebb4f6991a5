/* Status codes. Every public function that can fail returns one; the values are fixed
 * and never reused. tkh_last_error() holds the details of the last failure on the
 * calling thread: what was wrong, with the values. */
#ifndef TOKITAI_HIP_STATUS_H
#define TOKITAI_HIP_STATUS_H

#include "tokitai_hip/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, description) */
#define TKH_STATUS_MAP(X)                                                                  \
    X(TKH_OK, 0, "success")                                                                \
    X(TKH_ERR_INVALID_ARGUMENT, 1, "an argument is outside its documented range")          \
    X(TKH_ERR_NULL_POINTER, 2, "a required pointer is NULL")                               \
    X(TKH_ERR_EMPTY, 3, "the input has no elements (n == 0)")                              \
    X(TKH_ERR_SIZE_OVERFLOW, 4, "n times the element size does not fit in size_t")        \
    X(TKH_ERR_NO_DEVICE, 5, "no usable GPU device")                                        \
    X(TKH_ERR_DEVICE_INDEX, 6, "the device index is out of range")                         \
    X(TKH_ERR_NO_KERNEL_FOR_ARCH, 7, "the kernel was not built for this device's architecture") \
    X(TKH_ERR_HOST_ALLOC, 8, "host memory allocation failed")                              \
    X(TKH_ERR_DEVICE_ALLOC, 9, "device memory allocation failed")                          \
    X(TKH_ERR_COPY, 10, "a copy between host and device failed")                           \
    X(TKH_ERR_LAUNCH, 11, "the kernel launch failed")                                      \
    X(TKH_ERR_SYNC, 12, "the device failed while running the kernel")                      \
    X(TKH_ERR_ORACLE_MISMATCH, 13, "the device result differs from the CPU oracle")        \
    X(TKH_ERR_NOT_FOUND, 14, "no kernel for this op and scalar type")                      \
    X(TKH_ERR_ARITY, 15, "the number of inputs does not match the kernel")                 \
    X(TKH_ERR_OVERLAP, 16, "the output partially overlaps an input")                       \
    X(TKH_ERR_BUFFER_TOO_SMALL, 17, "the output buffer is too small")                      \
    X(TKH_ERR_RUNTIME, 18, "the GPU runtime reported an error")

typedef enum tkh_status {
#define TKH_STATUS_ENUM(name, value, text) name = value,
    TKH_STATUS_MAP(TKH_STATUS_ENUM)
#undef TKH_STATUS_ENUM
} tkh_status;

/* "TKH_ERR_EMPTY" for TKH_ERR_EMPTY; "TKH_STATUS_UNKNOWN" for a value not in the map. */
TKH_API const char *tkh_status_name(tkh_status status);

/* A fixed one-line description of the status; "unknown status" for a value not in the map. */
TKH_API const char *tkh_status_message(tkh_status status);

/* The message of the last failure on this thread ("" if none yet); valid until the next
 * call into the library on this thread. */
TKH_API const char *tkh_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
