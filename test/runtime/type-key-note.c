// Checks type keys (an annotated struct field): the plugin keeps a field store a store and calls __dyncall_note(&tkey, value) when tkey.last changes; every site of a type key is guarded (also FRESH ones); the first note seeds the sites, later notes never repatch anything (no thrash), the sites learn the objects' handlers from their own misses, and stay correct for objects holding other handlers, including while other threads call through the objects during 20,000 notes.
// REQUIRES: x86_64
// RUN: %cc %libdyncall_cflags -I%S/Inputs -Wa,-I%S/Inputs -O1 -pthread %s -o %t %libdyncall_ldflags
// RUN: %t | FileCheck %s
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "dyncall_test.h"

typedef long (*handler_t)(long, long, void *);
struct obj {
	handler_t handler; /* __attribute__((dynamic_call)) field */
	long pad;
};

/* The type key descriptor (the plugin's __dyncall_tkey.<md5>), its cell
 * and key entry, and two sites calling o->handler(a, b): a FRESH one and a
 * plain one.  Each site passes the pointer it loaded as the third
 * argument, so a handler can check that it is the one the site loaded. */
__asm__(".include \"dyncall_asm.inc\"\n"
	"	.data\n	.balign 16\n	.globl tkey\n"
	"tkey:	.quad 0, 0\n"
	"DC_KEYCELL tkey_cell, tkey\n"
	"DC_KEY_ENTRY tkey_cell, handler, DC_KTYPE\n"
	".macro FIELD_SITE fname, flags\n"
	"	DC_TRAMP \\fname\\()_tramp\n"
	"	.text\n	.globl \\fname\n	.balign 16\n"
	"\\fname:\n"
	"	sub $8, %rsp\n"
	"	mov (%rdi), %r10\n" /* o->handler */
	"	mov %rsi, %rdi\n	mov %rdx, %rsi\n	mov %r10, %rdx\n"
	"	.balign 8, 0x90\n	.skip 3, 0x90\n"
	"\\fname\\()_call:\n"
	"	.byte 0xe8\n	.long \\fname\\()_tramp - . - 4\n"
	"	add $8, %rsp\n	ret\n"
	"	DC_SITE_ENTRY \\fname\\()_call, \\fname\\()_tramp, tkey_cell, \\fname, DC_CALL, \\flags\n"
	".endm\n"
	"FIELD_SITE field_fresh, DC_FRESH|DC_TYPEKEY\n"
	"FIELD_SITE field_plain, DC_TYPEKEY\n");

extern struct dyncall_type_key tkey;
void __dyncall_note(struct dyncall_type_key *tk, void *value);
long field_fresh(struct obj *, long, long), field_plain(struct obj *, long,
							  long);
extern char field_fresh_call[], field_plain_call[];

static _Atomic long failures;

#define H(n)                                                               \
	long h##n(long a, long b, void *loaded);                           \
	long h##n(long a, long b, void *loaded)                            \
	{                                                                  \
		if (loaded != (void *)h##n &&                              \
		    atomic_fetch_add(&failures, 1) < 5)                    \
			fprintf(stderr, "FAIL: h" #n " ran, site loaded %p\n", \
				loaded);                                   \
		return a * 10 + n + b * 0;                                 \
	}
H(0)
H(1)
H(2)
H(3)
static const handler_t handlers[4] = { h0, h1, h2, h3 };

/* What the plugin emits for `o->handler = h;`. */
static void set_handler(struct obj *o, handler_t h)
{
	atomic_store_explicit((_Atomic(handler_t) *)&o->handler, h,
			      memory_order_relaxed);
	if (tkey.last != (void *)h)
		__dyncall_note(&tkey, (void *)h);
}

static int index_of(handler_t h)
{
	for (int i = 0; i < 4; i++)
		if (handlers[i] == h)
			return i;
	return -1;
}

#define NOBJ 6
static struct obj objs[NOBJ];
static _Atomic int stop;

/* Every call through every object and both sites returns the id of the
 * handler the object held when the site loaded it. */
static void check_all(const char *when)
{
	for (int i = 0; i < NOBJ; i++) {
		long want = 10 * i + index_of(objs[i].handler);
		long r1 = field_fresh(&objs[i], i, 0);
		long r2 = field_plain(&objs[i], i, 0);

		if ((r1 != want || r2 != want) &&
		    atomic_fetch_add(&failures, 1) < 5)
			fprintf(stderr, "FAIL %s: obj %d: %ld %ld, want %ld\n",
				when, i, r1, r2, want);
	}
}

static void *caller(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load(&stop)) {
		int i = rand_r(&seed) % NOBJ;
		/* the handler checks that it is the one the site loaded, and
		 * the result says which handler ran */
		long r = (seed & 1 ? field_fresh : field_plain)(&objs[i], i, 0);

		if ((r < 10 * i || r > 10 * i + 3) &&
		    atomic_fetch_add(&failures, 1) < 5)
			fprintf(stderr, "FAIL: obj %d ran %ld\n", i, r);
	}
	return NULL;
}

static int show_site(const struct dyncall_site_info *si, void *arg)
{
	unsigned seen = 0;

	(void)arg;
	for (unsigned i = 0; i < si->ntargets; i++)
		seen |= 1u << index_of((handler_t)si->targets[i]);
	printf("site %s: state=%s target=h%d targets=%u set=%x\n",
	       si->site == field_fresh_call ? "fresh" :
	       si->site == field_plain_call ? "plain" : "?",
	       dc_state_names[si->state], index_of((handler_t)si->target),
	       si->ntargets, seen);
	return 0;
}

int main(void)
{
	struct dyncall_key_info ki;
	struct dyncall_stats s0, s1;
	pthread_t th[2];

	// Objects with different handlers; the first note seeds the sites.
	for (int i = 0; i < NOBJ; i++)
		set_handler(&objs[i], handlers[i % 4]);
	dyncall_key_info(&tkey, &ki);
	printf("key '%s' type_key=%d sites=%u guarded=%u direct=%u value=h%d\n",
	       ki.name, ki.type_key, ki.nsites, ki.nguarded, ki.ndirect,
	       index_of((handler_t)ki.value));
	// CHECK: key 'handler' type_key=1 sites=2 guarded=2 direct=0 value=h0
	dyncall_foreach_site(&tkey, show_site, NULL);
	// CHECK-DAG: site fresh: state=guarded target=h0 targets=1 set=1
	// CHECK-DAG: site plain: state=guarded target=h0 targets=1 set=1
	check_all("initial");

	// Notes with changing values, single-threaded: after each, every
	// object calls its own handler (guard hit or miss); the misses teach
	// both sites all four handlers.  Each re-specialisation makes a new
	// stub, which all cores must see before a branch leads to it: at most
	// one membarrier per re-specialisation, none per note.
	dyncall_get_stats(&s0);
	for (int n = 0; n < 1000; n++) {
		set_handler(&objs[n % NOBJ], handlers[(n * 7 + n / 3) % 4]);
		check_all("notes");
	}
	dyncall_get_stats(&s1);
	dyncall_key_info(&tkey, &ki);
	printf("after notes: guarded=%u learned=%s membarriers<=learned=%s\n",
	       ki.nguarded, s1.learned > s0.learned ? "yes" : "no",
	       s1.membarriers - s0.membarriers <= s1.learned - s0.learned ?
		       "yes" : "no");
	// CHECK: after notes: guarded=2 learned=yes membarriers<=learned=yes
	dyncall_foreach_site(&tkey, show_site, NULL);
	// CHECK-DAG: site fresh: state=guarded target=h{{[0-3]}} targets=4 set=f
	// CHECK-DAG: site plain: state=guarded target=h{{[0-3]}} targets=4 set=f

	// Once learned, notes are hints: 1,000 more changes of value and
	// 12,000 calls write nothing at all (before learning, each note
	// repatched every site of the key).
	dyncall_get_stats(&s0);
	for (int n = 0; n < 1000; n++) {
		set_handler(&objs[n % NOBJ], handlers[(n * 5 + n / 3) % 4]);
		check_all("hints");
	}
	dyncall_get_stats(&s1);
	printf("after hints: patches=%lu samples=%lu\n",
	       (unsigned long)(s1.patches - s0.patches),
	       (unsigned long)(s1.learn_samples - s0.learn_samples));
	// CHECK: after hints: patches=0 samples=0

	// The same while two threads call through random objects.
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, caller, (void *)(uintptr_t)(i + 1));
	for (int n = 0; n < 20000; n++)
		set_handler(&objs[n % NOBJ], handlers[(n * 5 + n / 7) % 4]);
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	check_all("threads");
	dyncall_key_info(&tkey, &ki);
	printf("after threads: guarded=%u failures=%ld\n", ki.nguarded,
	       (long)failures);
	// CHECK: after threads: guarded=2 failures=0
	return failures != 0;
}
