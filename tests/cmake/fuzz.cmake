# libFuzzer runs of fuzz_generator over the repository's corpus, op files and templates
# (read only); inputs it finds go to WORK_DIR/corpus, a failing input to WORK_DIR.
#   cmake -DFUZZER=... -DSOURCE_DIR=... -DWORK_DIR=... -DRUNS=20000 -P fuzz.cmake
#     the test: seed 1, RUNS inputs, in a fresh WORK_DIR. libFuzzer's feedback from string
#     compares is off (-use_cmp=0 -use_memmem=0): Lua hashes strings with a seed of its
#     own (time and addresses), and those compares would steer the mutations differently
#     on every run. So the same inputs run, and the verdict is the same, everywhere.
#   cmake -DFUZZER=... -DSOURCE_DIR=... -DWORK_DIR=... -DSECONDS=3600 -P fuzz.cmake
#     exploration (target fuzz-long): a random seed (printed), full feedback, for SECONDS;
#     WORK_DIR/corpus grows from run to run.
set(seeds "${SOURCE_DIR}/tests/fuzz/corpus" "${SOURCE_DIR}/ops" "${SOURCE_DIR}/examples/downstream/ops"
  "${SOURCE_DIR}/tests/ops" "${SOURCE_DIR}/templates")
if(DEFINED RUNS)
  file(REMOVE_RECURSE "${WORK_DIR}")
  set(mode -seed=1 -runs=${RUNS} -use_cmp=0 -use_memmem=0)
else()
  set(mode -max_total_time=${SECONDS})
endif()
file(MAKE_DIRECTORY "${WORK_DIR}/corpus")
# Each input may spend the sandbox's 10^8 instructions (about a second) twice, as an op
# file and as a template: a minute per input is far beyond that on any machine.
execute_process(COMMAND "${FUZZER}" ${mode} -keep_seed=1 -timeout=60 -rss_limit_mb=2048
    "-dict=${SOURCE_DIR}/tests/fuzz/generator.dict" "-artifact_prefix=${WORK_DIR}/"
    "${WORK_DIR}/corpus" ${seeds}
  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCH "Seed: [0-9]+" seed "${out}")
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second\\(s\\)" done "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz_generator failed (exit ${rc}, ${seed}); the input is saved under "
    "${WORK_DIR}: add it to tests/fuzz/corpus as a regression case once fixed.\n${out}")
endif()
message(STATUS "fuzz_generator: ${seed}; ${done}")
