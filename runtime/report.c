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
 */
#include <dlfcn.h>
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

static void print_site(const struct dc_site *s)
{
	static const char *const states[] = { "slow", "guarded", "direct" };
	uintptr_t tg[DC_MAX_TARGETS];
	char at[160], t[160];
	bool entry;
	unsigned n = 0;
	int st = dc_site_state(s);

	if (st == DYNCALL_STATE_GUARDED && s->key)
		n = dc_learn_targets(s, s->key->value, tg, &entry);
	where(at, sizeof(at), site_addr(s));
	fprintf(stderr, "dyncall:   %-40s key=%s %s%s misses~%llu retargets=%u",
		at, s->key && s->key->name ? s->key->name : "?", states[st],
		atomic_load(&s->learn.mega) ? " megamorphic" : "",
		(unsigned long long)atomic_load(&s->learn.total) *
			dc_learn_cfg.period,
		s->learn.retargets);
	for (unsigned i = 0; i < n; i++) {
		where(t, sizeof(t), tg[i]);
		fprintf(stderr, "%s%s", i ? "," : " targets=", t);
	}
	if (st == DYNCALL_STATE_DIRECT) {
		where(t, sizeof(t), s->target);
		fprintf(stderr, " target=%s", t);
	}
	fputc('\n', stderr);
}

void dc_report_at_exit(void)
{
	const struct dc_site *top[REPORT_SITES];
	unsigned ntop = 0, nsites = 0, nguarded = 0, ndirect = 0;
	struct dyncall_stats st;
	sigset_t saved;

	if (!dc_cfg.stats || !dc_trylock(&saved))
		return;
	for (struct dc_module *m = dc_modules; m; m = m->next) {
		for (unsigned i = 0; i < m->nsites; i++) {
			const struct dc_site *s = &m->sites[i];
			uint32_t w = atomic_load(&s->learn.total);
			unsigned j;

			nsites++;
			nguarded += dc_site_state(s) == DYNCALL_STATE_GUARDED;
			ndirect += dc_site_state(s) == DYNCALL_STATE_DIRECT;
			if (!w)
				continue;
			for (j = ntop < REPORT_SITES ? ntop++ : ntop;
			     j > 0 && atomic_load(&top[j - 1]->learn.total) < w;
			     j--)
				if (j < REPORT_SITES)
					top[j] = top[j - 1];
			if (j < REPORT_SITES)
				top[j] = s;
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
	for (unsigned i = 0; i < ntop; i++)
		print_site(top[i]);
	dc_unlock(&saved);
}
