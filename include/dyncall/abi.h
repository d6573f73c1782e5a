/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * dyncall ABI, version 1: the one definition of what the compiler plugins
 * emit and what the runtime and the rewriter read.  docs/abi.md explains it;
 * this header is the normative part.  C and C++, no dependencies, usable from
 * the runtime, the GCC plugin, the LLVM pass (C++) and, through
 * rewriter/dyncall_rewrite/abi.py which is checked against it by the test
 * suite (rewriter/tests/test_abi.py), from Python.  The assembly the plugins
 * emit around these tables (trampolines, thunk, module constructor) and the
 * names they agree on besides these are in <dyncall/abi-asm.h>.
 *
 * A *key* is an object holding a function pointer that was declared with
 * __attribute__((dynamic_call)) (a variable key), or the descriptor that
 * stands for every object of an annotated field or typedef (a type key).
 * A *site* is a call through a value loaded from a key.  The plugins compile
 * a site as a direct call (or tail jump) to a per-site trampoline, passing the
 * loaded pointer in the static-chain register, and describe it with one
 * struct dyncall_site_entry in the __dyncall_sites section.  Each translation
 * unit describes each key it uses with one struct dyncall_key_entry in the
 * __dyncall_keys section.  Every address in both tables is a signed 32-bit
 * offset from the field that holds it, so the tables need no relocation at
 * load time and can live in read-only memory.
 */
#ifndef DYNCALL_ABI_H
#define DYNCALL_ABI_H

#ifdef __cplusplus
#include <cstdint>
#else
#include <stdint.h>
#endif

#define DYNCALL_ABI_VERSION 1

/* Section names.  Both are valid C identifiers so the linker defines
 * __start_<name>/__stop_<name>.  The GCC plugin emits site entries per
 * function with SHF_LINK_ORDER pointing at the function's section (they live
 * and die with the function under --gc-sections); the Clang pass emits one
 * array per module (docs/abi.md, "The tables").  Key entries are
 * SHF_GNU_RETAIN. */
#define DYNCALL_SITES_SECTION "__dyncall_sites"
#define DYNCALL_KEYS_SECTION "__dyncall_keys"

/* Symbol names shared by both plugins and the runtime. */
#define DYNCALL_TRAMP_PREFIX "__dyncall_tramp." /* + <unit-id>.<n>          */
#define DYNCALL_KEYCELL_PREFIX "__dyncall_keycell."
#define DYNCALL_TYPE_KEY_PREFIX "__dyncall_tkey." /* + <md5 of key name>     */
#define DYNCALL_RETPOLINE_THUNK "__dyncall_retpoline_r10"
#define DYNCALL_REGISTER_FN "__dyncall_register"
#define DYNCALL_UNREGISTER_FN "__dyncall_unregister"
#define DYNCALL_STORE_FN "__dyncall_store"   /* (void *key, void *value)  */
#define DYNCALL_NOTE_FN "__dyncall_note"     /* (void *tkey, void *value) */
#define DYNCALL_RESYNC_FN "__dyncall_resync" /* (void *key)               */
#define DYNCALL_CTOR_PRIORITY 100 /* before every user constructor (>= 101) */

/* Attribute spelling and the annotation string the Clang plugin attaches. */
#define DYNCALL_ATTR_NAME "dynamic_call"

enum dyncall_entry_kind {
	DYNCALL_KIND_CALL = 1,     /* call tramp                               */
	DYNCALL_KIND_TAIL = 2,     /* jmp tramp (tail call): no return address  */
	DYNCALL_KIND_KEY = 3,      /* struct dyncall_key_entry                 */
	DYNCALL_KIND_PROLOGUE = 4, /* reserved: fentry-style patchable prologue */
	DYNCALL_KIND_POLY = 5,     /* reserved: guarded multi-target site       */
	/* A conditional site, `if (k) k(...)` through a void key: `call tramp`
	 * executed unconditionally, the loaded pointer (maybe NULL) in the
	 * static chain, and a trampoline whose slow path returns when it is
	 * NULL (below).  The call instruction may be patched to a NOP of its
	 * size while the key holds NULL (docs/hooks.md).  Never a tail jump. */
	DYNCALL_KIND_COND = 6,
	/* The inline guard of the CALL or TAIL entry right before it (x86-64
	 * whole-program sites, docs/abi.md "Inline guards").  The same 20-byte
	 * struct dyncall_site_entry with these meanings:
	 *   site    the hit call/jmp `call hit` (0: Clang, discovered)
	 *   tramp   the hit trampoline (an ordinary trampoline: same bytes)
	 *   keycell the literal: an 8-byte aligned writable slot holding its
	 *           own address (the sentinel) until the runtime stores the
	 *           inline target T into it, once
	 *   func    as for a site
	 *   flags   the owner's flags (RETPOLINE, IBT, TYPE_KEY)
	 * The caller compares the loaded pointer with the literal (an
	 * unordered 8-byte load) and, when equal, calls the hit trampoline
	 * with the pointer in the static chain, else the owner's trampoline.
	 * Additive: a runtime that predates the kind refuses the entry
	 * (DYNCALL_ERR_ABI), the literal keeps its sentinel, which no correct
	 * program calls, and every call takes the owner's site. */
	DYNCALL_KIND_INLINE = 7,
};

/* struct dyncall_site_entry.flags */
enum dyncall_site_flags {
	/* The loaded pointer is "fresh": no store, call, fence or atomic
	 * operation stronger than relaxed lies on any path between the load
	 * and the call, and the loaded value is used only by the call and by
	 * comparisons with null.  While the key's stores all go through the
	 * runtime, such a site may be patched to a direct call without a
	 * guard (see docs/abi.md, "Patch protocol"). */
	DYNCALL_SITE_FRESH = 1u << 0,
	DYNCALL_SITE_TYPE_KEY = 1u << 1,  /* key cell points at a type key     */
	DYNCALL_SITE_RETPOLINE = 1u << 2, /* caller built with retpolines      */
	DYNCALL_SITE_BTI = 1u << 3,       /* caller built with BTI (aarch64)    */
	DYNCALL_SITE_IBT = 1u << 4,       /* caller built with IBT (x86-64)     */
	/* Set by dyncall-rewrite relax: the key's value is known at link time
	 * (const key, or --resolve-initializers) and the trampoline's
	 * patchable branch -- and the site, when `site` is set -- were
	 * pre-patched to the direct form for that target in the file.  The
	 * runtime must not patch such a site at registration (it is already in
	 * its final state) and must treat it as "direct to the key's initial
	 * value" if the key is ever stored (see docs/abi.md, "Link-time
	 * resolution"). */
	DYNCALL_SITE_RESOLVED = 1u << 5,
};

/* struct dyncall_key_entry.flags */
enum dyncall_key_flags {
	/* The unit let the key's address escape (address taken other than by
	 * a direct load or store, or an atomic read-modify-write): stores the
	 * compiler cannot see may happen, so no site of this key may be
	 * patched without a guard, in any module. */
	DYNCALL_KEY_ESCAPES = 1u << 0,
	DYNCALL_KEY_TYPE = 1u << 1,  /* a type key (field or typedef)         */
	DYNCALL_KEY_CONST = 1u << 2, /* const-qualified: never stored         */
	/* The whole-program key of a unit (dyncall-cc --dyncall-whole-program):
	 * a type-key descriptor that stands for "any indirect call not through
	 * an annotated key".  Always with TYPE | ESCAPES; its sites (flag
	 * TYPE_KEY, never FRESH) only learn from their misses.  Additive: a
	 * runtime that ignores the flag treats it as the type key it is. */
	DYNCALL_KEY_WHOLE_PROGRAM = 1u << 3,
};

/* Name of a unit's whole-program key descriptor (hidden, COMDAT by unit)
 * and the source name of its key entry. */
#define DYNCALL_WP_KEY_PREFIX "__dyncall_wpkey."
#define DYNCALL_WP_KEY_NAME "(indirect call)"

/* Symbols of an inline guard (DYNCALL_KIND_INLINE): the hit trampoline
 * (hidden, in DYNCALL's trampoline section) and its literal (local). */
#define DYNCALL_HIT_PREFIX "__dyncall_hit."  /* + <unit-id>.<n>        */
#define DYNCALL_LIT_PREFIX "__dyncall_lit."  /* + <unit-id>.<n>        */

/* One per site, 20 bytes, 4-byte aligned.  All offsets are relative to the
 * address of the field itself; 0 means "none". */
struct dyncall_site_entry {
	int32_t site;    /* the call/jmp instruction; 0 when the compiler could
			  * not label it (Clang): the runtime discovers it from
			  * the return address, dyncall-rewrite may fill it in */
	int32_t tramp;   /* the trampoline entry (its patchable branch)       */
	int32_t keycell; /* a pointer-sized cell holding the key's address    */
	int32_t func;    /* start of the function that contains the site      */
	uint8_t version; /* DYNCALL_ABI_VERSION                               */
	uint8_t kind;    /* DYNCALL_KIND_CALL, _TAIL, _COND or _INLINE        */
	uint16_t flags;  /* enum dyncall_site_flags                           */
};

/* One per key per translation unit, 16 bytes, 4-byte aligned. */
struct dyncall_key_entry {
	int32_t keycell; /* a pointer-sized cell holding the key's address    */
	int32_t name;    /* NUL-terminated source name of the key, or 0       */
	uint8_t version; /* DYNCALL_ABI_VERSION                               */
	uint8_t kind;    /* DYNCALL_KIND_KEY                                  */
	uint16_t flags;  /* enum dyncall_key_flags                            */
	uint32_t reserved; /* 0 */
};

/* A type key: one per annotated field or typedef per module (hidden,
 * COMDAT), writable.  `last` is the last value stored into any object of
 * that type through code the plugin compiled; the plugins compare it inline
 * and call __dyncall_note only when it changes.  `seeded` belongs to the
 * runtime (0 in the object file): nonzero once a note seeded the key's
 * sites; after that notes are hints and the sites learn from their misses. */
struct dyncall_type_key {
	void *last;
	uint64_t seeded;
};

#ifdef __cplusplus
static_assert(sizeof(dyncall_site_entry) == 20, "ABI");
static_assert(sizeof(dyncall_key_entry) == 16, "ABI");
#else
_Static_assert(sizeof(struct dyncall_site_entry) == 20, "ABI");
_Static_assert(sizeof(struct dyncall_key_entry) == 16, "ABI");
#endif

/* Resolve a self-relative field. */
static inline void *dyncall_rel(const int32_t *field)
{
	return *field ? (void *)((const char *)field + *field) : (void *)0;
}

/*
 * Trampolines (emitted by the plugins, one per site, hidden, in section
 * .text.__dyncall_tramp).  The first instruction is the patchable branch;
 * what follows it is the unpatched ("slow") path, an indirect branch
 * through the static-chain register.
 *
 * x86-64 (static chain r10), 11 bytes, entry at 8k+3 so the rel32 field is
 * 4-byte aligned and inside one aligned quadword:
 *     cc cc cc            int3 padding (before the entry)
 *   tramp:
 *     e9 <rel32>          jmp slow            <- patched: jmp target/stub
 *   slow:
 *     41 ff e2            jmp *%r10           (no retpoline)
 *     e9 <rel32>          jmp __dyncall_retpoline_r10   (retpoline build)
 *
 * x86-64 conditional (DYNCALL_KIND_COND) trampoline: the slow path first
 * returns on a NULL pointer (the site's `if` folded into the trampoline):
 *     cc cc cc            int3 padding
 *   tramp:
 *     e9 <rel32>          jmp slow            <- patched: jmp target/stub
 *   slow:
 *     4d 85 d2            test %r10,%r10
 *     74 03 | 74 05       je 1f
 *     41 ff e2            jmp *%r10           (no retpoline)
 *     e9 <rel32>          jmp __dyncall_retpoline_r10   (retpoline build)
 *   1:
 *     c3                  ret
 * and its site, a 5-byte call that the runtime toggles (docs/hooks.md):
 *     e8 <rel32>          call tramp | target | stub      (set)
 *     0f 1f 44 00 00      nopl 0x0(%rax,%rax,1)           (key NULL)
 *
 * aarch64 (static chain x18), entry 4-byte aligned:
 *   tramp:
 *     14000001            b slow              <- patched: b target/stub
 *   slow:
 *     aa1203f0            mov x16, x18        (x16: BTI "bti c" accepts br x16)
 *     d61f0200            br x16
 *
 * ppc64le ELFv2 (static chain r11), entry 4-byte aligned:
 *   tramp:
 *     48000004            b slow              <- patched: b target/stub
 *   slow:
 *     7d6903a6            mtctr r11
 *     7d6c5b78            mr r12, r11         (global entry wants r12)
 *     4e800420            bctr
 */
#define DYNCALL_X86_64_NOP5 "\x0f\x1f\x44\x00\x00" /* a COND site, unset */
#define DYNCALL_X86_64_TRAMP_PAD 3
#define DYNCALL_X86_64_TRAMP_ALIGN 8

/*
 * Per-function records of patchable prologues (docs/abi.md, "Function
 * records").  Additive (the version stays 1): emitted by the plugins, when
 * a function has patchable entry NOPs (-fpatchable-function-entry or the
 * attribute), into section __dyncall_fn_records ("aw", SHF_LINK_ORDER to
 * the function: it lives and dies with the function under --gc-sections),
 * one 16-byte record per function, 8-byte aligned.  `fn` is the function's
 * address (its symbol, the entry the runtime registers), an absolute
 * pointer like the entries of __patchable_function_entries: a self-relative
 * offset to a symbol another module may preempt cannot be linked into a
 * shared object.  A record whose `fn` is not a registered patchable entry
 * of the same module (zero, a dropped function, an interposed symbol) is
 * ignored by the runtime and reported by dyncall-rewrite check (DC066).
 * A function without a record (no plugin, another arch) keeps the safe
 * default: every flag clear.  Unknown flags are ignored; `reserved` is 0.
 */
#define DYNCALL_FN_RECORDS_SECTION "__dyncall_fn_records"

/* struct dyncall_fn_record.flags */
enum dyncall_fn_record_flags {
	/* x86-64 SysV (and aarch64 AAPCS64: nothing in v0-v7): the
	 * prototype passes nothing in vector registers (no argument of a
	 * floating-point or vector type, or aggregate or complex holding
	 * one, travels in a register: one passed in memory, such as x86-64's
	 * long double or a large struct, does not count; not variadic: a
	 * variadic callee receives %al and xmm0-7), and the function uses the
	 * default calling convention.  The runtime then hooks it with a jump
	 * function without vector saves, as if every handler had
	 * DYNCALL_FN_NO_VEC.  (Records before DYNCALL_FN_REC_VEC_COUNT set it
	 * only when no parameter had such a type at all.) */
	DYNCALL_FN_REC_NO_VEC = 1u << 0,
	/* x86-64 SysV (aarch64 AAPCS64: v0 .. v(n-1), 16 bytes each, an HFA
	 * one per member): the prototype's arguments use exactly the vector
	 * registers xmm0 .. xmm(n-1), n = DYNCALL_FN_REC_VEC_NREGS(flags),
	 * 1 to 8 (an upper bound is allowed: saving more is safe; fewer
	 * never).  `double f(double, long)` is 1, `_Complex double` 2, a
	 * struct of two doubles by value 2, long double 0 (memory).  Never
	 * with DYNCALL_FN_REC_NO_VEC (that is n = 0, which old runtimes also
	 * read).  The runtime saves and restores those n only.  A runtime that
	 * does not know this flag sees a record without NO_VEC: xmm0-7 saved,
	 * as before. */
	DYNCALL_FN_REC_VEC_COUNT = 1u << 1,
	/* x86-64 SysV, aarch64: variadic.  Callers pass up to 8 vector
	 * registers (x86-64: and %al, an upper bound of them): recorded with
	 * DYNCALL_FN_REC_VEC_COUNT and n = 8. */
	DYNCALL_FN_REC_VARIADIC = 1u << 2,
	/* x86-64 SysV: a vector argument wider than 16 bytes may be passed
	 * in a vector register (__m256 in ymm with AVX; the flag is set for
	 * any such parameter type, whatever the target options): the saves
	 * must keep the registers' upper halves (up to bit 255).  With
	 * DYNCALL_FN_REC_VEC_COUNT. */
	DYNCALL_FN_REC_VEC_YMM = 1u << 3,
	/* the same up to bit 511 (__m512 in zmm with AVX-512F); implies
	 * DYNCALL_FN_REC_VEC_YMM's meaning, set alone or with it */
	DYNCALL_FN_REC_VEC_ZMM = 1u << 4,
	/* x86-64 SysV, aarch64 AAPCS64 and ppc64le ELFv2: the function
	 * receives arguments in exactly the first n integer argument
	 * registers and in no other integer register,
	 * n = DYNCALL_FN_REC_INT_NREGS(flags): x86-64
	 * rdi, rsi, rdx, rcx, r8, r9 (0 to 6; a hidden sret pointer and C++'s
	 * `this` are in rdi and counted; __int128 and an aggregate classed
	 * INTEGER take two or one per eightbyte; one passed in memory none),
	 * aarch64 x0 .. x(n-1) (0 to 8; an aligned __int128 skips to an even
	 * register, the skipped one counted; the indirect result register x8
	 * is DYNCALL_FN_REC_INT_X8, not counted), ppc64le r3 .. r(n+2) (0 to
	 * 8: the doublewords of the parameter save area up to the last
	 * argument's end, which r3-r10 shadow whatever goes in them: a double
	 * in f1 before a long makes 2).  An upper bound is allowed
	 * (saving more is safe; fewer never).  Only with the default calling
	 * convention and never with DYNCALL_FN_REC_VARIADIC (a variadic
	 * callee may read every register) nor for a function with a static
	 * chain (x86-64 r10, aarch64 x18, ppc64le r11): with this flag the
	 * registers beyond the n (x86-64: and rax, r10; ppc64le: and r11)
	 * carry nothing into the function.  The runtime's jump function then saves and restores
	 * those n only (docs/prologues.md "Integer registers"); a runtime
	 * that does not know the flag saves them all, as without a record.
	 * n above the arch's count: malformed, everything saved. */
	DYNCALL_FN_REC_INT_COUNT = 1u << 5,
	/* aarch64: x8 carries the address of the result (an indirect result,
	 * returned in memory); with DYNCALL_FN_REC_INT_COUNT.  Never on
	 * x86-64 and ppc64le (their sret pointer is rdi, r3: counted in n). */
	DYNCALL_FN_REC_INT_X8 = 1u << 6,
	/* ppc64le ELFv2, which has two register files for such arguments:
	 * DYNCALL_FN_REC_VEC_COUNT's n counts the floating-point registers
	 * f1 .. fn (0 to 13: a double, each member of a homogeneous float
	 * aggregate one, an IBM long double two), and this flag's m, flags
	 * bits 16-19, the vector registers v2 .. v(m+1) (0 to 12: a vector,
	 * __float128, each member of a homogeneous vector aggregate).  Both
	 * are set together on ppc64le (n = 0 is then valid when m is not);
	 * DYNCALL_FN_REC_NO_VEC when both are 0.  A runtime that does not
	 * know this flag reads n (0 or 9-13: a malformed count, every
	 * register saved; 1-8: its ppc64le trampoline saves every register
	 * when any is asked for) safely.  Not used on x86-64 and aarch64. */
	DYNCALL_FN_REC_VEC2_COUNT = 1u << 7,
};
/* n of DYNCALL_FN_REC_VEC_COUNT: flags bits 8-11 */
#define DYNCALL_FN_REC_VEC_SHIFT 8
#define DYNCALL_FN_REC_VEC_MASK 15u
#define DYNCALL_FN_REC_VEC_NREGS(flags) \
	(((flags) >> DYNCALL_FN_REC_VEC_SHIFT) & DYNCALL_FN_REC_VEC_MASK)
/* n of DYNCALL_FN_REC_INT_COUNT: flags bits 12-15 */
#define DYNCALL_FN_REC_INT_SHIFT 12
#define DYNCALL_FN_REC_INT_MASK 15u
#define DYNCALL_FN_REC_INT_NREGS(flags) \
	(((flags) >> DYNCALL_FN_REC_INT_SHIFT) & DYNCALL_FN_REC_INT_MASK)
/* integer argument registers of x86-64 SysV (rdi, rsi, rdx, rcx, r8, r9)
 * and AAPCS64 (x0-x7) */
#define DYNCALL_X86_64_INT_ARG_REGS 6
#define DYNCALL_AARCH64_INT_ARG_REGS 8
/* ppc64le ELFv2: r3-r10 */
#define DYNCALL_PPC64LE_INT_ARG_REGS 8
/* m of DYNCALL_FN_REC_VEC2_COUNT: flags bits 16-19 */
#define DYNCALL_FN_REC_VEC2_SHIFT 16
#define DYNCALL_FN_REC_VEC2_MASK 15u
#define DYNCALL_FN_REC_VEC2_NREGS(flags) \
	(((flags) >> DYNCALL_FN_REC_VEC2_SHIFT) & DYNCALL_FN_REC_VEC2_MASK)
/* vector argument registers of x86-64 SysV (xmm0-7) and AAPCS64 (v0-v7) */
#define DYNCALL_X86_64_VEC_ARG_REGS 8
#define DYNCALL_AARCH64_VEC_ARG_REGS 8
/* ppc64le ELFv2: floating-point (f1-f13) and vector (v2-v13) argument
 * registers */
#define DYNCALL_PPC64LE_FPR_ARG_REGS 13
#define DYNCALL_PPC64LE_VR_ARG_REGS 12

struct dyncall_fn_record {
	uint64_t fn;       /* the function (absolute, relocated at load) */
	uint32_t flags;    /* enum dyncall_fn_record_flags */
	uint32_t reserved; /* 0 */
};
#ifdef __cplusplus
static_assert(sizeof(dyncall_fn_record) == 16, "ABI");
#else
_Static_assert(sizeof(struct dyncall_fn_record) == 16, "ABI");
#endif

#endif /* DYNCALL_ABI_H */
