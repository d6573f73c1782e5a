# Cross toolchain file: Debian's powerpc64le-linux-gnu-gcc-12,
# test/tools/prologues-cmake.test.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(CMAKE_C_COMPILER powerpc64le-linux-gnu-gcc-12)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
