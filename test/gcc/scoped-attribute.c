// Checks that the scoped spelling [[dyncall::dynamic_call]] works with the GCC plugin as with Clang: in C it needs -std=c2x (or gnu2x; in C17 GCC does not parse `::` in an attribute), in C++ any standard; at the start of the declaration or after the declarator-id it applies to the declaration (a variable or a field, a key whose calls are sites); after the parameter list it appertains to the function type, which GCC ignores with a -Wattributes warning (Clang: an error); a static array key too. GCC 11 the same.
// REQUIRES: gcc-plugin
// (gcc-plugin: needs dyncall_gcc.so)
// RUN: %dyncall_gcc -std=c2x -O2 -S %gcc_arg-verbose %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %dyncall_gcc -std=gnu2x -O2 -S %gcc_arg-verbose %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %dyncall_gxx -x c++ -std=c++11 -O2 -S %gcc_arg-verbose %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -std=c2x -O2 -S %gcc11_arg-verbose %s -o /dev/null 2>&1 | FileCheck %s %}
// RUN: not %dyncall_gcc -std=c17 -O2 -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=C17

int one(int x) { return x + 1; }

[[dyncall::dynamic_call]] int (*on_tick)(int) = one;
int (*on_read [[dyncall::dynamic_call]])(int) = one;
int (*on_type)(int) [[dyncall::dynamic_call]] = one;
// CHECK: scoped-attribute.c:[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}}dynamic_call{{.*}} attribute ignored when parsing type [-Wattributes]
// C17: scoped-attribute.c:[[@LINE-4]]:{{[0-9]+}}: error: expected

struct ops {
	[[dyncall::dynamic_call]] int (*write)(int);
};

[[dyncall::dynamic_call]] static int (*table[2])(int) = { one, one };

int use(struct ops *o, int x)
{
	return on_tick(x) + on_read(x) + on_type(x) + o->write(x) + table[1](x);
}
// CHECK-DAG: scoped-attribute.c:[[@LINE-2]]:{{[0-9]+}}: note: dyncall: call through {{.*}}on_tick{{.*}} becomes a call to {{.*}}__dyncall_tramp.
// CHECK-DAG: scoped-attribute.c:[[@LINE-3]]:{{[0-9]+}}: note: dyncall: call through {{.*}}on_read{{.*}} becomes a call to {{.*}}__dyncall_tramp.
// CHECK-DAG: scoped-attribute.c:[[@LINE-4]]:{{[0-9]+}}: note: dyncall: call through {{.*}}ops.write{{.*}} becomes a call to {{.*}}__dyncall_tramp.
// CHECK-DAG: scoped-attribute.c:[[@LINE-5]]:{{[0-9]+}}: note: dyncall: call through {{.*}}table[]{{.*}} becomes a call to {{.*}}__dyncall_tramp.
// CHECK-NOT: call through {{.*}}on_type
