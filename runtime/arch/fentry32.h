/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Function-entry patching where the patched entry is one 32-bit
 * instruction (aarch64: `nop` <-> `bl near`; ppc64le: `nop` <-> `b stub`)
 * and the slot one aligned 64-bit word: the entry state, the entry store
 * and the slot store of the arch_fentry_* contract (arch.h), shared by
 * aarch64_prologue.c and ppc64le_prologue.c.  The arch passes its NOP and
 * the branch from the entry to f->tramp (0 and false when there is none
 * or it is out of reach).
 */
#ifndef DYNCALL_ARCH_FENTRY32_H
#define DYNCALL_ARCH_FENTRY32_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arch.h"

/* Is the entry its NOP (0), the branch (1), or something else? */
static inline int fentry32_entry_state(const struct arch_fentry *f,
				       uint32_t nop, uint32_t branch)
{
	uint32_t w = *(const volatile uint32_t *)f->site;

	if (w == nop)
		return 0;
	if (f->tramp && w == branch)
		return 1;
	return DYNCALL_ERR_BYTES;
}

/* The entry on (the branch, which must reach) or off (the NOP): one
 * aligned 32-bit store. */
static inline int fentry32_entry_step(const struct arch_fentry *f, bool on,
				      uint32_t nop, uint32_t branch,
				      bool reaches, struct arch_step *s)
{
	uint32_t w = nop;

	if (on) {
		if (!f->tramp || !reaches)
			return DYNCALL_ERR_RANGE;
		w = branch;
	}
	s->addr = f->site;
	s->len = 4;
	s->atomic = true;
	memcpy(s->bytes, &w, 4);
	return 1;
}

/* slot <- value: one aligned 64-bit store (patch.c do_step), none when it
 * holds value already. */
static inline int fentry32_slot_step(const struct arch_fentry *f,
				     uintptr_t value, struct arch_step *s)
{
	if (*(const volatile uintptr_t *)f->slot == value)
		return 0;
	s->addr = f->slot;
	s->len = 8;
	s->atomic = true;
	memcpy(s->bytes, &value, 8);
	return 1;
}

#endif /* DYNCALL_ARCH_FENTRY32_H */
