// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Hook lists (dyncall.h "Hook lists", docs/hooks.md).
 *
 * A list is a void key (its address identifies it) plus, here, its
 * handlers in call order.  What the key holds follows from them:
 *   0 handlers                 NULL (a conditional site: the NOP)
 *   1 handler, plain variant   the handler (a direct call)
 *   otherwise                  a jump function (arch_hooks_emit_jf) that
 *                              calls each handler directly
 * and every change is one store into the key through the store protocol
 * of every key (state.c dc_keys_update: the sites go to their safe state,
 * the key is stored, the direct ones are written), so a call runs the
 * handler set of one instant: the old value's or the new one's.  A key no
 * module registered (a program built without the plugin) is just stored
 * to, after the cores are synchronized if new code was written.
 *
 * Jump functions are written once into fresh memory near the handlers
 * (dc_code_near: a direct call reaches each), immutable after, never
 * freed: one per distinct (list, handlers, data) set, cached, so a list
 * that goes back to a set it had reuses its code and the memory stays
 * bounded by the sets a program uses.  A thread still inside an old one
 * (or about to enter it: it loaded the old key value) runs it to the end:
 * the removed handler may run once more for a call that started before
 * the remove returned (the grace rule, docs/hooks.md).
 *
 * Under the runtime lock (dc_lock: signals blocked).
 */
#include <string.h>

#include "arch/arch.h"
#include "internal.h"

#define SIG_MAGIC (1u << 28)
#define SIG_DATA (1u << 24)

struct dc_hjf { /* one generated jump function */
	struct dc_hjf *next;
	uintptr_t code;
	unsigned n;
	uintptr_t h[DYNCALL_HOOKS_MAX], d[DYNCALL_HOOKS_MAX];
};

struct dc_hooks {
	struct dc_hooks *next;
	uintptr_t list; /* the key's address */
	unsigned sig;
	unsigned n;
	uintptr_t h[DYNCALL_HOOKS_MAX], d[DYNCALL_HOOKS_MAX];
	struct dc_hjf *jfs;
};

#define NBUCKETS 64
static struct dc_hooks *buckets[NBUCKETS];

static struct dc_hooks **bucket(uintptr_t list)
{
	return &buckets[(list >> 3) * 0x9e3779b97f4a7c15ULL >> 58];
}

static struct dc_hooks *find(uintptr_t list)
{
	for (struct dc_hooks *l = *bucket(list); l; l = l->next)
		if (l->list == list)
			return l;
	return NULL;
}

static struct arch_hooks_sig decode(unsigned sig)
{
	return (struct arch_hooks_sig){
		.ngpr = sig & 15,
		.nvec = (sig >> 4) & 15,
		.stack = ((sig >> 8) & 0xfff) * 8,
		.nvec2 = (sig >> 20) & 15,
		.data = (sig & SIG_DATA) != 0,
	};
}

#if ARCH_HAS_HOOKS
/* The jump function for handlers h/d[0..n) of list l, or 0 (*err). */
static uintptr_t jf_get(struct dc_hooks *l, unsigned n, const uintptr_t *h,
			const uintptr_t *d, int *err)
{
	struct arch_hooks_sig sig = decode(l->sig);
	uintptr_t lo = h[0], hi = h[0], at;
	struct dc_hjf *j;
	struct arch_cfi cfi;
	uint8_t *buf;
	size_t size, len, skip;

	for (j = l->jfs; j; j = j->next)
		if (j->n == n && !memcmp(j->h, h, n * sizeof(*h)) &&
		    !memcmp(j->d, d, n * sizeof(*d)))
			return j->code;
	for (unsigned i = 1; i < n; i++) {
		lo = h[i] < lo ? h[i] : lo;
		hi = h[i] > hi ? h[i] : hi;
	}
	/* dc_code_near's 16-byte alignment, padded up to the arch's
	 * (the skipped bytes stay the trap fill) */
	size = arch_hooks_jf_size(&sig, n) + ARCH_HOOKS_JF_ALIGN - 16;
	/* Near every handler, else near the first (the others out of
	 * reach are called through a register). */
	at = dc_code_near(lo, hi + 1, size, NULL);
	if (!at)
		at = dc_code_near(h[0], h[0] + 1, size, NULL);
	j = at ? dc_alloc(sizeof(*j)) : NULL;
	buf = j ? dc_alloc(size) : NULL;
	*err = DYNCALL_ERR_NOMEM;
	if (!buf) {
		if (j)
			dc_free(j, sizeof(*j));
		return 0;
	}
	memset(buf, ARCH_FILL_BYTE, size);
	skip = (0 - at) & (ARCH_HOOKS_JF_ALIGN - 1);
	len = arch_hooks_emit_jf(buf + skip, at + skip, &sig, h, d, n, &cfi);
	/* 0: a signature the arch cannot serve (a frame too large) */
	*err = !len		  ? DYNCALL_ERR_UNSUPPORTED :
	       skip + len <= size ? dc_text_write(at, buf, skip + len) :
				    DYNCALL_ERR_INVAL;
	dc_free(buf, size);
	if (*err) {
		dc_free(j,
			sizeof(*j)); /* the code slot is lost, never reached */
		return 0;
	}
	DC_STAT_ADD(stubs, 1);
	/* its unwind information, registered before any key holds it */
	dc_unwind_add(dc_stub_region(at), at + skip, len, &cfi);
	dc_unwind_commit();
	j->code = at + skip;
	j->n = n;
	memcpy(j->h, h, n * sizeof(*h));
	memcpy(j->d, d, n * sizeof(*d));
	j->next = l->jfs;
	l->jfs = j;
	return j->code;
}
#else
static uintptr_t jf_get(struct dc_hooks *l, unsigned n, const uintptr_t *h,
			const uintptr_t *d, int *err)
{
	(void)l, (void)n, (void)h, (void)d;
	*err = DYNCALL_ERR_UNSUPPORTED;
	return 0;
}
#endif

/* Make handlers h/d[0..n) the list's: its key's new value, stored.  On
 * an error nothing changed (the key keeps its value). */
static int publish(struct dc_hooks *l, unsigned n, const uintptr_t *h,
		   const uintptr_t *d)
{
	uintptr_t v = 0;
	struct dc_key *k;
	int err = DYNCALL_OK;

	if (n == 1 && !(l->sig & SIG_DATA))
		v = h[0];
	else if (n && !(v = jf_get(l, n, h, d, &err)))
		return err;
	k = dc_key_find((const void *)l->list);
	if (k) {
		void *val = (void *)v;

		err = dc_keys_update(&k, &val, 1);
		if (err == DYNCALL_ERR_STUCK)
			return err; /* refused: the key keeps its value */
	} else {
		if (dc_stubs_dirty) {
			dc_sync_cores();
			dc_stubs_dirty = false;
		}
		atomic_store((_Atomic uintptr_t *)l->list, v);
	}
	/* Other statuses (no membarrier, mprotect refused, ...): the store
	 * was done, the sites are on a slower correct path, dyncall_status()
	 * says why. */
	l->n = n;
	memcpy(l->h, h, n * sizeof(*h));
	memcpy(l->d, d, n * sizeof(*d));
	return DYNCALL_OK;
}

static int check_sig(unsigned sig)
{
	struct arch_hooks_sig s = decode(sig);

	if ((sig & ~(SIG_DATA | 0xffffffu)) != SIG_MAGIC)
		return DYNCALL_ERR_INVAL;
	return s.data && !s.ngpr ? DYNCALL_ERR_INVAL : DYNCALL_OK;
}

/* The list at `list`, made on first use; NULL with *err. */
static struct dc_hooks *list_get(uintptr_t list, unsigned sig, int *err)
{
	struct dc_hooks *l = find(list);

	*err = DYNCALL_OK;
	if (l) {
		if (l->sig != sig)
			*err = DYNCALL_ERR_INVAL; /* declared twice, not alike */
		return *err ? NULL : l;
	}
	l = dc_alloc(sizeof(*l));
	if (!l) {
		*err = DYNCALL_ERR_NOMEM;
		return NULL;
	}
	l->list = list;
	l->sig = sig;
	l->next = *bucket(list);
	*bucket(list) = l;
	return l;
}

DC_EXPORT int dyncall_hooks_add_(void *list, unsigned sig, void *fn, void *data)
{
	uintptr_t h[DYNCALL_HOOKS_MAX], d[DYNCALL_HOOKS_MAX];
	struct dc_hooks *l;
	sigset_t saved;
	int err;

	if (!list || !fn || check_sig(sig))
		return DYNCALL_ERR_INVAL;
	dc_lock(&saved);
	dc_init_locked();
	l = list_get((uintptr_t)list, sig, &err);
	for (unsigned i = 0; l && i < l->n; i++)
		if (l->h[i] == (uintptr_t)fn &&
		    (!(sig & SIG_DATA) || l->d[i] == (uintptr_t)data))
			err = DYNCALL_ERR_EXISTS;
	if (!err && l->n == DYNCALL_HOOKS_MAX)
		err = DYNCALL_ERR_FULL;
	if (!err) {
		memcpy(h, l->h, l->n * sizeof(*h));
		memcpy(d, l->d, l->n * sizeof(*d));
		h[l->n] = (uintptr_t)fn;
		d[l->n] = sig & SIG_DATA ? (uintptr_t)data : 0;
		err = publish(l, l->n + 1, h, d);
	}
	dc_unlock(&saved);
	return err;
}

DC_EXPORT int dyncall_hooks_remove_(void *list, unsigned sig, void *fn,
				    void *data, int match_data)
{
	uintptr_t h[DYNCALL_HOOKS_MAX], d[DYNCALL_HOOKS_MAX];
	struct dc_hooks *l;
	unsigned n = 0;
	sigset_t saved;
	int err;

	if (!list || !fn || check_sig(sig))
		return DYNCALL_ERR_INVAL;
	dc_lock(&saved);
	dc_init_locked();
	l = find((uintptr_t)list);
	err = !l	    ? DYNCALL_ERR_NOHOOK :
	      l->sig != sig ? DYNCALL_ERR_INVAL :
			      DYNCALL_OK;
	for (unsigned i = 0; !err && i < l->n; i++) {
		if (l->h[i] == (uintptr_t)fn &&
		    (!match_data || l->d[i] == (uintptr_t)data))
			continue;
		h[n] = l->h[i];
		d[n++] = l->d[i];
	}
	if (!err && n == l->n)
		err = DYNCALL_ERR_NOHOOK;
	if (!err)
		err = publish(l, n, h, d);
	dc_unlock(&saved);
	return err;
}

DC_EXPORT int dyncall_hooks_get_(const void *list, void **fns, void **datas,
				 unsigned max)
{
	struct dc_hooks *l;
	sigset_t saved;
	int n;

	if (!list)
		return DYNCALL_ERR_INVAL;
	dc_lock(&saved);
	l = find((uintptr_t)list);
	n = l ? (int)l->n : 0;
	for (unsigned i = 0; l && i < l->n && i < max; i++) {
		if (fns)
			fns[i] = (void *)l->h[i];
		if (datas)
			datas[i] = (void *)l->d[i];
	}
	dc_unlock(&saved);
	return n;
}
