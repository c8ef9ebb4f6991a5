# cmake -DLUA=lua5.4 -DSOURCE_DIR=src -DWORK_DIR=dir [-DUPDATE=ON] -P generator_goldens.cmake
# Generates tests/golden/ops.lua with a fixed build description (tests/golden/build_info.lua) into
# two folders; every file must equal its reviewed golden in tests/golden/core, the two
# folders must be byte-identical, and generating again must rewrite nothing.
# UPDATE=ON copies the output over the goldens instead (review the diff before committing).
set(golden "${SOURCE_DIR}/tests/golden/core")
file(REMOVE_RECURSE "${WORK_DIR}")
function(generate dir out_var)
  execute_process(COMMAND "${LUA}" gen/tkhgen.lua --out "${dir}"
      --build-info tests/golden/build_info.lua --runtime-tables tests/golden/ops.lua
    WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generation failed: ${err}")
  endif()
  set(${out_var} "${err}" PARENT_SCOPE)
endfunction()

generate("${WORK_DIR}/a" first)
file(GLOB_RECURSE produced RELATIVE "${WORK_DIR}/a" "${WORK_DIR}/a/*")
if(UPDATE)
  file(REMOVE_RECURSE "${golden}")
  file(COPY "${WORK_DIR}/a/" DESTINATION "${golden}")
  message(STATUS "goldens updated in ${golden}: review them with git diff")
  return()
endif()
file(GLOB_RECURSE expected RELATIVE "${golden}" "${golden}/*")
list(SORT produced)
list(SORT expected)
if(NOT produced STREQUAL expected)
  message(FATAL_ERROR "generated files differ from the goldens' list:\n  got: ${produced}\n  want: ${expected}")
endif()
foreach(f IN LISTS expected)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${golden}/${f}" "${WORK_DIR}/a/${f}"
    RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "${f} differs from its golden tests/golden/core/${f}")
  endif()
endforeach()

generate("${WORK_DIR}/b" ignored)
foreach(f IN LISTS expected)
  file(SHA256 "${WORK_DIR}/a/${f}" ha)
  file(SHA256 "${WORK_DIR}/b/${f}" hb)
  if(NOT ha STREQUAL hb)
    message(FATAL_ERROR "${f} differs between two generations: output is not deterministic")
  endif()
endforeach()

generate("${WORK_DIR}/a" again)
if(NOT again MATCHES " 0 rewritten")
  message(FATAL_ERROR "regenerating unchanged input rewrote files: ${again}")
endif()
list(LENGTH expected count)
message(STATUS "${count} generated files equal their goldens; regeneration rewrote nothing")
