# A bounded libFuzzer run of fuzz_generator: new inputs go to WORK_DIR, seeds come from the
# repository's corpus, op files and templates (read only).
#   cmake -DFUZZER=... -DWORK_DIR=... -DSOURCE_DIR=... -DSECONDS=60 -P fuzz.cmake
file(MAKE_DIRECTORY "${WORK_DIR}/corpus")
execute_process(COMMAND "${FUZZER}" -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
    "-dict=${SOURCE_DIR}/tests/fuzz/generator.dict" "-artifact_prefix=${WORK_DIR}/"
    "${WORK_DIR}/corpus" "${SOURCE_DIR}/tests/fuzz/corpus" "${SOURCE_DIR}/ops"
    "${SOURCE_DIR}/examples/downstream/ops" "${SOURCE_DIR}/tests/ops" "${SOURCE_DIR}/templates"
  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second\\(s\\)" done "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz_generator failed (exit ${rc}); the input is saved under ${WORK_DIR}:\n${out}")
endif()
message(STATUS "fuzz_generator: ${done}")
