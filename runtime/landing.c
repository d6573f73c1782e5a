/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Landing pads kept.  A site whose module was built with IBT
 * (-fcf-protection=branch, x86-64) or BTI (aarch64) has an indirect call
 * that the hardware would fault unless its target starts with a landing
 * pad.  A direct branch is never checked, so patching such a site to branch
 * directly to a target without one would silently drop the protection.
 * The runtime therefore makes a site direct, or puts a target in its guard
 * stub, only when the target starts with the landing pad the indirect call
 * required; any other target keeps the indirect path (where the hardware
 * checks it, exactly as without dyncall).
 *
 * The target's first word is read without trusting it: inside a registered
 * module's executable segments directly, anywhere else through
 * process_vm_readv on ourselves, which fails with EFAULT instead of
 * faulting when the address is not mapped (a stored data pointer, a
 * corrupted key).  Where process_vm_readv is not available (seccomp,
 * qemu-user) a target outside the registered modules keeps the indirect
 * path.  Only done when a site is planned, never on a call.
 */
#include <sys/uio.h>
#include <unistd.h>

#include "arch/arch.h"
#include "internal.h"

static bool read_word(const struct dc_module *own, uintptr_t at,
		      uint32_t *out)
{
	struct iovec local = { out, sizeof(*out) };
	struct iovec remote = { (void *)at, sizeof(*out) };

	/* the site's own module first: during its registration it is not
	 * on the list yet */
	if (own && dc_in_exec(own, at, at + sizeof(*out))) {
		*out = __atomic_load_n((const uint32_t *)at, __ATOMIC_RELAXED);
		return true;
	}
	for (const struct dc_module *m = dc_modules; m; m = m->next)
		if (dc_in_exec(m, at, at + sizeof(*out))) {
			*out = __atomic_load_n((const uint32_t *)at,
					       __ATOMIC_RELAXED);
			return true;
		}
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
	       (ssize_t)sizeof(*out);
}

bool dc_landing_pad_ok(const struct dc_site *s, uintptr_t target)
{
	uint32_t w;

	if (!(s->flags & (DYNCALL_SITE_IBT | DYNCALL_SITE_BTI)))
		return true;
	if (!target || !read_word(s->mod, target, &w))
		return false;
	return arch_is_landing_pad(w, s->flags);
}
