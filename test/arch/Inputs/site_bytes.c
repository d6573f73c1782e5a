/* Prints the instructions of a running site before and after patching,
 * read from the process's own text: the call instruction (found in
 * apply()'s code as the branch to the site's trampoline, then from
 * dyncall_foreach_site once discovered), the trampoline, and the guard
 * stub of a guarded site.  Branch destinations are named: <tramp>,
 * <slow> (tramp + 4), <twice>, <square>, <cube>, <neg>, <inc>, <stub> (runtime-generated),
 * <other>. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dyncall.h>

/* The targets touch a global: on ppc64le that gives them a TOC
 * (global-entry prologue), so a same-module direct branch enters their
 * local entry. */
static volatile int hits;
__attribute__((noinline)) static int twice(int x) { hits++; return 2 * x; }
__attribute__((noinline)) static int square(int x) { hits++; return x * x; }
__attribute__((noinline)) static int cube(int x) { hits++; return x * x * x; }
__attribute__((noinline)) static int neg(int x) { hits++; return -x; }
__attribute__((noinline)) static int inc(int x) { hits++; return x + 1; }

int (*DYNCALL op)(int) = twice;
int (*DYNCALL gop)(int) = twice;

/* Makes gop's address escape: its sites stay guarded. */
__attribute__((noinline)) void escape(void *volatile *p) { (void)p; }

__attribute__((noinline)) int apply(int x) { return op(x) + 1; }
__attribute__((noinline)) int gapply(int x) { return gop(x) + 1; }

static uint32_t word(uintptr_t a)
{
	uint32_t w;
	memcpy(&w, (const void *)a, 4);
	return w;
}

struct info { uintptr_t tramp, site; };

static int get(const struct dyncall_site_info *si, void *arg)
{
	struct info *in = arg;
	in->tramp = (uintptr_t)si->tramp;
	in->site = si->ncalls ? (uintptr_t)si->calls[0] : 0;
	return 0;
}

static const char *name(uintptr_t d, uintptr_t tramp)
{
	if (d == tramp)
		return "<tramp>";
	if (d == tramp + 4)
		return "<slow>";
	if (d == (uintptr_t)twice)
		return "<twice>";
	if (d == (uintptr_t)square)
		return "<square>";
	if (d == (uintptr_t)cube)
		return "<cube>";
	if (d == (uintptr_t)neg)
		return "<neg>";
	if (d == (uintptr_t)inc)
		return "<inc>";
	if (word(d) == 0xf8410018) /* std r2,24(r1): the linker's stub */
		return "<tocsave>";
	return "<stub>";
}

#if defined(__aarch64__)
/* b/bl <imm26> */
static int branch(uint32_t w, uintptr_t at, uintptr_t *d)
{
	if ((w & 0x7c000000) != 0x14000000)
		return 0;
	*d = at + ((int64_t)((uint64_t)(w & 0x03ffffff) << 38) >> 36);
	return (w & 0x80000000) ? 2 : 1; /* 2: bl */
}
#define LOCAL_ENTRY(f) ((uintptr_t)(f))
#elif defined(__powerpc64__)
/* b/bl <li24> (AA = 0) */
static int branch(uint32_t w, uintptr_t at, uintptr_t *d)
{
	if ((w & 0xfc000002) != 0x48000000)
		return 0;
	*d = at + ((int64_t)((uint64_t)(w & 0x03fffffc) << 38) >> 38);
	return (w & 1) ? 2 : 1;
}
/* The local entry point: past `addis r2,r12,..; addi r2,r2,..`. */
#define LOCAL_ENTRY(f)                                                        \
	((word((uintptr_t)(f)) >> 16) == 0x3c4c ? (uintptr_t)(f) + 8 :        \
						   (uintptr_t)(f))
#endif

/* A branch to a local entry names the function. */
static uintptr_t canon(uintptr_t d)
{
	if (d == LOCAL_ENTRY(twice))
		return (uintptr_t)twice;
	if (d == LOCAL_ENTRY(square))
		return (uintptr_t)square;
	if (d == LOCAL_ENTRY(cube))
		return (uintptr_t)cube;
	if (d == LOCAL_ENTRY(neg))
		return (uintptr_t)neg;
	if (d == LOCAL_ENTRY(inc))
		return (uintptr_t)inc;
	return d;
}

static void show(const char *what, uintptr_t at, uintptr_t tramp)
{
	uint32_t w = word(at);
	uintptr_t d = 0;
	int k = branch(w, at, &d);

	d = canon(d);
	printf("%s: %08x %s %s\n", what, w, k == 2 ? "bl" : k ? "b" : "?",
	       k ? name(d, tramp) : "");
}

static void words(const char *what, uintptr_t at, int n)
{
	printf("%s:", what);
	for (int i = 0; i < n; i++)
		printf(" %08x", word(at + 4 * i));
	printf("\n");
}

/* The call to the trampoline inside fn (before discovery). */
static uintptr_t find_call(void *fn, uintptr_t tramp)
{
	for (uintptr_t a = (uintptr_t)fn; a < (uintptr_t)fn + 256; a += 4) {
		uintptr_t d;
		if (branch(word(a), a, &d) != 2)
			continue;
		if (d == tramp)
			return a;
		/* ppc64le: bl <std r2,24(r1); b tramp> ; ld r2,24(r1) */
		if (word(d) == 0xf8410018 && branch(word(d + 4), d + 4, &d) &&
		    d == tramp)
			return a;
	}
	return 0;
}

/* A macro, not a function taking the key's address: passing &key to a
 * function of ours would make the key escape (then its sites are guarded). */
#define DUMP(when, key, fn)                                                   \
	do {                                                                 \
		struct info in_ = { 0, 0 };                                  \
		dyncall_foreach_site((const void *)&(key), get, &in_);       \
		dump((when), in_, (void *)(fn));                             \
	} while (0)

static void dump(const char *when, struct info in, void *fn)
{
	uintptr_t site, d;

	site = in.site ? in.site : find_call(fn, in.tramp);
	printf("== %s\n", when);
	if (site)
		show("site", site, in.tramp);
#ifdef __powerpc64__
	if (site)
		words("after", site + 4, 1);
#endif
	show("tramp", in.tramp, in.tramp);
	words("slow", in.tramp + 4, TRAMP_SLOW_WORDS);
	if (site && branch(word(site), site, &d) && d != in.tramp &&
	    !strcmp(name(canon(d), in.tramp), "<stub>"))
		words("stub", d, STUB_WORDS);
	else if (branch(word(in.tramp), in.tramp, &d) &&
		 !strcmp(name(canon(d), in.tramp), "<stub>"))
		words("stub", d, STUB_WORDS);
}

/* A learning guard stub, one instruction a token: the exact word, except
 * that an instruction with an address in it shows the address named
 * (a literal's value, a branch's destination; <site>: the literal holds
 * the runtime's site; <entry>: the stub region's miss entry), up to the end
 * of its miss path. */
static void learned(const char *when, uintptr_t st, uintptr_t tramp)
{
	uintptr_t a = st, d;
	int miss = 0;

	printf("%s:", when);
	for (int n = 0; n < 64; n++) {
		uint32_t w = word(a);
#if defined(__aarch64__)
		if ((w & 0xff000000) == 0x58000000) { /* ldr xN, lit */
			d = a + ((int64_t)((uint64_t)(w & 0x00ffffe0) << 40) >> 43);
			printf(" ldr:x%u=%s", w & 31,
			       name(canon(*(const uintptr_t *)d), tramp));
		} else if ((w & 0x9f000000) == 0x10000000) { /* adr */
			d = a + (((int64_t)((uint64_t)(w & 0x00ffffe0) << 40) >> 45) *
				 4 + ((w >> 29) & 3));
			printf(" adr:x%u=&%s", w & 31,
			       *(const uintptr_t *)d ? "<site>" : "0");
			miss = 1;
		} else if (branch(w, a, &d)) {
			printf(" b:%s", d >= st && d < st + 4096 ? "<entry>" :
			       strcmp(name(canon(d), tramp), "<stub>") ?
			       name(canon(d), tramp) : "<entry>");
			if (miss)
				break;
		} else {
			printf(" %08x", w);
			if (w == 0xaa1203f0) /* mov x16, x18: the slow path */
				miss = 1;
			if (w == 0xd61f0200 && miss) /* br x16 */
				break;
		}
		a += 4;
#elif defined(__powerpc64__)
		if ((w >> 16) == 0x3d80 && word(a + 8) == 0x798c07c6) {
			/* r12 = 64-bit immediate (5 insns) */
			uint64_t v = (uint64_t)(w & 0xffff) << 48 |
				     (uint64_t)(word(a + 4) & 0xffff) << 32 |
				     (uint64_t)(word(a + 12) & 0xffff) << 16 |
				     (word(a + 16) & 0xffff);

			if (word(a + 20) == 0x7c2b6000) { /* cmpd r11, r12 */
				printf(" r12=%s", name(canon(v), tramp));
			} else {
				printf(" r12=&%s",
				       *(const uintptr_t *)v ? "<site>" : "0");
				miss = 1;
			}
			a += 20;
			continue;
		} else if (branch(w, a, &d)) {
			printf(" b:<entry>");
			if (miss)
				break;
		} else {
			printf(" %08x", w);
			if (w == 0x7d6903a6) /* mtctr r11: the slow path */
				miss = 1;
			if (w == 0x4e800420 && miss) /* bctr */
				break;
		}
		a += 4;
#endif
	}
	printf("\n");
}

static int info(const struct dyncall_site_info *si, void *arg)
{
	(void)arg;
	printf("  ntargets=%u mega=%d targets=", si->ntargets,
	       si->megamorphic);
	for (unsigned i = 0; i < si->ntargets; i++)
		printf("%s%s", i ? "," : "",
		       name(canon((uintptr_t)si->targets[i]), 0));
	printf("\n");
	return 0;
}

/* Code built without the plugin: a store the runtime does not see. */
__attribute__((noinline)) static void legacy_store(void *volatile *p,
						   void *v)
{
	*p = v;
}

/* The stub the guarded site reaches: from its call (aarch64) or its
 * trampoline (ppc64le: the site calls the trampoline). */
#define LEARNED(when)                                                         \
	do {                                                                 \
		struct info in_ = { 0, 0 };                                  \
		uintptr_t d_;                                                \
		dyncall_foreach_site((const void *)&gop, get, &in_);          \
		dyncall_foreach_site((const void *)&gop, info, NULL);         \
		if (in_.site && branch(word(in_.site), in_.site, &d_) &&     \
		    d_ != in_.tramp)                                         \
			learned((when), d_, in_.tramp);                      \
		else if (branch(word(in_.tramp), in_.tramp, &d_))            \
			learned((when), d_, in_.tramp);                      \
	} while (0)

int main(void)
{
	escape((void *volatile *)&gop);
	DUMP("registered", op, apply);
	printf("apply(3) = %d\n", apply(3));
	DUMP("called", op, apply);
	op = square;
	printf("apply(3) = %d\n", apply(3));
	DUMP("stored", op, apply);
	printf("gapply(3) = %d\n", gapply(3));
	DUMP("guarded", gop, gapply);

	/* Learning (run with DYNCALL_LEARN_PERIOD=1: every miss sampled,
	 * DYNCALL_LEARN_WINDOW=2, DYNCALL_LEARN_RETARGETS=2): gop is changed
	 * by stores the runtime does not see; the site learns from its
	 * misses: square (window 2), then cube and neg (window 4), then it
	 * is megamorphic (inc, window 8). */
	if (getenv("DYNCALL_LEARN_WINDOW")) {
		int sum = 0;

		LEARNED("learn1");
		for (int i = 0; i < 2; i++) {
			legacy_store((void *volatile *)&gop, (void *)square);
			sum += gapply(3);
		}
		LEARNED("learn2");
		for (int i = 0; i < 4; i++) {
			legacy_store((void *volatile *)&gop,
				     (void *)(i & 1 ? neg : cube));
			sum += gapply(3);
		}
		LEARNED("learn4");
		for (int i = 0; i < 8; i++) {
			legacy_store((void *volatile *)&gop, (void *)inc);
			sum += gapply(3);
		}
		LEARNED("mega");
		printf("sum = %d\n", sum);
	}
	return 0;
}
