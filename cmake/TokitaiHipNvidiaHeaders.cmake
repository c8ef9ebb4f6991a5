# nvidia: HIP's own NVIDIA headers are preferred when they compile with this nvcc; they
# do not with CUDA 13, and then tokitai_hip/codegen/hip_platform.h maps the names we use.
include_guard(DIRECTORY) # variables and imported targets are per directory

function(_tkh_check_hip_nvidia_headers out)
  if(DEFINED CACHE{TKH_HIP_NVIDIA_HEADERS_WORK})
    set(${out} ${TKH_HIP_NVIDIA_HEADERS_WORK} PARENT_SCOPE)
    return()
  endif()
  find_path(TKH_HIP_NVIDIA_INCLUDE_DIR hip/hip_runtime.h HINTS ENV HIP_PATH /opt/rocm
    PATH_SUFFIXES include)
  set(works OFF)
  if(TKH_HIP_NVIDIA_INCLUDE_DIR)
    set(dir "${CMAKE_BINARY_DIR}/CMakeFiles/tkh-hip-nvidia-check")
    file(WRITE "${dir}/probe.cu" "#include <hip/hip_runtime.h>\n"
      "__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
      "int main(void) { int n = 0; hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, nullptr);\n"
      "  hipDeviceProp_t p; (void)p; return hipGetDeviceCount(&n) == hipSuccess ? 0 : 1; }\n")
    execute_process(COMMAND "${CUDAToolkit_NVCC_EXECUTABLE}" -D__HIP_PLATFORM_NVIDIA__=1
        -I "${TKH_HIP_NVIDIA_INCLUDE_DIR}" -c "${dir}/probe.cu" -o "${dir}/probe.o"
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(works ON)
    endif()
  endif()
  set(TKH_HIP_NVIDIA_HEADERS_WORK ${works} CACHE INTERNAL "HIP's NVIDIA headers compile with nvcc")
  set(${out} ${works} PARENT_SCOPE)
endfunction()
