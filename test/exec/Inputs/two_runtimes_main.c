/*
 * The program of test/exec/two-runtimes.test: linked with libdyncall.a,
 * it uses a library built against libdyncall.so, linked with it (argv[1]
 * "linked") or dlopen'ed after its own sites were patched ("dlopen").
 * Every call must reach what its key holds; statuses are printed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

static int twice(int x)
{
	return 2 * x;
}

int (*DYNCALL op)(int) = twice;

__attribute__((noinline)) static int apply(int x)
{
	return op(x);
}

#ifdef LINKED
int lib_apply(int x);
void lib_switch(void);
void lib_store(void);
#endif

int main(void)
{
	int (*l_apply)(int);
	void (*l_switch)(void);
	void (*l_store)(void);
	int a;

	a = apply(3);
	printf("apply %d status %d\n", a, dyncall_status());
#ifdef LINKED
	l_apply = lib_apply;
	l_switch = lib_switch;
	l_store = lib_store;
#else
	void *h = dlopen(LIB, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	l_apply = (int (*)(int))dlsym(h, "lib_apply");
	l_switch = (void (*)(void))dlsym(h, "lib_switch");
	l_store = (void (*)(void))dlsym(h, "lib_store");
#endif
	a = l_apply(2);
	printf("lib_apply %d\n", a);
	l_switch();
	a = l_apply(2);
	printf("lib_apply %d\n", a);
	l_store();
	a = apply(3);
	printf("apply %d status %d\n", a, dyncall_status());
	return 0;
}
