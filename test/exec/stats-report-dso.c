// Checks DYNCALL_STATS=1 when every site is in a shared library and the program itself has none (found on muparser, a held-out program: libmuparser.so's sites, t_ParserTest none): the library's constructor registers first, before glibc registers _dl_fini, so the report's atexit handler runs inside _dl_fini, after the library's destructor unregistered its sites; the report must still count and list them (it printed "0 sites (0 direct, 0 guarded)" and no site). Also a library dlclose'd before exit: its sites stay in the report.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %dyncall_cc clang-19 -O2 -fPIC -shared -DLIB -rdynamic %s -o %t.dir/libstatsdso.so
// RUN: %dyncall_cc clang-19 -O2 -fPIC -shared -DLIB2 -rdynamic %s -o %t.dir/libstatsdso2.so
// RUN: %cc -O2 -DMAIN %s -o %t -L%t.dir -lstatsdso -Wl,-rpath,%t.dir -ldl
// RUN: env DYNCALL_STATS=1 %t %t.dir/libstatsdso2.so 2>&1 | FileCheck %s
// RUN: %t %t.dir/libstatsdso2.so 2>&1 | FileCheck %s --check-prefix=OFF
#include <stdio.h>

#if defined(LIB) || defined(LIB2)
#include <dyncall.h>

typedef int (*fn_t)(int);
struct ops {
	fn_t f DYNCALL;
};

static int one(int x) { return x + 1; }
static int two(int x) { return x + 2; }
static int three(int x) { return x + 3; }
static struct ops objs[3] = { { one }, { two }, { three } };

#ifdef LIB
#define CALL_OP lib_call_op
#else
#define CALL_OP lib2_call_op
#endif
__attribute__((noinline)) int CALL_OP(int i, int x)
{
	return objs[i % 3].f(x);
}
#endif

#ifdef MAIN
#include <dlfcn.h>

int lib_call_op(int i, int x);

int main(int argc, char **argv)
{
	long s = 0;
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*op2)(int, int) = h ? (int (*)(int, int))dlsym(h, "lib2_call_op") : 0;

	if (!op2)
		return 1;
	for (int i = 0; i < 100000; i++)
		s += lib_call_op(i, i) + op2(i, i);
	dlclose(h);
	printf("sum %ld\n", s);
	fflush(stdout);
	return 0;
}
#endif
// CHECK: sum 10000299998
// CHECK-NEXT: dyncall: 2 sites (0 direct, 2 guarded), {{[1-9][0-9]*}} samples, {{[1-9][0-9]*}} re-specialisations, 0 megamorphic; status: ok
// CHECK-NEXT: dyncall: sites with the most misses (estimated from samples; hits are not counted):
// CHECK-DAG: dyncall:   lib_call_op+0x{{[0-9a-f]+}} {{ *}}key=struct ops.f guarded misses~{{[1-9][0-9]*}} retargets={{[1-9]}} targets={{[^ ]+,[^ ]+,[^ ]+$}}
// CHECK-DAG: dyncall:   lib2_call_op+0x{{[0-9a-f]+}} {{ *}}key=struct ops.f guarded misses~{{[1-9][0-9]*}} retargets={{[1-9]}} targets={{[^ ]+,[^ ]+,[^ ]+$}}
// OFF: sum 10000299998
// OFF-NOT: dyncall:
