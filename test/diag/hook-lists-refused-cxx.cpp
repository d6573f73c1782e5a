// Checks that hook lists refuse, under Clang and GCC, a C++ class argument that is not trivially copyable (a user copy constructor, or destructor): the Itanium C++ ABI passes it by reference to a caller-made temporary the callee may modify, which every handler would share (before: its pointer was not even counted in rdi, and the second handler crashed).  Trivially copyable classes are accepted (VALID).
// REQUIRES: x86_64
// RUN: not %clangxx -fsyntax-only %libdyncall_cflags -DCOPY %s 2>&1 | FileCheck %s
// RUN: not %gxx -fsyntax-only %libdyncall_cflags -DCOPY %s 2>&1 | FileCheck %s
// RUN: not %clangxx -fsyntax-only %libdyncall_cflags -DDTOR %s 2>&1 | FileCheck %s
// RUN: not %gxx -fsyntax-only %libdyncall_cflags -DDTOR %s 2>&1 | FileCheck %s
// RUN: %clangxx -fsyntax-only -Werror %libdyncall_cflags -DVALID %s
// RUN: %gxx -fsyntax-only -Werror %libdyncall_cflags -DVALID %s

#include <dyncall.h>

// CHECK: hook lists: a class argument that is not trivially copyable is passed by reference (handlers would share it): pass a pointer

#ifdef COPY
struct NT {
	long a[3];
	NT(long x) : a{ x, 0, 0 } {}
	NT(const NT &o) : a{ o.a[0], o.a[1], o.a[2] } {}
};
DYNCALL_HOOKS(h, void, int, NT);
#endif

#ifdef DTOR
struct D {
	long a;
	~D() {}
};
DYNCALL_HOOKS(h, void, D);
#endif

#ifdef VALID
struct T {
	long a[3];
	T(long x) : a{ x, 0, 0 } {}
};
struct E {};
DYNCALL_HOOKS(h1, void, T, int, E);
DYNCALL_HOOKS(h2, void);
DYNCALL_HOOKS(h3, void, const T *, double);
void f() { DYNCALL_HOOKS_CALL(h2); }
#endif
