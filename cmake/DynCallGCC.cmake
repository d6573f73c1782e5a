# The GCCs the GCC plugin (gcc-plugin/) is built for, listed once: the
# top-level CMakeLists.txt looks for them (DYNCALL_ENABLE_GCC) and
# gcc-plugin/CMakeLists.txt makes one plugin target per entry.
#
# Each entry: <gcc>|<g++ that builds its plugin>|<plugin file>|<arch>|<package
# with its plugin headers>|<triple, for the <triple>/dyncall_gcc.so alias>
# A GCC plugin is loaded into that GCC's cc1, so it is built with a g++
# ABI-compatible with the one cc1 was built with.  The Debian cross
# compilers' cc1 is an x86-64 program built by Debian's g++-12.
include_guard(GLOBAL)

set(DYNCALL_GCC_PLUGINS
  "gcc-12|g++-12|dyncall_gcc.so|x86_64|gcc-12-plugin-dev|"
  "gcc-11|g++-11|dyncall_gcc11.so|x86_64|gcc-11-plugin-dev|"
  "aarch64-linux-gnu-gcc-12|g++-12|dyncall_gcc-aarch64-linux-gnu.so|aarch64|gcc-12-plugin-dev-aarch64-linux-gnu|aarch64-linux-gnu"
  "powerpc64le-linux-gnu-gcc-12|g++-12|dyncall_gcc-powerpc64le-linux-gnu.so|ppc64le|gcc-12-plugin-dev-powerpc64le-linux-gnu|powerpc64le-linux-gnu")

# dyncall_gcc_plugin_entry(<entry> <prefix>): sets <prefix>_GCC, _GXX,
# _OUTPUT, _ARCH, _PACKAGE and _TRIPLE (empty for a native plugin).
macro(dyncall_gcc_plugin_entry entry prefix)
  string(REPLACE "|" ";" _dyncall_fields "${entry}")
  list(GET _dyncall_fields 0 ${prefix}_GCC)
  list(GET _dyncall_fields 1 ${prefix}_GXX)
  list(GET _dyncall_fields 2 ${prefix}_OUTPUT)
  list(GET _dyncall_fields 3 ${prefix}_ARCH)
  list(GET _dyncall_fields 4 ${prefix}_PACKAGE)
  list(LENGTH _dyncall_fields _dyncall_n)
  set(${prefix}_TRIPLE "")
  if(_dyncall_n GREATER 5)
    list(GET _dyncall_fields 5 ${prefix}_TRIPLE)
  endif()
endmacro()

# The compilers alone, for messages and the component check.
set(DYNCALL_GCC_PLUGIN_COMPILERS "")
foreach(_dyncall_entry IN LISTS DYNCALL_GCC_PLUGINS)
  dyncall_gcc_plugin_entry("${_dyncall_entry}" _dyncall_e)
  list(APPEND DYNCALL_GCC_PLUGIN_COMPILERS ${_dyncall_e_GCC})
endforeach()
