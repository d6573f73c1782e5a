# Cross toolchain file: clang-19 for aarch64-linux-gnu (Debian's cross
# sysroot /usr/aarch64-linux-gnu), test/tools/prologues-cmake.test.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
