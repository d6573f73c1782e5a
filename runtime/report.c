/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * DYNCALL_STATS=1: at exit, the hottest sites on stderr.
 *
 * "Hot" is what the runtime can know without slowing a call down: a hit is
 * a direct branch and counts nothing, so a site is ranked by the misses
 * it sampled (learn.c: one sample per DYNCALL_LEARN_PERIOD misses of a
 * thread, so `misses~` is samples x period, an estimate).  Each line says
 * where the site is (function+offset from dladdr: exported symbols only,
 * or the module and its offset, which addr2line resolves to a source
 * line), its key, its state, the targets its stub compares and whether it
 * stopped learning.  Then the global counters.
 *
 * A module unregistered before the report (dlclose, or at exit: a shared
 * library's constructor registers it before glibc registers _dl_fini, so
 * the report's atexit handler then runs inside _dl_fini, after the
 * library's destructor) is "retired" first: its counts are kept and its
 * hottest sites formatted while it is still mapped (dc_report_retire).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

#define REPORT_SITES 20

static void where(char *buf, size_t n, uintptr_t a)
{
	Dl_info di;

	if (a && dladdr((void *)a, &di)) {
		if (di.dli_sname) {
			snprintf(buf, n, "%s+0x%lx", di.dli_sname,
				 (unsigned long)(a - (uintptr_t)di.dli_saddr));
			return;
		}
		if (di.dli_fname) {
			snprintf(buf, n, "%s+0x%lx", di.dli_fname,
				 (unsigned long)(a - (uintptr_t)di.dli_fbase));
			return;
		}
	}
	snprintf(buf, n, "%#lx", (unsigned long)a);
}

static uintptr_t site_addr(const struct dc_site *s)
{
	uintptr_t a = atomic_load(&s->calls[0].addr);

	return a ? a : s->tramp;
}

/* append to buf[0..n) at *at, printf-style; truncates */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t n,
						      size_t *at,
						      const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*at >= n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *at, n - *at, fmt, ap);
	va_end(ap);
	if (k > 0)
		*at += (size_t)k;
}

/* One report line (with its '\n'; cut to fit) into buf (no allocation:
 * it also runs in __dyncall_unregister, under the lock). */
static void format_site(char *buf, size_t n, const struct dc_site *s)
{
	static const char *const states[] = { "slow", "guarded", "direct" };
	uintptr_t tg[DC_MAX_TARGETS];
	char at[160], t[160];
	bool entry;
	unsigned nt = 0;
	size_t len = 0;
	int st = dc_site_state(s);

	if (st == DYNCALL_STATE_GUARDED && s->key)
		nt = dc_learn_targets(s, s->key->value, tg, &entry);
	where(at, sizeof(at), site_addr(s));
	add(buf, n, &len, "dyncall:   %-40s key=%s %s%s misses~%llu retargets=%u",
	    at, s->key && s->key->name ? s->key->name : "?", states[st],
	    atomic_load(&s->learn.mega) ? " megamorphic" : "",
	    (unsigned long long)atomic_load(&s->learn.total) *
		    dc_learn_cfg.period,
	    s->learn.retargets);
	for (unsigned i = 0; i < nt; i++) {
		where(t, sizeof(t), tg[i]);
		add(buf, n, &len, "%s%s", i ? "," : " targets=", t);
	}
	if (st == DYNCALL_STATE_DIRECT) {
		where(t, sizeof(t), s->target);
		add(buf, n, &len, " target=%s", t);
	}
	/* its inline guard's target (hits there are not counted either) */
	if (s->inl && s->inl->inl_target &&
	    atomic_load((_Atomic uintptr_t *)s->inl->lit) ==
		    s->inl->inl_target) {
		where(t, sizeof(t), s->inl->inl_target);
		add(buf, n, &len, " inline=%s", t);
	}
	if (len >= n - 1)
		len = n - 2;
	buf[len] = '\n';
	buf[len + 1] = 0;
}

/* The hottest sites: live ones by pointer, retired ones as their text. */
struct report_item {
	uint32_t w;
	const struct dc_site *s; /* NULL: line */
	char line[1024];
};

static struct {
	unsigned nsites, ndirect, nguarded, ninline, ninline_set;
	unsigned n;
	struct report_item top[REPORT_SITES];
} retired;

/* Insert (w, s) into top[0..*n) ordered by weight, at most REPORT_SITES;
 * the slot it got, or NULL when it is not among them. */
static struct report_item *top_insert(struct report_item *top, unsigned *n,
				      uint32_t w, const struct dc_site *s)
{
	unsigned j = *n < REPORT_SITES ? (*n)++ : *n;

	for (; j > 0 && top[j - 1].w < w; j--)
		if (j < REPORT_SITES)
			top[j] = top[j - 1];
	if (j >= REPORT_SITES)
		return NULL;
	top[j].w = w;
	top[j].s = s;
	top[j].line[0] = 0;
	return &top[j];
}

/* Called by __dyncall_unregister, under the lock, before it takes the
 * module's sites back to their slow path. */
void dc_report_retire(const struct dc_module *m)
{
	if (!dc_cfg.stats)
		return;
	for (unsigned i = 0; i < m->nsites; i++) {
		const struct dc_site *s = &m->sites[i];
		uint32_t w = atomic_load(&s->learn.total);
		struct report_item *it;

		if (s->kind == DYNCALL_KIND_INLINE) {
			retired.ninline++;
			retired.ninline_set += s->inl_target != 0;
			continue;
		}
		retired.nsites++;
		retired.nguarded += dc_site_state(s) == DYNCALL_STATE_GUARDED;
		retired.ndirect += dc_site_state(s) == DYNCALL_STATE_DIRECT;
		if (w && (it = top_insert(retired.top, &retired.n, w, s))) {
			format_site(it->line, sizeof(it->line), s);
			it->s = NULL;
		}
	}
}

void dc_report_at_exit(void)
{
	struct report_item top[REPORT_SITES];
	unsigned ntop = 0, nsites = retired.nsites;
	unsigned nguarded = retired.nguarded, ndirect = retired.ndirect;
	unsigned ninline = retired.ninline, ninline_set = retired.ninline_set;
	struct dyncall_stats st;
	sigset_t saved;

	if (!dc_cfg.stats || !dc_trylock(&saved))
		return;
	for (unsigned i = 0; i < retired.n; i++) {
		struct report_item *it =
			top_insert(top, &ntop, retired.top[i].w, NULL);

		if (it)
			*it = retired.top[i];
	}
	for (struct dc_module *m = dc_modules; m; m = m->next) {
		for (unsigned i = 0; i < m->nsites; i++) {
			const struct dc_site *s = &m->sites[i];
			uint32_t w = atomic_load(&s->learn.total);

			if (s->kind == DYNCALL_KIND_INLINE) {
				ninline++;
				ninline_set += s->inl_target != 0;
				continue;
			}
			nsites++;
			nguarded += dc_site_state(s) == DYNCALL_STATE_GUARDED;
			ndirect += dc_site_state(s) == DYNCALL_STATE_DIRECT;
			if (w)
				top_insert(top, &ntop, w, s);
		}
	}
	dyncall_get_stats(&st);
	fprintf(stderr,
		"dyncall: %u sites (%u direct, %u guarded), %llu samples, "
		"%llu re-specialisations, %llu megamorphic; status: %s\n",
		nsites, ndirect, nguarded,
		(unsigned long long)st.learn_samples,
		(unsigned long long)st.learned,
		(unsigned long long)st.megamorphic, dyncall_status_string());
	if (ntop)
		fprintf(stderr, "dyncall: sites with the most misses "
				"(estimated from samples; hits are not "
				"counted):\n");
	for (unsigned i = 0; i < ntop; i++) {
		if (top[i].s)
			format_site(top[i].line, sizeof(top[i].line), top[i].s);
		fputs(top[i].line, stderr);
	}
	if (ninline)
		fprintf(stderr, "dyncall: %u of %u inline guards set (their "
				"hits are not counted)\n",
			ninline_set, ninline);
	dc_unlock(&saved);
}
