# The tool's paths that need no device, under valgrind (memcheck, leaks included), with
# every GPU hidden so a GPU builder takes the same paths: each case must exit with its
# documented code and valgrind must report nothing.
#   cmake -DVALGRIND=... -DTOOL=... -P tool_valgrind.cmake
set(hide CUDA_VISIBLE_DEVICES=-1 HIP_VISIBLE_DEVICES=-1 ROCR_VISIBLE_DEVICES=-1)
# "expected exit code|arguments[|regex stderr must match]" (0 success, 1 no device, 2 usage error)
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
  "2|bench add f32 --shape 64,64 --sizes 1024|bench takes --sizes or --shape, not both"
  "2|bench add f32 --shape 64x64|--shape '64x64' is not a list of sizes like 4096,4096"
  "2|bench add f32 --shape 64,64 --shape 63|--shape '63' .input 1 of add_f32. does not broadcast.*dimension 0 is 63, expected 64 or 1"
  "2|bench sum f32 --shape 64,64 --axes 2|--axes '2': axis 2 is out of range .*expected -2 to 1"
  "2|bench sum f32 --shape 64,64 --axes 1,-1|axis -1 is given twice"
  "2|bench add f32 --shape 64,64 --transpose 2|--transpose 2: add_f32 has 2 inputs, expected 0 to 1"
  "2|bench add f32 --keepdims|only with --shape"
  "2|run add f32 --shape 64,64 --shape 63|does not broadcast"
  "1|bench add f32 --shape 64,64 --shape 64 --transpose 0|TKH_ERR_NO_DEVICE"
  "1|bench sum f32 --shape 64,64 --axes 1 --keepdims --oracle off|TKH_ERR_NO_DEVICE"
  "2|run softmax f32 --shape 64,64 --axes 0,1|softmax_f32 normalizes along one axis, expected one"
  "2|run layer_norm f32 --shape 64,64 --axes -3|axis -3 is out of range .*expected -2 to 1"
  "1|run layer_norm f32 --shape 64,64|TKH_ERR_NO_DEVICE"
  "1|bench logsumexp f32 --shape 8,64 --axes 0 --keepdims --oracle off|TKH_ERR_NO_DEVICE"
  "2|run layer_norm f32 --shape 64,64 --scalar epsilon=1e-5|names no scalar of layer_norm_f32 .its scalars: eps."
  "2|run layer_norm f32 --shape 64,64 --scalar eps=abc|'abc' is not a f32 value"
  "2|run clamp i8 --n 16 --scalar lo=300|300 is out of range for i8 .-128 to 127."
  "2|run clamp u8 --n 16 --scalar lo|expected NAME=VALUE .clamp_u8's scalars: lo, hi."
  "1|run layer_norm bf16 --shape 64,64 --scalar eps=1e-5|TKH_ERR_NO_DEVICE"
  "1|run clamp i64 --n 16 --scalar lo=-9223372036854775808 --scalar hi=0x10|TKH_ERR_NO_DEVICE"
  "2|bench layer_norm f32 --shape 64,64 --scalar eps=1e-5|--scalar is an option of run only, not of 'bench'"
  "2|frobnicate")
set(failures "")
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 want)
  list(GET parts 1 args)
  set(expect "")
  list(LENGTH parts fields)
  if(fields GREATER 2)
    list(GET parts 2 expect)
  endif()
  separate_arguments(args UNIX_COMMAND "${args}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${hide}
      "${VALGRIND}" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
      -q "${TOOL}" ${args}
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  string(REGEX MATCHALL "==[0-9]+==[^\n]*" reports "${err}")
  if(NOT rc STREQUAL want OR reports OR NOT err MATCHES "${expect}")
    string(APPEND failures "\n  tokitai-hip ${args}: exit ${rc} (expected ${want}; stderr must match '${expect}')${reports}\n${err}")
  else()
    message(STATUS "ok: tokitai-hip ${args} (exit ${rc})")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "valgrind over the tool:${failures}")
endif()
