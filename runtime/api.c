/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * The exported entry points: what the plugins call (__dyncall_store,
 * __dyncall_resync, __dyncall_note) and the public API (dyncall.h).
 */
#include "arch/arch.h"
#include "internal.h"

#define BATCH_CHUNK 64 /* keys resolved per lock hold in the batch calls */

/* Store into n keys (values != NULL) or resynchronize them. */
static int keys_op(void *const *ids, void *const *values, size_t n)
{
	struct dc_key *keys[BATCH_CHUNK];
	int ret = DYNCALL_OK, r;
	sigset_t saved;

	if (n > BATCH_CHUNK) {
		/* Larger batches go in chunks: still one membarrier per
		 * phase per 64 keys. */
		for (size_t i = 0; i < n; i += BATCH_CHUNK) {
			size_t c = n - i < BATCH_CHUNK ? n - i : BATCH_CHUNK;

			r = keys_op(ids + i, values ? values + i : NULL, c);
			if (r && !ret)
				ret = r;
		}
		return ret;
	}
	dc_runtime_claim(true); /* the first store: not locked (above) */
	dc_lock(&saved);
	dc_init_locked();
	for (size_t i = 0; i < n; i++) {
		keys[i] = ids[i] ? dc_key_find(ids[i]) : NULL;
		if (keys[i])
			continue;
		if (!ids[i]) {
			ret = ret ? ret : DYNCALL_ERR_INVAL;
			continue;
		}
		/* Not a registered key: the store still happens. */
		if (values)
			atomic_store((_Atomic(void *) *)ids[i], values[i]);
		ret = ret ? ret : DYNCALL_ERR_NOKEY;
	}
	r = dc_keys_update(keys, values, n);
	dc_unlock(&saved);
	return ret ? ret : r;
}

DC_EXPORT int dyncall_set(void *key, void *value)
{
	_Atomic(void *) *cell = key;

	if (!key)
		return DYNCALL_ERR_INVAL;
	/* Fast path: the key already holds the value, so its sites are
	 * already patched for it (every store goes through here). */
	if (atomic_load(cell) == value) {
		atomic_store(cell, value);
		return DYNCALL_OK;
	}
	return keys_op(&key, &value, 1);
}

DC_EXPORT int dyncall_update(void *key)
{
	if (!key)
		return DYNCALL_ERR_INVAL;
	return keys_op(&key, NULL, 1);
}

DC_EXPORT int dyncall_set_batch(void *const *keys, void *const *values,
				size_t n)
{
	if (n && (!keys || !values))
		return DYNCALL_ERR_INVAL;
	return keys_op(keys, values, n);
}

DC_EXPORT int dyncall_update_batch(void *const *keys, size_t n)
{
	if (n && !keys)
		return DYNCALL_ERR_INVAL;
	return keys_op(keys, NULL, n);
}

/* The plugin's store to a variable key. */
DC_EXPORT void __dyncall_store(void *key, void *value)
{
	dyncall_set(key, value);
}

/* After an atomic read-modify-write of a key. */
DC_EXPORT void __dyncall_resync(void *key)
{
	dyncall_update(key);
}

/*
 * A store to an annotated field changed the type key's last value.  Only a
 * hint: the first note of a key seeds its sites (a target before any miss
 * was sampled); after that they learn from their own misses (learn.c), so
 * a per-object field that changes on every object switch costs a store
 * here and never repatches anything.  The descriptor's `seeded` word is
 * the runtime's (abi.h).  With learning off (DYNCALL_LEARN=0)
 * every note retargets the key's sites, one target at a time.
 */
DC_EXPORT void __dyncall_note(struct dyncall_type_key *tk, void *value)
{
	_Atomic uint64_t *seeded;

	if (!tk)
		return;
	atomic_store((_Atomic(void *) *)&tk->last, value);
	seeded = (_Atomic uint64_t *)&tk->seeded;
	if (dc_learn_cfg.on &&
	    (atomic_load_explicit(seeded, memory_order_relaxed) ||
	     atomic_exchange(seeded, 1)))
		return;
	keys_op((void *const *)&tk, NULL, 1);
}

DC_EXPORT int dyncall_key_info(const void *key, struct dyncall_key_info *out)
{
	struct dc_key *k;
	sigset_t saved;

	if (!key || !out)
		return DYNCALL_ERR_INVAL;
	dc_lock(&saved);
	k = dc_key_find(key);
	if (k) {
		*out = (struct dyncall_key_info){
			.name = k->name,
			.value = (const void *)k->value,
			.nsites = k->nsites,
			.escapes = k->escapes,
			.type_key = k->type,
		};
		for (struct dc_site *s = k->sites; s; s = s->key_next) {
			switch (dc_site_state(s)) {
			case DYNCALL_STATE_DIRECT:
				out->ndirect++;
				break;
			case DYNCALL_STATE_GUARDED:
				out->nguarded++;
				break;
			default:
				out->nslow++;
			}
		}
	}
	dc_unlock(&saved);
	return k ? DYNCALL_OK : DYNCALL_ERR_NOKEY;
}

DC_EXPORT int dyncall_foreach_site(const void *key, dyncall_site_fn fn,
				   void *arg)
{
	struct dyncall_site_info info;
	struct dc_key *k;
	sigset_t saved;
	int n = 0;

	if (!key || !fn)
		return DYNCALL_ERR_INVAL;
	dc_lock(&saved);
	k = dc_key_find(key);
	for (struct dc_site *s = k ? k->sites : NULL; s; s = s->key_next) {
		int status = s->status;

		info = (struct dyncall_site_info){
			.tramp = (const void *)s->tramp,
			.func = (const void *)s->func,
			.target = (const void *)s->target,
			.state = dc_site_state(s),
			.kind = s->kind,
			.flags = s->flags,
			.discovering = s->disc_thunk &&
				       !atomic_load(&s->disc_done),
		};
		for (int i = 0; i < DYNCALL_MAX_CALLS; i++) {
			uintptr_t a = atomic_load(&s->calls[i].addr);

			if (!a)
				continue;
			info.calls[info.ncalls++] = (const void *)a;
			if (s->calls[i].status && !status)
				status = s->calls[i].status;
		}
		if (s->tramp_pt.status && !status)
			status = s->tramp_pt.status;
		info.status = status;
		info.site = info.ncalls ? info.calls[0] : NULL;
		info.megamorphic = atomic_load(&s->learn.mega);
		if (info.state == DYNCALL_STATE_GUARDED) {
			uintptr_t tg[DC_MAX_TARGETS];
			bool entry;

			info.ntargets = dc_learn_targets(s, k->value, tg,
							 &entry);
			for (unsigned i = 0; i < info.ntargets; i++)
				info.targets[i] = (const void *)tg[i];
		}
		if (info.state == DYNCALL_STATE_SLOW)
			info.target = NULL;
		n++;
		if (fn(&info, arg))
			break;
	}
	dc_unlock(&saved);
	return k ? n : DYNCALL_ERR_NOKEY;
}
