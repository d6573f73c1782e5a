// Checks the exact bytes of an x86-64 guard stub after a site learned 1, 2 and 4 targets and once megamorphic (one compare, then the plain slow path), and the learning knobs: DYNCALL_LEARN=0 (one-target guard, nothing learned), DYNCALL_LEARN_TARGETS=2 (at most 2 targets), DYNCALL_LEARN_RETARGETS=0 (megamorphic after its first window), DYNCALL_LEARN_TARGETS=9 (a one-line warning, the default kept).
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 %s -o %t %libdyncall_ldflags
// Every miss sampled (period 1: deterministic), a window of 2 (then 4, 8).
// RUN: env DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=2 DYNCALL_LEARN_RETARGETS=2 %t 2>&1 | FileCheck %s --check-prefixes=CHECK,X86_64
// RUN: env DYNCALL_LEARN=0 DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=2 %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env DYNCALL_LEARN_TARGETS=2 DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=2 %t 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: env DYNCALL_LEARN_RETARGETS=0 DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=2 %t 2>&1 | FileCheck %s --check-prefix=MEGA0
// RUN: env DYNCALL_LEARN_TARGETS=9 DYNCALL_LEARN_PERIOD=1 DYNCALL_LEARN_WINDOW=2 %t 2>&1 | FileCheck %s --check-prefix=BAD
//
// The program: an escaped key (its sites are guarded) stored once through
// the runtime (h0), then changed by plain stores the runtime does not see
// (code built without the plugin), single-threaded: h1 twice (window 2),
// h2/h3 alternately 4 times (window 4), h4 8 times (window 8).  Each call
// must reach the handler the site loaded.
#define DC_TEST_NO_CTOR
#include <stdatomic.h>
#include <stdlib.h>

#include "dyncall_test.h"

void *key;

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL cell, key\n"
	"DC_KEY_ENTRY cell, key, DC_ESCAPES\n"
	"	DC_TRAMP site_tramp\n"
	"	.text\n	.globl site\n	.balign 16\n"
	"site:\n"
	"	sub $8, %rsp\n"
	"	mov key(%rip), %r10\n"
	"	mov %r10, %rdi\n"
	"	.balign 8, 0x90\n	.skip 3, 0x90\n"
	"site_call:\n"
	"	.byte 0xe8\n	.long site_tramp - . - 4\n"
	"	add $8, %rsp\n	ret\n"
	"	DC_SITE_ENTRY site_call, site_tramp, cell, site, DC_CALL, DC_FRESH\n");

long site(void);
extern char site_call[], site_tramp[];
static long failures;

#define H(n)                                                                 \
	long h##n(void *loaded);                                             \
	long h##n(void *loaded)                                              \
	{                                                                    \
		if (loaded != (void *)h##n)                                  \
			failures++;                                          \
		return n;                                                    \
	}
H(0)
H(1)
H(2)
H(3)
H(4)

static const void *dest(const uint8_t *p, int len)
{
	int32_t d;

	memcpy(&d, p + len - 4, 4);
	return p + len + d;
}

/* The stub the site's call branches to, instruction by instruction: the
 * opcode bytes exactly, a rip-relative operand as the stub offset of the
 * literal it reads, a branch as the handler it reaches (or the first four
 * bytes of the region entry it reaches), then the literals. */
static void dump_stub(const char *when)
{
	const uint8_t *st = dest((const uint8_t *)site_call, 5), *p;
	long lit = -1; /* the first literal: the first rip-relative operand */
	int ncmp = 0, pad = 0;

	printf("%s stub:", when);
	if ((const char *)st == site_tramp) {
		printf(" none (trampoline)\n");
		return;
	}
	for (p = st; *p != 0xcc && p - st < 128;) {
		if (p[0] == 0x4c && (p[1] == 0x3b || p[1] == 0x8d)) {
			long off = (const uint8_t *)dest(p, 7) - st;

			printf(" %02x %02x %02x [lit+%#lx]", p[0], p[1], p[2],
			       off);
			if (lit < 0)
				lit = off;
			ncmp += p[1] == 0x3b;
			p += 7;
		} else if (p[0] == 0x75) {
			printf(" %02x %02x", p[0], p[1]);
			p += 2;
		} else if (p[0] == 0xe9) {
			const uint8_t *d = dest(p, 5);
			const char *nm = dc_lookup(d);

			if (!strcmp(nm, "stub"))
				printf(" e9 <entry %02x %02x %02x %02x>", d[0],
				       d[1], d[2], d[3]);
			else
				printf(" e9 <%s>", nm);
			p += 5;
		} else if (p[0] == 0x41 && p[1] == 0xff && p[2] == 0xe2) {
			printf(" 41 ff e2");
			p += 3;
		} else {
			printf(" ?%02x", *p++);
		}
	}
	if (lit < 0)
		lit = p - st;
	while (p - st < lit)
		pad += *p++ == 0xcc;
	printf(" | cc*%d | lit+%#lx:", pad, (long)(p - st));
	for (int i = 0; i <= ncmp; i++, p += 8) {
		const void *v;

		memcpy(&v, p, 8);
		printf(" %s", i == ncmp ? (v ? "<site>" : "0") : dc_lookup(v));
	}
	printf("\n");
}

static int show_cb(const struct dyncall_site_info *si, void *arg)
{
	(void)arg;
	printf("  state=%s ntargets=%u targets=", dc_state_names[si->state],
	       si->ntargets);
	for (unsigned i = 0; i < si->ntargets; i++)
		printf("%s%s", i ? "," : "", dc_lookup(si->targets[i]));
	printf(" mega=%d\n", si->megamorphic);
	return 0;
}

static void show(const char *when)
{
	struct dyncall_stats st;

	dyncall_get_stats(&st);
	printf("%s: learned=%lu megamorphic=%lu failures=%ld\n", when,
	       (unsigned long)st.learned, (unsigned long)st.megamorphic,
	       failures);
	dyncall_foreach_site(&key, show_cb, NULL);
	dump_stub(when);
	fflush(stdout);
}

/* A store the runtime does not see, then a call. */
static void unseen(void *h)
{
	atomic_store_explicit((_Atomic(void *) *)&key, h,
			      memory_order_relaxed);
	site();
}

int main(void)
{
	DC_NAME(h0);
	DC_NAME(h1);
	DC_NAME(h2);
	DC_NAME(h3);
	DC_NAME(h4);
	__dyncall_register(__start___dyncall_sites, __stop___dyncall_sites,
			   __start___dyncall_keys, __stop___dyncall_keys);
	__dyncall_store(&key, (void *)h0);
	site();
	show("stored");
	for (int i = 0; i < 2; i++)
		unseen((void *)h1);
	show("window1");
	for (int i = 0; i < 4; i++)
		unseen((void *)(i & 1 ? h3 : h2));
	show("window2");
	for (int i = 0; i < 8; i++)
		unseen((void *)h4);
	show("window3");
	/* every handler still reached, hit or miss */
	for (int i = 0; i < 5; i++)
		unseen((void *)(void *[]){ h0, h1, h2, h3, h4 }[i]);
	printf("end: failures=%ld\n", failures);
	return failures != 0;
}

// CHECK: stored: learned=0 megamorphic=0 failures=0
// CHECK-NEXT: state=guarded ntargets=1 targets=h0 mega=0
// A learning stub: cmp lit0(%rip),%r10; jne +5; jmp h0; miss: lea
// lit_site(%rip),%r11; jmp <region miss entry: push %r11; jmp *lit(%rip)>;
// int3 up to the literals at (21 n + 12) rounded up to 8 (n targets): the
// target literals, then the site's.
// X86_64-NEXT: stored stub: 4c 3b 15 [lit+0x28] 75 05 e9 <h0> 4c 8d 1d [lit+0x30] e9 <entry 41 53 ff 25> | cc*14 | lit+0x28: h0 <site>
// The site learned h1 from 2 misses (its stored value h0 stays first).
// CHECK: window1: learned=1 megamorphic=0 failures=0
// CHECK-NEXT: state=guarded ntargets=2 targets=h0,h1 mega=0
// X86_64-NEXT: window1 stub: 4c 3b 15 [lit+0x38] 75 05 e9 <h0> 4c 3b 15 [lit+0x40] 75 05 e9 <h1> 4c 8d 1d [lit+0x48] e9 <entry 41 53 ff 25> | cc*16 | lit+0x38: h0 h1 <site>
// Then h2 and h3 (sampled, most frequent first, equal counts in the order
// first seen), then the target it had.
// CHECK: window2: learned=2 megamorphic=0 failures=0
// CHECK-NEXT: state=guarded ntargets=4 targets=h0,h2,h3,h1 mega=0
// X86_64-NEXT: window2 stub: 4c 3b 15 [lit+0x60] 75 05 e9 <h0> 4c 3b 15 [lit+0x68] 75 05 e9 <h2> 4c 3b 15 [lit+0x70] 75 05 e9 <h3> 4c 3b 15 [lit+0x78] 75 05 e9 <h1> 4c 8d 1d [lit+0x80] e9 <entry 41 53 ff 25> | cc*28 | lit+0x60: h0 h2 h3 h1 <site>
// RETARGETS=2 reached: megamorphic, one compare with the stored value and
// the plain slow path (jmp *%r10), a shared stub naming no site.
// CHECK: window3: learned=3 megamorphic=1 failures=0
// CHECK-NEXT: state=guarded ntargets=1 targets=h0 mega=1
// X86_64-NEXT: window3 stub: 4c 3b 15 [lit+0x28] 75 05 e9 <h0> 41 ff e2 | cc*23 | lit+0x28: h0 0
// CHECK: end: failures=0
//
// DYNCALL_LEARN=0: the classic one-target guard, whatever the misses.
// OFF: stored: learned=0 megamorphic=0 failures=0
// OFF-NEXT: state=guarded ntargets=1 targets=h0 mega=0
// OFF-NEXT: stored stub: 4c 3b 15 [lit+0x28] 75 05 e9 <h0> 41 ff e2 | cc*23 | lit+0x28: h0 0
// OFF: window3: learned=0 megamorphic=0 failures=0
// OFF-NEXT: state=guarded ntargets=1 targets=h0 mega=0
// OFF-NEXT: window3 stub: 4c 3b 15 [lit+0x28] 75 05 e9 <h0> 41 ff e2 | cc*23 | lit+0x28: h0 0
// OFF: end: failures=0
//
// DYNCALL_LEARN_TARGETS=2: the stored value and one learned target.
// TWO: window1: learned=1
// TWO-NEXT: ntargets=2 targets=h0,h1 mega=0
// TWO: window2: learned=2
// TWO-NEXT: ntargets=2 targets=h0,h2 mega=0
// TWO: window3: learned=3
// TWO-NEXT: ntargets=2 targets=h0,h4 mega=0
// TWO: end: failures=0
//
// DYNCALL_LEARN_RETARGETS=0: megamorphic at the end of the first window.
// MEGA0: window1: learned=1 megamorphic=1 failures=0
// MEGA0-NEXT: state=guarded ntargets=1 targets=h0 mega=1
// MEGA0-NEXT: window1 stub: 4c 3b 15 [lit+0x28] 75 05 e9 <h0> 41 ff e2 | cc*23 | lit+0x28: h0 0
// MEGA0: window3: learned=1 megamorphic=1
// MEGA0: end: failures=0
//
// DYNCALL_LEARN_TARGETS=9: one line, then the default (4 targets).
// BAD: dyncall: ignoring DYNCALL_LEARN_TARGETS=9 (not a number in 1..4)
// BAD-NOT: dyncall:
// BAD: window2: learned=2 megamorphic=0
// BAD-NEXT: ntargets=4 targets=h0,h2,h3,h1 mega=0
