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
#include "tokitai_hip/core_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TKH_VERSION_NUMBER of the library linked at run time. */
TKH_API unsigned tkh_version_number(void);

/* "0.1.0" */
TKH_API const char *tkh_version_string(void);

#ifdef __cplusplus
}
#endif

#endif
