// Checks the argument types hook lists refuse at compile time, with a clear message, under Clang and GCC (docs/hooks.md, "Limits"): stack arguments over the signature word's 32 KiB (before: the stack field wrapped to 0, or at 128 KiB set the data bit); a vector wider than 16 bytes (x86-64: the jump function keeps xmm, not ymm); a call with arguments of a list declared without any (a prototype `(void)`, before: `()`, which took any).  aarch64's refusal of a struct over 16 bytes (passed by reference) is checked by ../gcc/hook-lists-abi-cross.test with this file's BYREF case; the C++ ones by hook-lists-refused-cxx.cpp.  The accepted types compile without a diagnostic (VALID).
// REQUIRES: x86_64
// RUN: not %clang -fsyntax-only %libdyncall_cflags -DSTACK %s 2>&1 | FileCheck %s --check-prefix=STACK
// RUN: not %gcc -fsyntax-only %libdyncall_cflags -DSTACK %s 2>&1 | FileCheck %s --check-prefix=STACK
// RUN: not %clang -fsyntax-only %libdyncall_cflags -DSTACK128 %s 2>&1 | FileCheck %s --check-prefix=STACK
// RUN: not %gcc -fsyntax-only %libdyncall_cflags -DSTACK128 %s 2>&1 | FileCheck %s --check-prefix=STACK
// RUN: not %clang -fsyntax-only %libdyncall_cflags -mavx -DVEC %s 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: not %gcc -fsyntax-only %libdyncall_cflags -mavx -DVEC %s 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: not %clang -fsyntax-only %libdyncall_cflags -std=c17 -DNOARGS %s 2>&1 | FileCheck %s --check-prefix=NOARGS
// RUN: not %gcc -fsyntax-only %libdyncall_cflags -std=c17 -DNOARGS %s 2>&1 | FileCheck %s --check-prefix=NOARGS
// RUN: %clang -fsyntax-only -Werror %libdyncall_cflags -DVALID %s
// RUN: %gcc -fsyntax-only -Werror %libdyncall_cflags -DVALID %s

#include <dyncall.h>

#ifdef STACK
// STACK: hook lists: arguments over 32 KiB of stack
struct big32k {
	long v[4096];
};
DYNCALL_HOOKS(h, void, struct big32k);
#endif

#ifdef STACK128
struct big128k {
	long v[16384];
};
DYNCALL_HOOKS(h, void, int, struct big128k);
#endif

#ifdef VEC
// VEC: hook lists: vector argument wider than 16 bytes
typedef float v8sf __attribute__((vector_size(32)));
DYNCALL_HOOKS(h, void, int, v8sf);
#endif

#ifdef NOARGS
// NOARGS: too many arguments
DYNCALL_HOOKS(h, void);
void f(void) { DYNCALL_HOOKS_CALL(h, 1); }
#endif

#ifdef BYREF
// BYREF: a struct or union argument over 16 bytes is passed by reference on aarch64 (handlers would share it): pass a pointer
struct s24 {
	long v[3];
};
DYNCALL_HOOKS(h, void, int, struct s24);
#endif

#ifdef VALID
struct s16 {
	long a, b;
};
struct __attribute__((aligned(16))) a16 {
	long a, b;
};
union u16 {
	long l[2];
	double d;
};
typedef float v4sf __attribute__((vector_size(16)));
DYNCALL_HOOKS(h1, void, int, long, __int128, struct s16, struct a16, union u16);
DYNCALL_HOOKS(h2, void, float, double, long double, _Complex double);
#ifndef __powerpc64__
/* (GCC on ppc64le: "AltiVec argument passed to unprototyped function",
 * from __builtin_classify_type: vector arguments are not supported
 * there) */
DYNCALL_HOOKS(h6, void, int, v4sf);
#endif
DYNCALL_HOOKS(h3, void);
DYNCALL_HOOKS(h4, void, struct s16 *, void (*)(int), const char *);
#ifdef BYREF_OK
struct s24 {
	long v[3];
};
DYNCALL_HOOKS(h5, void, struct s24);
#endif
void f(void) { DYNCALL_HOOKS_CALL(h3); }
#endif
