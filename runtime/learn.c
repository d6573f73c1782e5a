/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Sites that learn: every guarded site learns its targets from its own
 * misses (the dynamic-calls idea: the targets of *this* run, taken from the
 * calls, not from the stores the compiler saw).
 *
 * A guarded site's stub compares the loaded pointer with up to
 * DC_MAX_TARGETS targets, hottest first, and branches directly to the one
 * that matches.  Its miss path enters dc_miss() (arch assembly saves the
 * argument registers) and then completes the call through the slow path.
 * dc_miss():
 *   1. counts the miss in a thread-local countdown: no shared cache line is
 *      written on a miss that is not sampled;
 *   2. every `period`-th miss of a thread (randomised, so that sites missing
 *      in a fixed rhythm are not aliased) records the loaded pointer in the
 *      site's candidate table (a few relaxed atomics on the site's own
 *      cache lines);
 *   3. when a site has collected `window` samples, it is re-specialised
 *      under the runtime lock (trylock: a miss never waits): its new target
 *      set is the sampled candidates, most frequent first, then the targets
 *      it had (they were hits, so they do not show up in misses), at most
 *      DC_MAX_TARGETS.  A new immutable stub is made and published by the
 *      single branch write of the store protocol (docs/abi.md); the old
 *      stub stays valid for threads still inside it.  No core
 *      synchronization is needed: guard to guard, both always correct.
 *   4. back-off: each re-specialisation doubles the site's window; after
 *      `retargets` of them the site is megamorphic and stops learning: its
 *      stub becomes one compare with its hottest target whose miss is the
 *      plain slow path (cost: the indirect call plus one compare).
 *
 * A site that learned nothing yet has a stub with no compare at all: its
 * miss path only.  Variable keys add the value the program stored (the
 * store protocol, state.c) in front of the learned targets; type keys use
 * their first note as a seed only (__dyncall_note, api.c): a per-object
 * field that changes on every object switch never repatches anything.
 *
 * Knobs (environment, read once at start-up, docs/runtime.md):
 *   DYNCALL_LEARN=0            no learning: one target, the stored value
 *   DYNCALL_LEARN_TARGETS=K    targets per stub, 1..DC_MAX_TARGETS
 *   DYNCALL_LEARN_PERIOD=P     sample one miss in P (per thread)
 *   DYNCALL_LEARN_WINDOW=W     samples before the first specialisation
 *   DYNCALL_LEARN_RETARGETS=R  re-specialisations before megamorphic
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "internal.h"

_Static_assert(DC_MAX_TARGETS <= ARCH_MAX_TARGETS,
	       "a guard stub holds DC_MAX_TARGETS targets");
_Static_assert(DC_MAX_TARGETS == DYNCALL_MAX_TARGETS,
	       "dyncall_site_info shows every target");

#define WINDOW_MAX 4096u

struct dc_learn_config dc_learn_cfg = {
	.on = true,
	.targets = DC_MAX_TARGETS,
	.period = 16,
	.window = 8,
	.retargets = 6,
};

/* Per-thread miss countdown and its random source.  initial-exec: two
 * words of static TLS, no __tls_get_addr on the miss path. */
static __thread uint32_t countdown
	__attribute__((tls_model("initial-exec")));
static __thread uint32_t rng __attribute__((tls_model("initial-exec")));

static unsigned env_uint(const char *name, unsigned def, unsigned lo,
			 unsigned hi)
{
	const char *v = secure_getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return def;
	n = strtoul(v, &end, 10);
	if (*end || n < lo || n > hi) {
		fprintf(stderr,
			"dyncall: ignoring %s=%s (not a number in %u..%u)\n",
			name, v, lo, hi);
		return def;
	}
	return (unsigned)n;
}

void dc_learn_init(void)
{
	struct dc_learn_config *c = &dc_learn_cfg;

	c->on = dc_env_bool("DYNCALL_LEARN", true);
	c->targets = env_uint("DYNCALL_LEARN_TARGETS", c->targets, 1,
			      DC_MAX_TARGETS);
	c->period = env_uint("DYNCALL_LEARN_PERIOD", c->period, 1, 1u << 20);
	c->window = env_uint("DYNCALL_LEARN_WINDOW", c->window, 1,
			     WINDOW_MAX);
	c->retargets = env_uint("DYNCALL_LEARN_RETARGETS", c->retargets, 0,
				64);
	c->inline_delay_us = env_uint("DYNCALL_TEST_INLINE_DELAY_US", 0, 0,
				      100000);
}

void dc_learn_site_init(struct dc_site *s)
{
	atomic_store(&s->learn.window, dc_learn_cfg.window);
}

static bool has(const uintptr_t *tg, unsigned n, uintptr_t t)
{
	for (unsigned i = 0; i < n; i++)
		if (tg[i] == t)
			return true;
	return false;
}

/*
 * The targets of a guarded site with key value v, hottest first, and
 * whether its miss path enters dc_miss (learning or checking mode).
 */
unsigned dc_learn_targets(const struct dc_site *s, uintptr_t v,
			  uintptr_t *tg, bool *miss_entry)
{
	const struct dc_learn *l = &s->learn;
	bool variable = !s->key->type;
	unsigned n = 0, k = dc_learn_cfg.targets;

	*miss_entry = dc_cfg.check;
	if (!v || !(variable || !l->ntg) || !dc_landing_pad_ok(s, v))
		v = 0; /* landing.c: such a target keeps the indirect path */
	if (!dc_learn_cfg.on || atomic_load(&l->mega)) {
		/* one compare: the stored value, or the hottest target */
		if (v)
			tg[n++] = v;
		else if (l->ntg)
			tg[n++] = l->tg[0];
		return n;
	}
	*miss_entry = true;
	if (dc_cfg.check && variable) {
		/* checking mode: a variable key's sites compare only the
		 * value the runtime patched for, so that every call through
		 * a stale value misses and is checked (a learned target would
		 * hide a stale key whose value the site had seen before) */
		if (v)
			tg[n++] = v;
		return n;
	}
	if (v)
		tg[n++] = v;
	for (unsigned i = 0; i < l->ntg && n < k; i++)
		if (!has(tg, n, l->tg[i]))
			tg[n++] = l->tg[i];
	return n;
}

static uint32_t next_period(void)
{
	uint32_t p = dc_learn_cfg.period, x = rng;

	if (p <= 1)
		return 1;
	if (!x)
		x = (uint32_t)(uintptr_t)&countdown | 1;
	x ^= x << 13; /* xorshift32 */
	x ^= x >> 17;
	x ^= x << 5;
	rng = x;
	return p / 2 + x % p; /* mean ~ p */
}

static void record(struct dc_learn *l, uintptr_t t)
{
	for (int i = 0; i < DC_LEARN_CANDS; i++) {
		uintptr_t c = atomic_load_explicit(&l->cand[i],
						   memory_order_relaxed);

		if (!c) {
			atomic_compare_exchange_strong(&l->cand[i], &c, t);
			if (!c)
				c = t;
		}
		if (c == t) {
			atomic_fetch_add_explicit(&l->cnt[i], 1,
						  memory_order_relaxed);
			return;
		}
	}
	atomic_fetch_add_explicit(&l->other, 1, memory_order_relaxed);
}

/* The sampled candidates, most frequent first; clears the table. */
static unsigned take_candidates(struct dc_learn *l, uintptr_t *out,
				uint32_t *cnt)
{
	unsigned n = 0;

	for (int i = 0; i < DC_LEARN_CANDS; i++) {
		uint32_t c = atomic_exchange(&l->cnt[i], 0);
		uintptr_t t = atomic_exchange(&l->cand[i], 0);
		unsigned j;

		if (!t || !c)
			continue;
		for (j = n; j > 0 && cnt[j - 1] < c; j--) {
			out[j] = out[j - 1];
			cnt[j] = cnt[j - 1];
		}
		out[j] = t;
		cnt[j] = c;
		n++;
	}
	atomic_store(&l->other, 0);
	atomic_store(&l->samples, 0);
	return n;
}

/* Under the lock: choose the site's new targets and repatch it. */
static void respecialize_locked(struct dc_site *s)
{
	struct dc_learn *l = &s->learn;
	uintptr_t cand[DC_LEARN_CANDS], tg[DC_MAX_TARGETS];
	uint32_t cnt[DC_LEARN_CANDS];
	unsigned nc, n = 0, k = dc_learn_cfg.targets;
	struct dc_batch b = { 0 };

	if (atomic_load(&l->samples) < atomic_load(&l->window) ||
	    atomic_load(&l->mega))
		return; /* another thread just did it */
	nc = take_candidates(l, cand, cnt);
	/* landing.c: a target without the landing pad the site's indirect
	 * call requires keeps the indirect path (it keeps missing) */
	for (unsigned i = 0; i < nc; i++)
		if (dc_landing_pad_ok(s, cand[i]))
			cand[n++] = cand[i];
	nc = n;
	n = 0;
	if (!nc)
		return;
	if (l->retargets >= dc_learn_cfg.retargets) {
		atomic_store(&l->mega, true);
		l->tg[0] = cand[0];
		l->ntg = 1;
		DC_STAT_ADD(megamorphic, 1);
	} else {
		for (unsigned i = 0; i < nc && n < k; i++)
			tg[n++] = cand[i];
		for (unsigned i = 0; i < l->ntg && n < k; i++)
			if (!has(tg, n, l->tg[i]))
				tg[n++] = l->tg[i];
		memcpy(l->tg, tg, n * sizeof(*tg));
		l->ntg = (uint8_t)n;
		l->retargets++;
		if (atomic_load(&l->window) < WINDOW_MAX)
			atomic_store(&l->window, 2 * atomic_load(&l->window));
	}
	DC_STAT_ADD(learned, 1);
	dc_text_begin();
	dc_site_plan(&b, s);
	dc_batch_run(&b);
	/* Its inline guard, if it has one, gets the hottest target of its
	 * first window, for good (state.c, "Inline guards"). */
	if (s->inl && !s->inl->inl_target)
		dc_inline_set(s->inl, l->tg[0]);
	dc_text_end();
}

int dc_miss(const uintptr_t *site_lit, uintptr_t ret, uintptr_t loaded)
{
	struct dc_site *s = (struct dc_site *)site_lit[0];
	int retpoline;
	sigset_t saved;

	if (!s)
		return 0;
	if (s->kind == DYNCALL_KIND_COND && !loaded)
		return DC_GO_RETURN; /* (its stub tests NULL first: not reached) */
	retpoline = (s->flags & DYNCALL_SITE_RETPOLINE) != 0;
	if (dc_cfg.check)
		dc_check_miss(s, ret, loaded);
	if (!dc_learn_cfg.on || atomic_load_explicit(&s->learn.mega,
						     memory_order_relaxed) ||
	    !loaded)
		return retpoline;
	if (countdown > 1) {
		countdown--;
		return retpoline;
	}
	countdown = next_period();
	DC_STAT_ADD(samples, 1);
	atomic_fetch_add_explicit(&s->learn.total, 1, memory_order_relaxed);
	record(&s->learn, loaded);
	if (atomic_fetch_add(&s->learn.samples, 1) + 1 >=
		    atomic_load_explicit(&s->learn.window,
					 memory_order_relaxed) &&
	    dc_trylock(&saved)) {
		respecialize_locked(s);
		dc_unlock(&saved);
	}
	return retpoline;
}
