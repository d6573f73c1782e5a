// Checks that DYNCALL_CHECK=1 reports no stale key for legal programs: (a) a type key whose objects hold different handlers (single-threaded), (b) a call with the value a thread loaded before another thread stored a new one through the runtime (exactly that interleaving, then 4 threads calling while 20,000 stores happen), while (c) a genuine stale key (written with memcpy, which the runtime does not see) is still reported.
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 -rdynamic -pthread %s -o %t %libdyncall_ldflags
// RUN: env DYNCALL_CHECK=1 %t 2>&1 | FileCheck %s
// RUN: env DYNCALL_CHECK=1 DYNCALL_LEARN=0 %t 2>&1 | FileCheck %s
#include <pthread.h>
#include <stdatomic.h>

#include "dyncall_test.h"

struct obj {
	void *handler; /* an annotated field: a type key */
};

void *key;

/* site_key(): calls *key; site_loaded(p): calls p as if the site had
 * loaded p from key (the load happened earlier); site_obj(o): calls
 * o->handler.  The target gets the loaded pointer as its argument. */
__asm__(".include \"dyncall_asm.inc\"\n"
	"	.data\n	.balign 16\n	.globl tkey\n"
	"tkey:	.quad 0, 0\n"
	"DC_KEYCELL tkey_cell, tkey\n"
	"DC_KEY_ENTRY tkey_cell, handler, DC_KTYPE\n"
	"DC_KEYCELL cell, key\n"
	"DC_KEY_ENTRY cell, key, 0\n"
	".macro CHK_SITE fname, load, cell, flags\n"
	"	DC_TRAMP \\fname\\()_tramp\n"
	"	.text\n	.globl \\fname\n	.type \\fname, @function\n"
	"	.balign 16\n"
	"\\fname:\n"
	"	sub $8, %rsp\n"
	"	mov \\load, %r10\n"
	"	mov %r10, %rdi\n"
	"	.balign 8, 0x90\n	.skip 3, 0x90\n"
	"\\fname\\()_call:\n"
	"	.byte 0xe8\n	.long \\fname\\()_tramp - . - 4\n"
	"	add $8, %rsp\n	ret\n"
	"	.size \\fname, . - \\fname\n"
	"	DC_SITE_ENTRY \\fname\\()_call, \\fname\\()_tramp, \\cell, \\fname, DC_CALL, \\flags\n"
	".endm\n"
	"CHK_SITE site_key, key(%rip), cell, DC_FRESH\n"
	"CHK_SITE site_loaded, %rdi, cell, DC_FRESH\n"
	"CHK_SITE site_obj, (%rdi), tkey_cell, DC_FRESH|DC_TYPEKEY\n");

extern struct dyncall_type_key tkey;
void __dyncall_note(struct dyncall_type_key *tk, void *value);
long site_key(void), site_loaded(void *), site_obj(struct obj *);

static _Atomic long failures;
static _Atomic int stop;
static _Atomic long calls;

#define H(n)                                                                 \
	long h##n(void *loaded);                                             \
	long h##n(void *loaded)                                              \
	{                                                                    \
		if (loaded != (void *)h##n)                                  \
			atomic_fetch_add(&failures, 1);                      \
		return n;                                                    \
	}
H(0)
H(1)
H(2)
H(3)
H(4)
H(5)
static void *const handlers[6] = { h0, h1, h2, h3, h4, h5 };

static void *caller(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		site_key();
		atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
	}
	return NULL;
}

static unsigned long misses(void)
{
	struct dyncall_stats st;

	dyncall_get_stats(&st);
	return (unsigned long)st.guard_misses;
}

int main(void)
{
	struct obj objs[6];
	pthread_t th[4];
	void *loaded;

	// (a) objects of a type key with different handlers.
	for (int i = 0; i < 6; i++) {
		objs[i].handler = handlers[i];
		if (tkey.last != handlers[i])
			__dyncall_note(&tkey, handlers[i]);
	}
	for (int n = 0; n < 100; n++)
		for (int i = 0; i < 6; i++)
			site_obj(&objs[i]);
	printf("(a) type key: failures=%ld stale reports=%lu\n",
	       (long)failures, misses());
	fflush(stdout);
	// CHECK-NOT: stale key
	// CHECK: (a) type key: failures=0 stale reports=0

	// (b) a thread loaded h0, another stored h1 through the runtime, the
	// first one calls h0: a guard miss, but the key is not stale.
	__dyncall_store(&key, h0);
	site_key();
	loaded = key;
	__dyncall_store(&key, h1);
	site_loaded(loaded);
	site_key();
	printf("(b) old value: failures=%ld stale reports=%lu\n",
	       (long)failures, misses());
	fflush(stdout);
	// CHECK-NOT: stale key
	// CHECK: (b) old value: failures=0 stale reports=0

	// The same race for real: 4 threads call while at least 20,000
	// stores of 6 handlers go through the runtime (and until the callers
	// made 200,000 calls meanwhile: they must overlap the stores).
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, caller, NULL);
	while (atomic_load(&calls) < 1000)
		;
	atomic_store(&calls, 0);
	for (long n = 0; n < 20000 || atomic_load(&calls) < 200000; n++)
		__dyncall_store(&key, handlers[n % 6]);
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("(b) threads: failures=%ld stale reports=%lu\n",
	       (long)failures, misses());
	fflush(stdout);
	// CHECK-NOT: stale key
	// CHECK: (b) threads: failures=0 stale reports=0

	// (c) a genuine stale key: memcpy, which the runtime does not see.
	memcpy(&key, &(void *){ (void *)h2 }, sizeof(key));
	site_key();
	site_key();
	printf("(c) memcpy: failures=%ld stale reports=%lu\n",
	       (long)failures, misses());
	// CHECK: dyncall: stale key 'key' at site_key+0x{{[0-9a-f]+}} (0x{{[0-9a-f]+}}): called 0x{{[0-9a-f]+}}, sites patched to 0x{{[0-9a-f]+}}
	// CHECK-NEXT: (c) memcpy: failures=0 stale reports=2
	// CHECK-NOT: stale key
	return failures != 0;
}
