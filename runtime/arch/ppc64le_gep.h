/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * ppc64le (ELFv2): the global-entry prologues that set up a function's TOC
 * in r2 before its local entry at +8 (docs/prologues.md "What the
 * compilers emit (ppc64le)"), shared by ppc64le.c and ppc64le_prologue.c:
 *
 *   medium code model (the default), PIC or PIE:
 *     g:    3c4c....  addis r2, r12, (.TOC.-g)@ha
 *           3842....  addi  r2, r2, (.TOC.-g)@l
 *   the same in a non-PIC executable (GNU ld rewrites it, .TOC. absolute):
 *     g:    3c40....  lis   r2, .TOC.@ha
 *           3842....  addi  r2, r2, .TOC.@l
 *   large code model (-mcmodel=large), the TOC offset in a literal right
 *   before the function (GCC and Clang both put it there; GNU ld rewrites
 *   GCC's into one of the two forms above unless --traditional-format, or
 *   the offset needs more than 32 bits; Clang's stays):
 *     g-8:  .quad .TOC.-g
 *     g:    e84cfff8  ld    r2, -8(r12)
 *           7c426214  add   r2, r2, r12
 */
#ifndef DYNCALL_ARCH_PPC64LE_GEP_H
#define DYNCALL_ARCH_PPC64LE_GEP_H

#include <stdint.h>

#define PPC64LE_ADDIS_R2_R12 0x3c4c0000u /* addis r2, r12, <imm16> */
#define PPC64LE_LIS_R2 0x3c400000u /* lis r2, <imm16> */
#define PPC64LE_ADDI_R2_R2 0x38420000u /* addi r2, r2, <imm16> */
#define PPC64LE_LD_R2_M8_R12 0xe84cfff8u /* ld r2, -8(r12) */
#define PPC64LE_ADD_R2_R2_R12 0x7c426214u /* add r2, r2, r12 */
#define PPC64LE_MASK_HI16 0xffff0000u

/* The TOC the global-entry prologue at g sets up, or 0 when the two words
 * at g are none of the three forms above (g must be 4-byte aligned and
 * its two words readable; the large form also reads the literal at g-8). */
static inline uintptr_t ppc64le_gep_toc(uintptr_t g)
{
	uint32_t hi = *(const volatile uint32_t *)g;
	uint32_t lo = *(const volatile uint32_t *)(g + 4);
	intptr_t off;

	if (hi == PPC64LE_LD_R2_M8_R12 && lo == PPC64LE_ADD_R2_R2_R12) {
		/* two 32-bit loads: the literal is 8-aligned only if g is */
		uint64_t v = *(const volatile uint32_t *)(g - 8) |
			     (uint64_t)*(const volatile uint32_t *)(g - 4)
				     << 32;

		return v ? g + (uintptr_t)v : 0;
	}
	if ((lo & PPC64LE_MASK_HI16) != PPC64LE_ADDI_R2_R2)
		return 0;
	off = ((intptr_t)(int16_t)(hi & 0xffff) << 16) +
	      (intptr_t)(int16_t)(lo & 0xffff);
	if ((hi & PPC64LE_MASK_HI16) == PPC64LE_ADDIS_R2_R12)
		return g + (uintptr_t)off;
	if ((hi & PPC64LE_MASK_HI16) == PPC64LE_LIS_R2)
		return (uintptr_t)off;
	return 0;
}

#endif
