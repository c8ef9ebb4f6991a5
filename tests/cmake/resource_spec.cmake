# scripts/gpu-resource-spec.sh writes a CTest resource spec that ctest can read, without a
# GPU: for COUNT=2 and SLOTS=2 one "gpus" resource a device, ids "0" and "1", 2 slots each
# (checked as JSON, then by ctest itself running a test that asks for gpus:1 with it, which
# must see an id in CTEST_RESOURCE_GROUP_0_GPUS); COUNT=0 is refused, naming it.
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -P resource_spec.cmake
set(script "${SOURCE_DIR}/scripts/gpu-resource-spec.sh")
get_filename_component(bin "${CMAKE_COMMAND}" DIRECTORY)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/project")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env COUNT=2 SLOTS=2 bash "${script}" /nonexistent/tokitai-hip
  OUTPUT_VARIABLE spec RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "COUNT=2: exit ${rc}: ${err}")
endif()
string(JSON major GET "${spec}" version major)
string(JSON gpus LENGTH "${spec}" local 0 gpus)
if(NOT major EQUAL 1 OR NOT gpus EQUAL 2)
  message(FATAL_ERROR "COUNT=2: expected version 1 and 2 gpus, got ${major} and ${gpus}:\n${spec}")
endif()
foreach(i 0 1)
  string(JSON id GET "${spec}" local 0 gpus ${i} id)
  string(JSON slots GET "${spec}" local 0 gpus ${i} slots)
  if(NOT id STREQUAL "${i}" OR NOT slots EQUAL 2)
    message(FATAL_ERROR "gpu ${i}: id '${id}', slots ${slots}: expected '${i}' and 2:\n${spec}")
  endif()
endforeach()
file(WRITE "${WORK_DIR}/gpus.json" "${spec}")

# ctest reads it: two tests of gpus:1 each get a device id
file(WRITE "${WORK_DIR}/project/CMakeLists.txt" "cmake_minimum_required(VERSION 3.16)
project(spec NONE)
enable_testing()
foreach(t a b)
  add_test(NAME \${t} COMMAND \"${CMAKE_COMMAND}\" -E env bash -c \"echo group=\\$CTEST_RESOURCE_GROUP_0_GPUS\")
  set_tests_properties(\${t} PROPERTIES RESOURCE_GROUPS gpus:1 PASS_REGULAR_EXPRESSION \"group=id:[01],slots:1\")
endforeach()
")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${WORK_DIR}/project" -B "${WORK_DIR}/project/build"
  OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the probe project failed")
endif()
execute_process(COMMAND "${bin}/ctest" --test-dir "${WORK_DIR}/project/build" -j 2 --resource-spec-file "${WORK_DIR}/gpus.json"
  --output-on-failure OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctest with the spec failed:\n${out}")
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E env COUNT=0 bash "${script}" /nonexistent/tokitai-hip
  OUTPUT_VARIABLE spec RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "no GPU found \\(device_count '0'\\)")
  message(FATAL_ERROR "COUNT=0: expected a refusal naming it, got exit ${rc}: ${err}")
endif()
message(STATUS "resource spec: 2 devices of 2 slots, read by ctest; COUNT=0 refused")
