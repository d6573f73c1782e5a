// Checks that the attribute written in a pointer declarator, `int (*DYNCALL k)(int)` (the spelling Clang accepts and the exec tests use), applies to the declaration in C and C++: globals, statics and fields become keys and their calls sites; on a parameter or an automatic variable it is the usual error, in a cast a -Wattributes warning (as with Clang).
// REQUIRES: gcc-plugin
// (gcc-plugin: needs dyncall_gcc.so)
// RUN: %dyncall_gcc -O2 -S %gcc_arg-verbose %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %dyncall_gxx -x c++ -O2 -S %gcc_arg-verbose %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %dyncall_gcc -O2 -S -DMISUSE %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISUSE
#define DYNCALL __attribute__((dynamic_call))

int one(int x) { return x + 1; }
int (*DYNCALL on_tick)(int) = one;
static int (*DYNCALL s_tick)(int) = one;
struct S {
	int (*DYNCALL read)(int);
};

int use(struct S *s, int x)
{
	return on_tick(x) + s_tick(x) + s->read(x);
}
// CHECK-DAG: attribute-in-declarator.c:[[@LINE-2]]:{{[0-9]+}}: note: dyncall: call through {{.*}}on_tick{{.*}} becomes a call to {{.*}}__dyncall_tramp.
// CHECK-DAG: attribute-in-declarator.c:[[@LINE-3]]:{{[0-9]+}}: note: dyncall: call through {{.*}}s_tick{{.*}} becomes a call to {{.*}}__dyncall_tramp.
// CHECK-DAG: attribute-in-declarator.c:[[@LINE-4]]:{{[0-9]+}}: note: dyncall: call through {{.*}}struct S.read{{.*}} becomes a call to {{.*}}__dyncall_tramp.

void set(int (*f)(int)) { on_tick = f; }
// CHECK-DAG: attribute-in-declarator.c:[[@LINE-1]]:{{[0-9]+}}: note: dyncall: store to {{.*}}on_tick{{.*}} goes through {{.*}}__dyncall_store

#ifdef MISUSE
void param(int (*DYNCALL p)(int));
// MISUSE: attribute-in-declarator.c:[[@LINE-1]]:{{[0-9]+}}: error: {{.*}}dynamic_call{{.*}} attribute only applies to variables with static storage duration
void automatic(void)
{
	int (*DYNCALL a)(int) = one;
// MISUSE: attribute-in-declarator.c:[[@LINE-1]]:{{[0-9]+}}: error: {{.*}}dynamic_call{{.*}} attribute only applies to variables with static storage duration
	(void)a;
}
int cast(void) { return ((int (*DYNCALL)(int))one)(1); }
// MISUSE: attribute-in-declarator.c:[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}}dynamic_call{{.*}} attribute ignored when parsing type [-Wattributes]
#endif
