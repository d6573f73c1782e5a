/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * The function-entry part of the arch contract for an arch that does not
 * patch function entries yet (ppc64le): included once by that
 * arch's .c file, after arch.h.
 */
#ifndef DYNCALL_ARCH_FENTRY_NONE_H
#define DYNCALL_ARCH_FENTRY_NONE_H

#include <string.h>

/*
 * Function-entry patching (arch.h, docs/prologues.md): not on this arch
 * yet.  The probe refuses every function, so the generic code never
 * reaches the other entry points; they exist so the contract links.
 */
int arch_fentry_probe(uintptr_t rec, struct arch_fentry *f)
{
	(void)rec;
	memset(f, 0, sizeof(*f));
	return DYNCALL_ERR_UNSUPPORTED;
}

int arch_fentry_entry_state(const struct arch_fentry *f)
{
	(void)f;
	return DYNCALL_ERR_UNSUPPORTED;
}

int arch_fentry_entry_step(const struct arch_fentry *f, bool on,
			   struct arch_step *s)
{
	(void)f, (void)on, (void)s;
	return DYNCALL_ERR_UNSUPPORTED;
}

int arch_fentry_slot_step(const struct arch_fentry *f, uintptr_t value,
			  struct arch_step *s)
{
	(void)f, (void)value, (void)s;
	return DYNCALL_ERR_UNSUPPORTED;
}

int arch_fentry_ool_steps(const struct arch_fentry *f, struct arch_step *s,
			  int max)
{
	(void)f, (void)s, (void)max;
	return DYNCALL_ERR_UNSUPPORTED;
}

size_t arch_fentry_jf_size(unsigned n)
{
	(void)n;
	return 0;
}

size_t arch_fentry_emit_jf(uint8_t *buf, uintptr_t at, uintptr_t fn,
			   uintptr_t resume, const uintptr_t *h,
			   const uintptr_t *d, unsigned n)
{
	(void)buf, (void)at, (void)fn, (void)resume, (void)h, (void)d, (void)n;
	return 0;
}

size_t arch_fentry_emit_orig(uint8_t *buf, uintptr_t at,
			     const struct arch_fentry *f)
{
	(void)buf, (void)at, (void)f;
	return 0;
}

#endif /* DYNCALL_ARCH_FENTRY_NONE_H */
