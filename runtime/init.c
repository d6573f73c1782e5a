/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Start-up (under the lock, on the first registration or store): read the
 * environment (secure_getenv: a set-user-ID program ignores it), register
 * the membarrier intent, open the text writers, install the fork handlers.
 * Also the status that explains why fast paths are off, and the version.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

static void env_warn(const char *name, const char *v, const char *what)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf),
			 "dyncall: warning: %s=%.64s is not %s; ignored\n",
			 name, v, what);

	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (n > 0)
		write(STDERR_FILENO, buf, (size_t)n);
}

/* A boolean variable: 1/0, yes/no, true/false, on/off (any case); unset
 * or empty: the default; anything else: one warning line, the default.
 * Read once, at start-up. */
bool dc_env_bool(const char *name, bool dflt)
{
	static const char *const on[] = { "1", "yes", "true", "on" };
	static const char *const off[] = { "0", "no", "false", "off" };
	const char *v = secure_getenv(name);

	if (!v || !*v)
		return dflt;
	for (unsigned i = 0; i < 4; i++) {
		if (!strcasecmp(v, on[i]))
			return true;
		if (!strcasecmp(v, off[i]))
			return false;
	}
	env_warn(name, v, "one of 1/0, yes/no, true/false, on/off");
	return dflt;
}

/* DYNCALL_TEXT_WRITE: which text writers may be used (docs/runtime.md,
 * "Never writable and executable"). */
static unsigned env_writers(void)
{
	static const struct { const char *name; unsigned w; } tab[] = {
		{ "auto", DC_WRITE_ALIAS | DC_WRITE_MEM | DC_WRITE_PROT },
		{ "no-mprotect", DC_WRITE_ALIAS | DC_WRITE_MEM },
		{ "alias", DC_WRITE_ALIAS },
		{ "mem", DC_WRITE_MEM },
		{ "mprotect", DC_WRITE_PROT },
	};
	const char *v = secure_getenv("DYNCALL_TEXT_WRITE");

	if (v && *v) {
		for (unsigned i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			if (!strcmp(v, tab[i].name))
				return tab[i].w;
		env_warn("DYNCALL_TEXT_WRITE", v,
			 "one of auto, no-mprotect, alias, mem, mprotect");
	}
	return tab[0].w;
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
	dc_text_forked();
	dc_unlock(fork_mask());
}

static void atfork_child(void)
{
	dc_lock_reset_child();
	dc_text_forked();
	/* The registration is per mm; a fork child has a new one.  Refused
	 * (a sandbox): the child patches nothing more; its text as inherited
	 * is consistent with its keys. */
	if (!dc_cfg.disabled &&
	    syscall(SYS_membarrier,
		    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0)) {
		dc_set_status(DYNCALL_ERR_MEMBARRIER,
			      "membarrier registration refused in a fork "
			      "child: %s", strerror(errno));
		dc_cfg.disabled = true;
	}
	pthread_sigmask(SIG_SETMASK, fork_mask(), NULL);
}

void dc_init_locked(void)
{
	long cmds;

	if (dc_cfg.inited)
		return;
	dc_cfg.inited = true;
	dc_cfg.check = dc_env_bool("DYNCALL_CHECK", false);
	dc_cfg.stats = dc_env_bool("DYNCALL_STATS", false);
	/* atexit handlers run before the modules' destructors unregister
	 * their sites (glibc runs _dl_fini, registered first, last) */
	if (dc_cfg.stats)
		atexit(dc_report_at_exit);
	dc_code_changed_init();
	dc_text_init(env_writers());
	dc_learn_init();
	if (dc_env_bool("DYNCALL_DISABLE", false)) {
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
