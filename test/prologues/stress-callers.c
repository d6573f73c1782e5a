// Checks redirects at the call sites under load (docs/prologues.md "Redirects at the call sites", x86-64 natively, aarch64 and ppc64le under qemu): 4 threads call 4 patchable functions by direct calls, tail jumps and (x86-64) calls whose rel32 straddles two quadwords (written with the jump-to-self steps, counted; aarch64 and ppc64le: every bl and b is one word; ppc64le: functions with and without a TOC set-up, redirected to targets with and without one) that the redirects rewrite (the program is linked with its relocations: dyncall-cc --dyncall-prologues), while another thread redirects them (the sites rewritten to the target), re-targets them (sites back to `call f`, then to the new target), hooks and unhooks them (sites back, then to the target again), restores them (sites back) and hooks and restores them in batches: 130,000 changes natively, 104,000 under qemu. Every call returns the original's or a redirect target's result (no stray call: a torn rel32 would call anywhere), no handler runs twice in one call, and a call made entirely between two changes runs exactly the handlers and reaches exactly the function of the state then (no lost handler, no missed or stale redirect); every pure redirect rewrote all of the function's listed sites; no crash.
// REQUIRES: x86_64, dyncall-runtime
// (the x86-64 builds run natively; the aarch64 and ppc64le ones when qemu and the cross runtime and GCC plugin are there)
// ALLOW_RETRIES: 2
// (Only for qemu-user, as in stress-hook-redirect.c: its translated-block
// cache can let a thread finish one stale block across a code write, which
// membarrier SYNC_CORE rules out on hardware.)
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -ffunction-sections -pthread %s -o %t.gcc
// RUN: %dyncall_cc %clang --dyncall-prologues -fcf-protection=full -O2 -ffunction-sections -pthread %s -o %t.clang
// RUN: %t.gcc 20000 | FileCheck %s --check-prefix=NATIVE
// RUN: %t.clang 20000 | FileCheck %s --check-prefix=NATIVE
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections -pthread %s -o %t.a64-gcc %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t.a64-gcc 16000 | FileCheck %s --check-prefix=QEMU %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -mbranch-protection=standard -O2 -ffunction-sections -pthread %s -o %t.a64-clang %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64-clang 16000 | FileCheck %s --check-prefix=QEMU %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -ffunction-sections -pthread %s -o %t.ppc-gcc %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc-gcc 16000 | FileCheck %s --check-prefix=QEMU %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -ffunction-sections -pthread %s -o %t.ppc-clang %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %qemu_ppc64le %t.ppc-clang 16000 | FileCheck %s --check-prefix=QEMU %}
// NATIVE: changes 130000 errors 0 stray 0 duplicate 0 bad-handler 0 lost 0 unrewritten 0
// NATIVE-NEXT: calls-ok 1 handled-ok 1 redirected-ok 1 checked-ok 1 sites 3 jump-to-self 1
// QEMU: changes 104000 errors 0 stray 0 duplicate 0 bad-handler 0 lost 0 unrewritten 0
// QEMU-NEXT: calls-ok 1 handled-ok 1 redirected-ok 1 checked-ok 1 sites 2 jump-to-self 0
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dyncall.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
#define NF 4
#define NCALLERS 4
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE 32

/* ppc64le: T() reads a global (0), so that the function sets up its TOC
 * (global entry, local entry at +8); the others have one entry.  The
 * redirects then go TOC -> TOC, TOC -> none, none -> TOC and none -> none
 * (a rewritten site enters the target's local entry with the caller's
 * TOC). */
#ifdef __powerpc64__
volatile long zero;
#define T(v) ((v) + zero)
#else
#define T(v) (v)
#endif
NOINLINE long f0(long a) { return a * 8 + 0; }
NOINLINE long f1(long a) { return a * 8 + 1; }
NOINLINE long f2(long a) { return T(a * 8 + 2); }
NOINLINE long f3(long a) { return T(a * 8 + 3); }
/* two redirect targets per function, the same result */
NOINLINE long r0(long a) { return a * 8 + 4; }
NOINLINE long r1(long a) { return T(a * 8 + 5); }
NOINLINE long r2(long a) { return a * 8 + 6; }
NOINLINE long r3(long a) { return T(a * 8 + 7); }
NOINLINE long q0(long a) { return T(a * 8 + 4); }
NOINLINE long q1(long a) { return a * 8 + 5; }
NOINLINE long q2(long a) { return T(a * 8 + 6); }
NOINLINE long q3(long a) { return a * 8 + 7; }
/* tail jumps: `jmp fi` */
NOINLINE long t0(long a) { return f0(a); }
NOINLINE long t1(long a) { return f1(a); }
NOINLINE long t2(long a) { return f2(a); }
NOINLINE long t3(long a) { return f3(a); }

/* Calls whose rel32 straddles two quadwords (e8 at offset 6 of a 16-byte
 * aligned function: byte 0 of the rel32 in one quadword, bytes 1-3 in the
 * next): a change of more than the low byte takes the jump-to-self
 * steps (docs/abi.md), with the callers spinning on `jmp .` meanwhile. */
#if defined(__x86_64__)
#define KINDS 3
long sc0(long), sc1(long), sc2(long), sc3(long);
#define SC(n) \
	".globl sc" #n "\n.type sc" #n ", @function\n.p2align 4\nsc" #n ":\n" \
	"\tsub $8, %rsp\n\t.byte 0x66, 0x90\n\tcall f" #n "\n" \
	"\tadd $8, %rsp\n\tret\n.size sc" #n ", .-sc" #n "\n"
__asm__(".text\n" SC(0) SC(1) SC(2) SC(3));
#else
#define KINDS 2 /* aarch64, ppc64le: every b/bl is one aligned word */
#endif

static long (*const fs[NF])(long) = { f0, f1, f2, f3 };
static long (*const rs[NF])(long) = { r0, r1, r2, r3 };
static long (*const qs[NF])(long) = { q0, q1, q2, q3 };
static int tags[NF];
static _Atomic long stray, duplicate, bad_handler, lost, calls, handled, redirected,
	checked;
static _Atomic int stop;

/* bit 0 h1 on, bit 1 h2 on, bit 2 redirected; `epoch` odd while the
 * controller changes a function (a seqlock, as in stress-hook-redirect.c) */
static _Atomic int state[NF];
static _Atomic unsigned long epoch;
static __thread int ran1, ran2;
static __thread long cur_arg;

static void check(void *fn, struct dyncall_regs *r, void *data)
{
	int i = (int *)data - tags;

	if (!data)
		for (i = 0; i < NF && fn != (void *)fs[i]; i++)
			;
	if (i < 0 || i >= NF || fn != (void *)fs[i] ||
	    (long)r->arg[0] != cur_arg)
		atomic_fetch_add(&bad_handler, 1);
	atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static void h1(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	check(fn, r, data);
	ran1++;
	(void)ret;
}

static void h2(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	check(fn, r, data);
	ran2++;
	(void)ret;
}

/* A direct call (kind 0), a tail jump (1) or a straddling call (2) of
 * function i: the sites the redirects rewrite. */
static NOINLINE long call_direct(int i, long a, int kind)
{
	switch (i + kind * NF) {
	case 0: return f0(a);
	case 1: return f1(a);
	case 2: return f2(a);
	case 3: return f3(a);
	case 4: return t0(a);
	case 5: return t1(a);
	case 6: return t2(a);
	case 7: return t3(a);
#if KINDS == 3
	case 8: return sc0(a);
	case 9: return sc1(a);
	case 10: return sc2(a);
	case 11: return sc3(a);
#endif
	default: return -1;
	}
}

static void *caller(void *arg)
{
	long x = (long)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int i = 0; i < NF; i++) {
			long a = x++ & ((1 << 20) - 1), v;
			unsigned long e1, e2;
			int s;
			bool redir;

			e1 = atomic_load(&epoch);
			s = atomic_load(&state[i]);
			ran1 = ran2 = 0;
			cur_arg = a;
			v = call_direct(i, a, (int)(x % KINDS));
			e2 = atomic_load(&epoch);
			redir = v == a * 8 + 4 + i;
			if (redir)
				atomic_fetch_add_explicit(&redirected, 1,
							  memory_order_relaxed);
			else if (v != a * 8 + i)
				atomic_fetch_add(&stray, 1);
			if (ran1 > 1 || ran2 > 1)
				atomic_fetch_add(&duplicate, 1);
			if (e1 == e2 && !(e1 & 1)) {
				if (ran1 != (s & 1) || ran2 != !!(s & 2) ||
				    redir != !!(s & 4))
					atomic_fetch_add(&lost, 1);
				atomic_fetch_add_explicit(&checked, 1,
							  memory_order_relaxed);
			}
			atomic_fetch_add_explicit(&calls, 1,
						  memory_order_relaxed);
		}
		if (!(x & 0x3ff))
			sched_yield();
	}
	return NULL;
}

static long unrewritten;
static unsigned sites;

/* After a change: the membarrier ends the documented window before the
 * new state is published; a pure redirect must have rewritten every
 * listed site of the function. */
static void settle(int i, int s)
{
	struct dyncall_fn_callers c;

	syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0,
		0);
	atomic_store(&state[i], s);
	atomic_fetch_add(&epoch, 1); /* even */
	if (!dyncall_fn_callers((void *)fs[i], &c)) {
		if (c.status || !c.sites ||
		    c.redirected != (s == 4 ? c.sites : 0))
			unrewritten++;
		sites = c.sites;
	} else {
		unrewritten++;
	}
}

#define CHANGE(i, call, s)                          \
	do {                                        \
		atomic_fetch_add(&epoch, 1);        \
		errors += (call) != 0;              \
		settle((i), (s));                   \
	} while (0)

int main(int argc, char **argv)
{
	pthread_t t[NCALLERS];
	long changes = 0, errors = 0;
	long cycles = argc > 1 ? atol(argv[1]) : 20000; /* x 6.5 changes */
	void *all[NF];
	struct dyncall_stats st;

	for (int i = 0; i < NF; i++)
		all[i] = (void *)fs[i];
	for (long i = 0; i < NCALLERS; i++)
		pthread_create(&t[i], NULL, caller, (void *)(i << 16));
	for (long c = 0; c < cycles; c++) {
		int i = (int)(c % NF);
		void *f = (void *)fs[i];

		CHANGE(i, dyncall_fn_redirect(f, (void *)rs[i]), 4);
		CHANGE(i, dyncall_fn_redirect(f, (void *)qs[i]), 4);
		CHANGE(i, dyncall_fn_hook(f, h1, &tags[i]), 5);
		CHANGE(i, dyncall_fn_unhook(f, h1), 4);
		if (c % 2) {
			CHANGE(i, dyncall_fn_restore(f), 0);
			CHANGE(i, dyncall_fn_hook_batch(&f, 1, h2, &tags[i]),
			       2);
			CHANGE(i, dyncall_fn_restore_batch(&f, 1), 0);
			changes += 7;
		} else {
			CHANGE(i, dyncall_fn_hook(f, h2, &tags[i]), 6);
			CHANGE(i, dyncall_fn_restore_batch(&f, 1), 0);
			changes += 6;
		}
	}
	atomic_fetch_add(&epoch, 1);
	errors += dyncall_fn_hook_batch(all, NF, h1, NULL) != 0;
	for (int i = 0; i < NF; i++)
		atomic_store(&state[i], 1);
	settle(0, 1);
	atomic_fetch_add(&epoch, 1);
	errors += dyncall_fn_restore_batch(all, NF) != 0;
	for (int i = 0; i < NF; i++)
		atomic_store(&state[i], 0);
	settle(0, 0);
	atomic_store(&stop, 1);
	for (int i = 0; i < NCALLERS; i++)
		pthread_join(t[i], NULL);
	printf("changes %ld errors %ld stray %ld duplicate %ld bad-handler %ld "
	       "lost %ld unrewritten %ld\n",
	       changes, errors, atomic_load(&stray), atomic_load(&duplicate),
	       atomic_load(&bad_handler), atomic_load(&lost), unrewritten);
	if (getenv("STRESS_VERBOSE"))
		fprintf(stderr, "calls %ld handled %ld redirected %ld checked %ld\n",
			atomic_load(&calls), atomic_load(&handled),
			atomic_load(&redirected), atomic_load(&checked));
	dyncall_get_stats(&st);
	printf("calls-ok %d handled-ok %d redirected-ok %d checked-ok %d sites %u "
	       "jump-to-self %d\n",
	       atomic_load(&calls) > 0, atomic_load(&handled) > 0,
	       atomic_load(&redirected) > 0, atomic_load(&checked) > 0, sites,
	       st.jump_to_self > 0);
	return 0;
}
