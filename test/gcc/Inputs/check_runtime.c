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
 * Execution tests use the real runtime (REQUIRES: dyncall-runtime).
 */
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

static const unsigned char *bytes(const void *p)
{
	return (const unsigned char *)p;
}

static const unsigned char *rel32_target(const unsigned char *insn)
{
	int32_t rel;

	memcpy(&rel, insn + 1, 4);
	return insn + 5 + rel;
}

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
		unsigned char op = s->kind == DYNCALL_KIND_TAIL ? 0xe9 : 0xe8;
		if (site[0] != op)
			FAIL("site %p: %02x, expected %02x", (void *)site,
			     site[0], op);
		if ((uintptr_t)site % 4 != 3)
			FAIL("site %p: rel32 not 4-byte aligned", (void *)site);
		if (site[-3] != 0x0f || site[-2] != 0x1f || site[-1] != 0x00)
			FAIL("site %p: no 3-byte nop before it", (void *)site);
		if (rel32_target(site) != tramp)
			FAIL("site %p: does not branch to its trampoline",
			     (void *)site);
		if (func > site || site - func > (1 << 20))
			FAIL("site %p: function start %p", (void *)site,
			     (void *)func);
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
