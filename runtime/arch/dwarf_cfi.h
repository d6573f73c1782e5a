/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * The DWARF call frame instructions the generated code's unwind
 * information uses (DWARF 5, section 6.4.2; .eh_frame as in the LSB):
 * the arches' jump-function emitters write them (struct arch_cfi), the
 * generic unwind.c wraps them in a CIE and FDEs.
 */
#ifndef DYNCALL_ARCH_DWARF_CFI_H
#define DYNCALL_ARCH_DWARF_CFI_H

#define DW_CFA_advance_loc 0x40 /* | delta (6 bits, code alignment units) */
#define DW_CFA_offset 0x80 /* | reg, uleb offset (data alignment units) */
#define DW_CFA_restore 0xc0 /* | reg */
#define DW_CFA_nop 0x00
#define DW_CFA_advance_loc1 0x02 /* u8 delta */
#define DW_CFA_advance_loc2 0x03 /* u16 delta */
#define DW_CFA_remember_state 0x0a
#define DW_CFA_restore_state 0x0b
#define DW_CFA_def_cfa 0x0c /* uleb reg, uleb offset */
#define DW_CFA_def_cfa_register 0x0d /* uleb reg */
#define DW_CFA_def_cfa_offset 0x0e /* uleb offset */

#endif
