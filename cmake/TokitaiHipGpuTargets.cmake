# GPU targets: which architectures the kernels are compiled for, and how they were chosen.
#
# In order: GPU_TARGETS; AMDGPU_TARGETS (deprecated); CMAKE_HIP_ARCHITECTURES (amd) or
# CMAKE_CUDA_ARCHITECTURES (nvidia, "90" means sm_90, "90a" sm_90a); detection of the local
# devices when TOKITAI_HIP_DETECT_TARGETS is ON; else a pinned default the toolchain
# supports. Each target is validated by compiling for it; a rejected one stops configure,
# naming it.
include_guard(DIRECTORY) # variables and imported targets are per directory

set(TKH_DEFAULT_TARGETS_amd "gfx90a:xnack-;gfx1030")
set(TKH_DEFAULT_TARGETS_nvidia "sm_80;sm_90")
option(TOKITAI_HIP_DETECT_TARGETS "Detect GPU targets from the devices of this machine" OFF)

function(_tkh_detect_targets platform out)
  set(found "")
  if(platform STREQUAL "amd")
    find_program(TKH_ROCM_AGENT_ENUMERATOR rocm_agent_enumerator HINTS /opt/rocm/bin)
    if(TKH_ROCM_AGENT_ENUMERATOR)
      execute_process(COMMAND "${TKH_ROCM_AGENT_ENUMERATOR}" OUTPUT_VARIABLE text ERROR_QUIET)
      string(REGEX MATCHALL "gfx[0-9a-f]+" found "${text}")
      list(REMOVE_ITEM found gfx000)
    endif()
  else()
    find_program(TKH_NVIDIA_SMI nvidia-smi)
    if(TKH_NVIDIA_SMI)
      execute_process(COMMAND "${TKH_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
        OUTPUT_VARIABLE text ERROR_QUIET)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${text}")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" cap "${cap}")
        list(APPEND found "sm_${cap}")
      endforeach()
    endif()
  endif()
  list(REMOVE_DUPLICATES found)
  if(NOT found)
    message(FATAL_ERROR "TOKITAI_HIP_DETECT_TARGETS is ON but no ${platform} GPU was found "
      "on this machine; set GPU_TARGETS instead (e.g. ${TKH_DEFAULT_TARGETS_${platform}})")
  endif()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Picks the requested targets (or the defaults); sets out and out_FROM.
function(_tkh_requested_targets platform out)
  if(DEFINED GPU_TARGETS AND NOT GPU_TARGETS STREQUAL "")
    set(targets "${GPU_TARGETS}")
    set(from "GPU_TARGETS")
  elseif(DEFINED AMDGPU_TARGETS AND NOT AMDGPU_TARGETS STREQUAL "")
    message(DEPRECATION "AMDGPU_TARGETS is deprecated: use GPU_TARGETS")
    set(targets "${AMDGPU_TARGETS}")
    set(from "AMDGPU_TARGETS (deprecated)")
  elseif(platform STREQUAL "amd" AND CMAKE_HIP_ARCHITECTURES)
    set(targets "${CMAKE_HIP_ARCHITECTURES}")
    set(from "CMAKE_HIP_ARCHITECTURES")
  elseif(platform STREQUAL "nvidia" AND CMAKE_CUDA_ARCHITECTURES)
    set(targets "")
    foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
      string(REGEX REPLACE "-(real|virtual)$" "" arch "${arch}")
      list(APPEND targets "sm_${arch}")
    endforeach()
    set(from "CMAKE_CUDA_ARCHITECTURES")
  elseif(TOKITAI_HIP_DETECT_TARGETS)
    _tkh_detect_targets(${platform} targets)
    set(from "detected (TOKITAI_HIP_DETECT_TARGETS)")
  else()
    set(targets "${TKH_DEFAULT_TARGETS_${platform}}")
    set(from "pinned default")
  endif()
  list(REMOVE_DUPLICATES targets)
  set(${out} "${targets}" PARENT_SCOPE)
  set(${out}_FROM "${from}" PARENT_SCOPE)
endfunction()

# The compiler flags that build for the given targets.
function(_tkh_target_flags platform targets out)
  set(flags "")
  foreach(t IN LISTS targets)
    if(platform STREQUAL "amd")
      list(APPEND flags "--offload-arch=${t}")
    else()
      string(REGEX REPLACE "^sm_" "" cc "${t}")
      list(APPEND flags "-gencode=arch=compute_${cc},code=sm_${cc}")
    endif()
  endforeach()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# Compiles a one-line kernel for each target; stops configure naming the rejected ones.
# Results are cached per (compiler identity, target), so a re-configure does not recompile.
function(_tkh_validate_targets platform compiler targets)
  set(pattern_amd "^gfx[0-9a-f]+(:[a-z]+[+-])*$")
  # sm_XXa: architecture-specific code (sm_90a's wgmma and TMA), admitted on that chip alone.
  set(pattern_nvidia "^sm_[0-9]+a?$")
  string(SHA256 compiler_id "${TKH_COMPILER_IDENTITY}")
  set(dir "${CMAKE_BINARY_DIR}/CMakeFiles/tkh-target-check")
  file(WRITE "${dir}/probe.hip" "#include \"tokitai_hip/codegen/hip_platform.h\"\n"
    "__global__ void tkh_probe(int *p) { p[threadIdx.x] = 1; }\n")
  set(accepted "")
  set(rejected "")
  foreach(t IN LISTS targets)
    string(SHA256 key "${compiler_id};${t}")
    string(SUBSTRING "${key}" 0 16 key)
    if(NOT t MATCHES "${pattern_${platform}}")
      list(APPEND rejected "${t} (not a ${platform} target name)")
      continue()
    endif()
    if(NOT DEFINED CACHE{_TKH_TARGET_OK_${key}})
      _tkh_target_flags(${platform} "${t}" flags)
      file(MAKE_DIRECTORY "${dir}/tmp") # hipcc's leftovers: see TokitaiHipGenerate.cmake
      execute_process(COMMAND "${CMAKE_COMMAND}" -E env "TMPDIR=${dir}/tmp"
          "${compiler}" ${TKH_KERNEL_FLAGS} ${flags}
          -I "${TKH_RUNTIME_INCLUDE_DIR}" -c "${dir}/probe.hip" -o "${dir}/probe.o"
        TIMEOUT ${TOKITAI_HIP_CONFIGURE_TIMEOUT}
        RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
      file(REMOVE_RECURSE "${dir}/tmp")
      if(rc MATCHES "timeout")
        message(FATAL_ERROR "The probe compile of GPU target ${t} with ${compiler} ran for more "
          "than TOKITAI_HIP_CONFIGURE_TIMEOUT=${TOKITAI_HIP_CONFIGURE_TIMEOUT} s and was stopped")
      endif()
      if(rc EQUAL 0)
        set(ok ON)
      else()
        set(ok OFF)
        string(REGEX MATCH "[^\n]*error[^\n]*" first_error "${log}")
        message(STATUS "Target ${t} rejected: ${first_error}")
      endif()
      set(_TKH_TARGET_OK_${key} ${ok} CACHE INTERNAL "${t} compiles with ${compiler}")
    endif()
    if(_TKH_TARGET_OK_${key})
      list(APPEND accepted "${t}")
    else()
      list(APPEND rejected "${t}")
    endif()
  endforeach()
  if(rejected)
    list(JOIN rejected ", " rejected)
    list(JOIN accepted ", " accepted)
    if(accepted STREQUAL "")
      set(accepted "none")
    endif()
    message(FATAL_ERROR "GPU target(s) rejected by ${compiler}: ${rejected}. "
      "Accepted: ${accepted}. Set GPU_TARGETS to targets this toolchain supports "
      "(default for ${platform}: ${TKH_DEFAULT_TARGETS_${platform}}).")
  endif()
endfunction()
