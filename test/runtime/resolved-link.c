// Sites that dyncall-rewrite relax resolved at link time (DYNCALL_SITE_RESOLVED)
// are registered direct without a single write or membarrier, and behave like
// any direct site afterwards: a store takes them through the normal protocol.
// A const key (cop) and, with --resolve-initializers, a non-const one (op).
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime, dyncall-rewrite
// RUN: %dyncall_clang -O2 -DKEYS -c %s -o %t.keys.o
// RUN: %dyncall_clang -O2 -c %s -o %t.main.o
// RUN: %dyncall_clang %t.main.o %t.keys.o -o %t %libdyncall_ldflags
// RUN: %dyncall_rewrite relax --resolve-initializers %t -o %t.relaxed | FileCheck %s --check-prefix=RELAX
// RELAX: resolved 4 sites
// RUN: %t.relaxed | FileCheck %s --check-prefixes=CHECK,FAST
// Not relaxed: the same behaviour, every site patched at registration.
// RUN: %t | FileCheck %s --check-prefixes=CHECK,PLAIN
// Checking mode: resolved sites are moved to guarded ones (written).
// RUN: env DYNCALL_CHECK=1 %t.relaxed | FileCheck %s --check-prefixes=CHECK,CHECKMODE
// Fast paths off: the const key's sites stay as linked (correct forever),
// the non-const key's go to the slow path at registration.
// RUN: env DYNCALL_DISABLE=1 %t.relaxed | FileCheck %s --check-prefixes=CHECK,DISABLED
#include <stdio.h>
#include <stdlib.h>
#include <dyncall.h>
#include <dyncall/abi.h>

#ifdef KEYS
/* Own unit: the initializers are invisible to the callers' compiler, so
 * the calls stay sites and relax resolves them from the linked file. */
int inc(int x) { return x + 1; }
int dbl(int x) { return x * 2; }
int neg(int x) { return -x; }

int (*op)(int) DYNCALL = inc;
int (*const cop)(int) DYNCALL = dbl;
#else
extern int (*op)(int) DYNCALL;
extern int (*const cop)(int) DYNCALL;
int inc(int), dbl(int), neg(int);

__attribute__((noinline)) int use(int x) { return op(x) * 100 + cop(x); }
__attribute__((noinline)) int tail_c(int x) { return cop(x); }
__attribute__((noinline)) int tail_v(int x) { return op(x); }
__attribute__((noinline)) void set_op(int (*f)(int)) { op = f; }

static const char *name(const void *p)
{
	return p == (void *)inc ? "inc" : p == (void *)dbl ? "dbl" :
	       p == (void *)neg ? "neg" : p ? "?" : "none";
}

static const char *state(int s)
{
	return s == DYNCALL_STATE_DIRECT ? "direct" :
	       s == DYNCALL_STATE_GUARDED ? "guarded" : "slow";
}

static int show(const struct dyncall_site_info *s, void *arg)
{
	printf("  %s %s kind=%d state=%s target=%s resolved=%d status=%d\n",
	       (const char *)arg, s->kind == DYNCALL_KIND_TAIL ? "tail" : "call",
	       s->kind, state(s->state), name(s->target),
	       (s->flags & DYNCALL_SITE_RESOLVED) != 0, s->status);
	return 0;
}

static void sites(const char *when)
{
	printf("sites %s:\n", when);
	dyncall_foreach_site((const void *)&op, show, "op");
	dyncall_foreach_site((const void *)&cop, show, "cop");
}

static int failures;

static void expect(const char *what, int got, int want)
{
	printf("%s = %d\n", what, got);
	if (got != want) {
		printf("FAIL: %s: want %d\n", what, want);
		failures++;
	}
}

int main(void)
{
	struct dyncall_stats s0, s1, s2;

	dyncall_get_stats(&s0);
	printf("registered: sites=%llu resolved_at_link=%llu patches=%llu "
	       "membarriers=%llu\n",
	       (unsigned long long)s0.sites,
	       (unsigned long long)s0.resolved_at_link,
	       (unsigned long long)s0.patches,
	       (unsigned long long)s0.membarriers);
	// CHECK-LABEL: registered: sites=4
	// FAST-SAME: resolved_at_link=4 patches=0 membarriers=0
	// PLAIN-SAME: resolved_at_link=0
	// CHECKMODE-SAME: resolved_at_link=0
	// DISABLED-SAME: resolved_at_link=2
	sites("at start");
	// CHECK-LABEL: sites at start:
	// FAST-DAG: op call kind=1 state=direct target=inc resolved=1 status=0
	// FAST-DAG: op tail kind=2 state=direct target=inc resolved=1 status=0
	// FAST-DAG: cop call kind=1 state=direct target=dbl resolved=1 status=0
	// FAST-DAG: cop tail kind=2 state=direct target=dbl resolved=1 status=0
	// CHECKMODE-DAG: op call kind=1 state=guarded target=inc resolved=1 status=0
	// CHECKMODE-DAG: cop tail kind=2 state=guarded target=dbl resolved=1 status=0
	// DISABLED-DAG: op call kind=1 state=slow target=none resolved=1
	// DISABLED-DAG: op tail kind=2 state=slow target=none resolved=1
	// DISABLED-DAG: cop call kind=1 state=direct target=dbl resolved=1
	// DISABLED-DAG: cop tail kind=2 state=direct target=dbl resolved=1

	expect("use(3)", use(3), 406);
	expect("tail_c(4)", tail_c(4), 8);
	expect("tail_v(4)", tail_v(4), 5);
	// CHECK: use(3) = 406
	// CHECK: tail_c(4) = 8
	// CHECK: tail_v(4) = 5

	/* A store: the resolved sites of op are direct to inc and must be
	 * taken off it first (guard, sync, store, direct). */
	set_op(neg);
	dyncall_get_stats(&s1);
	printf("after store: stores=%llu wrote=%s synced=%s\n",
	       (unsigned long long)(s1.stores - s0.stores),
	       s1.patches > s0.patches ? "yes" : "no",
	       s1.membarriers > s0.membarriers ? "yes" : "no");
	// FAST: after store: stores=1 wrote=yes synced=yes
	// DISABLED: after store: stores=1 wrote=no synced=no
	sites("after store");
	// CHECK-LABEL: sites after store:
	// FAST-DAG: op call kind=1 state=direct target=neg resolved=1 status=0
	// FAST-DAG: op tail kind=2 state=direct target=neg resolved=1 status=0
	// FAST-DAG: cop call kind=1 state=direct target=dbl resolved=1 status=0
	// FAST-DAG: cop tail kind=2 state=direct target=dbl resolved=1 status=0
	// CHECKMODE-DAG: op call kind=1 state=guarded target=neg resolved=1 status=0
	// DISABLED-DAG: op call kind=1 state=slow target=none resolved=1
	expect("use(5)", use(5), -490);
	expect("tail_v(7)", tail_v(7), -7);
	expect("tail_c(7)", tail_c(7), 14);
	// CHECK: use(5) = -490
	// CHECK: tail_v(7) = -7
	// CHECK: tail_c(7) = 14

	/* Back to the link-time value, and once more away. */
	set_op(inc);
	expect("use(6)", use(6), 712);
	set_op(dbl);
	expect("tail_v(8)", tail_v(8), 16);
	// CHECK: use(6) = 712
	// CHECK: tail_v(8) = 16
	dyncall_get_stats(&s2);
	printf("status=%d guard_misses=%llu failures=%d\n", dyncall_status(),
	       (unsigned long long)s2.guard_misses, failures);
	// FAST: status=0 guard_misses=0 failures=0
	// PLAIN: status=0 guard_misses=0 failures=0
	// CHECKMODE: status=0 guard_misses=0 failures=0
	// DISABLED: status=-9 guard_misses=0 failures=0
	return failures ? EXIT_FAILURE : 0;
}
#endif
