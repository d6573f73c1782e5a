/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * __dyncall_register / __dyncall_unregister: modules, their sites, and the
 * key table.
 *
 * Registration validates every entry against the bytes in memory (an
 * entry that does not look like abi.h says stays unpatched: slow is always
 * correct), links each site to its key, gives Clang sites a discovery
 * thunk, then patches the sites for their key's current value.  A module
 * that marks a key ESCAPES turns that key's direct sites, in every module,
 * into guarded ones right away.
 *
 * Link-time resolution: an entry dyncall-rewrite relax marked RESOLVED
 * has its trampoline's branch (and its site, when named) already direct to
 * the key's initial value T.  Registration verifies those bytes (a direct
 * branch, and behind it a trampoline slow path like abi.h's) and, when the
 * key still holds T and the site may be direct, records the site as direct
 * to T without a write (stats.resolved_at_link).  Otherwise (a store
 * before registration, ESCAPES, checking mode) the site is planned like
 * any other: its points are known to branch to T, so the normal writes
 * move them, with the core sync a DIRECT point needs.  See
 * docs/runtime.md, "Link-time resolved sites".
 *
 * Unregistration (the module's destructor: dlclose or exit) puts every site
 * of the module back to its slow path, since nothing repatches it any
 * more (a const key's resolved branches, correct forever, stay), and
 * forgets it.
 */
#include <string.h>

#include "arch/arch.h"
#include "internal.h"

#define KEY_BUCKETS 1024

struct dc_module *dc_modules;
const struct dc_module *dc_registering;
static struct dc_key *key_hash[KEY_BUCKETS];

static size_t key_bucket(const void *id)
{
	return ((uintptr_t)id >> 3) * 0x9e3779b97f4a7c15ULL >> 54;
}

struct dc_key *dc_key_find(const void *id)
{
	struct dc_key *k;

	for (k = key_hash[key_bucket(id)]; k; k = k->hnext)
		if (k->id == id)
			return k;
	return NULL;
}

static struct dc_key *key_get(void *id, bool type)
{
	struct dc_key *k = dc_key_find(id);
	size_t b = key_bucket(id);

	if (k)
		return k;
	k = dc_alloc(sizeof(*k));
	if (!k)
		return NULL;
	k->id = id;
	k->type = type;
	k->value = dc_key_load(k); /* under the lock: no store in flight */
	k->hnext = key_hash[b];
	key_hash[b] = k;
	DC_STAT_ADD(keys, 1);
	return k;
}

static void key_put(struct dc_key *k)
{
	struct dc_key **pp;

	if (--k->refs)
		return;
	for (pp = &key_hash[key_bucket(k->id)]; *pp != k; pp = &(*pp)->hnext)
		;
	*pp = k->hnext;
	dc_free(k, sizeof(*k));
	DC_STAT_ADD(keys, -1);
}

/*
 * The trampoline of a RESOLVED entry: its branch is `jmp T` (T != the slow
 * path), and what follows must be an unpatched trampoline's slow path.
 * arch_tramp_slow() knows that shape for an unpatched branch only, so it
 * checks a copy whose branch was turned back into `jmp slow` with the
 * arch's own branch plan (same alignment as the original, so the plan has
 * the same steps).  Returns the slow path and sets *dest to T, or 0.
 */
static uintptr_t resolved_tramp_slow(const struct dc_module *m,
				     uintptr_t tramp, bool *retp,
				     uintptr_t *dest)
{
	enum { COPY = 4 * ARCH_BRANCH_LEN, ALIGN = 16 };
	_Alignas(ALIGN) uint8_t buf[ALIGN + COPY];
	uintptr_t at = (uintptr_t)buf + (tramp & (ALIGN - 1)), cur;
	struct arch_step st[ARCH_MAX_STEPS];
	size_t len = 0;
	int n;

	if (!arch_branch_read(tramp, ARCH_OP_JMP, dest) ||
	    *dest == tramp + ARCH_BRANCH_LEN)
		return 0;
	for (unsigned i = 0; i < m->exec.n; i++)
		if (tramp >= m->exec.lo[i] && tramp < m->exec.hi[i])
			len = m->exec.hi[i] - tramp;
	if (len > COPY)
		len = COPY;
	memset(buf, ARCH_FILL_BYTE, sizeof(buf));
	memcpy((void *)at, (const void *)tramp, len);
	if (!arch_branch_read(at, ARCH_OP_JMP, &cur))
		return 0;
	n = arch_branch_plan(at, ARCH_OP_JMP, cur, at + ARCH_BRANCH_LEN, st);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++)
		memcpy((void *)st[i].addr, st[i].bytes, st[i].len);
	if (arch_tramp_slow(at, retp) != at + ARCH_BRANCH_LEN)
		return 0;
	return tramp + ARCH_BRANCH_LEN;
}

/*
 * The record of an inline guard (DYNCALL_KIND_INLINE): the entry right
 * after its site's.  Its trampoline is an ordinary one (the hit calls pass
 * the pointer in the static chain too), its literal must still hold the
 * sentinel (its own address), and its owner must be a CALL or TAIL site
 * the runtime accepted.  It joins no key: the runtime writes it once, when
 * its owner has learned (dc_inline_set, state.c).  Anything else leaves it
 * unpatched, which is correct: the literal keeps the sentinel and every
 * call takes the owner's site.
 */
static void inline_init(struct dc_module *m, struct dc_site *s,
			const struct dyncall_site_entry *e)
{
	struct dc_site *o = s > m->sites ? s - 1 : NULL;
	uintptr_t lit = (uintptr_t)dyncall_rel(&e->keycell);
	uintptr_t site = (uintptr_t)dyncall_rel(&e->site);
	bool retp = false;
	uintptr_t dest;

	s->e = e;
	s->mod = m;
	s->kind = e->kind;
	s->flags = e->flags;
	s->func = (uintptr_t)dyncall_rel(&e->func);
	s->tramp = (uintptr_t)dyncall_rel(&e->tramp);
	s->status = DYNCALL_OK;
	m->ninline++;
	if (!ARCH_HAS_INLINE || !o || !o->key || !o->slow || o->inl ||
	    (o->kind != DYNCALL_KIND_CALL && o->kind != DYNCALL_KIND_TAIL) ||
	    (e->flags & DYNCALL_SITE_RESOLVED) || !lit || (lit & 7)) {
		s->status = DYNCALL_ERR_ABI;
		return;
	}
	if (atomic_load((_Atomic uintptr_t *)lit) != lit || !s->tramp ||
	    !dc_in_exec(m, s->tramp, s->tramp + 2 * ARCH_BRANCH_LEN) ||
	    !(s->slow = arch_tramp_slow(s->tramp, &retp)) ||
	    arch_tramp_returns_on_null(s->slow)) {
		s->slow = 0;
		s->status = DYNCALL_ERR_BYTES;
		return;
	}
	if (retp)
		s->flags |= DYNCALL_SITE_RETPOLINE;
	s->lit = lit;
	s->tramp_pt.op = ARCH_OP_JMP;
	s->tramp_pt.cur = s->slow;
	s->tramp_pt.cur_kind = DC_DEST_SLOW;
	atomic_store(&s->tramp_pt.addr, s->tramp);
	for (int i = 0; i < DYNCALL_MAX_CALLS; i++) {
		s->calls[i].op = o->kind == DYNCALL_KIND_TAIL ? ARCH_OP_JMP :
								ARCH_OP_CALL;
		s->calls[i].cur = s->tramp;
		s->calls[i].cur_kind = DC_DEST_SLOW;
	}
	if (site) {
		if (dc_in_exec(m, site, site + ARCH_BRANCH_LEN) &&
		    arch_branch_read(site, s->calls[0].op, &dest) &&
		    dest == s->tramp)
			atomic_store(&s->calls[0].addr, site);
		else
			s->status = DYNCALL_ERR_BYTES; /* trampoline only */
	} else if (o->kind != DYNCALL_KIND_TAIL && ARCH_HAS_DISCOVERY) {
		s->inl_disc = true; /* its thunk: dc_inline_set */
	}
	o->inl = s;
}

/* Fill in one site from its entry; leaves it unpatchable (status set) when
 * the entry or the bytes are not what abi.h promises. */
static void site_init(struct dc_module *m, struct dc_site *s,
		      const struct dyncall_site_entry *e)
{
	uintptr_t tramp = (uintptr_t)dyncall_rel(&e->tramp);
	uintptr_t site = (uintptr_t)dyncall_rel(&e->site);
	void **cell = dyncall_rel(&e->keycell);
	bool retp = false;
	uintptr_t dest;

	s->e = e;
	s->mod = m;
	dc_learn_site_init(s);
	s->kind = e->kind;
	s->flags = e->flags;
	s->func = (uintptr_t)dyncall_rel(&e->func);
	s->tramp = tramp;
	s->status = DYNCALL_OK;
	if (e->version != DYNCALL_ABI_VERSION ||
	    (e->kind != DYNCALL_KIND_CALL && e->kind != DYNCALL_KIND_TAIL &&
	     (e->kind != DYNCALL_KIND_COND || !ARCH_HAS_COND)) ||
	    (e->kind == DYNCALL_KIND_COND &&
	     (e->flags & DYNCALL_SITE_RESOLVED)) ||
	    !cell) {
		s->status = DYNCALL_ERR_ABI;
		return;
	}
	if (!tramp || !dc_in_exec(m, tramp, tramp + 2 * ARCH_BRANCH_LEN)) {
		s->status = DYNCALL_ERR_BYTES;
		return;
	}
	/* An unpatched trampoline is fine with or without RESOLVED (relax
	 * may have left it: then the entry is treated as not resolved). */
	s->slow = arch_tramp_slow(tramp, &retp);
	if (!s->slow && (e->flags & DYNCALL_SITE_RESOLVED))
		s->slow = resolved_tramp_slow(m, tramp, &retp, &s->resolved);
	/* A conditional entry needs the trampoline that returns on NULL (its
	 * call runs whatever the key holds), and only it has one. */
	if (!s->slow || (e->kind == DYNCALL_KIND_COND) !=
			arch_tramp_returns_on_null(s->slow)) {
		s->slow = 0;
		s->status = DYNCALL_ERR_BYTES;
		return;
	}
	if (retp)
		s->flags |= DYNCALL_SITE_RETPOLINE;
	s->tramp_pt.op = ARCH_OP_JMP;
	s->tramp_pt.cur = s->resolved ? s->resolved : s->slow;
	s->tramp_pt.cur_kind = s->resolved ? DC_DEST_DIRECT : DC_DEST_SLOW;
	atomic_store(&s->tramp_pt.addr, tramp);
	for (int i = 0; i < DYNCALL_MAX_CALLS; i++) {
		s->calls[i].op = e->kind == DYNCALL_KIND_TAIL ? ARCH_OP_JMP :
				 e->kind == DYNCALL_KIND_COND ? ARCH_OP_COND :
								ARCH_OP_CALL;
		s->calls[i].cur = tramp;
		s->calls[i].cur_kind = DC_DEST_SLOW;
	}
	s->key = key_get(*cell, e->flags & DYNCALL_SITE_TYPE_KEY);
	if (!s->key) {
		s->status = DYNCALL_ERR_NOMEM;
		dc_set_status(DYNCALL_ERR_NOMEM, "cannot register a key: out "
			      "of memory (mmap refused?)");
		return;
	}
	s->key->refs++;
	s->key_next = s->key->sites;
	s->key->sites = s;
	s->key->nsites++;
	if (site) {
		if (dc_in_exec(m, site, site + ARCH_BRANCH_LEN) &&
		    arch_branch_read(site, s->calls[0].op, &dest) &&
		    (dest == tramp || (s->resolved && dest == s->resolved))) {
			if (dest != tramp) { /* relax made it direct too */
				s->calls[0].cur = dest;
				s->calls[0].cur_kind = DC_DEST_DIRECT;
			}
			atomic_store(&s->calls[0].addr, site);
		} else {
			s->status = DYNCALL_ERR_BYTES; /* trampoline only */
		}
	} else if (e->kind != DYNCALL_KIND_TAIL && ARCH_HAS_DISCOVERY &&
		   (!ARCH_DISCOVER_COND_ONLY || e->kind == DYNCALL_KIND_COND) &&
		   !s->resolved) {
		/* wanted; dc_disc_thunks() makes it.  Not for a RESOLVED
		 * trampoline: discovering would write it (to the thunk) and
		 * its callers already reach T in one more jump. */
		s->disc_thunk = 1;
	}
}

/* Every entry of the module's site table, in order (an inline guard's
 * record refers to the one before it). */
static void entries_init(struct dc_module *m,
			 const struct dyncall_site_entry *sb)
{
	for (unsigned i = 0; i < m->nsites; i++) {
		if (sb[i].version == DYNCALL_ABI_VERSION &&
		    sb[i].kind == DYNCALL_KIND_INLINE)
			inline_init(m, &m->sites[i], &sb[i]);
		else
			site_init(m, &m->sites[i], &sb[i]);
	}
}

static void key_entries(struct dc_module *m, struct dc_batch *b)
{
	for (const struct dyncall_key_entry *k = m->kb; k < m->ke; k++) {
		void **cell = dyncall_rel(&k->keycell);
		struct dc_key *key;
		const char *name = dyncall_rel(&k->name);

		if (k->version != DYNCALL_ABI_VERSION ||
		    k->kind != DYNCALL_KIND_KEY || !cell)
			continue;
		key = key_get(*cell, k->flags & DYNCALL_KEY_TYPE);
		if (!key)
			continue;
		key->refs++;
		if (!key->name && name)
			key->name = name;
		if (k->flags & DYNCALL_KEY_TYPE)
			key->type = true;
		if (k->flags & DYNCALL_KEY_CONST)
			key->konst = true;
		if ((k->flags & DYNCALL_KEY_ESCAPES) && !key->escapes) {
			key->escapes = true;
			/* Direct sites of other modules become guarded:
			 * replanning them now gives them a guard. */
			for (struct dc_site *s = key->sites; s; s = s->key_next)
				/* (fast paths off: a const key's resolved
				 * site stays; it is correct forever and
				 * there may be no membarrier to move it) */
				if (!dc_cfg.disabled ||
				    !dc_site_resolved_keep(s))
					dc_site_plan(b, s);
		}
	}
}

DC_EXPORT void __dyncall_register(const struct dyncall_site_entry *sb,
				  const struct dyncall_site_entry *se,
				  const struct dyncall_key_entry *kb,
				  const struct dyncall_key_entry *ke)
{
	struct dc_batch b = { 0 }, bu = { .unshared = true };
	struct dc_module *m;
	sigset_t saved;

	if (sb > se || kb > ke || (sb == se && kb == ke))
		return;
	dc_runtime_claim(false); /* not locked: it may take another copy's */
	dc_lock(&saved);
	dc_init_locked();
	for (m = dc_modules; m; m = m->next) {
		if (m->sb == sb && m->kb == kb) {
			m->refs++;
			goto out;
		}
	}
	m = dc_alloc(sizeof(*m));
	if (!m) {
		dc_set_status(DYNCALL_ERR_NOMEM, "cannot register %zu sites: "
			      "out of memory (mmap refused?)",
			      (size_t)(se - sb));
		goto out;
	}
	m->sb = sb;
	m->se = se;
	m->kb = kb;
	m->ke = ke;
	m->refs = 1;
	m->nsites = (unsigned)(se - sb);
	/* the object holding the tables (any table address) */
	dc_segs_of(sb != se ? (const void *)sb : (const void *)kb, &m->exec,
		   &m->path);
	m->lo = m->exec.n ? UINTPTR_MAX : 0;
	m->hi = 0;
	for (unsigned i = 0; i < m->exec.n; i++) {
		if (m->exec.lo[i] < m->lo)
			m->lo = m->exec.lo[i];
		if (m->exec.hi[i] > m->hi)
			m->hi = m->exec.hi[i];
	}
	if (m->nsites) {
		m->sites = dc_alloc(m->nsites * sizeof(*m->sites));
		if (!m->sites) {
			dc_set_status(DYNCALL_ERR_NOMEM, "cannot register %u "
				      "sites: out of memory (mmap refused?)",
				      m->nsites);
			dc_free(m, sizeof(*m));
			goto out;
		}
	}
	/* Key entries first: they carry names and ESCAPES. */
	key_entries(m, &b);
	entries_init(m, sb);
	if (!dc_cfg.disabled)
		dc_disc_thunks(m);
	for (unsigned i = 0; i < m->nsites; i++) {
		struct dc_site *s = &m->sites[i];

		if (!s->key)
			continue;
		if (dc_site_resolved_keep(s)) {
			s->target = s->resolved; /* as the file has it */
			DC_STAT_ADD(resolved_at_link, 1);
			continue;
		}
		/* Fast paths off: a RESOLVED site that may not stay direct
		 * goes to the slow path now, without a sync (there may be no
		 * membarrier, and no other thread has reached this module's
		 * code yet: its constructors are still running). */
		dc_site_plan(s->resolved && dc_cfg.disabled ? &bu : &b, s);
	}
	/* Its text may be aliased by the 64 KiB chunk (dc_same_segment),
	 * not page by page, while its first writes run. */
	dc_registering = m;
	dc_batch_run(&b);
	dc_batch_run(&bu);
	dc_registering = NULL;
	m->next = dc_modules;
	dc_modules = m;
	DC_STAT_ADD(modules, 1);
	DC_STAT_ADD(sites, m->nsites - m->ninline);
out:
	dc_unlock(&saved);
}

static void site_unlink(struct dc_site *s)
{
	struct dc_key *k = s->key;
	struct dc_site **pp;

	if (!k)
		return;
	for (pp = &k->sites; *pp != s; pp = &(*pp)->key_next)
		;
	*pp = s->key_next;
	k->nsites--;
	key_put(k);
	s->key = NULL;
}

void dc_modules_slow(void)
{
	struct dc_batch b = { 0 };

	for (struct dc_module *m = dc_modules; m; m = m->next)
		for (unsigned i = 0; i < m->nsites; i++)
			dc_site_plan_slow(&b, &m->sites[i], false);
	dc_batch_run(&b);
}

DC_EXPORT void __dyncall_unregister(const struct dyncall_site_entry *sb,
				    const struct dyncall_site_entry *se,
				    const struct dyncall_key_entry *kb,
				    const struct dyncall_key_entry *ke)
{
	struct dc_module *m, **pp;
	struct dc_batch b = { 0 };
	sigset_t saved;
	bool clean;

	(void)se;
	(void)ke;
	dc_lock(&saved);
	for (pp = &dc_modules; (m = *pp); pp = &m->next)
		if (m->sb == sb && m->kb == kb)
			break;
	if (!m || --m->refs)
		goto out;
	*pp = m->next;
	dc_report_retire(m); /* DYNCALL_STATS: before they go slow */
	/* Original bytes everywhere: nothing will repatch these sites. */
	for (unsigned i = 0; i < m->nsites; i++)
		dc_site_plan_slow(&b, &m->sites[i], true);
	dc_batch_run(&b);
	clean = true;
	/* Backwards: registration prepended the sites to their keys' lists
	 * in order, so each one is found at the head (O(n), not O(n^2)). */
	for (unsigned i = m->nsites; i-- > 0;) {
		struct dc_site *s = &m->sites[i];

		if (s->tramp_pt.cur_kind != DC_DEST_SLOW &&
		    !dc_point_keeps_link(s, &s->tramp_pt))
			clean = false;
		for (int j = 0; j < DYNCALL_MAX_CALLS; j++)
			if (s->calls[j].cur_kind != DC_DEST_SLOW &&
			    !dc_point_keeps_link(s, &s->calls[j]))
				clean = false;
		/* A direct branch no writer could revert stays: the
		 * module is being unloaded (its code goes with it) or the
		 * process is exiting; patching stops (dyncall.h). */
		if (s->tramp_pt.cur_kind == DC_DEST_DIRECT &&
		    !dc_point_keeps_link(s, &s->tramp_pt)) {
			dc_set_status(DYNCALL_ERR_STUCK,
				      "cannot unpatch a direct site at %#lx",
				      (unsigned long)s->tramp);
			dc_cfg.disabled = true;
		}
		site_unlink(s);
		if (dc_cfg.check)
			dc_stub_forget_site(s);
	}
	for (const struct dyncall_key_entry *k = m->kb; k < m->ke; k++) {
		void **cell = dyncall_rel(&k->keycell);
		struct dc_key *key = cell ? dc_key_find(*cell) : NULL;

		if (key && k->version == DYNCALL_ABI_VERSION &&
		    k->kind == DYNCALL_KIND_KEY) {
			if (key->name == dyncall_rel(&k->name))
				key->name = NULL;
			key_put(key);
		}
	}
	dc_text_forget(m->lo, m->hi);
	DC_STAT_ADD(modules, -1);
	DC_STAT_ADD(sites, -(uint64_t)(m->nsites - m->ninline));
	/* A site still reaching a stub or thunk keeps its record alive:
	 * discovery thunks point at it. */
	if (clean) {
		dc_free(m->sites, m->nsites * sizeof(*m->sites));
		dc_free(m, sizeof(*m));
	}
out:
	dc_unlock(&saved);
}
