/* TokitaiHip: GPU kernels for dense tensor ops, built ahead of time, every result
 * checked against a CPU oracle. Include this header; link TokitaiHip::runtime. */
#ifndef TOKITAI_HIP_H
#define TOKITAI_HIP_H

#include "tokitai_hip/export.h"
#include "tokitai_hip/version.h"
#include "tokitai_hip/status.h"
#include "tokitai_hip/device.h"
#include "tokitai_hip/context.h"
#include "tokitai_hip/report.h"
#include "tokitai_hip/kernel.h"
#include "tokitai_hip/scalar_types.h"
#include "tokitai_hip/tensor.h"
#include "tokitai_hip/core_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TKH_VERSION_NUMBER of the library linked at run time. */
TKH_API unsigned tkh_version_number(void);

/* "0.1.0" */
TKH_API const char *tkh_version_string(void);

/* The layout of this library's public structs, for bindings that copy them (the Python
 * package checks its ctypes mirrors with it at import): the size of a struct by its C name
 * ("tkh_report", "DLTensor", "tkh_kernel_info", "tkh_tensor_args", ...), or the offset of
 * one of its fields ("tkh_report.evidence"), into *value. Only the fields after which a
 * change would move the rest are listed (each struct's last one among them).
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_NOT_FOUND (a name the table does not list). */
TKH_API tkh_status tkh_abi_layout(const char *name, size_t *value);

/* Which copy of the core catalog's CPU checks runs on this CPU: "x86-64-v4" or
 * "x86-64-v3" (the clones the loader picks, CMake option TOKITAI_HIP_HOST_CLONES), or
 * "baseline" (a build without clones, or a CPU below x86-64-v3). All copies compute the
 * same values; only their speed differs. Never fails. */
TKH_API const char *tkh_host_check_level(void);

#ifdef __cplusplus
}
#endif

#endif
