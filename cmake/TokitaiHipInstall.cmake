# Install: libraries, headers (ours and the generated core catalog's), the tool, the
# generator with its templates and the core op file, manifest.json, the CMake package
# and a pkg-config file. Every path is relative to the prefix: the tree can be moved.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TKH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/TokitaiHip")
set(TKH_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/tokitai_hip")

set_target_properties(tokitai_hip PROPERTIES EXPORT_NAME runtime)
set_target_properties(tokitai_hip_static PROPERTIES EXPORT_NAME runtime_static)
set(_tkh_install_targets tokitai_hip tokitai_hip_static)
if(TARGET tokitai_hip_reference_simd)
  list(APPEND _tkh_install_targets tokitai_hip_reference_simd)
endif()
if(TARGET tokitai-hip)
  list(APPEND _tkh_install_targets tokitai-hip)
endif()
install(TARGETS ${_tkh_install_targets} EXPORT TokitaiHipTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/runtime/include/" "${tkh_core_INCLUDE_DIR}/"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT TokitaiHipTargets NAMESPACE TokitaiHip:: DESTINATION "${TKH_INSTALL_CMAKEDIR}")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/gen" "${PROJECT_SOURCE_DIR}/templates"
  "${PROJECT_SOURCE_DIR}/ops" DESTINATION "${TKH_INSTALL_DATADIR}")
install(FILES "${tkh_core_MANIFEST}" DESTINATION "${TKH_INSTALL_DATADIR}")

configure_package_config_file("${TKH_CMAKE_DIR}/TokitaiHipConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/TokitaiHipConfig.cmake" INSTALL_DESTINATION "${TKH_INSTALL_CMAKEDIR}"
  PATH_VARS TKH_INSTALL_DATADIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/TokitaiHipConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/TokitaiHipConfig.cmake"
  "${PROJECT_BINARY_DIR}/TokitaiHipConfigVersion.cmake"
  "${TKH_CMAKE_DIR}/TokitaiHipPlatform.cmake" "${TKH_CMAKE_DIR}/TokitaiHipNvidiaHeaders.cmake"
  "${TKH_CMAKE_DIR}/TokitaiHipGpuTargets.cmake" "${TKH_CMAKE_DIR}/TokitaiHipGenerate.cmake"
  "${TKH_CMAKE_DIR}/TokitaiHipFingerprint.cmake"
  "${TKH_CMAKE_DIR}/TokitaiHipOps.cmake" "${TKH_CMAKE_DIR}/check_binary_targets.cmake"
  DESTINATION "${TKH_INSTALL_CMAKEDIR}")

# pkg-config, for builds without CMake: the shared library; HIP stays its private need.
# The prefix is found relative to the .pc file, so a moved tree still works.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  message(FATAL_ERROR "the pkg-config file needs a relative CMAKE_INSTALL_LIBDIR, got ${CMAKE_INSTALL_LIBDIR}")
endif()
file(RELATIVE_PATH TKH_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" TKH_PC_TO_PREFIX "${TKH_PC_TO_PREFIX}")
if(TKH_PLATFORM STREQUAL "amd")
  set(TKH_PC_PRIVATE_LIBS "-lamdhip64 -lmd -lm -lpthread -lstdc++")
else()
  set(TKH_PC_PRIVATE_LIBS "-lcudart -lmd -lm -lpthread -lstdc++")
endif()
configure_file("${TKH_CMAKE_DIR}/tokitai_hip.pc.in" "${PROJECT_BINARY_DIR}/tokitai_hip.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/tokitai_hip.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# The Python package (docs/python.md), pure Python: by default where Debian's python3 finds
# it for the prefix /usr (lib/python3/dist-packages; other prefixes: PYTHONPATH). Beside it
# _install.py names the library relative to the package, so the prefix can still move.
set(TOKITAI_HIP_PYTHON_DIR "lib/python3/dist-packages" CACHE STRING
  "Where cmake --install puts the Python package tokitai_hip (relative to the prefix, or absolute)")
if(IS_ABSOLUTE "${TOKITAI_HIP_PYTHON_DIR}")
  file(RELATIVE_PATH _tkh_py_to_lib "${TOKITAI_HIP_PYTHON_DIR}/tokitai_hip"
    "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _tkh_py_to_lib "/prefix/${TOKITAI_HIP_PYTHON_DIR}/tokitai_hip" "/prefix/${CMAKE_INSTALL_LIBDIR}")
endif()
file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/python/_install.py" CONTENT
  "# Written by cmake --install: the library, relative to this folder.\nLIBRARY = \"${_tkh_py_to_lib}/$<TARGET_SONAME_FILE_NAME:tokitai_hip>\"\n")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/tokitai_hip" DESTINATION "${TOKITAI_HIP_PYTHON_DIR}"
  PATTERN "__pycache__" EXCLUDE)
install(FILES "${PROJECT_BINARY_DIR}/python/_install.py" DESTINATION "${TOKITAI_HIP_PYTHON_DIR}/tokitai_hip")
