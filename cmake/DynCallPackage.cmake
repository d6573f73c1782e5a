# The installed CMake package (find_package(DynCall)) and pkg-config file.
# Both locate the prefix from their own location, so the prefix can move.
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

set(_dyncall_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/DynCall)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/DynCallConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/DynCallConfig.cmake
  INSTALL_DESTINATION ${_dyncall_cmake_dir}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR DYNCALL_PLUGIN_INSTALL_DIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/DynCallConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/DynCallConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/DynCallConfigVersion.cmake
  DESTINATION ${_dyncall_cmake_dir})

# the host's runtime; the cross runtimes get one each in
# <libdir>/<triple>/pkgconfig (cmake/DynCallCross.cmake)
set(DYNCALL_PC_WHAT "The host's runtime.")
set(DYNCALL_PC_UP ../..)
set(DYNCALL_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(DYNCALL_PC_GCC_PLUGIN dyncall_gcc.so)
configure_file(${PROJECT_SOURCE_DIR}/cmake/dyncall.pc.in
               ${PROJECT_BINARY_DIR}/cmake/dyncall.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/dyncall.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
