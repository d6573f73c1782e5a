#!/bin/sh
# cxx-launcher.sh <g++> <the project's C++ compiler> <arguments...>
#
# The CXX_COMPILER_LAUNCHER and LINKER_LAUNCHER of a GCC plugin target
# whose g++ is not the project's C++ compiler (gcc-plugin/CMakeLists.txt):
# runs <g++> with the arguments CMake gave the project's compiler, so the
# plugin is a normal CMake target (in compile_commands.json) yet built by
# the g++ that matches the cc1 it is loaded into.
gxx=$1
shift 2
exec "$gxx" "$@"
