// Checks that C++ exceptions thrown by a target propagate through dyncall sites (call and invoke, fresh and guarded, on the first call during discovery and once patched) to the caller's handler, with destructors run, exactly as in the unannotated program.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); -mretpoline and -fcf-protection are x86-64 options; dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clangxx -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clangxx -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clangxx -O0 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
// RUN: %dyncall_clangxx -O2 -mretpoline -fcf-protection=full -DWITH_DYNCALL -I%exec_inputs %s -o %t.dcr %libdyncall_ldflags
// RUN: %t.dcr > %t.dcr.out
// RUN: diff %t.ref.out %t.dcr.out
#include <stdexcept>
#include <string>

#include "expect.h"

typedef int (*fp_t)(int);

static int throws(int x)
{
	if (x % 2)
		throw std::runtime_error("odd " + std::to_string(x));
	return x / 2;
}
static int throws_int(int x) { throw x * 100; }

fp_t DYNCALL fresh = throws;
fp_t DYNCALL guarded = throws;
fp_t *volatile guarded_addr = &guarded; // escapes: guarded sites

static int live;
struct Guard {
	const char *name;
	explicit Guard(const char *n) : name(n) { live++; }
	~Guard() { live--; }
};

// A call site with no handler in its frame: the exception passes through.
__attribute__((noinline)) static int pass_fresh(int x)
{
	Guard g("pass_fresh");
	return fresh(x) + 1;
}
__attribute__((noinline)) static int pass_guarded(int x)
{
	Guard g("pass_guarded");
	return guarded(x) + 1;
}
__attribute__((noinline)) static int tail_fresh(int x) { return fresh(x); }

// Invoke sites: the handler is in the site's own frame.
__attribute__((noinline)) static int catch_here(int x)
{
	try {
		return fresh(x);
	} catch (const std::runtime_error &e) {
		std::printf("  caught here: %s\n", e.what());
		return -1;
	}
}

static void attempt(const char *what, int (*f)(int), int x)
{
	try {
		int r = f(x);
		std::printf("%s(%d) = %d\n", what, x, r);
	} catch (const std::runtime_error &e) {
		std::printf("%s(%d) threw %s, live %d\n", what, x, e.what(), live);
	} catch (int v) {
		std::printf("%s(%d) threw int %d, live %d\n", what, x, v, live);
	}
}

int main()
{
	// First calls (discovery), then patched ones.
	for (int r = 0; r < 2; r++) {
		attempt("pass_fresh", pass_fresh, 3 + r);
		attempt("pass_guarded", pass_guarded, 5 + r);
		attempt("tail_fresh", tail_fresh, 7 + r);
		attempt("catch_here", catch_here, 9 + r);
	}
	EXPECT_KEY(fresh, 3, DYNCALL_STATE_DIRECT, 3);
	EXPECT_KEY(guarded, 1, DYNCALL_STATE_GUARDED, 1);
	long sum = 0;
	for (int i = 0; i < 1000; i++) {
		try {
			sum += pass_fresh(i) + pass_guarded(i);
		} catch (const std::runtime_error &) {
			sum -= 1;
		}
	}
	std::printf("loop %ld live %d\n", sum, live);
	fresh = throws_int;
	*guarded_addr = throws_int;
	attempt("pass_fresh", pass_fresh, 11);
	attempt("pass_guarded", pass_guarded, 12);
	attempt("tail_fresh", tail_fresh, 13);
	EXPECT_KEY(fresh, 3, DYNCALL_STATE_DIRECT, 3);
	return 0;
}
// CHECK:      pass_fresh(3) threw odd 3, live 0
// CHECK-NEXT: pass_guarded(5) threw odd 5, live 0
// CHECK-NEXT: tail_fresh(7) threw odd 7, live 0
// CHECK-NEXT:   caught here: odd 9
// CHECK-NEXT: catch_here(9) = -1
// CHECK-NEXT: pass_fresh(4) = 3
// CHECK-NEXT: pass_guarded(6) = 4
// CHECK-NEXT: tail_fresh(8) = 4
// CHECK-NEXT: catch_here(10) = 5
// CHECK-NEXT: loop 250000 live 0
// CHECK-NEXT: pass_fresh(11) threw int 1100, live 0
// CHECK-NEXT: pass_guarded(12) threw int 1200, live 0
// CHECK-NEXT: tail_fresh(13) threw int 1300, live 0
