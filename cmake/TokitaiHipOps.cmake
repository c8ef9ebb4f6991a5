#[=======================================================================[.rst:
TokitaiHipOps
-------------

``tokitai_hip_add_ops`` generates oracle-checked GPU kernels for a project's own op files
and builds them ahead of time into a library target, as TokitaiHip does for its core
catalog. It is loaded by ``find_package(TokitaiHip)``.

.. code-block:: cmake

  tokitai_hip_add_ops(<target>
    OPS <op file>...            # required: op files (docs/op-files.md)
    [TYPES <type>...]           # only these scalar types (default: all the op files list)
    [GPU_TARGETS <target>...]   # default: GPU_TARGETS, CMAKE_HIP/CUDA_ARCHITECTURES,
                                # detection (TOKITAI_HIP_DETECT_TARGETS) or the pinned default
    [NAME <catalog>]            # catalog name (default: <target> as a C identifier)
    [PREFIX <prefix>]           # C symbol prefix of the entry points (default: the name)
    [INCLUDE_DIR <dir>]         # folder of the generated headers (default: the name)
    [NO_TESTS])                 # do not add the generated tests

Creates ``<target>``, a library (static unless ``BUILD_SHARED_LIBS``) that links
``TokitaiHip::runtime``, with the generated headers on its include path:
``<dir>/<name>_ops.h`` declares ``<prefix>_<op>_<type>(ctx, ..., out, n, report)`` and
``<prefix>_registry_<name>()``, a registry for ``tkh_registry_find`` next to
``tkh_registry_core()``. Generated files go to ``<binary dir>/<target>_generated``
(``manifest.json`` included) and are rewritten only when the op files change. Unless
``NO_TESTS`` is given and when testing is enabled, two tests are added:
``<target>_oracle`` (CPU: every op with a ``reference`` on the type's edge values; needs
cmocka) and ``<target>_gpu`` (label ``gpu``, exits 77 and is skipped without a device).
#]=======================================================================]
include_guard(DIRECTORY) # variables and imported targets are per directory
include(TokitaiHipGpuTargets)
include(TokitaiHipGenerate)

function(tokitai_hip_add_ops target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_TESTS" "NAME;PREFIX;INCLUDE_DIR" "OPS;TYPES;GPU_TARGETS")
  if(arg_UNPARSED_ARGUMENTS)
    message(AUTHOR_WARNING "tokitai_hip_add_ops(${target}): ignoring unknown arguments: "
      "${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_OPS)
    message(FATAL_ERROR "tokitai_hip_add_ops(${target}): OPS is required: the op files to "
      "generate kernels from")
  endif()
  if(TARGET ${target})
    message(FATAL_ERROR "tokitai_hip_add_ops(${target}): a target named '${target}' exists already")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CXX" IN_LIST languages)
    message(FATAL_ERROR "tokitai_hip_add_ops(${target}): enable CXX in project() (LANGUAGES C CXX): "
      "the compiled kernels carry C++ host code, so the library links as C++")
  endif()
  foreach(f IN LISTS arg_OPS)
    get_filename_component(abs "${f}" ABSOLUTE)
    if(NOT EXISTS "${abs}")
      message(FATAL_ERROR "tokitai_hip_add_ops(${target}): op file '${f}' not found")
    endif()
  endforeach()
  string(MAKE_C_IDENTIFIER "${target}" default_name)
  string(TOLOWER "${default_name}" default_name)
  foreach(field NAME PREFIX INCLUDE_DIR)
    if(NOT arg_${field})
      set(arg_${field} "${default_name}")
    endif()
  endforeach()
  if(arg_PREFIX MATCHES "^tkh" OR arg_NAME STREQUAL "core")
    message(FATAL_ERROR "tokitai_hip_add_ops(${target}): NAME '${arg_NAME}' / PREFIX "
      "'${arg_PREFIX}' clash with TokitaiHip's own (catalog 'core', prefixes tkh*)")
  endif()

  # Targets: the argument, else the same choice as TokitaiHip's own configure.
  if(arg_GPU_TARGETS)
    set(GPU_TARGETS "${arg_GPU_TARGETS}")
  endif()
  _tkh_requested_targets(${TKH_PLATFORM} TKH_TARGETS)
  _tkh_validate_targets(${TKH_PLATFORM} "${TKH_KERNEL_COMPILER}" "${TKH_TARGETS}")

  _tkh_add_catalog(cat NAME ${arg_NAME} PREFIX ${arg_PREFIX} INCLUDE_DIR ${arg_INCLUDE_DIR}
    OUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}_generated"
    GEN_ROOT "${TOKITAI_HIP_DATA_DIR}" RUNTIME_INCLUDE_DIR "${TKH_RUNTIME_INCLUDE_DIR}"
    OPS ${arg_OPS} SELECT_TYPES ${arg_TYPES})

  # An op may share a core op's name: its symbols carry PREFIX and its registry is
  # searched on its own (docs/downstream.md).
  file(READ "${cat_MANIFEST}" json)
  string(JSON count LENGTH "${json}" kernels)

  set_source_files_properties(${cat_KERNEL_OBJECTS} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${target} ${cat_HOST_SOURCES} ${cat_KERNEL_OBJECTS})
  add_dependencies(${target} ${cat_KERNELS_TARGET})
  target_include_directories(${target} PUBLIC "${cat_INCLUDE_DIR}")
  # The kernels' C++ host code (nvcc's registration uses static guards) needs the C++
  # runtime wherever the library ends up in a C link.
  target_link_libraries(${target} PUBLIC TokitaiHip::runtime PRIVATE TokitaiHip::gpu_runtime m
    INTERFACE "$<$<LINK_LANGUAGE:C>:stdc++>")
  target_compile_features(${target} PRIVATE c_std_11)
  _tkh_host_stub_options(${target})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden LINKER_LANGUAGE CXX)
  message(STATUS "tokitai_hip_add_ops(${target}): ${count} kernels for ${TKH_TARGETS} "
    "(${TKH_TARGETS_FROM}), in ${CMAKE_CURRENT_BINARY_DIR}/${target}_generated")

  if(arg_NO_TESTS OR (DEFINED BUILD_TESTING AND NOT BUILD_TESTING))
    return()
  endif()
  add_executable(${target}_gpu_test "${cat_GPU_TESTS}")
  target_link_libraries(${target}_gpu_test PRIVATE ${target})
  add_test(NAME ${target}_gpu COMMAND ${target}_gpu_test)
  set_tests_properties(${target}_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 RESOURCE_GROUPS gpus:1)
  find_path(TKH_CMOCKA_INCLUDE_DIR cmocka.h)
  find_library(TKH_CMOCKA_LIBRARY cmocka)
  if(NOT TKH_CMOCKA_INCLUDE_DIR OR NOT TKH_CMOCKA_LIBRARY)
    message(WARNING "tokitai_hip_add_ops(${target}): cmocka not found, so the CPU oracle test "
      "${target}_oracle is not added (Debian: apt-get install libcmocka-dev)")
    return()
  endif()
  add_executable(${target}_oracle_test "${cat_ORACLE_TESTS}")
  target_include_directories(${target}_oracle_test PRIVATE "${TKH_CMOCKA_INCLUDE_DIR}")
  target_link_libraries(${target}_oracle_test PRIVATE ${target} "${TKH_CMOCKA_LIBRARY}" m)
  target_compile_options(${target}_oracle_test PRIVATE -ffp-contract=off)
  add_test(NAME ${target}_oracle COMMAND ${target}_oracle_test)
  set_tests_properties(${target}_oracle PROPERTIES LABELS unit)
endfunction()
