# Cross-built runtimes for the foreign arches of issue 5, part of the
# normal build:
#   build/lib/aarch64-linux-gnu/libdyncall.{a,so}
#   build/lib/powerpc64le-linux-gnu/libdyncall.{a,so}
# Each is the standalone runtime/ project built with clang --target=<triple>
# against the Debian cross sysroot (/usr/<triple>) and linked with lld.
# The aarch64 one is built with -mbranch-protection=standard so it is
# BTI/PAC-marked (it runs unchanged on cores without BTI/PAC: hint space;
# libdyncall.a objects carry the property; libdyncall.so does not, because
# Debian 12's cross crti.o/crtbeginS.o lack it and the linker ANDs them).
# A triple whose toolchain cannot link a shared object is skipped with a
# message.  DYNCALL_CROSS_RUNTIMES=OFF skips all of them.
include_guard(GLOBAL)
include(ExternalProject)

option(DYNCALL_CROSS_RUNTIMES "Build libdyncall for aarch64 and ppc64le too" ON)

function(dyncall_cross_runtime triple processor)
  set(cc "${DYNCALL_CROSS_CC}")
  set(probe_dir ${PROJECT_BINARY_DIR}/cross/probe-${triple})
  file(MAKE_DIRECTORY ${probe_dir})
  file(WRITE ${probe_dir}/probe.c "#define _GNU_SOURCE\n#include <link.h>\nint probe(void) { return dl_iterate_phdr(0, 0); }\n")
  execute_process(
    COMMAND ${cc} --target=${triple} -fuse-ld=lld -shared -fPIC
            ${probe_dir}/probe.c -o ${probe_dir}/probe.so
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(STATUS "dyncall: no ${triple} cross toolchain (${cc} --target=${triple} "
                   "with /usr/${triple} and lld): cross runtime skipped")
    return()
  endif()
  set(flags "")
  if(processor STREQUAL "aarch64")
    # -mno-outline-atomics: no dependency on libgcc's __aarch64_* helpers,
    # whose constructor (init_have_lse_atomics) has no BTI landing pad.
    set(flags "-mbranch-protection=standard -mno-outline-atomics")
  endif()
  set(out ${PROJECT_BINARY_DIR}/lib/${triple})
  ExternalProject_Add(dyncall-runtime-${triple}
    SOURCE_DIR ${PROJECT_SOURCE_DIR}/runtime
    BINARY_DIR ${PROJECT_BINARY_DIR}/cross/${triple}
    CMAKE_ARGS
      -G Ninja
      -DCMAKE_BUILD_TYPE=RelWithDebInfo
      -DCMAKE_SYSTEM_NAME=Linux
      -DCMAKE_SYSTEM_PROCESSOR=${processor}
      -DCMAKE_C_COMPILER=${cc}
      -DCMAKE_C_COMPILER_TARGET=${triple}
      -DCMAKE_ASM_COMPILER=${cc}
      -DCMAKE_ASM_COMPILER_TARGET=${triple}
      -DCMAKE_AR=${DYNCALL_CROSS_AR}
      -DCMAKE_RANLIB=${DYNCALL_CROSS_RANLIB}
      -DCMAKE_C_FLAGS=${flags}
      -DCMAKE_ASM_FLAGS=${flags}
      -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld
      -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld
      -DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY
    BUILD_ALWAYS ON
    BUILD_BYPRODUCTS ${out}/libdyncall.a ${out}/libdyncall.so
    INSTALL_COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
      COMMAND ${CMAKE_COMMAND} -E copy_if_different
        <BINARY_DIR>/lib/libdyncall.a <BINARY_DIR>/lib/libdyncall.so.1.0.0 ${out}
      COMMAND ${CMAKE_COMMAND} -E create_symlink libdyncall.so.1.0.0 ${out}/libdyncall.so.1
      COMMAND ${CMAKE_COMMAND} -E create_symlink libdyncall.so.1 ${out}/libdyncall.so
    USES_TERMINAL_BUILD OFF)
  # Installed beside the host's, <libdir>/<triple>/ (Debian's multiarch
  # names): the CMake package's DynCall::dyncall in a cross build for
  # <processor> (cmake/DynCallConfig.cmake.in).  The symlinks stay links.
  install(FILES ${out}/libdyncall.a ${out}/libdyncall.so.1.0.0
                ${out}/libdyncall.so.1 ${out}/libdyncall.so
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/${triple})
  # and its pkg-config file where Debian's <triple>-pkg-config looks
  # (<libdir>/<triple>/pkgconfig): libdir is the triple's, gcc_plugin the
  # cross GCC plugin's alias (<plugindir>/<triple>/dyncall_gcc.so)
  set(DYNCALL_PC_WHAT "The ${triple} runtime.")
  set(DYNCALL_PC_UP ../../..)
  set(DYNCALL_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR}/${triple})
  set(DYNCALL_PC_GCC_PLUGIN ${triple}/dyncall_gcc.so)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/dyncall.pc.in
                 ${PROJECT_BINARY_DIR}/cmake/${triple}/dyncall.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/${triple}/dyncall.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/${triple}/pkgconfig)
  message(STATUS "dyncall: cross runtime for ${triple} -> ${out}")
endfunction()

if(DYNCALL_CROSS_RUNTIMES AND EXISTS ${PROJECT_SOURCE_DIR}/runtime/CMakeLists.txt)
  find_program(DYNCALL_CROSS_CC NAMES clang-19 clang)
  find_program(DYNCALL_CROSS_AR NAMES llvm-ar-19 llvm-ar ar)
  find_program(DYNCALL_CROSS_RANLIB NAMES llvm-ranlib-19 llvm-ranlib ranlib)
  if(NOT DYNCALL_CROSS_CC)
    message(STATUS "dyncall: no clang for the cross runtimes: skipped")
  else()
    foreach(entry IN LISTS DYNCALL_CROSS_TARGETS) # cmake/DynCallTargets.cmake
      string(REPLACE "=" ";" pair "${entry}")
      list(GET pair 0 processor)
      list(GET pair 1 triple)
      dyncall_cross_runtime(${triple} ${processor})
    endforeach()
    unset(entry)
    unset(pair)
    unset(processor)
    unset(triple)
  endif()
endif()
