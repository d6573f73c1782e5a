// Checks that no call ever goes astray while 4 threads (and a signal handler) call through a key and another thread retargets it 100,000 times, for a fresh direct site, a guarded site and a misaligned direct site patched with jump-to-self.
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O2 -pthread %s -o %t %libdyncall_ldflags
// RUN: %t direct 100000 | FileCheck %s --check-prefix=DIRECT
// RUN: %t guarded 100000 | FileCheck %s --check-prefix=GUARDED
// RUN: %t misaligned 100000 | FileCheck %s --check-prefix=MISALIGNED
// DIRECT: OK direct: state=direct
// GUARDED: OK guarded: state=guarded
// MISALIGNED: OK misaligned: state=direct {{.*}} jump_to_self=yes
//
// The check.  Every site passes the pointer it loaded to the target (the
// asm copies %r10 to %rsi), and the caller passes `lo`, the index (in the
// writer's sequence) of the value it read from the key just before the
// site ran.  The writer publishes `started` = i before store i and `done`
// = i after it.  A target that runs checks:
//   guarded/slow site: it is exactly the pointer the site loaded;
//   direct (FRESH) site: it is targets[j % K] for some lo <= j <= hi, a
//     value the key held between the site's start and the call, where hi
//     is an upper bound of the index of the value the key holds when the
//     target runs (read by the target itself): a call to a value the
//     runtime has not stored yet (a direct branch patched before the
//     store) fails, not only a call to a value it no longer holds.
// A single call to anything else increments `failures`; main exits 1.
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "dyncall_test.h"

#define K 4
#define THREADS 4

void *key_direct, *key_guarded, *key_mis;

/* Four targets whose addresses differ in both low bytes of a rel32, so
 * retargeting the misaligned site changes bytes on both sides of its
 * quadword boundary (jump-to-self, not a single store). */
__asm__(".include \"dyncall_asm.inc\"\n"
	"	.text\n"
	"	.balign 4096\n"
	"t0:	mov $0, %ecx\n	jmp stress_target\n"
	"	.balign 4096\n	.skip 0x110\n"
	"t1:	mov $1, %ecx\n	jmp stress_target\n"
	"	.balign 4096\n	.skip 0x220\n"
	"t2:	mov $2, %ecx\n	jmp stress_target\n"
	"	.balign 4096\n	.skip 0x330\n"
	"t3:	mov $3, %ecx\n	jmp stress_target\n"
	"	.globl t0, t1, t2, t3\n"
	/* sites: long site(long lo, _, long flavor) -> target(lo, loaded,
	 * flavor, id) */
	".macro STRESS_SITE fname, key, cell, pad, flags, align=8\n"
	"	DC_TRAMP \\fname\\()_tramp\n"
	"	.text\n	.globl \\fname\n	.balign 16\n"
	"\\fname:\n"
	"	sub $8, %rsp\n"
	"	mov \\key(%rip), %r10\n"
	"	mov %r10, %rsi\n"
	"	.balign \\align, 0x90\n	.skip \\pad, 0x90\n"
	"\\fname\\()_call:\n"
	"	.byte 0xe8\n	.long \\fname\\()_tramp - . - 4\n"
	"	add $8, %rsp\n	ret\n"
	"	DC_SITE_ENTRY \\fname\\()_call, \\fname\\()_tramp, \\cell, \\fname, DC_CALL, \\flags\n"
	".endm\n"
	"DC_KEYCELL cell_direct, key_direct\n"
	"DC_KEY_ENTRY cell_direct, key_direct, 0\n"
	"DC_KEYCELL cell_guarded, key_guarded\n"
	"DC_KEY_ENTRY cell_guarded, key_guarded, DC_ESCAPES\n"
	"DC_KEYCELL cell_mis, key_mis\n"
	"DC_KEY_ENTRY cell_mis, key_mis, 0\n"
	"STRESS_SITE site_direct, key_direct, cell_direct, 3, DC_FRESH\n"
	"STRESS_SITE site_guarded, key_guarded, cell_guarded, 3, DC_FRESH\n"
	/* at 64k+62: the call straddles a cache line (opcode and first
	 * displacement byte in one quadword, as jump-to-self requires), so
	 * a write that skipped a sync between its steps could be fetched
	 * torn */
	"STRESS_SITE site_mis, key_mis, cell_mis, 62, DC_FRESH, 64\n");

extern char t0[], t1[], t2[], t3[];
long site_direct(long, long, long), site_guarded(long, long, long),
	site_mis(long, long, long);

static void *targets[K];
static _Atomic long started, done, failures, calls, sig_calls;
static _Atomic int stop;
static long (*site)(long, long, long);
static void **key;
static int fresh;

static long key_index_max(void);

long stress_target(long lo, void *loaded, long flavor, long id)
{
	void *self = targets[id];
	long hi = fresh ? key_index_max() : 0;
	bool ok = false;

	if (!fresh) {
		ok = loaded == self;
	} else if (hi - lo >= K) {
		ok = true;
	} else {
		for (long j = lo; j <= hi; j++)
			if (targets[j % K] == self)
				ok = true;
	}
	if (!ok && atomic_fetch_add(&failures, 1) < 5)
		fprintf(stderr, "FAIL: ran t%ld, loaded %p, window [%ld, %ld]\n",
			id, loaded, lo, hi);
	return id;
}

/* The index of the value the key holds now: the key is read between
 * `done` (stores known complete) and `started` (stores begun), and
 * consecutive stores hold different targets, so the earliest matching
 * index in that range is a lower bound of the key's index. */
static long key_index_now(void)
{
	long d = atomic_load(&done);
	void *v = atomic_load((_Atomic(void *) *)key);
	long s = atomic_load(&started);

	for (long j = d; j <= s; j++)
		if (targets[j % K] == v)
			return j;
	if (atomic_fetch_add(&failures, 1) < 5)
		fprintf(stderr, "FAIL: key holds %p outside [%ld, %ld]\n", v, d,
			s);
	return d;
}

/* The same, an upper bound: the latest index in [done, started] whose
 * target the key holds (the key's index is in that range and only
 * grows, so every value it has held so far has an index <= this). */
static long key_index_max(void)
{
	long d = atomic_load(&done);
	void *v = atomic_load((_Atomic(void *) *)key);
	long s = atomic_load(&started);

	for (long j = s; j >= d; j--)
		if (targets[j % K] == v)
			return j;
	if (atomic_fetch_add(&failures, 1) < 5)
		fprintf(stderr, "FAIL: key holds %p outside [%ld, %ld]\n", v, d,
			s);
	return s;
}

static void one_call(void)
{
	site(key_index_now(), 0, 0);
}

static void on_signal(int sig)
{
	(void)sig;
	one_call();
	atomic_fetch_add(&sig_calls, 1);
}

static void *caller(void *arg)
{
	long n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		one_call();
		n++;
	}
	atomic_fetch_add(&calls, n);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *flavor = argc > 1 ? argv[1] : "direct";
	long stores = argc > 2 ? atol(argv[2]) : 100000;
	pthread_t th[THREADS];
	struct dyncall_stats st;
	struct dyncall_key_info ki;
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESTART };

	targets[0] = t0; targets[1] = t1; targets[2] = t2; targets[3] = t3;
	if (!strcmp(flavor, "direct")) {
		key = &key_direct; site = site_direct; fresh = 1;
	} else if (!strcmp(flavor, "guarded")) {
		key = &key_guarded; site = site_guarded; fresh = 0;
	} else {
		key = &key_mis; site = site_mis; fresh = 1;
	}
	__dyncall_store(key, targets[0]);
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, caller, NULL);
	for (long i = 1; i <= stores; i++) {
		atomic_store(&started, i);
		__dyncall_store(key, targets[i % K]);
		atomic_store(&done, i);
		if (i % 64 == 0) /* a signal handler calls the site too */
			pthread_kill(th[(i / 64) % THREADS], SIGUSR1);
	}
	dyncall_key_info(key, &ki);
	atomic_store(&stop, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	dyncall_get_stats(&st);
	if (failures || !calls || !sig_calls) {
		printf("FAILED %s: %ld bad calls of %ld (%ld in handlers)\n",
		       flavor, (long)failures, (long)calls, (long)sig_calls);
		return 1;
	}
	printf("OK %s: state=%s stores=%ld jump_to_self=%s status=%d\n",
	       flavor, ki.ndirect ? "direct" : ki.nguarded ? "guarded" : "slow",
	       stores, st.jump_to_self ? "yes" : "no", dyncall_status());
	fprintf(stderr, "calls=%ld sig_calls=%ld membarriers=%lu patches=%lu\n",
		(long)calls, (long)sig_calls, (unsigned long)st.membarriers,
		(unsigned long)st.patches);
	return 0;
}
