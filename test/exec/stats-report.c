// Checks DYNCALL_STATS=1: at exit the runtime prints one summary line and the sites with the most sampled misses (where, key, state, the targets their stub compares), after the program's own output; nothing without the variable; a bad value warns and keeps it off. (built with dyncall-cc, whose link-time relax names the tail site so that it is reported at call_op+0x.., with -rdynamic for the names)
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// RUN: %dyncall_cc clang-19 -O2 -rdynamic %s -o %t
// RUN: env DYNCALL_STATS=1 %t 2>&1 | FileCheck %s
// RUN: %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env DYNCALL_STATS=maybe %t 2>&1 | FileCheck %s --check-prefix=BAD
#include <stdio.h>

#include <dyncall.h>

typedef int (*fn_t)(int);
struct ops {
	fn_t f DYNCALL;
};

int one(int x) { return x + 1; }
int two(int x) { return x + 2; }
int three(int x) { return x + 3; }
struct ops objs[3] = { { one }, { two }, { three } };

__attribute__((noinline)) int call_op(struct ops *o, int x)
{
	return o->f(x);
}

int main(void)
{
	long s = 0;

	for (int i = 0; i < 100000; i++)
		s += call_op(&objs[i % 3], i);
	printf("sum %ld\n", s);
	fflush(stdout);
	return 0;
}
// CHECK: sum 5000149999
// CHECK-NEXT: dyncall: 1 sites (0 direct, 1 guarded), {{[1-9][0-9]*}} samples, {{[1-9][0-9]*}} re-specialisations, 0 megamorphic; status: ok
// CHECK-NEXT: dyncall: sites with the most misses (estimated from samples; hits are not counted):
// CHECK-NEXT: dyncall:   call_op+0x{{[0-9a-f]+}} {{ *}}key=struct ops.f guarded misses~{{[1-9][0-9]*}} retargets={{[1-9]}} targets={{(one|two|three)\+0x0,(one|two|three)\+0x0,(one|two|three)\+0x0$}}
// OFF: sum 5000149999
// OFF-NOT: dyncall:
// BAD: dyncall: warning: DYNCALL_STATS=maybe is not one of 1/0, yes/no, true/false, on/off; ignored
// BAD: sum 5000149999
// BAD-NOT: dyncall:
