/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Checking mode (DYNCALL_CHECK=1): every site is guarded by a per-site
 * stub whose miss path enters dc_miss() (learn.c), which calls
 * dc_check_miss() on every miss.  A miss alone proves nothing: a thread may
 * have loaded the old value just before another stored a new one, and a
 * type key's objects legally hold different handlers.  A *stale key* is a
 * variable key whose current value, read after the miss, is not the value
 * the runtime patched its sites for: a store the compiler did not see (code
 * built without the plugin, memcpy, a debugger) and nobody called
 * dyncall_update().  The two are compared again under the runtime lock
 * (checking mode only: a miss there may wait), because a store through the runtime
 * records the new value before it writes the key.  Reported once per site; the call then goes to the
 * loaded pointer, as the program asked.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#include "arch/arch.h"
#include "internal.h"

/* Which instruction of the site ran: a known call returning to ret, a
 * not yet known call to the trampoline, or (jumps) the trampoline. */
static uintptr_t site_address(const struct dc_site *s, uintptr_t ret)
{
	uintptr_t call = ret - ARCH_CALL_LEN;

	for (int i = 0; i < DYNCALL_MAX_CALLS; i++) {
		uintptr_t a = atomic_load(&s->calls[i].addr);

		if (a && s->kind != DYNCALL_KIND_TAIL && a == call)
			return a;
	}
	if (s->kind != DYNCALL_KIND_TAIL && dc_in_exec(s->mod, call, ret) &&
	    arch_call_before(s->mod, ret, s->tramp))
		return call;
	if (atomic_load(&s->calls[0].addr))
		return atomic_load(&s->calls[0].addr);
	return s->tramp;
}

void dc_check_miss(struct dc_site *s, uintptr_t ret, uintptr_t loaded)
{
	const struct dc_key *k = s->key;
	const char *name = "?", *sym = "?";
	uintptr_t at, base = 0, now, patched;
	char buf[512];
	sigset_t saved;
	Dl_info di;
	int n;

	if (!k || k->type)
		return;
	now = dc_key_load(k);
	patched = __atomic_load_n(&k->value, __ATOMIC_RELAXED);
	if (now == patched)
		return;
	/* A store through the runtime sets k->value (step 1 of the store
	 * protocol) before it writes the key: a thread that loaded the value
	 * the key still holds may miss in between.  Confirm under the lock,
	 * where no store is in flight.  Checking mode waits for it (a
	 * trylock that skipped a busy lock lost the report of a genuinely
	 * stale key once the site had learned the new value and stopped
	 * missing); no deadlock: this thread runs a site's stub, so it does
	 * not hold the lock, and holders block the signals a handler would
	 * need to reach a site. */
	dc_lock(&saved);
	now = dc_key_load(k);
	patched = k->value;
	dc_unlock(&saved);
	if (now == patched)
		return;
	DC_STAT_ADD(guard_misses, 1);
	if (atomic_exchange(&s->reported, true))
		return;
	at = site_address(s, ret);
	if (k->name)
		name = k->name;
	if (dladdr((void *)at, &di)) {
		if (di.dli_sname) {
			sym = di.dli_sname;
			base = (uintptr_t)di.dli_saddr;
		} else if (di.dli_fname) {
			sym = di.dli_fname;
			base = (uintptr_t)di.dli_fbase;
		}
	}
	n = snprintf(buf, sizeof(buf),
		     "dyncall: stale key '%s' at %s+0x%lx (%#lx): called %#lx, "
		     "sites patched to %#lx\n",
		     name, sym, (unsigned long)(at - base), (unsigned long)at,
		     (unsigned long)loaded, (unsigned long)patched);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (write(STDERR_FILENO, buf, n) < 0) {
		/* nothing else we can do */
	}
}
