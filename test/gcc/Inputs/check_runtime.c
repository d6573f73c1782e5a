/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * A stand-in for libdyncall in codegen-level tests: it implements the entry
 * points the GCC plugin calls and, when a module registers, checks every
 * table entry against docs/abi.md and prints one line per site and key:
 *
 *   key <name> flags=<ESCAPES|TYPE|CONST|->
 *   site key=<name> kind=<call|tail> flags=<FRESH|TYPE_KEY|RETPOLINE|IBT|->
 *   registered <n> sites <m> keys, <e> errors
 *
 * Execution tests use the real runtime (REQUIRES: dyncall-runtime).  The
 * checks of the instruction bytes are per arch (x86-64, aarch64, ppc64le);
 * when the site's function is a dynamic symbol (-rdynamic), `func` must be
 * that symbol's address (ppc64le: the global entry point).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dyncall/abi.h>

static int errors;

#define FAIL(...)                                                              \
	do {                                                                   \
		printf("ERROR: " __VA_ARGS__);                                 \
		printf("\n");                                                  \
		errors++;                                                      \
	} while (0)

static const char *key_name(const struct dyncall_key_entry *kb,
			    const struct dyncall_key_entry *ke,
			    const void *keycell)
{
	void *key = *(void *const *)keycell;

	for (const struct dyncall_key_entry *k = kb; k < ke; k++)
		if (*(void *const *)dyncall_rel(&k->keycell) == key)
			return dyncall_rel(&k->name);
	return "?";
}

static void print_flags(unsigned flags, const char *const *names, int n)
{
	int any = 0;

	for (int i = 0; i < n; i++)
		if (flags & (1u << i)) {
			printf("%s%s", any ? "|" : "", names[i]);
			any = 1;
		}
	printf("%s\n", any ? "" : "-");
}

/*
 * Per arch: check_site() - is the site the instruction abi.md says for its
 * kind, branching to its trampoline; check_tramp() - is the trampoline
 * unpatched and exactly abi.md's bytes.
 */
#if defined(__x86_64__)
static const unsigned char *rel32_target(const unsigned char *insn)
{
	int32_t rel;

	memcpy(&rel, insn + 1, 4);
	return insn + 5 + rel;
}

static void check_site(const unsigned char *site, int kind,
		       const unsigned char *tramp)
{
	unsigned char op = kind == DYNCALL_KIND_TAIL ? 0xe9 : 0xe8;

	if (site[0] != op)
		FAIL("site %p: %02x, expected %02x", (void *)site, site[0], op);
	if ((uintptr_t)site % 4 != 3)
		FAIL("site %p: rel32 not 4-byte aligned", (void *)site);
	if (site[-3] != 0x0f || site[-2] != 0x1f || site[-1] != 0x00)
		FAIL("site %p: no 3-byte nop before it", (void *)site);
	if (rel32_target(site) != tramp)
		FAIL("site %p: does not branch to its trampoline", (void *)site);
}

static void check_tramp(const unsigned char *t, unsigned flags)
{
	if ((uintptr_t)t % 8 != 3)
		FAIL("trampoline %p not at 8k+3", (void *)t);
	if (t[-3] != 0xcc || t[-2] != 0xcc || t[-1] != 0xcc)
		FAIL("trampoline %p: no int3 padding", (void *)t);
	if (t[0] != 0xe9)
		FAIL("trampoline %p: first insn is not jmp rel32", (void *)t);
	/* Unpatched (the stand-in never patches): jmp to the slow path. */
	if (rel32_target(t) != t + 5)
		FAIL("trampoline %p: branch does not target the slow path",
		     (void *)t);
	const unsigned char *slow = t + 5;
	if (flags & DYNCALL_SITE_RETPOLINE) {
		static const unsigned char thunk[] = {
			0xe8, 0x07, 0x00, 0x00, 0x00, /* call 1f         */
			0xf3, 0x90,                   /* 2: pause        */
			0x0f, 0xae, 0xe8,             /* lfence          */
			0xeb, 0xf9,                   /* jmp 2b          */
			0x4c, 0x89, 0x14, 0x24,       /* 1: mov %r10,(%rsp) */
			0xc3,                         /* ret             */
		};
		if (slow[0] != 0xe9 ||
		    memcmp(rel32_target(slow), thunk, sizeof(thunk)) != 0)
			FAIL("trampoline %p: slow path is not the r10 retpoline",
			     (void *)t);
	} else if (slow[0] != 0x41 || slow[1] != 0xff || slow[2] != 0xe2) {
		FAIL("trampoline %p: slow path is not jmp *%%r10", (void *)t);
	}
}

#elif defined(__aarch64__)
#define A64_B 0x14000000u       /* b <imm26>  */
#define A64_BL 0x94000000u      /* bl <imm26> */
#define A64_B_MASK 0xfc000000u

static uint32_t word(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

static const unsigned char *imm26_target(const unsigned char *p)
{
	int32_t imm = (int32_t)(word(p) << 6) >> 6;

	return p + 4 * (intptr_t)imm;
}

static void check_site(const unsigned char *site, int kind,
		       const unsigned char *tramp)
{
	uint32_t op = kind == DYNCALL_KIND_TAIL ? A64_B : A64_BL;

	if ((uintptr_t)site % 4 != 0)
		FAIL("site %p: not 4-byte aligned", (void *)site);
	if ((word(site) & A64_B_MASK) != op)
		FAIL("site %p: %08x, expected %s", (void *)site, word(site),
		     op == A64_B ? "b" : "bl");
	else if (imm26_target(site) != tramp)
		FAIL("site %p: does not branch to its trampoline", (void *)site);
}

static void check_tramp(const unsigned char *t, unsigned flags)
{
	static const uint32_t expect[] = {
		0x14000001, /* b slow (unpatched) */
		0xaa1203f0, /* mov x16, x18       */
		0xd61f0200, /* br x16             */
	};

	if ((uintptr_t)t % 4 != 0)
		FAIL("trampoline %p: not 4-byte aligned", (void *)t);
	for (unsigned i = 0; i < sizeof(expect) / 4; i++)
		if (word(t + 4 * i) != expect[i])
			FAIL("trampoline %p: word %u is %08x, expected %08x",
			     (void *)t, i, word(t + 4 * i), expect[i]);
}

#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define PPC_BL 0x48000001u        /* bl <li>           */
#define PPC_B 0x48000000u         /* b <li>            */
#define PPC_B_MASK 0xfc000003u
#define PPC_STD_R2 0xf8410018u    /* std r2,24(r1)     */
#define PPC_LD_R2 0xe8410018u     /* ld r2,24(r1)      */

static uint32_t word(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

static const unsigned char *li_target(const unsigned char *p)
{
	int32_t li = (int32_t)((word(p) & 0x03fffffc) << 6) >> 6;

	return p + li;
}

/*
 * The trampoline does not preserve r2 (.localentry 1), so the linker links
 * the site's `bl tramp; nop` as
 *	bl stub			stub: std r2,24(r1)
 *	ld r2,24(r1)		      b tramp
 * No sibcall: kind is always CALL.
 */
static void check_site(const unsigned char *site, int kind,
		       const unsigned char *tramp)
{
	if (kind != DYNCALL_KIND_CALL)
		FAIL("site %p: kind %d on ppc64le", (void *)site, kind);
	if ((uintptr_t)site % 4 != 0)
		FAIL("site %p: not 4-byte aligned", (void *)site);
	if ((word(site) & PPC_B_MASK) != PPC_BL) {
		FAIL("site %p: %08x, expected bl", (void *)site, word(site));
		return;
	}
	if (word(site + 4) != PPC_LD_R2)
		FAIL("site %p: %08x after the bl, expected ld r2,24(r1)",
		     (void *)site, word(site + 4));
	const unsigned char *stub = li_target(site);
	if (word(stub) != PPC_STD_R2 ||
	    (word(stub + 4) & PPC_B_MASK) != PPC_B ||
	    li_target(stub + 4) != tramp)
		FAIL("site %p: bl %p is not std r2,24(r1); b trampoline",
		     (void *)site, (void *)stub);
}

static void check_tramp(const unsigned char *t, unsigned flags)
{
	static const uint32_t expect[] = {
		0x48000004, /* b slow (unpatched) */
		0x7d6903a6, /* mtctr r11          */
		0x7d6c5b78, /* mr r12, r11        */
		0x4e800420, /* bctr               */
	};

	if ((uintptr_t)t % 4 != 0)
		FAIL("trampoline %p: not 4-byte aligned", (void *)t);
	for (unsigned i = 0; i < sizeof(expect) / 4; i++)
		if (word(t + 4 * i) != expect[i])
			FAIL("trampoline %p: word %u is %08x, expected %08x",
			     (void *)t, i, word(t + 4 * i), expect[i]);
}

#else
#error "check_runtime.c: x86-64, aarch64 or ppc64le"
#endif

/* When the site's function is a dynamic symbol, func is its address. */
static void check_func(const unsigned char *site, const unsigned char *func)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	if (func > site || site - func > (1 << 20))
		FAIL("site %p: function start %p", (void *)site, (void *)func);
	if (!dladdr1(site, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
	    !info.dli_saddr || ELF64_ST_TYPE(sym->st_info) != STT_FUNC ||
	    site >= (const unsigned char *)info.dli_saddr + sym->st_size)
		return;
	if ((const unsigned char *)info.dli_saddr != func)
		FAIL("site %p: func %p, but it is in %s at %p", (void *)site,
		     (void *)func, info.dli_sname, info.dli_saddr);
}

void __dyncall_register(const struct dyncall_site_entry *sb,
			const struct dyncall_site_entry *se,
			const struct dyncall_key_entry *kb,
			const struct dyncall_key_entry *ke)
{
	static const char *const site_flags[] = { "FRESH", "TYPE_KEY",
						  "RETPOLINE", "BTI", "IBT" };
	static const char *const key_flags[] = { "ESCAPES", "TYPE", "CONST" };

	for (const struct dyncall_key_entry *k = kb; k < ke; k++) {
		if (k->version != DYNCALL_ABI_VERSION ||
		    k->kind != DYNCALL_KIND_KEY || k->reserved != 0)
			FAIL("key entry %p: bad header", (void *)k);
		printf("key %s flags=", (const char *)dyncall_rel(&k->name));
		print_flags(k->flags, key_flags, 3);
	}
	for (const struct dyncall_site_entry *s = sb; s < se; s++) {
		const unsigned char *site = dyncall_rel(&s->site);
		const unsigned char *tramp = dyncall_rel(&s->tramp);
		const unsigned char *func = dyncall_rel(&s->func);

		if (s->version != DYNCALL_ABI_VERSION)
			FAIL("site entry %p: version %d", (void *)s, s->version);
		if (!site || !tramp || !func || !s->keycell) {
			FAIL("site entry %p: null field", (void *)s);
			continue;
		}
		check_site(site, s->kind, tramp);
		check_func(site, func);
		/* abi.md: one trampoline per site (GCC gives a duplicated
		 * call its own copy). */
		for (const struct dyncall_site_entry *o = sb; o < s; o++)
			if (dyncall_rel(&o->tramp) == (void *)tramp)
				FAIL("site entries %d and %d share trampoline %p",
				     (int)(o - sb), (int)(s - sb), (void *)tramp);
		check_tramp(tramp, s->flags);
		printf("site key=%s kind=%s flags=",
		       key_name(kb, ke, dyncall_rel(&s->keycell)),
		       s->kind == DYNCALL_KIND_TAIL ? "tail" : "call");
		print_flags(s->flags, site_flags, 5);
	}
	printf("registered %d sites %d keys, %d errors\n", (int)(se - sb),
	       (int)(ke - kb), errors);
	fflush(stdout);
}

void __dyncall_unregister(const struct dyncall_site_entry *sb,
			  const struct dyncall_site_entry *se,
			  const struct dyncall_key_entry *kb,
			  const struct dyncall_key_entry *ke)
{
}

void __dyncall_store(void *key, void *value)
{
	__atomic_store_n((void **)key, value, __ATOMIC_SEQ_CST);
}

void __dyncall_resync(void *key)
{
}

void __dyncall_note(void *tkey, void *value)
{
	((struct dyncall_type_key *)tkey)->last = value;
}
