# Cross toolchain file: Debian's aarch64-linux-gnu-gcc-12,
# test/tools/prologues-cmake.test.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc-12)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
