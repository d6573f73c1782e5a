# LLVM/Clang 19 for the Clang attribute plugin and the LLVM pass plugin.
#
# Provides, for llvm-pass/CMakeLists.txt:
#   LLVM_INCLUDE_DIRS, CLANG_INCLUDE_DIRS, LLVM_DEFINITIONS, LLVM_VERSION,
#   LLVM_TOOLS_BINARY_DIR, DYNCALL_HAVE_LLVM
#   dyncall_add_plugin(<name> <sources...>)
#
# Without LLVM/Clang 19 it stops with an error, unless DYNCALL_LLVM_OPTIONAL
# is set (the top-level DYNCALL_ENABLE_LLVM=AUTO/ON): then it returns with
# DYNCALL_HAVE_LLVM FALSE and DYNCALL_LLVM_MISSING saying what is missing.
#
# Plugins are loaded into clang (-fplugin=/-fpass-plugin=), so they link no
# LLVM/Clang library: every symbol comes from the host process. Linking
# libLLVM a second time would give two copies of every cl::opt registry.
include_guard(GLOBAL)

set(DYNCALL_LLVM_REQUIRED_MAJOR 19)
set(DYNCALL_HAVE_LLVM FALSE)

# message(FATAL_ERROR) or, with DYNCALL_LLVM_OPTIONAL, a return from this
# file with the first line of the message in DYNCALL_LLVM_MISSING.
macro(_dyncall_llvm_missing first)
  if(DYNCALL_LLVM_OPTIONAL)
    set(DYNCALL_LLVM_MISSING "${first}")
    return()
  endif()
  message(FATAL_ERROR "dyncall: ${first}.\n" ${ARGN})
endmacro()
set(_dyncall_llvm_hint "/usr/lib/llvm-${DYNCALL_LLVM_REQUIRED_MAJOR}/lib/cmake/llvm")

# Debian installs several LLVMs side by side and the unversioned search finds
# whichever comes first (often an older one): default to llvm-19 when present.
if(NOT LLVM_DIR AND EXISTS "${_dyncall_llvm_hint}/LLVMConfig.cmake")
  set(LLVM_DIR "${_dyncall_llvm_hint}" CACHE PATH "Directory of LLVMConfig.cmake (LLVM ${DYNCALL_LLVM_REQUIRED_MAJOR})")
endif()

# No version in find_package(): we want to name the version we did find.
find_package(LLVM CONFIG QUIET)
if(NOT LLVM_FOUND)
  _dyncall_llvm_missing(
    "LLVM ${DYNCALL_LLVM_REQUIRED_MAJOR} not found (no LLVMConfig.cmake)"
    "Install it (Debian 12: apt-get install llvm-19-dev libclang-19-dev clang-19, "
    "or run scripts/install-deps.sh) and/or configure with "
    "-DLLVM_DIR=${_dyncall_llvm_hint}")
endif()
if(NOT LLVM_VERSION_MAJOR EQUAL DYNCALL_LLVM_REQUIRED_MAJOR)
  _dyncall_llvm_missing(
    "found LLVM ${LLVM_PACKAGE_VERSION} in ${LLVM_DIR}, but the plugins need LLVM ${DYNCALL_LLVM_REQUIRED_MAJOR} (they are loaded into clang-${DYNCALL_LLVM_REQUIRED_MAJOR})"
    "Fix: install llvm-19-dev libclang-19-dev and reconfigure in a fresh build "
    "directory with -DLLVM_DIR=${_dyncall_llvm_hint}")
endif()
message(STATUS "dyncall: LLVM ${LLVM_PACKAGE_VERSION} (${LLVM_DIR})")

# Clang's CMake package is optional: Debian's can reference files that only
# other packages ship. The headers are what we need.
find_package(Clang CONFIG QUIET HINTS "${LLVM_INSTALL_PREFIX}/lib/cmake/clang" NO_DEFAULT_PATH)
if(NOT CLANG_INCLUDE_DIRS)
  foreach(_dir IN LISTS LLVM_INCLUDE_DIRS)
    if(EXISTS "${_dir}/clang/Basic/Version.h")
      set(CLANG_INCLUDE_DIRS "${_dir}")
      break()
    endif()
  endforeach()
endif()
if(NOT CLANG_INCLUDE_DIRS OR NOT EXISTS "${CLANG_INCLUDE_DIRS}/clang/Basic/Version.h")
  _dyncall_llvm_missing(
    "Clang ${DYNCALL_LLVM_REQUIRED_MAJOR} headers not found next to ${LLVM_INCLUDE_DIRS}"
    "Fix: apt-get install libclang-19-dev")
endif()

separate_arguments(LLVM_DEFINITIONS_LIST NATIVE_COMMAND "${LLVM_DEFINITIONS}")
set(DYNCALL_HAVE_LLVM TRUE)

# The clang/clang++ the plugins are for (used by the lit config and examples).
find_program(DYNCALL_CLANG NAMES clang-${DYNCALL_LLVM_REQUIRED_MAJOR} clang
  HINTS "${LLVM_TOOLS_BINARY_DIR}" NO_DEFAULT_PATH)
find_program(DYNCALL_CLANG NAMES clang-${DYNCALL_LLVM_REQUIRED_MAJOR})

# dyncall_add_plugin(<name> <sources...>)
# A MODULE library <name>.so in ${DYNCALL_PLUGIN_OUTPUT_DIR}, installed into
# ${DYNCALL_PLUGIN_INSTALL_DIR}.
function(dyncall_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY "${DYNCALL_PLUGIN_OUTPUT_DIR}"
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    CXX_EXTENSIONS OFF
    CXX_VISIBILITY_PRESET default
    POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  target_include_directories(${name} PRIVATE "${DYNCALL_ABI_INCLUDE_DIR}")
  target_compile_definitions(${name} PRIVATE ${LLVM_DEFINITIONS_LIST})
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${name} PRIVATE -fno-rtti)
  endif()
  # Unresolved LLVM/Clang symbols are resolved against the host clang at
  # dlopen time: never pass -Wl,--no-undefined / -z defs here.
  install(TARGETS ${name} LIBRARY DESTINATION "${DYNCALL_PLUGIN_INSTALL_DIR}")
endfunction()
