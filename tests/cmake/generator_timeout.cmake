# cmake -DSOURCE_DIR=src -DWORK_DIR=dir -P generator_timeout.cmake
# The configure-time generator run has a timeout of its own: a project that includes
# TokitaiHipGenerate.cmake, with a "Lua" that never finishes and a timeout of 2 s, must
# stop configure with a message naming the step. (A hang, not a slow run: the verdict
# does not depend on the machine's speed.)
file(REMOVE_RECURSE "${WORK_DIR}")
file(WRITE "${WORK_DIR}/hangs.sh" "#!/bin/sh\nexec sleep 86400\n")
file(CHMOD "${WORK_DIR}/hangs.sh" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
file(WRITE "${WORK_DIR}/src/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)
project(hang LANGUAGES C)
set(TOKITAI_HIP_CONFIGURE_TIMEOUT 2)
list(APPEND CMAKE_MODULE_PATH \"${SOURCE_DIR}/cmake\")
include(TokitaiHipGenerate)
_tkh_run_generator(\"${SOURCE_DIR}\" \"${SOURCE_DIR}\" sources --out \"${WORK_DIR}/out\" ops/core.lua)
")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${WORK_DIR}/src" -B "${WORK_DIR}/build"
    "-DTKH_LUA=${WORK_DIR}/hangs.sh"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("exit ${rc}\n${err}")
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${err}")
set(expect "Kernel generation \\(gen/tkhgen.lua, phase 'sources'\\) ran for more than TOKITAI_HIP_CONFIGURE_TIMEOUT=2 s")
if(rc EQUAL 0 OR NOT flat MATCHES "${expect}")
  message(FATAL_ERROR "expected configure to fail with: ${expect}")
endif()
