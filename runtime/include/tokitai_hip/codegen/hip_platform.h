/* The HIP API as TokitaiHip uses it, on both platforms.
 *
 * amd: HIP's own headers. nvidia: HIP's NVIDIA headers do not compile against CUDA 13,
 * so unless the build found that they do (TKH_NVIDIA_USE_HIP_HEADERS, set by a configure
 * check), the HIP names this project uses, and only those, are mapped onto CUDA here.
 * Kernels include this header under hipcc or nvcc; runtime C code includes it too. */
#ifndef TOKITAI_HIP_HIP_PLATFORM_H
#define TOKITAI_HIP_HIP_PLATFORM_H

#include "tokitai_hip/export.h"
#include "tokitai_hip/codegen/scalar.h"

#if defined(TKH_PLATFORM_NVIDIA) && !defined(TKH_NVIDIA_USE_HIP_HEADERS)

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include <cuda_runtime_api.h>
#endif

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef struct cudaDeviceProp hipDeviceProp_t;
typedef enum cudaDeviceAttr hipDeviceAttribute_t;
typedef cudaEvent_t hipEvent_t;
typedef struct cudaFuncAttributes hipFuncAttributes;

#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipHostMallocDefault cudaHostAllocDefault
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipEventDisableTiming cudaEventDisableTiming
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#define hipDeviceAttributeSharedMemPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize

#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncGetAttributes cudaFuncGetAttributes
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipDriverGetVersion cudaDriverGetVersion
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipHostMalloc cudaHostAlloc
#define hipHostFree cudaFreeHost
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipStreamSynchronize cudaStreamSynchronize
#define hipGetLastError cudaGetLastError
#define hipGetErrorName cudaGetErrorName
#define hipGetErrorString cudaGetErrorString
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipMemset cudaMemset

#if defined(__CUDACC__)
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
    kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#endif

#else /* amd, or nvidia through HIP's own headers */

#if defined(TKH_PLATFORM_NVIDIA) && !defined(__HIP_PLATFORM_NVIDIA__)
#define __HIP_PLATFORM_NVIDIA__ 1
#elif !defined(TKH_PLATFORM_NVIDIA) && !defined(__HIP_PLATFORM_AMD__)
#define __HIP_PLATFORM_AMD__ 1
#endif

#if defined(__HIPCC__) || defined(__CUDACC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif

#endif

#endif
