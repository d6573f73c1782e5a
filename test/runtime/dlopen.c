// Checks dlopen/dlclose: a module loaded later registers its sites, its ESCAPES key entry turns the main program's direct site into a guarded one at once, and dlclose unregisters it (three rounds).
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 -fPIC -shared %S/Inputs/dlopen-module.c -o %t.so %libdyncall_ldflags
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 -rdynamic %s -o %t %libdyncall_ldflags -ldl
// RUN: %t %t.so | FileCheck %s
#include <dlfcn.h>

#include "dyncall_test.h"

long target_a(long a, long b) { return a + b; }
long target_b(long a, long b) { return a * b; }
long (*shared_key)(long, long) = target_a;

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL cell, shared_key\n"
	"DC_KEY_ENTRY cell, shared_key, 0\n"
	"DC_SITE main_site, shared_key, cell, 3, DC_FRESH\n");
long main_site(long, long);

static void stats(const char *label)
{
	struct dyncall_stats st;
	struct dyncall_key_info ki;

	dyncall_get_stats(&st);
	dyncall_key_info(&shared_key, &ki);
	printf("%s: modules=%lu sites=%lu shared direct=%u guarded=%u "
	       "escapes=%d\n", label, (unsigned long)st.modules,
	       (unsigned long)st.sites, ki.ndirect, ki.nguarded, ki.escapes);
}

int main(int argc, char **argv)
{
	stats("start");
	// CHECK: start: modules=1 sites=1 shared direct=1 guarded=0 escapes=0
	for (int round = 0; round < 3; round++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		long (*dso_call)(long, long);
		int (*dso_site_state)(void);

		if (!h) {
			printf("dlopen: %s\n", dlerror());
			return 1;
		}
		dso_call = (long (*)(long, long))dlsym(h, "dso_call");
		dso_site_state = (int (*)(void))dlsym(h, "dso_site_state");
		stats("loaded");
		printf("dso: %ld direct=%d main: %ld\n", dso_call(7, 2),
		       dso_site_state(), main_site(2, 3));
		__dyncall_store(&shared_key, target_b);
		printf("stored: %ld\n", main_site(2, 3));
		__dyncall_store(&shared_key, target_a);
		dlclose(h);
		stats("closed");
	}
	// CHECK: loaded: modules=2 sites=2 shared direct=0 guarded=1 escapes=1
	// CHECK-NEXT: dso: 5 direct=1 main: 5
	// CHECK-NEXT: stored: 6
	// CHECK-NEXT: closed: modules=1 sites=1 shared direct=0 guarded=1 escapes=1
	// CHECK: loaded: modules=2 sites=2
	// CHECK: closed: modules=1 sites=1
	// CHECK: loaded: modules=2 sites=2
	// CHECK: closed: modules=1 sites=1
	printf("end: %ld\n", main_site(2, 3));
	// CHECK-NEXT: end: 5
	return 0;
}
