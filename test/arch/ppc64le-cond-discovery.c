// Checks the code ppc64le run-time discovery of a Clang conditional site uses (runtime/arch/ppc64le.c, ppc64le.S, docs/hooks.md "Site shapes (ppc64le)") under qemu-ppc64le: before the site first runs, its trampoline's branch goes to the site's discovery thunk (`r12 = &site` in five instructions, `b` to the region header's discovery entry, two traps), and the header's entry at +32 is `mr r0, r12`, r12 = dc_ppc64le_discover_entry, `mtctr r12; bctr`; the first call of the unset site (NULL: nothing is called) discovers it and makes it `b .+8` over `ld r2, 24(r1)`; the trampoline's branch leaves the thunk; set, the site is the linker's `bl <stub>; ld r2, 24(r1)` again and the target runs once per call; cleared, `b .+8` again.
// REQUIRES: dyncall-pass
// (dyncall-pass: the Clang plugins; qemu-ppc64le and dyncall-runtime-ppc64le per RUN line)
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc_ppc64le -O2 %s -o %t.ppc %rt_ppc64le %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %run_ppc64le %t.ppc | FileCheck %s %}
#include <dyncall.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void (*hook)(int) DYNCALL;
static int hits;

__attribute__((noinline)) void h(int x) { hits += x; }
__attribute__((noinline)) void fire(int x) { if (hook) hook(x); }

static uint32_t word(const void *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

/* The destination of the b/bl at p. */
static const char *dest(const char *p)
{
	uint32_t w = word(p);

	return p + ((int64_t)((uint64_t)(w & 0x03fffffcu) << 38) >> 38);
}

struct seen {
	const char *tramp, *call;
	unsigned ncalls;
	int discovering;
};

static int get(const struct dyncall_site_info *si, void *arg)
{
	struct seen *s = arg;

	s->tramp = si->tramp;
	s->ncalls = si->ncalls;
	s->call = si->ncalls ? si->calls[0] : NULL;
	s->discovering = si->discovering;
	return 1;
}

static void words(const char *what, const char *p, int n)
{
	printf("%s:", what);
	for (int i = 0; i < n; i++)
		printf(" %08x", word(p + 4 * i));
	printf("\n");
}

int main(void)
{
	struct seen s = { 0 };
	const char *thunk, *hdr;

	dyncall_foreach_site(&hook, get, &s);
	printf("before: %u calls, discovering %d\n", s.ncalls, s.discovering);
	// CHECK: before: 0 calls, discovering 1
	thunk = dest(s.tramp);
	// the thunk: lis/ori/sldi/oris/ori r12 = &site, b header+32, trap x2
	words("thunk", thunk, 8);
	// CHECK-NEXT: thunk: 3d80{{....}} 618c{{....}} 798c07c6 658c{{....}} 618c{{....}} {{4[89ab].....[048c]}} 7fe00008 7fe00008
	hdr = dest(thunk + 20);
	printf("header +%d\n", (int)((uintptr_t)hdr & 63));
	// CHECK-NEXT: header +32
	// mr r0, r12; r12 = dc_ppc64le_discover_entry; mtctr r12; bctr
	words("entry", hdr, 8);
	// CHECK-NEXT: entry: 7d806378 3d80{{....}} 618c{{....}} 798c07c6 658c{{....}} 618c{{....}} 7d8903a6 4e800420

	fire(1);
	dyncall_foreach_site(&hook, get, &s);
	printf("null: hits %d, %u calls, discovering %d\n", hits, s.ncalls,
	       s.discovering);
	// CHECK-NEXT: null: hits 0, 1 calls, discovering 0
	words("site", s.call, 2);
	// CHECK-NEXT: site: 48000008 e8410018
	printf("trampoline off the thunk: %s\n",
	       dest(s.tramp) != thunk ? "yes" : "no");
	// CHECK-NEXT: trampoline off the thunk: yes

	hook = h;
	fire(2);
	fire(3);
	words("set", s.call, 2);
	// CHECK-NEXT: set: {{4[89ab].....[159d]}} e8410018
	printf("set: hits %d, calls the stub of its trampoline: %s\n", hits,
	       dest(dest(s.call) + 4) == s.tramp ? "yes" : "no");
	// CHECK-NEXT: set: hits 5, calls the stub of its trampoline: yes

	hook = NULL;
	fire(4);
	words("cleared", s.call, 2);
	// CHECK-NEXT: cleared: 48000008 e8410018
	printf("cleared: hits %d\n", hits);
	// CHECK-NEXT: cleared: hits 5
	return 0;
}
