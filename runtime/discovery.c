/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Run-time discovery of Clang call sites (entries with site == 0).
 *
 * The trampoline of such a site branches to its discovery thunk, which
 * enters dc_discover() (through arch assembly that saves the argument
 * registers) with the return address R of the call that reached the
 * trampoline.  The proof that R - 5 is a call instruction of this site:
 *   - [R - 5, R) lies in the module's executable segment (checked before
 *     reading a byte), and
 *   - it decodes as a direct call whose destination is this trampoline;
 * trampolines are hidden and only ever called directly, so that call is the
 * one that just ran.  Anything else (a trampoline reached by a jump, a
 * return address that was tampered with) is a verification failure:
 * counted, and after DISC_MAX_FAILURES the site stops discovering.
 *
 * The call is recorded lock-free in the site's slots (the handler may run
 * in a signal handler, or while another thread holds the lock) and, when
 * the lock can be taken with trylock, patched at once; otherwise the next
 * run of that call or the next store of the key patches it.  When the
 * slots are full or discovery gave up, the trampoline gets the site's final
 * state.  The call itself always completes through the slow path (for a
 * conditional site that loaded NULL: returns without a call).
 */
#include "arch/arch.h"
#include "internal.h"

#define DISC_MAX_FAILURES 8

static int slow_flavor(const struct dc_site *s, uintptr_t loaded)
{
	if (s->kind == DYNCALL_KIND_COND && !loaded)
		return DC_GO_RETURN; /* what the trampoline's NULL test does */
	return (s->flags & DYNCALL_SITE_RETPOLINE) != 0;
}

static void patch_site_if_free(struct dc_site *s)
{
	struct dc_batch b = { 0 };
	sigset_t saved;

	if (!dc_trylock(&saved))
		return;
	if (s->key || s->kind == DYNCALL_KIND_INLINE)
		dc_site_plan(&b, s);
	dc_batch_run(&b);
	dc_unlock(&saved);
}

int dc_discover(struct dc_site *s, uintptr_t ret, uintptr_t loaded)
{
	uintptr_t call = ret - ARCH_CALL_LEN;
	int i;

	if (atomic_load(&s->disc_done)) {
		/* the trampoline still leads here: the patch after the end of
		 * discovery found the lock taken */
		patch_site_if_free(s);
		return slow_flavor(s, loaded);
	}
	if (!dc_in_exec(s->mod, call, ret) ||
	    !arch_call_before(s->mod, ret, s->tramp)) {
		DC_STAT_ADD(verify_failures, 1);
		if (atomic_fetch_add(&s->disc_fail, 1) + 1 >=
		    DISC_MAX_FAILURES) {
			atomic_store(&s->disc_done, true);
			patch_site_if_free(s);
		}
		return slow_flavor(s, loaded);
	}
	for (i = 0; i < DYNCALL_MAX_CALLS; i++) {
		uintptr_t a = atomic_load(&s->calls[i].addr);

		if (a == call)
			break;
		if (a)
			continue;
		if (atomic_compare_exchange_strong(&s->calls[i].addr, &a,
						   call)) {
			DC_STAT_ADD(discoveries, 1);
			break;
		}
		if (a == call)
			break;
	}
	/* Slots full; or the trampoline stays on the path of every call
	 * of the site (a conditional site's call that only turns into its
	 * NOP, ARCH_COND_CALL_VIA_TRAMP): the first call found ends the
	 * discovery, which would otherwise run on every call while set;
	 * another call instruction of the site (a copy the optimiser made)
	 * keeps its call of the trampoline, correct but not a NOP. */
	if (i >= DYNCALL_MAX_CALLS - 1 ||
	    (ARCH_COND_CALL_VIA_TRAMP && s->kind == DYNCALL_KIND_COND))
		atomic_store(&s->disc_done, true);
	patch_site_if_free(s);
	return slow_flavor(s, loaded);
}
