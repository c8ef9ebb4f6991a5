# The Python package's C call (python/extension/call.c, docs/python.md): a module of Op.call
# for arrays, built for each python3 found whose headers are installed (Debian: python3-dev),
# one per ABI tag (the suffix that interpreter's imports look for). The package works without
# it (pure Python, slower): TOKITAI_HIP_PYTHON_EXTENSION=OFF, a sanitizer build, or no headers.
# Built beside the library, where the package looks in a build tree; installed into the package.
option(TOKITAI_HIP_PYTHON_EXTENSION "Build the Python package's C call (needs Python.h: python3-dev)" ON)
# TKH_PYTHON_CALL<suffix>: the module's target for that ABI suffix (the tests' interpreter's).
if(TOKITAI_HIP_PYTHON_EXTENSION AND NOT CMAKE_C_FLAGS MATCHES "sanitize")
  find_package(Python3 COMPONENTS Interpreter QUIET)
  foreach(_tkh_python IN ITEMS "${Python3_EXECUTABLE}" /usr/bin/python3)
    if(NOT EXISTS "${_tkh_python}")
      continue()
    endif()
    execute_process(COMMAND "${_tkh_python}" -c
      "import os, sysconfig; i = sysconfig.get_paths()['include']; print(sysconfig.get_config_var('EXT_SUFFIX') or '', i if os.path.exists(os.path.join(i, 'Python.h')) else '', sep=';', end='')"
      OUTPUT_VARIABLE _tkh_found RESULT_VARIABLE _tkh_rc ERROR_QUIET)
    list(LENGTH _tkh_found _tkh_n)
    if(NOT _tkh_rc EQUAL 0 OR NOT _tkh_n EQUAL 2)
      continue()
    endif()
    list(GET _tkh_found 0 _tkh_suffix)
    list(GET _tkh_found 1 _tkh_include)
    if(NOT _tkh_include)
      message(STATUS "Python C call: not for ${_tkh_python} (no Python.h; Debian: python3-dev)")
      continue()
    endif()
    if(NOT _tkh_suffix OR TKH_PYTHON_CALL${_tkh_suffix})
      continue()
    endif()
    string(MAKE_C_IDENTIFIER "tokitai_hip_python_call${_tkh_suffix}" _tkh_target)
    add_library(${_tkh_target} MODULE "${PROJECT_SOURCE_DIR}/python/extension/call.c")
    target_include_directories(${_tkh_target} PRIVATE "${_tkh_include}"
      $<TARGET_PROPERTY:tokitai_hip,INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_options(${_tkh_target} PRIVATE -Wall -Wextra -fno-strict-aliasing)
    set_target_properties(${_tkh_target} PROPERTIES PREFIX "" OUTPUT_NAME _tokitai_hip_call
      SUFFIX "${_tkh_suffix}" C_VISIBILITY_PRESET hidden
      LIBRARY_OUTPUT_DIRECTORY "$<TARGET_FILE_DIR:tokitai_hip>")
    if(TOKITAI_HIP_INSTALL)
      install(TARGETS ${_tkh_target} LIBRARY DESTINATION "${TOKITAI_HIP_PYTHON_DIR}/tokitai_hip")
    endif()
    set(TKH_PYTHON_CALL${_tkh_suffix} ${_tkh_target})
    message(STATUS "Python C call: for ${_tkh_python} (${_tkh_suffix})")
  endforeach()
endif()
