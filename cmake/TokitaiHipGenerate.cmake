# Generation at configure time and the ahead-of-time kernel build of one op catalog.
include_guard(DIRECTORY) # variables and imported targets are per directory

find_program(TKH_LUA NAMES lua5.4 lua54 DOC "Lua 5.4 interpreter that runs the generator")
if(NOT TKH_LUA)
  message(FATAL_ERROR "Lua 5.4 is required to generate kernels (Debian: apt-get install lua5.4)")
endif()

# The generated checks' loops are compiled for x86-64-v4 (AVX-512) and v3 (AVX2) beside
# the build's baseline, and the best one for the CPU is picked when the library loads
# (target_clones: GCC 11 or later, a C library with ifunc). Not with Clang: Clang 14 gives
# the resolver of a static function one global name in every file, and the link fails.
include(CheckCSourceCompiles)
include("${CMAKE_CURRENT_LIST_DIR}/TokitaiHipFingerprint.cmake")
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  check_c_source_compiles([=[
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static int twice(int x) { return 2 * x; }
int main(void) { return twice(0); }]=] TKH_C_HAS_TARGET_CLONES)
endif()
if(TKH_C_HAS_TARGET_CLONES)
  set(_tkh_clones_default ON)
else()
  set(_tkh_clones_default OFF)
endif()
option(TOKITAI_HIP_HOST_CLONES "CPU oracle: checks also compiled for AVX-512 and AVX2, picked at load time"
  ${_tkh_clones_default})

# Compile settings of a catalog's host stubs (the CPU oracle).
function(_tkh_host_stub_options target)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    # The oracle must compute exactly what the op file says: no contraction into FMA. errno
    # and floating-point traps are no part of any op; keeping them would stop the checks of
    # sqrt and of float min / max from vectorizing. Neither flag changes a value.
    target_compile_options(${target} PRIVATE -ffp-contract=off -fno-math-errno -fno-trapping-math)
  endif()
  if(TOKITAI_HIP_HOST_CLONES)
    target_compile_definitions(${target} PRIVATE TKH_HOST_CLONES)
  endif()
  # The references' functions vectorize where TokitaiHip was built with SLEEF's (GCC's
  # simd attribute): tokitai_hip/codegen/reference_simd.h.
  if(TARGET TokitaiHip::reference_simd AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
    target_compile_definitions(${target} PRIVATE TKH_VECTOR_REFERENCE)
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "OBJECT_LIBRARY")
      target_link_libraries(${target} PRIVATE TokitaiHip::reference_simd)
    endif()
  endif()
endfunction()

# Runs the generator (its Lua chunks have budgets of their own: gen/tkh/sandbox.lua). On
# Unix its address space is capped, so that one huge allocation fails inside Lua with a
# located error instead of exhausting the machine, and each run has a timeout.
set(_TKH_GENERATOR_ADDRESS_SPACE_KIB 4194304) # 4 GiB: the core catalog needs under 100 MiB
function(_tkh_run_generator gen_root workdir phase)
  set(command "${TKH_LUA}" "${gen_root}/gen/tkhgen.lua" ${ARGN})
  if(UNIX)
    # (A newline, not ';', between the two commands: ';' would split the CMake list.)
    set(command sh -c "ulimit -v ${_TKH_GENERATOR_ADDRESS_SPACE_KIB} 2>/dev/null\nexec \"$@\""
      tkhgen ${command})
  endif()
  execute_process(COMMAND ${command} TIMEOUT ${TOKITAI_HIP_CONFIGURE_TIMEOUT}
    WORKING_DIRECTORY "${workdir}" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(rc MATCHES "timeout")
    message(FATAL_ERROR "Kernel generation (gen/tkhgen.lua, phase '${phase}') ran for more than "
      "TOKITAI_HIP_CONFIGURE_TIMEOUT=${TOKITAI_HIP_CONFIGURE_TIMEOUT} s and was stopped:\n${err}")
  elseif(NOT rc EQUAL 0)
    string(STRIP "${err}" err)
    message(FATAL_ERROR "Kernel generation failed:\n${err}")
  endif()
endfunction()

# _tkh_add_catalog(<var> NAME n PREFIX p INCLUDE_DIR d OUT_DIR o GEN_ROOT g
#                  RUNTIME_INCLUDE_DIR r OPS f...
#                  [SELECT_OPS all|op...] [SELECT_TYPES all|type...] [RUNTIME_TABLES])
# Runs the generator (sources, then fingerprints, then registry and manifest), adds the
# custom commands that compile each kernel for TKH_TARGETS, and sets in the caller:
#   <var>_KERNEL_OBJECTS, <var>_HOST_SOURCES, <var>_INCLUDE_DIR, <var>_KERNELS_TARGET,
#   <var>_MANIFEST, <var>_KERNEL_IDS, <var>_UNITS, <var>_ORACLE_TESTS, <var>_GPU_TESTS,
#   and <var>_RUNTIME_SOURCES: with RUNTIME_TABLES, the runtime's generated sources (the
#   scalar types' table), for the runtime library only; empty without.
function(_tkh_add_catalog var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "RUNTIME_TABLES" "NAME;PREFIX;INCLUDE_DIR;OUT_DIR;GEN_ROOT;RUNTIME_INCLUDE_DIR"
    "OPS;SELECT_OPS;SELECT_TYPES")
  set(out "${arg_OUT_DIR}")
  set(workdir "${CMAKE_CURRENT_SOURCE_DIR}")
  set(op_args "")
  foreach(f IN LISTS arg_OPS)
    get_filename_component(f "${f}" ABSOLUTE BASE_DIR "${workdir}")
    file(RELATIVE_PATH rel "${workdir}" "${f}")
    if(rel MATCHES "^\\.\\./")
      set(rel "${f}")
    endif()
    list(APPEND op_args "${rel}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${f}")
  endforeach()
  # Every generator module, subfolders included (gen/tkh/shapes), and every template.
  file(GLOB_RECURSE gen_inputs "${arg_GEN_ROOT}/gen/*.lua")
  file(GLOB templates "${arg_GEN_ROOT}/templates/*.tpl")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${gen_inputs} ${templates})

  set(common --out "${out}" --name "${arg_NAME}" --prefix "${arg_PREFIX}"
    --include-dir "${arg_INCLUDE_DIR}")
  foreach(sel OPS TYPES)
    if(arg_SELECT_${sel} AND NOT arg_SELECT_${sel} STREQUAL "all")
      string(TOLOWER "--${sel}" flag)
      list(JOIN arg_SELECT_${sel} "," value)
      list(APPEND common ${flag} "${value}")
    endif()
  endforeach()
  if(arg_RUNTIME_TABLES) # the runtime's own tables (the shapes' numbers), with the core catalog
    list(APPEND common --runtime-tables)
  endif()
  _tkh_run_generator("${arg_GEN_ROOT}" "${workdir}" sources ${common} --phase sources ${op_args})
  set(TKH_GENERATED_RUNTIME_SOURCES "") # set by generated.cmake with --runtime-tables only
  include("${out}/generated.cmake")

  # Fingerprints: of each kernel source, of the compiler (its version text), of the build.
  _tkh_target_flags(${TKH_PLATFORM} "${TKH_TARGETS}" target_flags)
  get_filename_component(compiler_name "${TKH_KERNEL_COMPILER}" NAME)
  list(JOIN TKH_KERNEL_FLAGS " " flags_text)
  list(JOIN target_flags " " targets_text)
  set(build_command "${compiler_name} ${flags_text} ${targets_text} -c <kernel>.hip")
  string(SHA256 compiler_fp "${TKH_COMPILER_IDENTITY}")
  string(SHA256 build_fp "${TKH_PLATFORM};${TKH_TARGETS};${build_command}")
  string(REGEX REPLACE "\n.*" "" compiler_line "${TKH_COMPILER_IDENTITY}")
  # A kernel's source is every file its compile reads from the project: its .hip and the
  # include closure of its #include lines (its scalar definition, the runtime headers),
  # looked up in the compile rule's -I folders (TokitaiHipFingerprint.cmake). The closures
  # of the units (units/<op>.hip, the kernels of one op) are the compile rule's DEPENDS.
  set(include_dirs "${arg_RUNTIME_INCLUDE_DIR}" "${out}/include")
  list(TRANSFORM TKH_GENERATED_KERNELS PREPEND "kernels/" OUTPUT_VARIABLE kernel_files)
  list(TRANSFORM TKH_GENERATED_UNITS PREPEND "units/" OUTPUT_VARIABLE unit_files)
  list(TRANSFORM kernel_files APPEND ".hip")
  list(TRANSFORM unit_files APPEND ".hip")
  _tkh_include_closures(closure BASE_DIR "${out}" INCLUDE_DIRS ${include_dirs}
    SOURCES ${unit_files} FINGERPRINTS ${kernel_files})
  set(sources "")
  foreach(id IN LISTS TKH_GENERATED_KERNELS)
    string(APPEND sources "    ${id} = \"${closure_SHA256_kernels/${id}.hip}\",\n")
  endforeach()
  # The files outside the generated folder (the runtime headers) are configure inputs too:
  # an edit there must give new fingerprints, not only new objects. (The generated files
  # are written by configure itself.)
  set(read_files "")
  foreach(unit IN LISTS TKH_GENERATED_UNITS)
    list(APPEND read_files ${closure_FILES_units/${unit}.hip})
  endforeach()
  list(REMOVE_DUPLICATES read_files)
  foreach(f IN LISTS read_files)
    cmake_path(IS_PREFIX out "${f}" NORMALIZE generated)
    if(NOT generated)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${f}")
    endif()
  endforeach()
  set(lua_targets "")
  foreach(t IN LISTS TKH_TARGETS)
    string(APPEND lua_targets "\"${t}\", ")
  endforeach()
  string(REPLACE "\\" "\\\\" build_command_lua "${build_command}")
  string(REPLACE "\"" "\\\"" build_command_lua "${build_command_lua}")
  string(REPLACE "\"" "\\\"" compiler_line "${compiler_line}")
  file(CONFIGURE OUTPUT "${out}/build_info.lua" CONTENT "-- Written by CMake: what the generator's registry and manifest record.
return {
  platform = \"${TKH_PLATFORM}\",
  targets = { ${lua_targets}},
  targets_from = \"${TKH_TARGETS_FROM}\",
  compiler = \"${compiler_line}\",
  compiler_fingerprint = \"sha256:${compiler_fp}\",
  build_fingerprint = \"sha256:${build_fp}\",
  build_command = \"${build_command_lua}\",
  sources = {
${sources}  },
}
" @ONLY)
  _tkh_run_generator("${arg_GEN_ROOT}" "${workdir}" all ${common} --phase all
    --build-info "${out}/build_info.lua" ${op_args})

  # Ahead-of-time compile of every kernel for every target, with our own rule: CMake
  # 3.25's HIP language cannot find Debian's multiarch hip-lang. A compiler launcher
  # (ccache, sccache, distcc) is taken from CMAKE_HIP_COMPILER_LAUNCHER (amd) or
  # CMAKE_CUDA_COMPILER_LAUNCHER (nvidia), else CMAKE_CXX_COMPILER_LAUNCHER.
  if(TKH_PLATFORM STREQUAL "amd")
    set(launcher ${CMAKE_HIP_COMPILER_LAUNCHER})
  else()
    set(launcher ${CMAKE_CUDA_COMPILER_LAUNCHER})
  endif()
  if(NOT launcher)
    set(launcher ${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
  set(objects "")
  set(host_only "")
  if(NOT TOKITAI_HIP_DEVICE_CODE)
    set(host_only " (host code only)")
  endif()
  # Each compile gets its own TMPDIR in the build tree, removed after it: the clang behind
  # hipcc (ROCm 5.2, LLVM 14/15) leaves two empty directories in $TMPDIR per compile
  # (llvm/llvm-project#100468), thousands in /tmp over a test suite.
  # One compiler run per unit (the kernels of one op); its inputs, the unit's include
  # closure: its kernels' sources, their scalar definitions and the runtime headers.
  # Host code only: one run over every unit (hipcc's start-up and headers were most of
  # each run, 97 of them 120 s against 13 s for one).
  set(units ${TKH_GENERATED_UNITS})
  if(NOT TOKITAI_HIP_DEVICE_CODE)
    set(all "/* Written by CMake: TOKITAI_HIP_DEVICE_CODE=OFF, every unit's host code in one compiler run. */\n")
    set(closure_FILES_units/host_only.hip "")
    foreach(unit IN LISTS units)
      string(APPEND all "#include \"${unit}.hip\"\n")
      list(APPEND closure_FILES_units/host_only.hip ${closure_FILES_units/${unit}.hip})
    endforeach()
    list(APPEND closure_FILES_units/host_only.hip "${out}/units/host_only.hip")
    list(REMOVE_DUPLICATES closure_FILES_units/host_only.hip)
    file(CONFIGURE OUTPUT "${out}/units/host_only.hip" CONTENT "${all}")
    set(units host_only)
  endif()
  foreach(unit IN LISTS units)
    set(obj "${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME}_kernels/${unit}.o")
    set(tmp "${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME}_kernels/${unit}.tmp")
    list(JOIN TKH_GENERATED_UNIT_${unit} ", " ids_text)
    if(unit STREQUAL "host_only")
      list(LENGTH TKH_GENERATED_KERNELS count)
      set(ids_text "${count} kernels")
    endif()
    add_custom_command(OUTPUT "${obj}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${tmp}"
      COMMAND "${CMAKE_COMMAND}" -E env "TMPDIR=${tmp}"
        ${launcher} "${TKH_KERNEL_COMPILER}" ${TKH_KERNEL_FLAGS} ${target_flags}
        -I "${arg_RUNTIME_INCLUDE_DIR}" -I "${out}/include"
        -c "${out}/units/${unit}.hip" -o "${obj}"
      COMMAND "${CMAKE_COMMAND}" -E rm -rf "${tmp}"
      DEPENDS ${closure_FILES_units/${unit}.hip}
      COMMENT "Compiling the kernels of ${arg_NAME}/${unit} (${ids_text}) for ${TKH_TARGETS}${host_only}"
      VERBATIM)
    list(APPEND objects "${obj}")
  endforeach()
  add_custom_target(${arg_NAME}_kernels DEPENDS ${objects})

  list(TRANSFORM TKH_GENERATED_KERNELS PREPEND "${out}/stubs/" OUTPUT_VARIABLE stubs)
  list(TRANSFORM stubs APPEND ".c")
  if(NOT TOKITAI_HIP_DEVICE_CODE)
    # The units' host-only registration names the fat binary a device link would write.
    # This empty one stands in: HIP keeps the pointer and reads it only when it starts
    # on a machine with an AMD GPU, which this library never asks of it.
    file(CONFIGURE OUTPUT "${out}/no_device_code.c" CONTENT "/* Written by CMake: \
TOKITAI_HIP_DEVICE_CODE=OFF (host code only: README, CMake options). */
__attribute__((weak, visibility(\"hidden\"))) const unsigned char __hip_fatbin[1];
")
    list(APPEND stubs "${out}/no_device_code.c")
  endif()
  set(${var}_KERNEL_OBJECTS "${objects}" PARENT_SCOPE)
  set(${var}_HOST_SOURCES ${stubs} "${out}/${TKH_GENERATED_REGISTRY}" PARENT_SCOPE)
  list(TRANSFORM TKH_GENERATED_RUNTIME_SOURCES PREPEND "${out}/")
  set(${var}_RUNTIME_SOURCES "${TKH_GENERATED_RUNTIME_SOURCES}" PARENT_SCOPE)
  set(${var}_INCLUDE_DIR "${out}/include" PARENT_SCOPE)
  set(${var}_KERNELS_TARGET ${arg_NAME}_kernels PARENT_SCOPE)
  set(${var}_MANIFEST "${out}/manifest.json" PARENT_SCOPE)
  set(${var}_KERNEL_IDS "${TKH_GENERATED_KERNELS}" PARENT_SCOPE)
  set(${var}_UNITS "${TKH_GENERATED_UNITS}" PARENT_SCOPE)
  set(${var}_ORACLE_TESTS "${out}/${TKH_GENERATED_ORACLE_TESTS}" PARENT_SCOPE)
  set(${var}_GPU_TESTS "${out}/${TKH_GENERATED_GPU_TESTS}" PARENT_SCOPE)
endfunction()

# After linking 'target', reads the GPU targets back out of the binary and fails the build
# when one that was asked for is missing.
function(_tkh_check_binary_targets target)
  if(NOT TOKITAI_HIP_DEVICE_CODE)
    return()
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -DBINARY=$<TARGET_FILE:${target}> -DPLATFORM=${TKH_PLATFORM}
      "-DTARGETS=${TKH_TARGETS}" -P "${TKH_CMAKE_DIR}/check_binary_targets.cmake"
    VERBATIM)
endfunction()
