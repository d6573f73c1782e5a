/*
 * stress_hooks.c - hook lists (docs/hooks.md) under concurrent change:
 * CALLERS threads call two lists in a loop while WRITERS threads add and
 * remove handlers, CHANGES changes in all (argv[1], >= 100,000 in the
 * test).
 *
 * The rule checked (docs/hooks.md, "Semantics"): one call runs the
 * handler sequence the list had at one instant between the call's start
 * and its end -- every handler of that set exactly once, in the order
 * added, with the call's arguments -- and nothing else.
 *
 * List `seq` (long, double, long, plain variant, handlers h0..h5): the
 * writers number their changes v = 1, 2, ... under a test mutex, record
 * the sequence each change leaves (set[v], set[0] empty) and bracket it
 * with `epoch` = 2v - 1 before and 2v after.  A call reads epoch before
 * (e0) and after (e1); the sets it may run are set[lo..hi], lo = e0 / 2
 * (rounded down: a change in progress may not be visible yet), hi = e1 / 2
 * rounded up.  Each handler appends its index to the calling thread's log
 * and checks its arguments; after the call the log must be exactly one of
 * set[lo..hi]: a missed handler, a doubled one, one from no set of the
 * window (stray), another order or a changed argument fails.  The
 * per-handler call counts must also equal what the callers logged (no
 * call from anywhere else).
 *
 * List `grace` (data variant, long): its handler's data is an object that
 * a writer removes and then "frees" (poisons), following the grace rule:
 * only after every caller thread has been seen outside a call of the list
 * since the removal returned (a per-thread quiescence counter).  Its
 * handler fails on poisoned data, and sometimes yields inside itself so
 * that removals happen while threads are inside it and inside old jump
 * functions.
 *
 * Proved to fail (by hand, not committed; 100,000 changes each):
 *   - runtime/hooks.c rewriting the list's previous jump function in
 *     place (dc_text_write over code threads may be running, instead of
 *     fresh memory): one run reported "seq: call ran [521], no set of
 *     window 1168..1216" and "[105] ... 1520..1584", the next died of
 *     SIGSEGV inside the torn code;
 *   - this file's writer freeing the object before the quiescence wait
 *     (-DBREAK_GRACE): 6,246 failures, "grace: data freed while the
 *     handler ran".
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dyncall.h>

#define CALLERS 3
#define WRITERS 2
#define NH 6      /* handlers of `seq` */
#define MAXSET 5  /* at most this many at once */
#define NOBJ 4    /* objects of `grace` */
#define MAXWIN 4096

static long changes;
static _Atomic long failures, calls, checked, unchecked, grace_removals;
static _Atomic long epoch;
static _Atomic int writers_left;
static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;

struct set {
	unsigned char n, h[MAXSET];
};
static struct set *sets; /* sets[v]: the sequence after change v */
static struct set cur;   /* under wlock */

static _Atomic long hcount[NH], logged[NH];
static _Thread_local unsigned char tlog[64];
static _Thread_local unsigned tn;
static _Thread_local long targ;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&failures, 1) < 10) {
		va_start(ap, fmt);
		vfprintf(stdout, fmt, ap);
		va_end(ap);
		fputc('\n', stdout);
		fflush(stdout);
	}
}

DYNCALL_HOOKS(seq, void, long, double, long);

#define SEQ_HANDLER(i)                                                        \
	__attribute__((noinline)) void h##i(long a, double b, long c)        \
	{                                                                     \
		if (a != targ || b != (double)a * 0.5 || c != a * 3 + 1)      \
			fail("seq: h%d got (%ld %g %ld) for %ld", i, a, b, c, \
			     targ);                                           \
		atomic_fetch_add_explicit(&hcount[i], 1,                      \
					  memory_order_relaxed);              \
		if (tn < sizeof(tlog))                                        \
			tlog[tn++] = i;                                       \
	}
SEQ_HANDLER(0)
SEQ_HANDLER(1)
SEQ_HANDLER(2)
SEQ_HANDLER(3)
SEQ_HANDLER(4)
SEQ_HANDLER(5)
static void (*const hs[NH])(long, double, long) = { h0, h1, h2, h3, h4, h5 };

struct obj {
	_Atomic int alive;
	_Atomic int in_list;
};
static struct obj objs[NOBJ];
static _Atomic unsigned long quiet[CALLERS]; /* calls of `grace` done */
static _Atomic int caller_done[CALLERS];

DYNCALL_HOOKS_DATA(grace, void, long);

__attribute__((noinline)) void hg(void *data, long x)
{
	struct obj *o = data;

	if (!atomic_load(&o->alive))
		fail("grace: handler ran with freed data (object %d)",
		     (int)(o - objs));
	if ((x & 255) == 0)
		sched_yield(); /* be inside the handler during a removal */
	if (!atomic_load(&o->alive))
		fail("grace: data freed while the handler ran (object %d)",
		     (int)(o - objs));
}

__attribute__((noinline)) void fire_seq(long a)
{
	DYNCALL_HOOKS_CALL(seq, a, (double)a * 0.5, a * 3 + 1);
}

__attribute__((noinline)) void fire_grace(long a)
{
	DYNCALL_HOOKS_DATA_CALL(grace, a);
}

static bool same(const struct set *s, const unsigned char *log, unsigned n)
{
	return s->n == n && !memcmp(s->h, log, n);
}

static const char *set_str(long lo, long hi)
{
	static _Thread_local char b[256];
	size_t o = 0;

	for (long v = lo; v <= hi && v <= lo + 8 && o < 200; v++) {
		o += (size_t)snprintf(b + o, sizeof(b) - o, "%s",
				      v > lo ? " " : "");
		for (unsigned i = 0; i < sets[v].n; i++)
			o += (size_t)snprintf(b + o, sizeof(b) - o, "%d",
					      sets[v].h[i]);
		if (!sets[v].n)
			o += (size_t)snprintf(b + o, sizeof(b) - o, "-");
	}
	return b;
}

static void judge(long e0, long e1)
{
	long lo = e0 / 2, hi = (e1 + 1) / 2;

	for (unsigned i = 0; i < tn; i++)
		atomic_fetch_add_explicit(&logged[tlog[i]], 1,
					  memory_order_relaxed);
	if (hi - lo > MAXWIN) {
		atomic_fetch_add(&unchecked, 1);
		return;
	}
	for (long v = lo; v <= hi; v++) {
		if (same(&sets[v], tlog, tn)) {
			atomic_fetch_add(&checked, 1);
			return;
		}
	}
	{
		char buf[128] = "";
		size_t o = 0;

		for (unsigned i = 0; i < tn && o < 100; i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%d",
					      tlog[i]);
		fail("seq: call ran [%s], no set of window %ld..%ld "
		     "(%s)",
		     buf, lo, hi, set_str(lo, hi));
	}
}

static void *caller(void *arg)
{
	int me = (int)(intptr_t)arg;
	long a = me * 1000003L;

	while (atomic_load(&writers_left)) {
		for (int k = 0; k < 64; k++, a++) {
			long e0, e1;

			tn = 0;
			targ = a;
			e0 = atomic_load(&epoch);
			fire_seq(a);
			e1 = atomic_load(&epoch);
			atomic_fetch_add_explicit(&calls, 1,
						  memory_order_relaxed);
			judge(e0, e1);
			fire_grace(a);
			/* outside every call of `grace`: a quiescent point */
			atomic_fetch_add(&quiet[me], 1);
		}
	}
	atomic_store(&caller_done[me], 1);
	return NULL;
}

/* Every caller has been outside `grace` since this was called. */
static void quiesce(void)
{
	unsigned long snap[CALLERS];

	for (int i = 0; i < CALLERS; i++)
		snap[i] = atomic_load(&quiet[i]);
	for (int i = 0; i < CALLERS; i++)
		while (atomic_load(&quiet[i]) == snap[i] &&
		       !atomic_load(&caller_done[i]))
			sched_yield();
}

static pthread_mutex_t glock = PTHREAD_MUTEX_INITIALIZER;
static void grace_change_locked(unsigned *rng);

/* Held across remove, quiesce and free: another writer re-adding the
 * object meanwhile would be freeing it while in the list. */
static void grace_change(unsigned *rng)
{
	pthread_mutex_lock(&glock);
	grace_change_locked(rng);
	pthread_mutex_unlock(&glock);
}

static _Atomic long next_change;

static void seq_change(long v, unsigned *rng)
{
	unsigned pick = (*rng >> 8) % NH, at = NH;
	int r;

	for (unsigned i = 0; i < cur.n; i++)
		if (cur.h[i] == pick)
			at = i;
	if (at == NH && cur.n == MAXSET) {
		at = (*rng >> 16) % cur.n; /* full: remove one instead */
		pick = cur.h[at];
	}
	/* set[v] is written before the epoch says change v may be seen */
	sets[v] = cur;
	if (at == NH) {
		sets[v].h[sets[v].n++] = (unsigned char)pick;
	} else {
		memmove(&sets[v].h[at], &sets[v].h[at + 1], cur.n - at - 1);
		sets[v].n--;
	}
	atomic_store(&epoch, 2 * v - 1);
	if (at == NH)
		r = dyncall_hooks_add(seq, hs[pick]);
	else
		r = dyncall_hooks_remove(seq, hs[pick]);
	if (r)
		fail("seq: change %ld: status %d", v, r);
	cur = sets[v];
	atomic_store(&epoch, 2 * v);
}

static void grace_change_locked(unsigned *rng)
{
	struct obj *o = &objs[(*rng >> 8) % NOBJ];
	int r;

	if (!atomic_load(&o->in_list)) {
		atomic_store(&o->alive, 1);
		r = dyncall_hooks_add_data(grace, hg, o);
		if (r)
			fail("grace: add: %d", r);
		atomic_store(&o->in_list, 1);
		return;
	}
	r = dyncall_hooks_remove_data(grace, hg, o);
	if (r)
		fail("grace: remove: %d", r);
	atomic_store(&o->in_list, 0);
#ifdef BREAK_GRACE
	atomic_store(&o->alive, 0); /* freed too early: must be caught */
#endif
	quiesce();
	atomic_store(&o->alive, 0); /* freed */
	atomic_fetch_add(&grace_removals, 1);
}

static void *writer(void *arg)
{
	unsigned rng = 12345u + 777u * (unsigned)(intptr_t)arg;

	for (;;) {
		long v;

		rng = rng * 1103515245u + 12345u;
		pthread_mutex_lock(&wlock);
		v = atomic_load(&next_change) + 1;
		if (v > changes) {
			pthread_mutex_unlock(&wlock);
			break;
		}
		atomic_store(&next_change, v);
		if (v % 16 == 0) {
			/* a `grace` change; `seq` repeats its set */
			sets[v] = cur;
			atomic_store(&epoch, 2 * v);
			pthread_mutex_unlock(&wlock);
			grace_change(&rng);
			continue;
		}
		seq_change(v, &rng);
		pthread_mutex_unlock(&wlock);
	}
	atomic_fetch_sub(&writers_left, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t c[CALLERS], w[WRITERS];
	long total = 0;

	changes = argc > 1 ? atol(argv[1]) : 100000;
	sets = calloc((size_t)changes + 2, sizeof(*sets));
	if (!sets)
		return 2;
	atomic_store(&writers_left, WRITERS);
	for (int i = 0; i < CALLERS; i++)
		pthread_create(&c[i], NULL, caller, (void *)(intptr_t)i);
	for (int i = 0; i < WRITERS; i++)
		pthread_create(&w[i], NULL, writer, (void *)(intptr_t)i);
	for (int i = 0; i < WRITERS; i++)
		pthread_join(w[i], NULL);
	for (int i = 0; i < CALLERS; i++)
		pthread_join(c[i], NULL);
	for (int i = 0; i < NH; i++) {
		if (atomic_load(&hcount[i]) != atomic_load(&logged[i]))
			fail("seq: h%d ran %ld times, the callers saw %ld", i,
			     atomic_load(&hcount[i]), atomic_load(&logged[i]));
		total += atomic_load(&hcount[i]);
	}
	fprintf(stderr,
		"changes %ld (grace removals %ld), calls %ld, handler runs "
		"%ld, checked %ld, unchecked %ld, failures %ld\n",
		changes, atomic_load(&grace_removals), atomic_load(&calls),
		total, atomic_load(&checked), atomic_load(&unchecked),
		atomic_load(&failures));
	if (atomic_load(&failures)) {
		printf("FAILED\n");
		return 1;
	}
	printf("stress hooks: ok\n");
	return 0;
}
