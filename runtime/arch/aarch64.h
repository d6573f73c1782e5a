/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* aarch64 constants of the arch contract (arch.h). */
#ifndef DYNCALL_ARCH_AARCH64_H
#define DYNCALL_ARCH_AARCH64_H

#include <stdint.h>

#define ARCH_NAME "aarch64"
#define ARCH_MAX_STEPS 1        /* one aligned 32-bit store of B/BL      */
#define ARCH_CALL_LEN 4         /* bl <imm26>                            */
#define ARCH_BRANCH_LEN 4       /* b/bl <imm26>                          */
#define ARCH_REACH 0x07f00000L  /* +-128 MiB, minus a margin             */
#define ARCH_FAR_SIZE 64        /* one cache line per far stub           */
#define ARCH_MAX_TARGETS 4      /* targets one guard stub compares       */
#define ARCH_GUARD_MAX 128      /* arch_guard_size(ARCH_MAX_TARGETS, cond) */
#define ARCH_THUNK_SIZE 16      /* ldr x17, lit; b entry; lit: .quad     */
#define ARCH_REGION_HEADER 64   /* shared entries at the start of a region */
#define ARCH_STORE_WORD 4       /* patches are single 32-bit stores      */
#define ARCH_FILL_BYTE 0x00     /* udf #0 everywhere unused              */
/* R-X, plus PROT_BTI where the pages are (or, for the runtime's own
 * regions, may be) BTI-guarded: see aarch64_prot() in aarch64.c. */
#define ARCH_HAS_FENTRY 1       /* aarch64_prologue.c                  */
#define ARCH_HAS_CALLERS 1      /* redirects rewrite listed b/bl sites   */
#define ARCH_CALLER_BEFORE 0    /* the relocation's field is the b/bl    */
#define ARCH_CALLER_AFTER 4
#define ARCH_FENTRY_NEAR_SIZE 16 /* the entry's bl target, per 128 MiB  */
#define ARCH_FENTRY_NEAR_SHARED 1
#define ARCH_HAS_HOOKS 1        /* hook-list jump functions: aarch64_hooks.c */
#define ARCH_TEXT_PROT (PROT_READ | PROT_EXEC)
#define ARCH_HAS_COND 1         /* COND sites: bl <imm26> <-> nop        */
#define ARCH_PROT(addr, prot) aarch64_prot((addr), (prot))
/* the CIE of the generated code's unwind information (runtime/unwind.c):
 * code alignment 4, data alignment -8, the return address in x30; at an
 * entry CFA = sp (DW_CFA_def_cfa 31, 0) */
#define ARCH_CFI_CODE_ALIGN 4
#define ARCH_CFI_DATA_ALIGN (-8)
#define ARCH_CFI_RA_REG 30
#define ARCH_CFI_CIE_INIT 0x0c, 31, 0

int aarch64_prot(uintptr_t addr, int prot)
	__attribute__((visibility("hidden")));

#endif
