/*
 * hooks_prog.c - hook lists (docs/hooks.md) against a plain C loop.
 *
 * Every call through a list (DYNCALL_HOOKS_CALL) is followed by the same
 * call through a shadow array of the handlers the program added, in a
 * plain loop; both log what each handler received (integer, double and
 * struct arguments, in registers and on the stack) and the logs must be
 * equal, call by call: a missed, extra, reordered handler or a changed
 * argument exits 1.  The handlers change their own arguments (registers,
 * stack slots, xmm) after logging them, so a jump function that does not
 * give each handler its own copy is caught.  The log is printed too: the
 * test compares it between the plugin build and the build without it.
 *
 * With -DSITE_SHAPES (x86-64, conditional sites: Clang, GCC): the site of the
 * plain list is the NOP with no handler, `call h` with one and `call jf`
 * (the key's value, not a handler) with several.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dyncall.h>
#include <dyncall/abi.h>

static char log_dc[1 << 16], log_ref[1 << 16];
static char *cur = log_dc;
static size_t used;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(log_dc) - used;

	va_start(ap, fmt);
	used += (size_t)vsnprintf(cur + used, room, fmt, ap);
	va_end(ap);
	if (used >= sizeof(log_dc) - 1) {
		fprintf(stderr, "log overflow\n");
		exit(2);
	}
}

/* Clobbers what a handler may clobber: its stack arguments (through
 * volatile), the argument registers and xmm (an opaque call). */
static volatile double dsink;
__attribute__((noinline)) void clobber(double x, long a, long b, long c,
				       long d, long e, long f)
{
	dsink = x * 1.5 + (double)(a + b) * 0.25 - (double)(c * d) / 3.0 +
		(double)(e - f);
	__asm__ volatile("" : : "r"(a), "r"(b), "r"(c), "r"(d), "r"(e), "r"(f)
			 : "memory");
}

/* --- a plain list, one int --- */
DYNCALL_HOOKS(pkt, void, int);
#define PKT_HANDLER(n)                                                        \
	__attribute__((noinline)) void p##n(int x)                            \
	{                                                                     \
		logf_("p" #n "(%d) ", x);                                     \
		clobber(-1.0, -1, -2, -3, -4, -5, -6);                        \
	}
PKT_HANDLER(0)
PKT_HANDLER(1)
PKT_HANDLER(2)
PKT_HANDLER(3)
PKT_HANDLER(4)
PKT_HANDLER(5)
PKT_HANDLER(6)
PKT_HANDLER(7)
static void (*const pkt_all[8])(int) = { p0, p1, p2, p3, p4, p5, p6, p7 };

/* --- many arguments: 8 integers (2 on the stack), 10 doubles (2 on the
 * stack), a 16-byte struct, a 40-byte struct (memory) --- */
struct two {
	long a, b;
};
struct big {
	long v[5];
};
#ifdef __aarch64__
/* AAPCS64 passes a struct over 16 bytes by reference to the caller's
 * copy, which the handlers would share: refused at compile time
 * (docs/hooks.md, "Limits"); a pointer to it here. */
typedef const struct big *big_arg;
#define BIG_ARG(g) (&(g))
#define BIG_V(g, i) ((g)->v[i])
#define BIG_CLOBBER(g) ((void)0)
#else
typedef struct big big_arg;
#define BIG_ARG(g) (g)
#define BIG_V(g, i) ((g).v[i])
#define BIG_CLOBBER(g) (((volatile struct big *)&(g))->v[4] = -44)
#endif
DYNCALL_HOOKS(many, void, long, long, long, long, long, long, long, long,
	      double, double, double, double, double, double, double, double,
	      double, double, struct two, big_arg);
#define MANY_HANDLER(n)                                                       \
	__attribute__((noinline)) void m##n(                                   \
		long a1, long a2, long a3, long a4, long a5, long a6, long a7,    \
		long a8, double d1, double d2, double d3, double d4, double d5,   \
		double d6, double d7, double d8, double d9, double d10,           \
		struct two t, big_arg g)                                          \
	{                                                                     \
		volatile long *v7 = &a7, *v8 = &a8;                          \
		volatile double *w9 = &d9, *w10 = &d10;                      \
		logf_("m" #n "(%ld %ld %ld %ld %ld %ld %ld %ld | %g %g %g %g %g " \
		      "%g %g %g %g %g | %ld %ld | %ld %ld %ld %ld %ld) ", a1,  \
		      a2, a3, a4, a5, a6, *v7, *v8, d1, d2, d3, d4, d5, d6,    \
		      d7, d8, *w9, *w10, t.a, t.b, BIG_V(g, 0), BIG_V(g, 1),   \
		      BIG_V(g, 2), BIG_V(g, 3), BIG_V(g, 4));             \
		*v7 = -7;                                                     \
		*v8 = -8;                                                     \
		*w9 = -9.5;                                                   \
		*w10 = -10.5;                                                 \
		BIG_CLOBBER(g);                                               \
		clobber(d1 * 3, a1, a2, a3, a4, a5, a6);                      \
	}
MANY_HANDLER(0)
MANY_HANDLER(1)
MANY_HANDLER(2)
typedef void (*many_fn)(long, long, long, long, long, long, long, long,
			double, double, double, double, double, double, double,
			double, double, double, struct two, big_arg);
static const many_fn many_all[3] = { m0, m1, m2 };

/* --- the data variant: (void *data, int, double) --- */
DYNCALL_HOOKS_DATA(dlist, void, int, double);
#define DATA_HANDLER(n)                                                       \
	__attribute__((noinline)) void dh##n(void *data, int x, double y)    \
	{                                                                     \
		logf_("d" #n "(%s %d %g) ", (const char *)data, x, y);        \
		clobber(y * 2, x, 0, 0, 0, 0, 0);                             \
	}
DATA_HANDLER(0)
DATA_HANDLER(1)
static char ctx_a[] = "A", ctx_b[] = "B", ctx_c[] = "C";

/* the shadow: what the program added, in order */
struct shadow {
	unsigned n;
	void *fn[DYNCALL_HOOKS_MAX], *data[DYNCALL_HOOKS_MAX];
};
static struct shadow s_pkt, s_many, s_dlist;

static void shadow_add(struct shadow *s, void *fn, void *data)
{
	s->fn[s->n] = fn;
	s->data[s->n++] = data;
}

static void shadow_remove(struct shadow *s, void *fn, void *data,
			  int match_data)
{
	unsigned k = 0;

	for (unsigned i = 0; i < s->n; i++) {
		if (s->fn[i] == fn && (!match_data || s->data[i] == data))
			continue;
		s->fn[k] = s->fn[i];
		s->data[k++] = s->data[i];
	}
	s->n = k;
}

__attribute__((noinline)) void fire_pkt(int x) { DYNCALL_HOOKS_CALL(pkt, x); }

__attribute__((noinline)) void fire_many(long base)
{
	struct two t = { base + 100, base + 101 };
	struct big g = { { base + 200, base + 201, base + 202, base + 203,
			   base + 204 } };

	DYNCALL_HOOKS_CALL(many, base + 1, base + 2, base + 3, base + 4,
			   base + 5, base + 6, base + 7, base + 8, base + 0.5,
			   base + 1.5, base + 2.5, base + 3.5, base + 4.5,
			   base + 5.5, base + 6.5, base + 7.5, base + 8.5,
			   base + 9.5, t, BIG_ARG(g));
}

__attribute__((noinline)) void fire_dlist(int x)
{
	DYNCALL_HOOKS_DATA_CALL(dlist, x, x + 0.25);
}

static void ref_pkt(int x)
{
	for (unsigned i = 0; i < s_pkt.n; i++)
		((void (*)(int))s_pkt.fn[i])(x);
}

static void ref_many(long base)
{
	for (unsigned i = 0; i < s_many.n; i++) {
		struct two t = { base + 100, base + 101 };
		struct big g = { { base + 200, base + 201, base + 202,
				   base + 203, base + 204 } };

		((many_fn)s_many.fn[i])(base + 1, base + 2, base + 3, base + 4,
					base + 5, base + 6, base + 7, base + 8,
					base + 0.5, base + 1.5, base + 2.5,
					base + 3.5, base + 4.5, base + 5.5,
					base + 6.5, base + 7.5, base + 8.5,
					base + 9.5, t, BIG_ARG(g));
	}
}

static void ref_dlist(int x)
{
	for (unsigned i = 0; i < s_dlist.n; i++)
		((void (*)(void *, int, double))s_dlist.fn[i])(s_dlist.data[i],
							      x, x + 0.25);
}

static unsigned step;

/* One call both ways; the logs must agree. */
#define BOTH(fire, ref, arg)                                                  \
	do {                                                                  \
		used = 0;                                                     \
		cur = log_dc;                                                 \
		fire(arg);                                                    \
		cur = log_ref;                                                \
		used = 0;                                                     \
		ref(arg);                                                     \
		cur = log_dc;                                                 \
		used = 0;                                                     \
		step++;                                                       \
		if (strcmp(log_dc, log_ref)) {                                \
			printf("MISMATCH at step %u:\n  list: %s\n  loop: %s\n", \
			       step, log_dc, log_ref);                       \
			exit(1);                                              \
		}                                                             \
		printf("%u %s: %s\n", step, #fire, log_dc);                   \
		log_dc[0] = log_ref[0] = 0;                                   \
	} while (0)

static void status(const char *what, int got, int want)
{
	printf("%s: %d\n", what, got);
	if (got != want) {
		printf("STATUS %s: %d, want %d\n", what, got, want);
		exit(1);
	}
}

#ifdef SITE_SHAPES
static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
struct shape {
	const void *want; /* NULL: the NOP */
	const unsigned char *at;
};

static int site_of(const struct dyncall_site_info *si, void *arg)
{
	struct shape *s = arg;

	if (si->kind == DYNCALL_KIND_COND && si->ncalls == 1)
		s->at = si->calls[0];
	return 0;
}

/* The plain list's one site: the NOP, or `call <want>`. */
static void expect_shape(const void *want, const char *what)
{
	struct shape s = { want, NULL };
	int32_t rel;

	if (getenv("DYNCALL_CHECK") || dyncall_status() != DYNCALL_OK)
		return; /* every site guarded, or none patched (DYNCALL_DISABLE):
			 * checked by behaviour */
	dyncall_foreach_site(&pkt, site_of, &s);
	if (!s.at) {
		printf("SHAPE %s: no conditional site with its call known\n",
		       what);
		exit(1);
	}
	if (!want) {
		if (memcmp(s.at, nop5, 5)) {
			printf("SHAPE %s: not the NOP\n", what);
			exit(1);
		}
		return;
	}
	memcpy(&rel, s.at + 1, 4);
	if (s.at[0] != 0xe8 || (const char *)s.at + 5 + rel != want) {
		printf("SHAPE %s: %02x, calls %p, want call %p\n", what,
		       s.at[0], (const void *)((const char *)s.at + 5 + rel),
		       want);
		exit(1);
	}
}
#define SHAPE(want, what) expect_shape((const void *)(want), what)
#else
#define SHAPE(want, what) ((void)0)
#endif

int main(void)
{
	/* empty: nothing runs (and the site is discovered) */
	BOTH(fire_pkt, ref_pkt, 1);
	BOTH(fire_pkt, ref_pkt, 2);
	SHAPE(NULL, "empty");

	/* 1..8 handlers, in the order added */
	for (int i = 0; i < 8; i++) {
		status("add", dyncall_hooks_add(pkt, pkt_all[i]), DYNCALL_OK);
		shadow_add(&s_pkt, (void *)pkt_all[i], NULL);
		BOTH(fire_pkt, ref_pkt, 10 + i);
		BOTH(fire_pkt, ref_pkt, 20 + i);
		if (i == 0)
			SHAPE(p0, "one handler");
		else
			SHAPE(pkt, "a jump function");
		if (i && (void *)pkt == (void *)pkt_all[0]) {
			printf("the key holds a handler with %d\n", i + 1);
			exit(1);
		}
	}
	status("dup", dyncall_hooks_add(pkt, p3), DYNCALL_ERR_EXISTS);
	status("count", dyncall_hooks_count(pkt), 8);
	/* remove from the middle, the front, the back */
	status("remove p3", dyncall_hooks_remove(pkt, p3), DYNCALL_OK);
	shadow_remove(&s_pkt, (void *)p3, NULL, 0);
	BOTH(fire_pkt, ref_pkt, 30);
	status("remove p3 again", dyncall_hooks_remove(pkt, p3),
	       DYNCALL_ERR_NOHOOK);
	status("remove p0", dyncall_hooks_remove(pkt, p0), DYNCALL_OK);
	shadow_remove(&s_pkt, (void *)p0, NULL, 0);
	BOTH(fire_pkt, ref_pkt, 31);
	status("remove p7", dyncall_hooks_remove(pkt, p7), DYNCALL_OK);
	shadow_remove(&s_pkt, (void *)p7, NULL, 0);
	BOTH(fire_pkt, ref_pkt, 32);
	/* re-added: at the end now */
	status("add p0", dyncall_hooks_add(pkt, p0), DYNCALL_OK);
	shadow_add(&s_pkt, (void *)p0, NULL);
	BOTH(fire_pkt, ref_pkt, 33);
	/* down to one (a direct call again), then none (the NOP again) */
	for (int i = 1; i < 7; i++) {
		if (i == 3)
			continue;
		status("remove", dyncall_hooks_remove(pkt, pkt_all[i]),
		       DYNCALL_OK);
		shadow_remove(&s_pkt, (void *)pkt_all[i], NULL, 0);
		BOTH(fire_pkt, ref_pkt, 40 + i);
	}
	SHAPE(p0, "one handler again");
	status("remove last", dyncall_hooks_remove(pkt, p0), DYNCALL_OK);
	shadow_remove(&s_pkt, (void *)p0, NULL, 0);
	BOTH(fire_pkt, ref_pkt, 50);
	SHAPE(NULL, "empty again");
	status("remove from empty", dyncall_hooks_remove(pkt, p0),
	       DYNCALL_ERR_NOHOOK);
	status("null handler", dyncall_hooks_add(pkt, (void (*)(int))0),
	       DYNCALL_ERR_INVAL);

	/* many arguments: 1, 2, 3 handlers */
	for (int i = 0; i < 3; i++) {
		status("add many", dyncall_hooks_add(many, many_all[i]),
		       DYNCALL_OK);
		shadow_add(&s_many, (void *)many_all[i], NULL);
		BOTH(fire_many, ref_many, 1000L * (i + 1));
	}
	status("remove many m1", dyncall_hooks_remove(many, m1), DYNCALL_OK);
	shadow_remove(&s_many, (void *)m1, NULL, 0);
	BOTH(fire_many, ref_many, 5000L);

	/* the data variant: one handler (a jump function still: it loads
	 * the data), the same function with two data, removal by function
	 * and data, then by function */
	status("add d0 A", dyncall_hooks_add_data(dlist, dh0, ctx_a), DYNCALL_OK);
	shadow_add(&s_dlist, (void *)dh0, ctx_a);
	BOTH(fire_dlist, ref_dlist, 1);
	status("add d1 B", dyncall_hooks_add_data(dlist, dh1, ctx_b), DYNCALL_OK);
	shadow_add(&s_dlist, (void *)dh1, ctx_b);
	status("add d0 C", dyncall_hooks_add_data(dlist, dh0, ctx_c), DYNCALL_OK);
	shadow_add(&s_dlist, (void *)dh0, ctx_c);
	BOTH(fire_dlist, ref_dlist, 2);
	status("dup d0 C", dyncall_hooks_add_data(dlist, dh0, ctx_c),
	       DYNCALL_ERR_EXISTS);
	status("remove d0 A", dyncall_hooks_remove_data(dlist, dh0, ctx_a),
	       DYNCALL_OK);
	shadow_remove(&s_dlist, (void *)dh0, ctx_a, 1);
	BOTH(fire_dlist, ref_dlist, 3);
	status("remove d0 A again",
	       dyncall_hooks_remove_data(dlist, dh0, ctx_a), DYNCALL_ERR_NOHOOK);
	status("add d0 A", dyncall_hooks_add_data(dlist, dh0, ctx_a), DYNCALL_OK);
	shadow_add(&s_dlist, (void *)dh0, ctx_a);
	BOTH(fire_dlist, ref_dlist, 4);
	status("remove d0 (all data)", dyncall_hooks_remove(dlist, dh0),
	       DYNCALL_OK);
	shadow_remove(&s_dlist, (void *)dh0, NULL, 0);
	BOTH(fire_dlist, ref_dlist, 5);

	/* full */
	{
		static char slots[DYNCALL_HOOKS_MAX + 1];
		int i;

		for (i = 0; i < DYNCALL_HOOKS_MAX - 1; i++)
			if (dyncall_hooks_add_data(dlist, dh0, &slots[i]))
				break;
		status("filled", i, DYNCALL_HOOKS_MAX - 1);
		status("full", dyncall_hooks_add_data(dlist, dh0, &slots[i]),
		       DYNCALL_ERR_FULL);
		status("count full", dyncall_hooks_count(dlist),
		       DYNCALL_HOOKS_MAX);
	}
	printf("done\n");
	return 0;
}
