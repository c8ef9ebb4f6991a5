# The GPU platform and its toolchain: amd (ROCm HIP, hipcc) or nvidia (CUDA, nvcc).
# Sets TKH_PLATFORM, TKH_KERNEL_COMPILER, TKH_COMPILER_IDENTITY (version text, stdout
# only), TKH_KERNEL_FLAGS, TKH_RUNTIME_DEFINITIONS, TOKITAI_HIP_DEVICE_CODE and the
# imported target TokitaiHip::gpu_runtime (libamdhip64 or cudart).
include_guard(DIRECTORY) # variables and imported targets are per directory

set(TOKITAI_HIP_PLATFORM "auto" CACHE STRING
  "GPU platform: amd, nvidia, or auto (amd when hipcc targets AMD, else nvidia when nvcc is found)")
set_property(CACHE TOKITAI_HIP_PLATFORM PROPERTY STRINGS auto amd nvidia)
# A last line of defence: no configure-time step (a generator run, a target's probe
# compile) may hang configure; one that runs this long stops it, saying which it was.
set(TOKITAI_HIP_CONFIGURE_TIMEOUT 300 CACHE STRING
  "Seconds one configure-time step (kernel generation, a target probe) may run")

function(_tkh_find_hipcc)
  find_program(TKH_HIPCC hipcc HINTS ENV HIP_PATH ENV ROCM_PATH /opt/rocm PATH_SUFFIXES bin
    DOC "hipcc, the HIP compiler driver (amd platform)")
endfunction()

function(_tkh_choose_platform out)
  set(platform "${TOKITAI_HIP_PLATFORM}")
  if(NOT platform MATCHES "^(auto|amd|nvidia)$")
    message(FATAL_ERROR "TOKITAI_HIP_PLATFORM='${platform}' is invalid: expected auto, amd or nvidia")
  endif()
  if(platform STREQUAL "auto")
    _tkh_find_hipcc()
    find_program(TKH_NVCC nvcc HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
    if(TKH_HIPCC)
      set(platform amd)
    elseif(TKH_NVCC)
      set(platform nvidia)
    else()
      message(FATAL_ERROR "No GPU toolchain found: install ROCm HIP "
        "(Debian: apt-get install hipcc libamdhip64-dev rocm-device-libs) or the CUDA "
        "toolkit, or set TOKITAI_HIP_PLATFORM")
    endif()
    set(how "detected")
  else()
    set(how "TOKITAI_HIP_PLATFORM")
  endif()
  set(${out} ${platform} PARENT_SCOPE)
  set(${out}_FROM ${how} PARENT_SCOPE)
endfunction()

function(_tkh_compiler_identity compiler out)
  execute_process(COMMAND "${compiler}" --version OUTPUT_VARIABLE text ERROR_QUIET
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR text STREQUAL "")
    message(FATAL_ERROR "'${compiler} --version' failed (exit ${rc}): the GPU compiler does not run")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

_tkh_choose_platform(TKH_PLATFORM)

if(TKH_PLATFORM STREQUAL "amd")
  _tkh_find_hipcc()
  find_library(TKH_AMDHIP64 amdhip64 HINTS ENV HIP_PATH ENV ROCM_PATH /opt/rocm PATH_SUFFIXES lib
    DOC "The HIP runtime library (amd platform)")
  find_path(TKH_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS ENV HIP_PATH ENV ROCM_PATH /opt/rocm
    PATH_SUFFIXES include DOC "Folder holding hip/hip_runtime_api.h")
  if(NOT TKH_HIPCC OR NOT TKH_AMDHIP64 OR NOT TKH_HIP_INCLUDE_DIR)
    message(FATAL_ERROR "The amd platform needs hipcc, libamdhip64 and the HIP headers; found "
      "hipcc='${TKH_HIPCC}', libamdhip64='${TKH_AMDHIP64}', headers='${TKH_HIP_INCLUDE_DIR}'. "
      "Debian: apt-get install hipcc libamdhip64-dev rocm-device-libs")
  endif()
  set(TKH_KERNEL_COMPILER "${TKH_HIPCC}")
  # IEEE semantics: no fast-math, no contraction (DESIGN.md).
  set(TKH_KERNEL_FLAGS -x hip -std=c++17 -O3 -fPIC -fvisibility=hidden -ffp-contract=off)
  set(TKH_RUNTIME_DEFINITIONS __HIP_PLATFORM_AMD__=1)
  # Host code only: each kernel unit's host side (launchers, registration) without its
  # device code, for builds that test the CPU side alone (the asan preset): the device
  # code is most of the build's time. No kernel can run: the library's tkh_device_query
  # refuses (TKH_NO_DEVICE_CODE, runtime/CMakeLists.txt).
  option(TOKITAI_HIP_DEVICE_CODE "Compile the kernels' device code (OFF: host code only, amd)" ON)
  if(NOT TOKITAI_HIP_DEVICE_CODE)
    # -O0: no launcher of such a build runs
    list(APPEND TKH_KERNEL_FLAGS --cuda-host-only -O0)
  endif()
  add_library(TokitaiHip::gpu_runtime UNKNOWN IMPORTED)
  set_target_properties(TokitaiHip::gpu_runtime PROPERTIES IMPORTED_LOCATION "${TKH_AMDHIP64}"
    INTERFACE_INCLUDE_DIRECTORIES "${TKH_HIP_INCLUDE_DIR}")
else()
  if(DEFINED TOKITAI_HIP_DEVICE_CODE AND NOT TOKITAI_HIP_DEVICE_CODE)
    message(FATAL_ERROR "TOKITAI_HIP_DEVICE_CODE=OFF (host code only) is for the amd platform "
      "(hipcc --cuda-host-only); nvcc has no such mode. Configure with TOKITAI_HIP_DEVICE_CODE=ON")
  endif()
  set(TOKITAI_HIP_DEVICE_CODE ON)
  find_package(CUDAToolkit REQUIRED)
  set(TKH_KERNEL_COMPILER "${CUDAToolkit_NVCC_EXECUTABLE}")
  set(TKH_KERNEL_FLAGS -x cu -std=c++17 -O3 -Xcompiler=-fPIC,-fvisibility=hidden -fmad=false
    -DTKH_PLATFORM_NVIDIA=1)
  set(TKH_RUNTIME_DEFINITIONS TKH_PLATFORM_NVIDIA=1)
  include(TokitaiHipNvidiaHeaders)
  _tkh_check_hip_nvidia_headers(TKH_NVIDIA_USE_HIP_HEADERS)
  if(TKH_NVIDIA_USE_HIP_HEADERS)
    list(APPEND TKH_KERNEL_FLAGS -DTKH_NVIDIA_USE_HIP_HEADERS=1 -I "${TKH_HIP_NVIDIA_INCLUDE_DIR}")
    list(APPEND TKH_RUNTIME_DEFINITIONS TKH_NVIDIA_USE_HIP_HEADERS=1)
  endif()
  add_library(TokitaiHip::gpu_runtime INTERFACE IMPORTED)
  target_link_libraries(TokitaiHip::gpu_runtime INTERFACE CUDA::cudart)
  if(TKH_NVIDIA_USE_HIP_HEADERS)
    target_include_directories(TokitaiHip::gpu_runtime INTERFACE "${TKH_HIP_NVIDIA_INCLUDE_DIR}")
  endif()
endif()

# DLPack (header only): the tensor entry points take DLTensors.
find_path(TKH_DLPACK_INCLUDE_DIR dlpack/dlpack.h DOC "DLPack's dlpack/dlpack.h (Debian: libdlpack-dev)")
if(NOT TKH_DLPACK_INCLUDE_DIR)
  message(FATAL_ERROR "DLPack's dlpack/dlpack.h was not found: the tensor entry points need it "
    "(Debian: apt-get install libdlpack-dev; or set TKH_DLPACK_INCLUDE_DIR)")
endif()
set_property(TARGET TokitaiHip::gpu_runtime APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
  "${TKH_DLPACK_INCLUDE_DIR}")

_tkh_compiler_identity("${TKH_KERNEL_COMPILER}" TKH_COMPILER_IDENTITY)
