/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ppc64le (ELFv2) constants of the arch contract (arch.h). */
#ifndef DYNCALL_ARCH_PPC64LE_H
#define DYNCALL_ARCH_PPC64LE_H

#define ARCH_NAME "ppc64le"
#define ARCH_MAX_STEPS 1        /* one aligned 32-bit store of b/bl      */
#define ARCH_CALL_LEN 4         /* bl <li24>                             */
#define ARCH_BRANCH_LEN 4       /* b/bl <li24>                           */
#define ARCH_REACH 0x01f00000L  /* +-32 MiB, minus a margin              */
#define ARCH_FAR_SIZE 96        /* far stub: 7 insns + literals          */
#define ARCH_MAX_TARGETS 4      /* targets one guard stub compares       */
#define ARCH_GUARD_MAX 192      /* arch_guard_size(ARCH_MAX_TARGETS)     */
#define ARCH_THUNK_SIZE 32      /* li64 r12, site; b disc; trap, trap    */
#define ARCH_REGION_HEADER 64   /* the miss entry's trampoline           */
#define ARCH_STORE_WORD 4       /* patches are single 32-bit stores      */
#define ARCH_FILL_BYTE 0x00     /* 0x00000000 is an illegal instruction  */
#define ARCH_TEXT_PROT (PROT_READ | PROT_EXEC)
#define ARCH_HAS_FENTRY 1       /* ppc64le_prologue.c                    */
#define ARCH_HAS_HOOKS 1        /* hook-list jump functions: ppc64le_hooks.c */
/* The CIE of the generated code's unwind information (unwind.c): code
 * alignment 4, data alignment -8, the return address in LR (DWARF 65),
 * CFA = r1 at the entry.  The function-entry jump functions need no FDE
 * (their handlers are called from the trampoline, whose CFI is in
 * ppc64le_prologue.S); the hook-list ones have one. */
#define ARCH_CFI_CODE_ALIGN 4
#define ARCH_CFI_DATA_ALIGN (-8)
#define ARCH_CFI_RA_REG 65
#define ARCH_CFI_CIE_INIT 0x0c, 1, 0
#define ARCH_FENTRY_NEAR_SIZE 40 /* the per-function stub and its slot  */
#define ARCH_FENTRY_NEAR_SHARED 0
#define ARCH_FENTRY_TARGET_CHECK 1 /* a redirect target keeps the TOC   */
#define ARCH_FENTRY_XRAY 1      /* Clang's XRay entry sleds, too         */
#define ARCH_FENTRY_VEC_REGS 13 /* f1-f13 (arch_fentry_vec.n)            */
#define ARCH_FENTRY_VEC2_REGS 12 /* v2-v13 (arch_fentry_vec.n2)          */
#define ARCH_HAS_CALLERS 1      /* redirects rewrite listed b/bl sites   */
#define ARCH_CALLER_BEFORE 0    /* R_PPC64_REL24's word is the b/bl      */
#define ARCH_CALLER_AFTER 4
#define ARCH_CALLER_TARGET_CHECK 1 /* local entry, TOC: arch_caller_target */
/* A symbol's local entry offset for a direct branch from a TOC caller:
 * st_other's local-entry field 0 is one entry that keeps r2 (0), 2-6 an
 * offset of 1 << v bytes; 1 ("r2 not kept": such callers need the
 * linker's TOC-save stub) and 7 (reserved) give -1 */
#define ARCH_CALLER_LOCAL_ENTRY(st_other)                                \
	((((st_other) >> 5) & 7) == 0 ? 0 :                              \
	 (((st_other) >> 5) & 7) == 1 || (((st_other) >> 5) & 7) == 7 ? -1 : \
					  1 << (((st_other) >> 5) & 7))
/* ELFv2: st_other's local-entry field 1 (r2 is caller-saved for the
 * function: it may return with another r2, e.g. -mcpu=power10 PC-relative
 * code) or 7 (reserved): not a redirect target (arch_fentry_target_ok) */
#define ARCH_SYM_DROPS_TOC(st_other) (ARCH_CALLER_LOCAL_ENTRY(st_other) < 0)
/* ELFv2: a function symbol's local entry offset (st_other bits 5..7). */
#define ARCH_LOCAL_ENTRY(st_other)                                       \
	((((st_other) >> 5) & 7) >= 2 ? 1u << (((st_other) >> 5) & 7) : 0u)
/* Clang sites are `bl <linker TOC-save stub>; ld r2,24(r1)`: an ordinary
 * site's call instruction is never patched (see ppc64le.c), so only the
 * conditional ones, which turn into `b .+8` while NULL, are discovered. */
#define ARCH_DISCOVER_COND_ONLY 1
/* COND sites (GCC's, labelled): `bl <TOC-save stub>; ld r2,24(r1)` <->
 * `b .+8; ld r2,24(r1)`.  The call never goes to a target directly (that
 * would skip the stub's TOC save): set, it is the original `bl` and the
 * trampoline's branch goes to the target (see ppc64le.c). */
#define ARCH_HAS_COND 1
#define ARCH_COND_CALL_VIA_TRAMP 1

#endif
