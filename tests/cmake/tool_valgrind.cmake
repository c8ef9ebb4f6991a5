# The tool's paths that need no device, under valgrind (memcheck, leaks included), with
# every GPU hidden so a GPU builder takes the same paths: each case must exit with its
# documented code and valgrind must report nothing.
#   cmake -DVALGRIND=... -DTOOL=... -P tool_valgrind.cmake
set(hide CUDA_VISIBLE_DEVICES=-1 HIP_VISIBLE_DEVICES=-1 ROCR_VISIBLE_DEVICES=-1)
# "expected exit code|arguments" (0 success, 1 no device, 2 usage error)
set(cases
  "0|--help"
  "0|list"
  "0|list --format json"
  "1|info"
  "1|info --format json"
  "1|run add i32 --n 16"
  "1|selftest --n 5"
  "2|run nope i32"
  "2|run add i32 --n 0"
  "2|run add i32 --n 99999999999999999999999"
  "2|run add i32 --n 16 --oracle sampled:0"
  "1|run add i32 --n 16 --oracle sampled:5"
  "2|bench add"
  "2|bench add i32 --oracle sometimes"
  "1|bench add i32 --sizes 16 --oracle off"
  "2|frobnicate")
set(failures "")
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 want)
  list(GET parts 1 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${hide}
      "${VALGRIND}" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
      -q "${TOOL}" ${args}
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  string(REGEX MATCHALL "==[0-9]+==[^\n]*" reports "${err}")
  if(NOT rc STREQUAL want OR reports)
    string(APPEND failures "\n  tokitai-hip ${args}: exit ${rc} (expected ${want})${reports}")
  else()
    message(STATUS "ok: tokitai-hip ${args} (exit ${rc})")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "valgrind over the tool:${failures}")
endif()
