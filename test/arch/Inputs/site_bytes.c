/* Prints the instructions of a running site before and after patching,
 * read from the process's own text: the call instruction (found in
 * apply()'s code as the branch to the site's trampoline, then from
 * dyncall_foreach_site once discovered), the trampoline, and the guard
 * stub of a guarded site.  Branch destinations are named: <tramp>,
 * <slow> (tramp + 4), <twice>, <square>, <stub> (runtime-generated),
 * <other>. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

/* The targets touch a global: on ppc64le that gives them a TOC
 * (global-entry prologue), so a same-module direct branch enters their
 * local entry. */
static volatile int hits;
__attribute__((noinline)) static int twice(int x) { hits++; return 2 * x; }
__attribute__((noinline)) static int square(int x) { hits++; return x * x; }

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
	return 0;
}
