# cmake -DSOURCE_DIR=src -DWORK_DIR=dir -DARGS=a;b -P concurrent_builds.cmake
# Two configures, then two builds, of the same source into two build folders at the same
# time (execute_process runs its COMMANDs concurrently) must both succeed and generate
# byte-identical files: nothing is shared through the source tree. Nor is anything left
# in TMPDIR (hipcc's clang leaves empty directories there unless the build gives it its
# own; ccache is disabled so that the compiler runs). A one-kernel catalog keeps it short.
include("${CMAKE_CURRENT_LIST_DIR}/same_files.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/tmp")
set(ENV{TMPDIR} "${WORK_DIR}/tmp")
set(ENV{CCACHE_DISABLE} 1)
set(a "${WORK_DIR}/a")
set(b "${WORK_DIR}/b")
set(small -DTOKITAI_HIP_OPS=add -DTOKITAI_HIP_TYPES=i32 -DTOKITAI_HIP_BUILD_TESTS=OFF
  -DTOKITAI_HIP_BUILD_EXAMPLES=OFF -DTOKITAI_HIP_INSTALL=OFF)
foreach(step configure build)
  if(step STREQUAL "configure")
    set(cmd_a "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${a}" ${ARGS} ${small})
    set(cmd_b "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${b}" ${ARGS} ${small})
  else()
    set(cmd_a "${CMAKE_COMMAND}" --build "${a}" -j 2)
    set(cmd_b "${CMAKE_COMMAND}" --build "${b}" -j 2)
  endif()
  # Each writes its own log: execute_process pipes one command's output into the next.
  set(log "sh" "-c" "exec \"$@\" > \"$0\" 2>&1")
  execute_process(COMMAND ${log} "${WORK_DIR}/${step}-a.log" ${cmd_a}
    COMMAND ${log} "${WORK_DIR}/${step}-b.log" ${cmd_b} RESULTS_VARIABLE codes)
  if(NOT codes STREQUAL "0;0")
    file(READ "${WORK_DIR}/${step}-a.log" out_a)
    file(READ "${WORK_DIR}/${step}-b.log" out_b)
    message(FATAL_ERROR "concurrent ${step}s exited with ${codes}:\n${out_a}\n---\n${out_b}")
  endif()
endforeach()
file(GLOB left RELATIVE "${WORK_DIR}/tmp" "${WORK_DIR}/tmp/*")
if(left)
  message(FATAL_ERROR "the builds left ${left} in TMPDIR (${WORK_DIR}/tmp)")
endif()
tkh_expect_same_files("${a}/generated" "${b}/generated" "the two build folders" count)
message(STATUS "two concurrent configures and builds: both built, ${count} generated files identical")
