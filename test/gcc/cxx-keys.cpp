// Checks C++: qualified key names (ns::h, ns::S::sf, struct ns::S.f), sites in COMDAT (inline, template) functions with "aoG" __dyncall_sites sections in the function's group, -flto, and the same output as without the plugin.
// REQUIRES: gcc-plugin, x86_64
// (gcc-plugin: needs dyncall_g++ via dyncall_gcc.so; x86_64: the stand-in decodes x86-64 bytes)
// RUN: %dyncall_gxx -O1 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %gcc -c -O2 -I%src_root/include %gcc_inputs/check_runtime.c -o %t.rt.o
// RUN: %gxx -O2 -Wno-attributes %s -o %t.plain
// RUN: %t.plain > %t.expected
// RUN: %dyncall_gxx -O2 %s %t.rt.o -o %t
// RUN: %t > %t.out
// RUN: FileCheck %s < %t.out
// RUN: tail -1 %t.out | diff - %t.expected
// RUN: %dyncall_gxx -O2 -flto %s %t.rt.o -o %t.lto
// RUN: %t.lto | FileCheck %s
// RUN: %if gcc11-plugin %{ %dyncall_gxx11 -O2 %s %t.rt.o -o %t.11 %}
// RUN: %if gcc11-plugin %{ %t.11 | FileCheck %s %}
#include <cstdio>

namespace ns {
int (*h)(int) __attribute__((dynamic_call));
struct S {
	int (*f)(int) __attribute__((dynamic_call));
	static int (*sf)(int) __attribute__((dynamic_call));
};
int (*S::sf)(int);
} // namespace ns

static int add1(int x) { return x + 1; }
static int dbl(int x) { return x * 2; }

inline int in_inline(int x) { return ns::h(x) + 1; }
template <class T> __attribute__((noinline)) int in_template(T x) { return ns::S::sf(x) + 2; }
__attribute__((noinline)) int user(ns::S *s, int x)
{
	return in_inline(x) + in_template(x) + s->f(x);
}

// ASM: .string "ns::h"
// ASM: .string "ns::S::sf"
// ASM: .string "struct ns::S.f"
// ASM-LABEL: _Z11in_templateIiEiT_:
// ASM: .pushsection __dyncall_sites,"aoG",@progbits,.Ldyncall_func{{[0-9]+}},_Z11in_templateIiEiT_,comdat
// ASM-LABEL: _Z4userPN2ns1SEi:
// ASM: .pushsection __dyncall_sites,"ao",@progbits,.Ldyncall_func{{[0-9]+}}

// CHECK-DAG: key ns::h flags=-
// CHECK-DAG: key ns::S::sf flags=-
// CHECK-DAG: key struct ns::S.f flags=TYPE
// CHECK-DAG: site key=ns::h kind=call flags=FRESH
// CHECK-DAG: site key=ns::S::sf kind={{call|tail}} flags=FRESH
// CHECK-DAG: site key=struct ns::S.f kind=call flags=FRESH|TYPE_KEY
// CHECK: registered {{[0-9]+}} sites {{[0-9]+}} keys, 0 errors

int main()
{
	ns::S s{dbl};
	ns::h = add1;
	ns::S::sf = dbl;
	int a = user(&s, 3);
	ns::h = dbl;
	s.f = add1;
	std::printf("%d %d\n", a, user(&s, 4));
}
