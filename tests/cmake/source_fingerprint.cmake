# cmake -DSOURCE_DIR=src -DWORK_DIR=dir -P source_fingerprint.cmake
# A kernel's source fingerprint (cmake/TokitaiHipFingerprint.cmake) covers every file its
# compile reads from the project. On a copy of the runtime headers and of the golden
# generated tree (tests/golden/core: no build needed), for the normalization kernel
# softmax_f16:
# - its closure holds the headers it reaches (plan_walk.h, plan.h, thread_group.h, ...);
# - a comment appended to any file of the closure changes the fingerprint, and taking it
#   off gives the first one back; a header outside the closure changes nothing; a line
#   moved from one file of the closure to the next changes it;
# - the same tree in another folder gives the same fingerprint (no absolute path in it),
#   and so does another order of the sources;
# - the unit's closure (the compile rule's DEPENDS) holds the kernel's;
# - an include cycle leaves the closure whole;
# - a quoted include found nowhere stops with a message naming the file and the name.
cmake_policy(VERSION 3.25)
include("${SOURCE_DIR}/cmake/TokitaiHipFingerprint.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
set(tree "${WORK_DIR}/a")
file(COPY "${SOURCE_DIR}/runtime/include/" DESTINATION "${tree}/runtime/include")
file(COPY "${SOURCE_DIR}/tests/golden/core/" DESTINATION "${tree}/gen")
set(kernel kernels/softmax_f16.hip)

# fingerprint(<tree> <prefix> [source...]): the closures of units/softmax.hip and of the
# kernel (its fingerprint, with any other sources listed first).
function(fingerprint dir prefix)
  _tkh_include_closures(c BASE_DIR "${dir}/gen"
    INCLUDE_DIRS "${dir}/runtime/include" "${dir}/gen/include"
    SOURCES units/softmax.hip FINGERPRINTS ${ARGN} ${kernel})
  set(${prefix}_fp "${c_SHA256_${kernel}}" PARENT_SCOPE)
  set(${prefix}_files "${c_FILES_${kernel}}" PARENT_SCOPE)
  set(${prefix}_labels "${c_LABELS_${kernel}}" PARENT_SCOPE)
  set(${prefix}_unit "${c_FILES_units/softmax.hip}" PARENT_SCOPE)
endfunction()

fingerprint("${tree}" base)
if(NOT base_fp MATCHES "^sha256:[0-9a-f]+$")
  message(FATAL_ERROR "fingerprint '${base_fp}' is not sha256:<hex>")
endif()
list(JOIN base_labels "\n  " closure_text)
message(STATUS "closure of ${kernel}:\n  ${closure_text}")
list(GET base_labels 0 first)
if(NOT first STREQUAL kernel)
  message(FATAL_ERROR "the closure starts with ${first}, not the kernel")
endif()
set(unique "${base_labels}")
list(REMOVE_DUPLICATES unique)
if(NOT unique STREQUAL base_labels)
  message(FATAL_ERROR "a file is twice in the closure")
endif()
foreach(h IN ITEMS codegen/plan_walk.h codegen/plan.h codegen/thread_group.h codegen/scalar.h
    codegen/op_math.h codegen/hip_platform.h export.h core_oracle/softmax_f16.h)
  if(NOT "tokitai_hip/${h}" IN_LIST base_labels)
    message(FATAL_ERROR "tokitai_hip/${h} is missing from the closure of ${kernel}")
  endif()
endforeach()
foreach(label IN LISTS base_labels)
  if(label MATCHES "^hip/|^/")
    message(FATAL_ERROR "the closure names a toolchain header or an absolute path: ${label}")
  endif()
endforeach()

# Every file of the closure counts.
foreach(f label IN ZIP_LISTS base_files base_labels)
  file(COPY_FILE "${f}" "${WORK_DIR}/saved")
  file(APPEND "${f}" "/* touched */\n")
  fingerprint("${tree}" touched)
  file(COPY_FILE "${WORK_DIR}/saved" "${f}")
  if(touched_fp STREQUAL base_fp)
    message(FATAL_ERROR "a comment appended to ${label} left the fingerprint unchanged")
  endif()
  fingerprint("${tree}" again)
  if(NOT again_fp STREQUAL base_fp)
    message(FATAL_ERROR "${label} restored, the fingerprint differs from the first")
  endif()
endforeach()
list(LENGTH base_files count)
message(STATUS "a comment appended to any of the ${count} files changed ${base_fp}")
# ... and only those: a runtime header the kernel does not include changes nothing.
file(APPEND "${tree}/runtime/include/tokitai_hip/tensor.h" "/* touched */\n")
fingerprint("${tree}" other)
if(NOT other_fp STREQUAL base_fp)
  message(FATAL_ERROR "tokitai_hip/tensor.h, not in the closure, changed the fingerprint")
endif()
file(COPY_FILE "${SOURCE_DIR}/runtime/include/tokitai_hip/tensor.h"
  "${tree}/runtime/include/tokitai_hip/tensor.h")

# The last line of the kernel moved to the start of the next file of the closure: the
# bytes in closure order are the same, the files are not.
list(GET base_files 0 one)
list(GET base_files 1 two)
list(GET base_labels 1 two_label)
file(COPY_FILE "${one}" "${WORK_DIR}/saved_one")
file(COPY_FILE "${two}" "${WORK_DIR}/saved_two")
file(READ "${one}" one_text)
file(READ "${two}" two_text)
string(REGEX MATCH "[^\n]*\n$" last "${one_text}")
string(LENGTH "${one_text}" one_size)
string(LENGTH "${last}" last_size)
math(EXPR keep "${one_size} - ${last_size}")
string(SUBSTRING "${one_text}" 0 ${keep} one_head)
file(WRITE "${one}" "${one_head}")
file(WRITE "${two}" "${last}${two_text}")
fingerprint("${tree}" line_moved)
file(COPY_FILE "${WORK_DIR}/saved_one" "${one}")
file(COPY_FILE "${WORK_DIR}/saved_two" "${two}")
if(last_size EQUAL 0 OR line_moved_fp STREQUAL base_fp)
  message(FATAL_ERROR "the last line of ${kernel} ('${last}') moved to ${two_label} left "
    "the fingerprint unchanged")
endif()

# Another folder, another order of the sources: the same fingerprint.
file(COPY "${tree}/" DESTINATION "${WORK_DIR}/elsewhere/b")
fingerprint("${WORK_DIR}/elsewhere/b" moved)
fingerprint("${tree}" reordered kernels/rms_norm_f16.hip kernels/add_f16.hip)
if(NOT moved_fp STREQUAL base_fp OR NOT reordered_fp STREQUAL base_fp)
  message(FATAL_ERROR "the fingerprint depends on the folder (${moved_fp}) or on the "
    "other sources (${reordered_fp}), not only on the files: ${base_fp}")
endif()

# The unit's closure, the compile rule's DEPENDS, holds the unit and the kernel's closure.
foreach(f IN ITEMS "${tree}/gen/units/softmax.hip" ${base_files})
  if(NOT f IN_LIST base_unit)
    message(FATAL_ERROR "${f} is missing from the closure of units/softmax.hip")
  endif()
endforeach()

# An include cycle (scalar.h -> op_math.h ... and hip_platform.h -> scalar.h, closed by
# scalar.h -> hip_platform.h): the same files, whatever the order of the sources.
file(APPEND "${tree}/runtime/include/tokitai_hip/codegen/scalar.h"
  "#include \"tokitai_hip/codegen/hip_platform.h\"\n")
fingerprint("${tree}" cyclic)
fingerprint("${tree}" cyclic_reordered kernels/rms_norm_f16.hip units/rms_norm.hip)
set(sorted "${base_labels}")
set(cyclic_sorted "${cyclic_labels}")
list(SORT sorted)
list(SORT cyclic_sorted)
if(NOT cyclic_sorted STREQUAL sorted OR NOT cyclic_reordered_fp STREQUAL cyclic_fp)
  message(FATAL_ERROR "with an include cycle the closure is ${cyclic_labels} "
    "(${cyclic_fp}, and ${cyclic_reordered_fp} after other sources)")
endif()
# The scalar definition reaches hip_platform.h only through the cycle, also when the
# kernel, which walks the cycle from the other side, comes first.
set(oracle include/tokitai_hip/core_oracle/softmax_f16.h)
_tkh_include_closures(c BASE_DIR "${tree}/gen"
  INCLUDE_DIRS "${tree}/runtime/include" "${tree}/gen/include" FINGERPRINTS ${kernel} ${oracle})
foreach(h IN ITEMS codegen/hip_platform.h export.h codegen/scalar.h)
  if(NOT "tokitai_hip/${h}" IN_LIST c_LABELS_${oracle})
    message(FATAL_ERROR "with an include cycle, tokitai_hip/${h} is missing from the closure "
      "of ${oracle}: ${c_LABELS_${oracle}}")
  endif()
endforeach()
file(COPY_FILE "${SOURCE_DIR}/runtime/include/tokitai_hip/codegen/scalar.h"
  "${tree}/runtime/include/tokitai_hip/codegen/scalar.h")

# A quoted include found nowhere stops configure, naming the file and the name.
file(WRITE "${tree}/gen/kernels/bad.hip"
  "#include <hip/hip_runtime.h>\n#include \"tokitai_hip/codegen/scalar.h\"\n#include \"tokitai_hip/nowhere.h\"\n")
file(WRITE "${WORK_DIR}/bad.cmake" "include(\"${SOURCE_DIR}/cmake/TokitaiHipFingerprint.cmake\")
_tkh_include_closures(c BASE_DIR \"${tree}/gen\"
  INCLUDE_DIRS \"${tree}/runtime/include\" \"${tree}/gen/include\" FINGERPRINTS kernels/bad.hip)
")
execute_process(COMMAND "${CMAKE_COMMAND}" -P "${WORK_DIR}/bad.cmake"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${err}")
set(expect "kernels/bad.hip includes \"tokitai_hip/nowhere.h\", found neither beside it nor in the include folders")
string(REPLACE "." "\\." expect_re "${expect}")
if(rc EQUAL 0 OR NOT flat MATCHES "${expect_re}")
  message(FATAL_ERROR "expected a failure with: ${expect}\ngot (exit ${rc}): ${err}")
endif()
message(STATUS "a quoted include found nowhere stops with: ${expect}")
