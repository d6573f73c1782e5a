/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * What each site should look like, and the store protocol.
 *
 * A site's state follows its key's value V (k->value, what the sites are
 * patched for):
 *   slow     V is NULL, fast paths are off, or no stub could be made
 *   direct   V itself (or a far stub): only FRESH sites of a variable key
 *            that no module marked ESCAPES, never in checking mode
 *   guarded  an immutable guard stub for V: everything else
 * Every point of the site follows: the trampoline's branch (unless it is
 * still pointing at the discovery thunk) and each known call instruction.
 *
 * Store protocol (dc_keys_update), under the lock, signals blocked:
 *   1. every DIRECT point of the changing keys -> slow; sync all cores
 *      (a thread that already took a direct branch loaded the old value
 *      before the store: a legal execution);
 *   2. the seq_cst store of the new values;
 *   3. every site of those keys -> its new state; sync.
 * An undo in step 1 that fails leaves a direct branch to a value the key
 * will no longer hold: we retry, then abort (docs/runtime.md).
 */
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

/* Queue the writes that put site s in the state its key's value asks. */
void dc_site_plan(struct dc_batch *b, struct dc_site *s)
{
	struct dc_module *m = s->mod;
	struct dc_key *k = s->key;
	unsigned flavor = 0;
	uintptr_t v, dest = 0, far = 0;
	int kind = DC_DEST_SLOW;

	if (!k || s->status == DYNCALL_ERR_ABI || !s->slow)
		return;
	if (s->flags & DYNCALL_SITE_RETPOLINE)
		flavor |= DC_FLAVOR_RETPOLINE;
	if (dc_cfg.check)
		flavor |= DC_FLAVOR_CHECK;
	v = k->value;
	if (v && !dc_cfg.disabled) {
		if (direct_ok(s)) {
			kind = DC_DEST_DIRECT;
			dest = v;
		} else {
			dest = dc_guard_stub(m->lo, m->hi, v, flavor, s);
			kind = dest ? DC_DEST_GUARD : DC_DEST_SLOW;
			if (!dest)
				s->status = dc_cfg.disabled ? dc_cfg.status :
							      DYNCALL_ERR_NOMEM;
		}
	}
	s->target = kind == DC_DEST_SLOW ? 0 : v;

	/* A direct destination out of a point's reach goes through a far
	 * stub, made on first need and shared by the module. */
#define DEST_FOR(at) \
	(kind != DC_DEST_DIRECT || arch_branch_reaches((at), dest) ? dest : \
	 (far ? far : (far = dc_far_stub(m->lo, m->hi, v, flavor))))

	if (disc_active(s)) {
		dc_batch_add(b, &s->tramp_pt, s->disc_thunk, DC_DEST_DISC);
	} else if (kind == DC_DEST_SLOW) {
		dc_batch_add(b, &s->tramp_pt, s->slow, DC_DEST_SLOW);
	} else {
		uintptr_t d = DEST_FOR(s->tramp);

		if (d)
			dc_batch_add(b, &s->tramp_pt, d, kind);
		else
			dc_batch_add(b, &s->tramp_pt, s->slow, DC_DEST_SLOW);
	}
	for (int i = 0; i < DYNCALL_MAX_CALLS; i++) {
		struct dc_point *p = &s->calls[i];
		uintptr_t at = atomic_load_explicit(&p->addr,
						    memory_order_acquire);
		uintptr_t d;

		if (!at)
			continue;
		d = kind == DC_DEST_SLOW ? 0 : DEST_FOR(at);
		if (d)
			dc_batch_add(b, p, d, kind);
		else
			dc_batch_add(b, p, s->tramp, DC_DEST_SLOW);
	}
#undef DEST_FOR
}

/* Queue the writes that take site s off its direct branches (all = every
 * point back to its original bytes). */
void dc_site_plan_slow(struct dc_batch *b, struct dc_site *s, bool all)
{
	if (!s->slow)
		return;
	if (all || s->tramp_pt.cur_kind == DC_DEST_DIRECT)
		dc_batch_add(b, &s->tramp_pt, s->slow, DC_DEST_SLOW);
	for (int i = 0; i < DYNCALL_MAX_CALLS; i++)
		if (all || s->calls[i].cur_kind == DC_DEST_DIRECT)
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

/* Step 1 of the store protocol for the keys in list. */
static void undo_direct(struct dc_key *list)
{
	struct dc_batch b = { 0 };
	bool left;

	for (int t = 0; t < UNDO_TRIES; t++) {
		left = false;
		for (struct dc_key *k = list; k; k = k->batch_next)
			for (struct dc_site *s = k->sites; s; s = s->key_next)
				if (has_direct(s)) {
					dc_site_plan_slow(&b, s, false);
					left = true;
				}
		if (!left)
			return;
		if (t)
			usleep(1000);
		dc_batch_run(&b);
	}
	for (struct dc_key *k = list; k; k = k->batch_next)
		for (struct dc_site *s = k->sites; s; s = s->key_next)
			if (has_direct(s))
				dc_fatal("cannot take site %#lx of key '%s' off "
					 "its direct branch before a store "
					 "(%s); storing would make it call a "
					 "stale target",
					 (unsigned long)s->tramp,
					 k->name ? k->name : "?",
					 dyncall_status_string());
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

	for (size_t i = 0; i < n; i++) {
		struct dc_key *k = keys[i];
		uintptr_t v;

		if (!k || k->in_batch)
			continue;
		v = values ? (uintptr_t)values[i] : dc_key_load(k);
		if (v == k->value)
			continue;
		k->in_batch = true;
		k->batch_next = list;
		list = k;
	}
	dc_text_begin();
	if (list)
		undo_direct(list);
	if (values) {
		for (size_t i = 0; i < n; i++) {
			/* A type key's descriptor starts with `last`. */
			if (keys[i])
				atomic_store((_Atomic(void *) *)keys[i]->id,
					     values[i]);
		}
	}
	for (struct dc_key *k = list; k; k = k->batch_next) {
		k->value = dc_key_load(k);
		for (struct dc_site *s = k->sites; s; s = s->key_next)
			dc_site_plan(&b, s);
		DC_STAT_ADD(stores, 1);
	}
	ret = dc_batch_run(&b);
	dc_text_end();
	for (struct dc_key *k = list; k; k = k->batch_next)
		k->in_batch = false;
	return ret;
}

int dc_site_state(const struct dc_site *s)
{
	const struct dc_point *p = &s->tramp_pt;

	if (atomic_load(&s->calls[0].addr))
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
