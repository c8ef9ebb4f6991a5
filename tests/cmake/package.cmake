# cmake -DBUILD_DIR=b -DSOURCE_DIR=s -DWORK_DIR=w -DGENERATOR=Ninja -P package.cmake
# Installs the build into a prefix, moves the prefix (the install must be relocatable),
# then builds and tests examples/downstream and tests/downstream_tight (an op whose bound
# is too small must fail) against it with ctest --build-and-test, and,
# where pkg-config exists, links examples/add_i32.c through tokitai_hip.pc.
file(REMOVE_RECURSE "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("$ ${ARGN}\n${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (exit ${rc}): ${ARGN}")
  endif()
endfunction()
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/staging")
file(RENAME "${WORK_DIR}/staging" "${WORK_DIR}/prefix")
run("${CMAKE_CTEST_COMMAND}" --build-and-test "${SOURCE_DIR}/examples/downstream"
  "${WORK_DIR}/downstream" --build-generator "${GENERATOR}"
  --build-options "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
  --test-command "${CMAKE_CTEST_COMMAND}" --output-on-failure)
run("${CMAKE_CTEST_COMMAND}" --build-and-test "${SOURCE_DIR}/tests/downstream_tight"
  "${WORK_DIR}/tight" --build-generator "${GENERATOR}"
  --build-options "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
  --test-command "${CMAKE_CTEST_COMMAND}" --output-on-failure)
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} "${WORK_DIR}/prefix/lib/pkgconfig")
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs tokitai_hip OUTPUT_VARIABLE flags
    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config does not find tokitai_hip in the moved prefix")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(cc -std=c11 "${SOURCE_DIR}/examples/add_i32.c" ${flags} -o "${WORK_DIR}/add_i32_pc"
    "-Wl,-rpath,${WORK_DIR}/prefix/lib")
else()
  message(STATUS "pkg-config not found: tokitai_hip.pc not checked")
endif()
