/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* x86-64 constants of the arch contract (arch.h). */
#ifndef DYNCALL_ARCH_X86_64_H
#define DYNCALL_ARCH_X86_64_H

#define ARCH_NAME "x86_64"
#define ARCH_MAX_STEPS 3       /* jump-to-self: head, tail, head          */
#define ARCH_CALL_LEN 5        /* e8 <rel32>                              */
#define ARCH_BRANCH_LEN 5      /* e8/e9 <rel32>                           */
#define ARCH_REACH 0x7fff0000L /* rel32, minus a margin for the stub size */
#define ARCH_FAR_SIZE 64       /* one cache line per far stub             */
#define ARCH_MAX_TARGETS 4     /* targets one guard stub compares         */
#define ARCH_GUARD_MAX 144     /* arch_guard_size(ARCH_MAX_TARGETS)       */
#define ARCH_THUNK_SIZE 16     /* one discovery thunk                     */
#define ARCH_REGION_HEADER 256 /* shared entries at the start of a region */
#define ARCH_HAS_FENTRY 1      /* x86_64_prologue.c                       */
#define ARCH_FENTRY_JF_NEAR_FN 1 /* jump functions beside their function   */
#define ARCH_HAS_CALLERS 1     /* redirects rewrite listed call sites     */
#define ARCH_CALLER_BEFORE 1   /* the e8/e9 before a rel32 field          */
#define ARCH_CALLER_AFTER 4    /* the rel32 field                         */
#define ARCH_FENTRY_VEC_REGS DYNCALL_X86_64_VEC_ARG_REGS /* xmm0-7     */
#define ARCH_FENTRY_INT_REGS DYNCALL_X86_64_INT_ARG_REGS /* rdi..r9 */
#define ARCH_TEXT_PROT (PROT_READ | PROT_EXEC)
#define ARCH_HAS_COND 1        /* COND sites: e8 <rel32> <-> 5-byte NOP  */
#define ARCH_HAS_INLINE 1      /* inline guards (DYNCALL_KIND_INLINE)     */
#define ARCH_HAS_HOOKS 1       /* hook-list jump functions: x86_64_hooks.c */
#define ARCH_HOOKS_JF_ALIGN 64 /* a jump function starts a cache line      */
/* the CIE of the generated code's unwind information (runtime/unwind.c):
 * code alignment 1, data alignment -8, the return address column 16;
 * at an entry CFA = rsp + 8 (DW_CFA_def_cfa 7, 8), the return address at
 * CFA - 8 (DW_CFA_offset 16, 1) */
#define ARCH_CFI_CODE_ALIGN 1
#define ARCH_CFI_DATA_ALIGN (-8)
#define ARCH_CFI_RA_REG 16
#define ARCH_CFI_CIE_INIT 0x0c, 7, 8, 0x90, 1

#endif
