# The cross targets of dyncall, defined once: CMAKE_SYSTEM_PROCESSOR
# spelling = the Debian multiarch triple its runtime is built and installed
# under (<libdir>/<triple>/libdyncall.*).  Read by cmake/DynCallCross.cmake
# (which runtimes to build), the CMake package (which one a cross project
# links: DYNCALL_PACKAGE_TRIPLES) and dyncall_tool.py (dyncall-cc and
# dyncall-config: DYNCALL_TOOL_CROSS_ARCH).
include_guard(GLOBAL)

set(DYNCALL_CROSS_TARGETS
  "aarch64=aarch64-linux-gnu"
  "ppc64le=powerpc64le-linux-gnu")

set(DYNCALL_PACKAGE_TRIPLES "")
set(_dyncall_py "")  # a list: key=triple
foreach(entry IN LISTS DYNCALL_CROSS_TARGETS)
  string(REPLACE "=" ";" pair "${entry}")
  list(GET pair 0 processor)
  list(GET pair 1 triple)
  list(APPEND DYNCALL_PACKAGE_TRIPLES "set(_dyncall_triple_${processor} ${triple})")
  # dyncall_tool.py keys by the compiler's arch name (a triple's first
  # part) and by the processor's spelling when they differ
  string(REGEX MATCH "^[^-]+" arch "${triple}")
  list(APPEND _dyncall_py "${arch}=${triple}")
  if(NOT arch STREQUAL processor)
    list(APPEND _dyncall_py "${processor}=${triple}")
  endif()
endforeach()
# one set() per line, indented as the package's line that holds them
list(JOIN DYNCALL_PACKAGE_TRIPLES "\n  " DYNCALL_PACKAGE_TRIPLES)
list(JOIN _dyncall_py " " DYNCALL_TOOL_CROSS_ARCH)
unset(_dyncall_py)
unset(entry)
unset(pair)
unset(processor)
unset(triple)
unset(arch)
