// Checks conditional sites (`if (k) k(...)` through a void key, the four source forms): the program behaves exactly as the unannotated one while the key is NULL, set, cleared and set again (also behind the runtime's back for an escaping key), and, in the plugin build, each form is one DYNCALL_KIND_COND site whose call instruction is the NOP of its size while the key is NULL (x86-64 0f 1f 44 00 00, aarch64 d503201f) and `call <target>` (`bl`) once set (direct for a fresh site of a key that does not escape), and `call <stub or trampoline>` for an escaping key.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host (test/arch/cond-sites-cross.test and test/gcc/cond-sites-cross.test run it on aarch64 under qemu); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -DCOND_SITES=1 -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// Retpoline build: the trampoline's slow path is the retpoline after the NULL test.
// RUN: %dyncall_clang -O2 -mretpoline -DWITH_DYNCALL -DCOND_SITES=1 -I%exec_inputs %s -o %t.retp %libdyncall_ldflags
// RUN: %t.retp > %t.retp.out
// RUN: diff %t.ref.out %t.retp.out
// Checking mode: every site guarded, the stub's NULL test comes before its miss entry.
// RUN: env DYNCALL_CHECK=1 %t.dc > %t.check.out
// RUN: diff %t.ref.out %t.check.out
// No learning: the guard stub's miss path is the plain slow path, after the NULL test.
// RUN: env DYNCALL_LEARN=0 %t.dc > %t.nolearn.out
// RUN: diff %t.ref.out %t.nolearn.out
// -O0 reads the key twice: no conditional site (a remark says why), ordinary sites, same behaviour.
// RUN: %dyncall_clang -O0 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
#include "expect.h"

#include <stdarg.h>
#include <stdint.h>

#include <dyncall/abi.h>

typedef void (*hook_t)(int);

static int hits1, hits2;
static void h1(int x) { hits1 += x; }
static void h2(int x) { hits2 += x; }

hook_t DYNCALL hook;    /* only ever stored where the plugin sees it */
hook_t DYNCALL escaped; /* its address escapes: guarded sites        */
hook_t *volatile escaped_addr = &escaped;

__attribute__((noinline)) void fire_if(int x) { if (hook) hook(x); }
__attribute__((noinline)) void fire_ne(int x) { if (hook != NULL) hook(x); }
__attribute__((noinline)) void fire_ternary(int x) { hook ? hook(x) : (void)0; }
__attribute__((noinline)) void fire_early(int x)
{
	if (!hook)
		return;
	hook(x);
}
__attribute__((noinline)) void fire_escaped(int x) { if (escaped) escaped(x); }

static void fire_all(int x)
{
	fire_if(x);
	fire_ne(x);
	fire_ternary(x);
	fire_early(x);
	fire_escaped(x);
}

#if defined(WITH_DYNCALL) && defined(COND_SITES)
/* The site's instruction: 0 for the NOP, 1 for a call (*dest: where),
 * -1 for anything else (docs/hooks.md, "Site shapes"). */
static int site_insn(const unsigned char *p, const char **dest)
{
#if defined(__x86_64__)
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	int32_t rel;

	if (!memcmp(p, nop5, 5))
		return 0;
	if (p[0] != 0xe8) /* call rel32 */
		return -1;
	memcpy(&rel, p + 1, 4);
	*dest = (const char *)p + 5 + rel;
	return 1;
#elif defined(__aarch64__)
	uint32_t w;

	memcpy(&w, p, 4);
	if (w == 0xd503201fu) /* nop */
		return 0;
	if ((w & 0xfc000000u) != 0x94000000u) /* bl <imm26> */
		return -1;
	*dest = (const char *)p +
		((int64_t)((uint64_t)(w & 0x03ffffffu) << 38) >> 36);
	return 1;
#elif defined(__powerpc64__)
	/* `bl <stub: std r2,24(r1); b tramp>; ld r2,24(r1)` set (*dest: the
	 * trampoline, whose branch holds the target), `b .+8` unset (GCC's
	 * sites labelled, Clang's discovered at run time). */
	uint32_t w, ld, std, b;
	const unsigned char *stub;

	memcpy(&w, p, 4);
	memcpy(&ld, p + 4, 4);
	if (ld != 0xe8410018u) /* ld r2, 24(r1) */
		return -1;
	if (w == 0x48000008u) /* b .+8 */
		return 0;
	if ((w & 0xfc000003u) != 0x48000001u) /* bl <li24> */
		return -1;
	stub = p + ((int64_t)((uint64_t)(w & 0x03fffffcu) << 38) >> 38);
	memcpy(&std, stub, 4);
	memcpy(&b, stub + 4, 4);
	if (std != 0xf8410018u || (b & 0xfc000003u) != 0x48000000u)
		return -1;
	*dest = (const char *)stub + 4 +
		((int64_t)((uint64_t)(b & 0x03fffffcu) << 38) >> 38);
	return 1;
#else
#error "cond-sites.c: no conditional site shapes for this arch"
#endif
}

struct want {
	const char *what;
	const void *target; /* NULL: the NOP; else call <target>         */
	int any_call;       /* a call to anything but the target        */
	unsigned sites;
	char err[200];      /* the first mismatch (reported after the walk:
			     * the callback runs under the runtime lock)  */
};

static int site_fail(struct want *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int site_fail(struct want *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return 1; /* stop */
}

static int check_site(const struct dyncall_site_info *si, void *arg)
{
	struct want *w = arg;
	const unsigned char *p;
	const char *dest = NULL;
	int insn;

	w->sites++;
	if (si->kind != DYNCALL_KIND_COND)
		return site_fail(w, "kind %d, want %d (cond)", si->kind,
				 DYNCALL_KIND_COND);
	if (si->ncalls != 1)
		return site_fail(w, "%u calls discovered", si->ncalls);
	p = si->calls[0];
	insn = site_insn(p, &dest);
	if (!w->any_call && !w->target) {
		if (insn != 0)
			return site_fail(w, "site %02x %02x %02x %02x, want the "
					 "NOP", p[0], p[1], p[2], p[3]);
		return 0;
	}
	if (insn != 1)
		return site_fail(w, "site %02x %02x %02x %02x, want a call",
				 p[0], p[1], p[2], p[3]);
#if defined(__powerpc64__)
	/* set: the call of the trampoline, which goes to the target (a fresh
	 * key) or to something else (the escaping key's stub or slow path) */
	if (dest != si->tramp)
		return site_fail(w, "site calls %p, want its trampoline %p",
				 (const void *)dest, si->tramp);
	dest = si->state == DYNCALL_STATE_DIRECT ? si->target : NULL;
#endif
	if (!w->any_call && dest != w->target)
		return site_fail(w, "site calls %p, want %p", (const void *)dest,
				 w->target);
	if (w->any_call && dest == w->target)
		return site_fail(w, "an escaping key's site is direct");
	return 0;
}

/* A macro: the key's address goes straight to the runtime API (expect.h) */
#define expect_sites(key, what_, target_, any_call_, n)                       \
	do {                                                                 \
		struct want w_ = { (what_), (target_), (any_call_), 0, "" };  \
		if (getenv("DYNCALL_CHECK"))                                 \
			break; /* all guarded: checked by behaviour */       \
		dyncall_foreach_site((key), check_site, &w_);                \
		if (w_.err[0])                                               \
			EXPECT_FAIL(__FILE__, __LINE__, "%s: %s", w_.what,   \
				    w_.err);                                 \
		if (w_.sites != (n))                                         \
			EXPECT_FAIL(__FILE__, __LINE__, "%s: %u sites, want " \
				    "%u", w_.what, w_.sites, (unsigned)(n)); \
	} while (0)
#else
#define expect_sites(key, what, target, any_call, n) ((void)0)
#endif

int main(void)
{
	/* NULL: nothing is called (and the sites are discovered) */
	fire_all(1);
	fire_all(1);
	printf("null: %d %d\n", hits1, hits2);
	// CHECK: null: 0 0
	expect_sites(&hook, "null", NULL, 0, 4);

	hook = h1;
	escaped = h1;
	fire_all(1);
	printf("set: %d %d\n", hits1, hits2);
	// CHECK-NEXT: set: 5 0
	expect_sites(&hook, "set", (const void *)h1, 0, 4);
	expect_sites(&escaped, "escaped set", (const void *)h1, 1, 1);

	hook = NULL;
	fire_all(1);
	printf("cleared: %d %d\n", hits1, hits2);
	// CHECK-NEXT: cleared: 6 0
	expect_sites(&hook, "cleared", NULL, 0, 4);

	/* behind the runtime's back: the escaping key's guard stub for h1
	 * sees NULL, then h2, and does what the program says */
	*escaped_addr = NULL;
	fire_all(1);
	printf("escaped null: %d %d\n", hits1, hits2);
	// CHECK-NEXT: escaped null: 6 0
	*escaped_addr = h2;
	fire_all(10);
	printf("escaped h2: %d %d\n", hits1, hits2);
	// CHECK-NEXT: escaped h2: 6 10

	hook = h2;
	fire_all(100);
	printf("set again: %d %d\n", hits1, hits2);
	// CHECK-NEXT: set again: 6 510
	expect_sites(&hook, "set again", (const void *)h2, 0, 4);
	return 0;
}
