# cmake -DSOURCE_DIR=src -DWORK_DIR=dir -DARGS=a;b -DEXPECT=regex -P configure_fails.cmake
# Configuring with ARGS must fail, with output matching EXPECT, and generate no catalog.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}" ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("exit ${rc}\n${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "configure succeeded with ${ARGS}")
endif()
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${err}")
if(NOT flat MATCHES "${EXPECT}")
  message(FATAL_ERROR "expected the error to match: ${EXPECT}")
endif()
if(EXISTS "${WORK_DIR}/generated/manifest.json")
  message(FATAL_ERROR "a failed configure left a generated catalog behind")
endif()
