/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * What each site should look like, and the store protocol.
 *
 * A site's state follows its key's value V (k->value, what the sites are
 * patched for) and what the site learned from its misses (learn.c):
 *   slow     fast paths are off, no stub could be made, or a direct site's
 *            V is NULL
 *   direct   V itself (or a far stub): only FRESH sites of a variable key
 *            that no module marked ESCAPES, never in checking mode
 *   guarded  an immutable guard stub comparing V (variable keys) and the
 *            learned targets, whose miss path learns: everything else
 * Every point of the site follows: the trampoline's branch (unless it is
 * still pointing at the discovery thunk) and each known call instruction.
 *
 * Store protocol (dc_keys_update), under the lock, signals blocked, for a
 * key going from O to N:
 *   1. every point of the key -> its *safe* state for N: its final state,
 *      except that a point whose final state is direct gets the guard stub
 *      for N (or the slow path if there is none).  If a DIRECT point was
 *      among them (a branch to O), sync all cores.
 *   2. the seq_cst store of N;
 *   3. the points whose final state is direct -> direct N.  No sync.
 * Why this is enough:
 *   - Before the sync of step 1 a thread may still take a direct branch to
 *     O: it does so before the store, while the key holds O, which is a
 *     legal execution.  After the sync nobody runs a branch to O: every
 *     thread sees the safe state (the writes are atomic, see patch.c).
 *   - A guard stub for N is correct at any time, before or after the
 *     store: it compares the pointer the site loaded with N, jumps to N on
 *     a hit and through the loaded pointer on a miss (a thread that loaded
 *     O before the store calls O).  The slow path is always correct.
 *   - Step 3 happens after the store (program order of the storing thread,
 *     and the store is seq_cst), so a thread that sees direct N runs it
 *     while the key holds N.  A thread that loaded O before the store and
 *     reaches the site after step 3 calls N: legal for a FRESH site, whose
 *     load can be moved to the call (abi.md).  A thread that does not see
 *     step 3 yet runs the guard stub for N: correct.  So step 3 needs no
 *     sync; the next store's step 1 synchronizes before it matters.
 *   - Keys whose sites are all guarded (ESCAPES, type keys, checking mode)
 *     have no DIRECT point: step 1 writes guard(O) -> guard(N) and needs no
 *     sync at all (guard(O) stays correct after the store: a thread that
 *     loaded N misses and calls N through the slow path).
 *   - A jump-to-self write (patch.c) keeps its syncs between its steps in
 *     every phase; only the sync after a batch's last step is dropped.
 * Conditional sites (DYNCALL_KIND_COND, docs/hooks.md) add one direct
 * state: "direct to NULL", the call instruction turned into a NOP of its
 * size.  It is a DIRECT point like a call to O, so the argument above
 * holds as is: step 1 takes a NOP off (to the slow path or the guard for
 * N, both of which test the loaded pointer for NULL) and syncs before N is
 * stored, so no thread runs the NOP once the key holds N; step 3 writes
 * the NOP after a store of NULL, so a thread that runs it does so while
 * the key holds NULL (its load moved to the site, as for any FRESH site).
 * A step 1 that fails to take a DIRECT point off O (every writer refused
 * midway) would leave a branch to a value the key will no longer hold: we
 * retry, then refuse the store (DYNCALL_ERR_STUCK, dyncall.h).
 */
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "internal.h"

#define UNDO_TRIES 50

uintptr_t dc_key_load(const struct dc_key *k)
{
	if (k->type)
		return (uintptr_t)atomic_load((_Atomic(void *) *)
					      &((struct dyncall_type_key *)
						k->id)->last);
	return (uintptr_t)atomic_load((_Atomic(void *) *)k->id);
}

static bool direct_ok(const struct dc_site *s)
{
	return (s->flags & DYNCALL_SITE_FRESH) && !s->key->escapes &&
	       !s->key->type && !(s->flags & DYNCALL_SITE_TYPE_KEY) &&
	       !dc_cfg.check;
}

static bool disc_active(const struct dc_site *s)
{
	return s->disc_thunk && !atomic_load(&s->disc_done);
}

/*
 * Step 3 of a store: the direct writes that step 1 deferred, recorded while
 * step 1 plans (so step 3 does not walk the sites again).  Under the lock;
 * the buffer is kept between stores.
 */
struct dc_final {
	struct dc_point *p;
	uintptr_t want;
};
static struct dc_final *fin;
static size_t fin_n, fin_cap;
static bool fin_lost; /* out of memory: step 3 plans the sites instead */

static void fin_push(struct dc_point *p, uintptr_t want)
{
	if (fin_n == fin_cap) {
		size_t ncap = fin_cap ? 2 * fin_cap : 256;
		struct dc_final *nf = dc_alloc(ncap * sizeof(*nf));

		if (!nf) {
			fin_lost = true;
			return;
		}
		memcpy(nf, fin, fin_n * sizeof(*nf));
		dc_free(fin, fin_cap * sizeof(*fin));
		fin = nf;
		fin_cap = ncap;
	}
	fin[fin_n++] = (struct dc_final){ p, want };
}

/* What site_plan() decided for a site, shared by its points. */
struct site_dest {
	struct dc_batch *b;
	struct dc_module *m;
	int kind;          /* DC_DEST_DIRECT, _GUARD or _SLOW            */
	uintptr_t v;       /* the direct (or first learned) target       */
	uintptr_t guard;   /* the guard stub, or 0                       */
	uintptr_t far;     /* the module's far stub to v, made on need   */
	unsigned flavor;   /* DC_FLAVOR_*                                */
	bool safe, record; /* see site_plan()                            */
};

/* The destination kind of site s for its key's value, its target and
 * guard stub into *d. */
static void site_dest(struct dc_site *s, struct site_dest *d)
{
	uintptr_t tg[DC_MAX_TARGETS];
	bool direct = false, entry = false;
	unsigned n = 0;

	d->v = s->key->value;
	d->kind = DC_DEST_SLOW;
	if (dc_cfg.disabled)
		return;
	if (direct_ok(s)) {
		/* NULL (a call would fault either way) or a target without
		 * the landing pad the site's indirect call requires
		 * (landing.c): the slow path.  NULL at a conditional site:
		 * "direct to NULL", its NOP. */
		direct = d->v ? dc_landing_pad_ok(s, d->v) :
				s->kind == DYNCALL_KIND_COND;
		if (direct && d->v) /* its interim guard (safe mode) */
			tg[n++] = d->v;
	} else {
		n = dc_learn_targets(s, d->v, tg, &entry);
	}
	if ((!direct || d->safe) && (n || entry)) {
		d->guard = dc_guard_stub(d->m->lo, d->m->hi, tg, n, d->flavor,
					 entry, s);
		if (!d->guard && !direct)
			s->status = dc_cfg.disabled ? dc_cfg.status :
						      DYNCALL_ERR_NOMEM;
	}
	d->kind = direct ? DC_DEST_DIRECT :
		  d->guard ? DC_DEST_GUARD : DC_DEST_SLOW;
	if (!direct)
		d->v = n ? tg[0] : 0;
}

/*
 * One point: its final destination (a direct destination out of the
 * point's reach goes through a far stub, made on first need and shared by
 * the module; none: slow), or in safe mode the interim.  Direct to NULL
 * (a conditional site): its calls' NOP (destination 0), and the
 * trampoline's slow path, whose NULL test is that state's equivalent for
 * callers not discovered yet (nop_ok false).
 */
static void plan_point(struct site_dest *d, struct dc_point *pt, uintptr_t at,
		       uintptr_t slowdest, bool nop_ok)
{
	uintptr_t dst = 0;
	bool nop = d->kind == DC_DEST_DIRECT && !d->v && nop_ok;

	if (d->kind == DC_DEST_GUARD)
		dst = d->guard;
	else if (d->kind == DC_DEST_DIRECT && d->v)
		dst = arch_branch_reaches(at, d->v) ? d->v :
		      d->far ? d->far :
			       (d->far = dc_far_stub(d->m->lo, d->m->hi, d->v,
						     d->flavor));
	if (!dst && !nop) {
		dc_batch_add(d->b, pt, slowdest, DC_DEST_SLOW);
	} else if (d->kind != DC_DEST_DIRECT || !d->safe) {
		dc_batch_add(d->b, pt, dst, d->kind);
	} else {
		if (d->guard)
			dc_batch_add(d->b, pt, d->guard, DC_DEST_GUARD);
		else
			dc_batch_add(d->b, pt, slowdest, DC_DEST_SLOW);
		if (d->record)
			fin_push(pt, dst);
	}
}

/*
 * A conditional site's call on an arch where it only turns between its NOP
 * and its original call of the trampoline (ARCH_COND_CALL_VIA_TRAMP): the
 * NOP for "direct to NULL", else the trampoline, whose own point carries
 * the direct target or guard.  In safe mode the NOP is taken off like any
 * direct destination and written back in step 3.
 */
static void plan_cond_via_tramp(struct site_dest *d, struct dc_point *pt,
				uintptr_t tramp)
{
	if (d->kind != DC_DEST_DIRECT || d->v) {
		dc_batch_add(d->b, pt, tramp, DC_DEST_SLOW);
	} else if (!d->safe) {
		dc_batch_add(d->b, pt, 0, DC_DEST_DIRECT);
	} else {
		dc_batch_add(d->b, pt, tramp, DC_DEST_SLOW);
		if (d->record)
			fin_push(pt, 0);
	}
}

/*
 * Queue the writes that put site s in the state its key's value asks.
 * safe (step 1 of a store): a point whose final state is DIRECT gets the
 * guard stub for the value instead (or the slow path without a stub), and
 * its final write is recorded for step 3 (fin_push) when `record`.
 */
static void site_plan(struct dc_batch *b, struct dc_site *s, bool safe,
		      bool record)
{
	struct site_dest d = { .b = b, .m = s->mod, .safe = safe,
			       .record = record };

	if (!s->key || s->status == DYNCALL_ERR_ABI || !s->slow)
		return;
	if (s->flags & DYNCALL_SITE_RETPOLINE)
		d.flavor |= DC_FLAVOR_RETPOLINE;
	site_dest(s, &d);
	s->target = d.kind == DC_DEST_SLOW ? 0 : d.v;

	if (disc_active(s))
		dc_batch_add(b, &s->tramp_pt, s->disc_thunk, DC_DEST_DISC);
	else
		plan_point(&d, &s->tramp_pt, s->tramp, s->slow, false);
	/* Discovery fills the slots in order and never clears one: the
	 * first empty slot ends the list. */
	for (int i = 0; i < DYNCALL_MAX_CALLS; i++) {
		struct dc_point *p = &s->calls[i];
		uintptr_t at = atomic_load_explicit(&p->addr,
						    memory_order_acquire);

		if (!at)
			break;
		if (ARCH_COND_CALL_VIA_TRAMP && p->op == ARCH_OP_COND)
			plan_cond_via_tramp(&d, p, s->tramp);
		else
			plan_point(&d, p, at, s->tramp, p->op == ARCH_OP_COND);
	}
}

/*
 * Inline guards (DYNCALL_KIND_INLINE; docs/abi.md "Inline guards").  A
 * whole-program call site compiled with one is
 *
 *	cmp  lit(%rip),%r10      r10: the loaded pointer P
 *	jne  miss
 *	call hit                 e8 <rel32>: hit trampoline, later T
 *	...
 * miss: call tramp          the site (its stubs learn as before)
 *
 * lit holds its own address (the sentinel S, a data object no correct
 * program calls) until the runtime stores T; the hit trampoline is an
 * ordinary trampoline (`jmp slow; slow: jmp *%r10`).  The runtime writes
 * the guard once, when its owner has learned (learn.c), in this order:
 *   1. the hit trampoline's branch -> the discovery thunk (Clang: the hit
 *      calls are found from their return addresses, then each is patched
 *      `call T`) or T; a known hit call (GCC) -> T;
 *   2. sync all cores (the branches and any new thunk are visible);
 *   3. lit = T (one aligned 8-byte release store).
 * and never writes lit, the hit trampoline or a hit call again except to
 * put them back to the trampoline's slow path at unregistration.
 * Why this is correct at every moment: a thread on the hit path has
 * compared P with the lit it read, S or T.  If P == T, each destination
 * its call can have (the hit trampoline: slow path `jmp *%r10`, the
 * discovery thunk which ends the same way, or a branch to T; or T itself)
 * reaches T == P: what `call *P` does.  P == S happens only in a program
 * that calls the literal, a data address: there it faults like the
 * original call as long as lit == S (the trampoline's slow path), and
 * after step 1 would call T instead -- the one behaviour the sentinel
 * trades.  What must never happen is a second target T2: a thread that
 * compared P == T1 and is stopped before its call would call T2 (test:
 * test/exec/inline-guard-stress.c fails when the guard is re-set).  So
 * later targets stay the stub's job (the miss path, unchanged).
 */
static void inline_plan(struct dc_batch *b, struct dc_site *p)
{
	struct site_dest d = { .b = b, .m = p->mod, .kind = DC_DEST_DIRECT,
			       .v = p->inl_target };

	if (!p->inl_target || p->status == DYNCALL_ERR_ABI || !p->slow ||
	    dc_cfg.disabled)
		return;
	if (p->flags & DYNCALL_SITE_RETPOLINE)
		d.flavor |= DC_FLAVOR_RETPOLINE;
	if (disc_active(p))
		dc_batch_add(b, &p->tramp_pt, p->disc_thunk, DC_DEST_DISC);
	else
		plan_point(&d, &p->tramp_pt, p->tramp, p->slow, false);
	for (int i = 0; i < DYNCALL_MAX_CALLS; i++) {
		struct dc_point *pt = &p->calls[i];
		uintptr_t at = atomic_load_explicit(&pt->addr,
						    memory_order_acquire);

		if (!at)
			break;
		plan_point(&d, pt, at, p->tramp, false);
	}
}

/* Under the lock, in a text session: set the inline guard p (the INLINE
 * record of a site) to target t, once (see above). */
void dc_inline_set(struct dc_site *p, uintptr_t t)
{
	struct dc_batch b = { 0 };

	if (p->inl_target || p->status == DYNCALL_ERR_ABI || !p->slow || !t ||
	    dc_cfg.disabled)
		return;
	p->inl_target = t;
	if (p->inl_disc)
		p->disc_thunk = dc_disc_thunk_one(p); /* 0: no discovery */
	inline_plan(&b, p);		/* 1. */
	dc_batch_run(&b);
	if (p->tramp_pt.cur_kind == DC_DEST_SLOW)
		return; /* not written: a hit would take the slow path */
	if (dc_sync_cores())		/* 2. */
		return;
	if (dc_learn_cfg.inline_delay_us) /* (tests: a wider window) */
		usleep(dc_learn_cfg.inline_delay_us);
	atomic_store_explicit((_Atomic uintptr_t *)p->lit, t,	/* 3. */
			      memory_order_release);
	DC_STAT_ADD(inlined, 1);
}

void dc_site_plan(struct dc_batch *b, struct dc_site *s)
{
	if (s->kind == DYNCALL_KIND_INLINE)
		inline_plan(b, s);
	else
		site_plan(b, s, false, false);
}

/*
 * Link-time resolution (abi.md): may a RESOLVED site stay exactly as the
 * file has it, direct to s->resolved, with no write?  Only when that is
 * the state site_plan would choose: the key holds the resolved target
 * (no store before registration) and the site may be direct (FRESH, no
 * module marked the key ESCAPES, not a type key, not checking mode).
 * With fast paths off nothing will ever repatch the site, so the direct
 * bytes may stay only if the key can never change: a const key.
 */
bool dc_site_resolved_keep(const struct dc_site *s)
{
	const struct dc_key *k = s->key;

	if (!s->resolved || !k || k->value != s->resolved)
		return false;
	if (dc_cfg.disabled)
		return k->konst;
	return direct_ok(s) && !disc_active(s);
}

/*
 * Unregistration: a point of a RESOLVED site of a const key that still
 * branches straight to the resolved target, which the key holds, holds the
 * bytes the file was linked with, and they are correct forever (the key
 * never changes), so it is left alone: no write, no sync at exit.  Every
 * other point goes back to the slow path, the one state that is correct
 * for every value the key may take once nobody repatches it.
 */
bool dc_point_keeps_link(const struct dc_site *s, const struct dc_point *p)
{
	return s->resolved && s->key && s->key->konst &&
	       s->key->value == s->resolved &&
	       p->cur_kind == DC_DEST_DIRECT && p->cur == s->resolved;
}

/* Queue the writes that take site s off its direct branches (all = every
 * point back to the slow path, except what dc_point_keeps_link keeps). */
void dc_site_plan_slow(struct dc_batch *b, struct dc_site *s, bool all)
{
	if (!s->slow)
		return;
	if (all ? !dc_point_keeps_link(s, &s->tramp_pt) :
		  s->tramp_pt.cur_kind == DC_DEST_DIRECT)
		dc_batch_add(b, &s->tramp_pt, s->slow, DC_DEST_SLOW);
	for (int i = 0; i < DYNCALL_MAX_CALLS; i++)
		if (all ? !dc_point_keeps_link(s, &s->calls[i]) :
			  s->calls[i].cur_kind == DC_DEST_DIRECT)
			dc_batch_add(b, &s->calls[i], s->tramp, DC_DEST_SLOW);
}

static bool has_direct(const struct dc_site *s)
{
	if (s->tramp_pt.cur_kind == DC_DEST_DIRECT)
		return true;
	for (int i = 0; i < DYNCALL_MAX_CALLS; i++)
		if (s->calls[i].cur_kind == DC_DEST_DIRECT &&
		    atomic_load(&s->calls[i].addr))
			return true;
	return false;
}

/* Step 1 of the store protocol for the keys in list: every point to its
 * safe state, a sync if a DIRECT point moved (dc_batch_run).  Records
 * the step-3 writes of each key in fin[k->fin_lo, k->fin_hi). */
static bool safe_phase(struct dc_key *list)
{
	for (int t = 0; t < UNDO_TRIES; t++) {
		struct dc_batch b = { 0 };

		if (t)
			usleep(1000);
		for (struct dc_key *k = list; k; k = k->batch_next) {
			if (!t)
				k->fin_lo = fin_n;
			for (struct dc_site *s = k->sites; s; s = s->key_next) {
				if (s->key_next)
					__builtin_prefetch(s->key_next);
				if (!t || has_direct(s))
					site_plan(&b, s, true, !t);
			}
			if (!t)
				k->fin_hi = fin_n;
		}
		dc_batch_run(&b);
		if (!b.direct_left)
			return true;
	}
	/* A DIRECT point still branches to O and no writer can move it
	 * (dyncall.h, "When patching becomes impossible"): the caller does
	 * not store, so no direct branch ever runs to a value the key no
	 * longer holds; patching stops, the status says why. */
	for (struct dc_key *k = list; k; k = k->batch_next)
		for (struct dc_site *s = k->sites; s; s = s->key_next)
			if (has_direct(s)) {
				dc_set_status(DYNCALL_ERR_STUCK,
					      "cannot take site %#lx of key "
					      "'%s' off its direct branch; "
					      "stores to it are refused",
					      (unsigned long)s->tramp,
					      k->name ? k->name : "?");
				dc_cfg.disabled = true;
				return false;
			}
	return true;
}

/*
 * The store protocol for n keys.  values == NULL: resynchronize with the
 * keys' current values (dyncall_update); else store values[i] into
 * keys[i].  Keys nobody registered are just stored to.
 */
int dc_keys_update(struct dc_key **keys, void *const *values, size_t n)
{
	struct dc_key *list = NULL;
	struct dc_batch b = { 0 };
	int ret = DYNCALL_OK;
	bool stuck;

	for (size_t i = 0; i < n; i++) {
		struct dc_key *k = keys[i];
		uintptr_t v;

		if (!k || k->in_batch)
			continue;
		v = values ? (uintptr_t)values[i] : dc_key_load(k);
		if (v == k->value)
			continue;
		k->in_batch = true;
		k->value = v; /* step 1 plans for it */
		k->batch_next = list;
		list = k;
	}
	dc_text_begin();
	fin_n = 0;
	fin_lost = false;
	stuck = list && !safe_phase(list);
	if (stuck)
		values = NULL; /* refused: the keys keep their values */
	if (values) {
		for (size_t i = 0; i < n; i++) {
			/* A type key's descriptor starts with `last`. */
			if (keys[i])
				atomic_store((_Atomic(void *) *)keys[i]->id,
					     values[i]);
		}
	}
	for (struct dc_key *k = list; k; k = k->batch_next) {
		uintptr_t v = dc_key_load(k);

		if (v == k->value && !fin_lost) {
			/* step 3: the recorded direct writes */
			for (size_t i = k->fin_lo; i < k->fin_hi; i++) {
				if (i + 8 < k->fin_hi)
					__builtin_prefetch(fin[i + 8].p);
				dc_batch_add(&b, fin[i].p, fin[i].want,
					     DC_DEST_DIRECT);
			}
		} else {
			/* The key changed again meanwhile (a duplicate in
			 * the batch, a store the runtime did not see), or
			 * recording ran out of memory: plan every site.
			 * From the safe state any final state is a correct
			 * write. */
			k->value = v;
			for (struct dc_site *s = k->sites; s; s = s->key_next)
				site_plan(&b, s, false, false);
		}
		DC_STAT_ADD(stores, 1);
	}
	ret = dc_batch_run(&b);
	if (stuck)
		ret = DYNCALL_ERR_STUCK;
	dc_text_end();
	for (struct dc_key *k = list; k; k = k->batch_next)
		k->in_batch = false;
	return ret;
}
int dc_site_state(const struct dc_site *s)
{
	const struct dc_point *p = &s->tramp_pt;

	/* (a conditional call that only turns into its NOP: the state is the
	 * trampoline's unless it is the NOP, ARCH_COND_CALL_VIA_TRAMP) */
	if (atomic_load(&s->calls[0].addr) &&
	    !(ARCH_COND_CALL_VIA_TRAMP && s->calls[0].op == ARCH_OP_COND &&
	      s->calls[0].cur_kind != DC_DEST_DIRECT))
		p = &s->calls[0];
	switch (p->cur_kind) {
	case DC_DEST_DIRECT:
		return DYNCALL_STATE_DIRECT;
	case DC_DEST_GUARD:
		return DYNCALL_STATE_GUARDED;
	default:
		return DYNCALL_STATE_SLOW;
	}
}
