/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Start-up (under the lock, on the first registration or store): read the
 * environment, register the membarrier intent, install the fork handlers.
 * Also the status that explains why fast paths are off, and the version.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define STR2(x) #x
#define STR(x) STR2(x)

struct dc_config dc_cfg;
struct dc_stats dc_stats;

void dc_set_status(int status, const char *fmt, ...)
{
	va_list ap;

	if (dc_cfg.status != DYNCALL_OK)
		return; /* keep the first reason */
	dc_cfg.status = status;
	va_start(ap, fmt);
	vsnprintf(dc_cfg.status_str, sizeof(dc_cfg.status_str), fmt, ap);
	va_end(ap);
}

void dc_fatal(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "dyncall: fatal: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	write(STDERR_FILENO, buf, n);
	abort();
}

static bool env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

/* The signal mask fork() was called with, restored by both handlers
 * (the prepare handler's lock blocked every signal). */
static sigset_t *fork_mask(void)
{
	static sigset_t m;
	return &m;
}

/* Hold the lock across fork so the child never sees a half-done patch:
 * it gets the patched text and a free lock. */
static void atfork_prepare(void)
{
	sigset_t saved;

	dc_lock(&saved);
	*fork_mask() = saved;
}

static void atfork_parent(void)
{
	dc_unlock(fork_mask());
}

static void atfork_child(void)
{
	dc_lock_reset_child();
	/* The registration is per mm; a fork child has a new one. */
	if (!dc_cfg.disabled &&
	    syscall(SYS_membarrier,
		    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		dc_fatal("membarrier registration failed in a fork child: %s",
			 strerror(errno));
	pthread_sigmask(SIG_SETMASK, fork_mask(), NULL);
}

void dc_init_locked(void)
{
	long cmds;

	if (dc_cfg.inited)
		return;
	dc_cfg.inited = true;
	dc_cfg.check = env_on("DYNCALL_CHECK");
	dc_learn_init();
	if (env_on("DYNCALL_DISABLE")) {
		dc_cfg.disabled = true;
		dc_set_status(DYNCALL_ERR_DISABLED,
			      "disabled by DYNCALL_DISABLE");
	} else {
		cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
		if (cmds < 0 ||
		    !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE)) {
			dc_cfg.disabled = true;
			dc_set_status(DYNCALL_ERR_MEMBARRIER,
				      "membarrier(SYNC_CORE) unavailable: %s",
				      cmds < 0 ? strerror(errno) :
						 "not supported by the kernel");
		} else if (syscall(SYS_membarrier,
			   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
			   0, 0)) {
			dc_cfg.disabled = true;
			dc_set_status(DYNCALL_ERR_MEMBARRIER,
				      "membarrier registration refused: %s",
				      strerror(errno));
		}
	}
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

DC_EXPORT int dyncall_status(void)
{
	return dc_cfg.status;
}

DC_EXPORT const char *dyncall_status_string(void)
{
	return dc_cfg.status == DYNCALL_OK ? "ok" : dc_cfg.status_str;
}

DC_EXPORT const char *dyncall_version(void)
{
	return STR(DYNCALL_VERSION_MAJOR) "." STR(DYNCALL_VERSION_MINOR) "."
		STR(DYNCALL_VERSION_PATCH);
}

DC_EXPORT void dyncall_get_stats(struct dyncall_stats *out)
{
	if (!out)
		return;
	out->modules = atomic_load(&dc_stats.modules);
	out->sites = atomic_load(&dc_stats.sites);
	out->keys = atomic_load(&dc_stats.keys);
	out->patches = atomic_load(&dc_stats.patches);
	out->skipped = atomic_load(&dc_stats.skipped);
	out->refused = atomic_load(&dc_stats.refused);
	out->membarriers = atomic_load(&dc_stats.membarriers);
	out->stubs = atomic_load(&dc_stats.stubs);
	out->discoveries = atomic_load(&dc_stats.discoveries);
	out->verify_failures = atomic_load(&dc_stats.verify_failures);
	out->guard_misses = atomic_load(&dc_stats.guard_misses);
	out->stores = atomic_load(&dc_stats.stores);
	out->jump_to_self = atomic_load(&dc_stats.jump_to_self);
	out->resolved_at_link = atomic_load(&dc_stats.resolved_at_link);
	out->learn_samples = atomic_load(&dc_stats.samples);
	out->learned = atomic_load(&dc_stats.learned);
	out->megamorphic = atomic_load(&dc_stats.megamorphic);
}
