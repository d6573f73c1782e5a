/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * The DWARF call frame instructions the generated code's unwind
 * information uses (DWARF 5, section 6.4.2; .eh_frame as in the LSB):
 * the arches' jump-function emitters write them (struct arch_cfi), the
 * generic unwind.c wraps them in a CIE and FDEs.
 */
#ifndef DYNCALL_ARCH_DWARF_CFI_H
#define DYNCALL_ARCH_DWARF_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"

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
#define DW_CFA_offset_extended_sf 0x11 /* uleb reg, sleb offset */
#define DW_CFA_restore_extended 0x06 /* uleb reg */

/* A writer of one jump function's call frame instructions (every arch's
 * emitters, function-entry and hook-list ones): each
 * rule is put at the code offset where it starts to hold, in increasing
 * order.  Instructions that would not fit in struct arch_cfi's ops make
 * the whole program empty (len 0: no FDE for that jump function, the
 * unwinder stops there as it did before), never a truncated one. */
struct cfi_writer {
	struct arch_cfi *cfi;
	size_t n, pc; /* ops written; the code offset they describe */
	unsigned code_align;
	bool full;
};

static inline void cfi_byte(struct cfi_writer *w, unsigned b)
{
	if (w->n == sizeof(w->cfi->ops))
		w->full = true;
	else
		w->cfi->ops[w->n++] = (uint8_t)b;
}

static inline void cfi_uleb(struct cfi_writer *w, unsigned long v)
{
	do {
		unsigned b = v & 0x7f;

		v >>= 7;
		cfi_byte(w, v ? b | 0x80 : b);
	} while (v);
}

static inline void cfi_sleb(struct cfi_writer *w, long v)
{
	for (;;) {
		unsigned b = (unsigned)v & 0x7f;
		bool done;

		v >>= 7; /* arithmetic: the sign stays */
		done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
		cfi_byte(w, done ? b : b | 0x80);
		if (done)
			return;
	}
}

/* The rules after this one hold from code offset pc on. */
static inline void cfi_at(struct cfi_writer *w, size_t pc)
{
	size_t d = (pc - w->pc) / w->code_align;

	w->pc = pc;
	if (!d)
		return;
	if (d < 0x40) {
		cfi_byte(w, DW_CFA_advance_loc | (unsigned)d);
	} else if (d <= 0xff) {
		cfi_byte(w, DW_CFA_advance_loc1);
		cfi_byte(w, (unsigned)d);
	} else {
		cfi_byte(w, DW_CFA_advance_loc2);
		cfi_byte(w, (unsigned)d & 0xff);
		cfi_byte(w, (unsigned)(d >> 8) & 0xff);
	}
}

static inline void cfi_cfa_offset(struct cfi_writer *w, unsigned long off)
{
	cfi_byte(w, DW_CFA_def_cfa_offset);
	cfi_uleb(w, off);
}

/* CFA = reg + off */
static inline void cfi_cfa(struct cfi_writer *w, unsigned reg,
			   unsigned long off)
{
	cfi_byte(w, DW_CFA_def_cfa);
	cfi_uleb(w, reg);
	cfi_uleb(w, off);
}

/* CFA = reg + the offset it had */
static inline void cfi_cfa_register(struct cfi_writer *w, unsigned reg)
{
	cfi_byte(w, DW_CFA_def_cfa_register);
	cfi_uleb(w, reg);
}

/* the rules now, kept for cfi_restore_state (code after an early exit
 * that still runs in the frame) */
static inline void cfi_remember_state(struct cfi_writer *w)
{
	cfi_byte(w, DW_CFA_remember_state);
}

static inline void cfi_restore_state(struct cfi_writer *w)
{
	cfi_byte(w, DW_CFA_restore_state);
}

/* reg saved at CFA + off (off a multiple of the data alignment, -8 on
 * every arch here) */
static inline void cfi_saved(struct cfi_writer *w, unsigned reg, long off)
{
	long factored = off / -8;

	if (reg < 0x40 && factored >= 0) {
		cfi_byte(w, DW_CFA_offset | reg);
		cfi_uleb(w, (unsigned long)factored);
		return;
	}
	cfi_byte(w, DW_CFA_offset_extended_sf);
	cfi_uleb(w, reg);
	cfi_sleb(w, factored);
}

/* reg holds its caller's value again */
static inline void cfi_restored(struct cfi_writer *w, unsigned reg)
{
	if (reg < 0x40) {
		cfi_byte(w, DW_CFA_restore | reg);
		return;
	}
	cfi_byte(w, DW_CFA_restore_extended);
	cfi_uleb(w, reg);
}

static inline void cfi_done(struct cfi_writer *w)
{
	w->cfi->len = w->full ? 0 : (unsigned)w->n;
}

#endif
