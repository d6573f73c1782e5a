/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Executable memory near the sites, and the code the runtime puts there.
 *
 * A region is 1 MiB mmap'ed within rel32 reach of a module's text (we try
 * hint addresses just below and above it).  It starts with the arch's
 * shared entries (retpolines, discovery and miss entries), followed by
 * guard stubs, far stubs and discovery thunks, bump-allocated.
 *
 * Every piece is written once, into bytes no thread can reach yet, before
 * any branch points at it; then it is immutable and never freed: a thread
 * may be inside it at any time.  Stubs are found again through a hash table
 * keyed by what they do: far stubs and guard stubs whose miss is the slow
 * path are shared by every point that reaches the region; a guard stub
 * whose miss enters dc_miss() names its site (learning, checking mode), so
 * it is per site, and a site that returns to a target set it had before
 * gets its old stub back (memory stays bounded by the distinct sets).
 * Regions are mapped R-X and never made writable: they are filled and
 * written through the text writers (dc_text_write, patch.c).
 *
 * Unused bytes are a trap (ARCH_FILL_BYTE).  The fill is lazy, FILL_CHUNK
 * (64 KiB, the alias writer's chunk) at a time, just before the first
 * piece that reaches into a chunk is written: filling the whole 1 MiB at
 * start-up cost a short run more than the run itself (xmlwf on a tiny
 * document, docs/whole-program.md).  Bytes past the filled part are the
 * anonymous mapping's zeros, which no branch can reach; on the arches whose
 * trap is 0x00 they need no fill at all.
 */
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "internal.h"

#define REGION_SIZE (1UL << 20)
#define HINT_STEP (16UL << 20)
#define HINT_TRIES 64
#define FILL_CHUNK (64UL << 10)

struct region {
	struct region *next;
	uintptr_t base, used;
	uintptr_t filled; /* [base, base + filled) holds traps or code */
};

struct stub_ent {
	uintptr_t tg[ARCH_MAX_TARGETS]; /* far: tg[0] is the target      */
	uintptr_t site; /* per-site stubs; 0: shared; -1: forgotten      */
	uintptr_t stub;
	unsigned kind;  /* flavor | KIND_FAR | KIND_MISS_ENTRY | KIND_COND */
	unsigned n;     /* targets                                        */
};
#define KIND_FAR 0x100
#define KIND_MISS_ENTRY 0x200
#define KIND_COND 0x400 /* tests NULL before the miss path          */

static struct region *regions;
static struct stub_ent *table;
static size_t table_size, table_used;
bool dc_stubs_dirty;

static bool reaches(uintptr_t lo, uintptr_t hi, uintptr_t b, uintptr_t e)
{
	/* every point in [lo, hi) reaches every byte of [b, e) */
	return (intptr_t)(e - lo) < ARCH_REACH &&
	       (intptr_t)(e - lo) > -ARCH_REACH &&
	       (intptr_t)(hi - b) < ARCH_REACH &&
	       (intptr_t)(hi - b) > -ARCH_REACH;
}

/* Fill [r->base + r->filled, r->base + end) with traps, whole chunks, the
 * first one with the region's header.  0 or an error (nothing reachable
 * was changed: the bytes are not in use yet). */
static int region_fill(struct region *r, uintptr_t end)
{
	static uint8_t *trap; /* FILL_CHUNK trap bytes, made once */

	while (r->filled < end) {
		uintptr_t at = r->base + r->filled;
		size_t len = FILL_CHUNK;
		const uint8_t *src;
		uint8_t *head = NULL;
		int err;

		if (!r->filled) {
			head = dc_alloc(FILL_CHUNK);
			if (!head)
				return DYNCALL_ERR_NOMEM;
			memset(head, ARCH_FILL_BYTE, FILL_CHUNK);
			arch_emit_region_header(head, r->base);
			src = head;
			if (ARCH_FILL_BYTE == 0)
				len = ARCH_REGION_HEADER; /* the rest is 0 */
		} else if (ARCH_FILL_BYTE == 0) {
			r->filled = REGION_SIZE; /* zero pages are traps */
			return 0;
		} else {
			if (!trap) {
				trap = dc_alloc(FILL_CHUNK);
				if (!trap)
					return DYNCALL_ERR_NOMEM;
				memset(trap, ARCH_FILL_BYTE, FILL_CHUNK);
			}
			src = trap;
		}
		err = dc_text_write(at, src, len);
		if (head)
			dc_free(head, FILL_CHUNK);
		if (err)
			return err;
		r->filled += FILL_CHUNK;
	}
	return 0;
}

/* A new region every point of [lo, hi) reaches, its header written; NULL
 * and *err (DYNCALL_ERR_RANGE: none mapped in reach) if none. */
static struct region *region_new(uintptr_t lo, uintptr_t hi, int *err)
{
	struct region *r;
	void *p = MAP_FAILED;

	/* Mapped R-X from the start and filled through the text writers
	 * (patch.c: an alias or /proc/self/mem before mprotect): a region is
	 * never writable and executable, and a sandbox that forbids mprotect
	 * still gets new stubs. */
	for (int i = 0; i < 2 * HINT_TRIES; i++) {
		uintptr_t hint = i & 1 ?
			((hi + HINT_STEP * (i / 2) + REGION_SIZE) &
			 ~(REGION_SIZE - 1)) :
			((lo - REGION_SIZE - HINT_STEP * (i / 2)) &
			 ~(REGION_SIZE - 1));

		p = mmap((void *)hint, REGION_SIZE,
			 ARCH_PROT(hint, ARCH_TEXT_PROT),
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		if (reaches(lo, hi, (uintptr_t)p, (uintptr_t)p + REGION_SIZE))
			break;
		munmap(p, REGION_SIZE);
		p = MAP_FAILED;
	}
	*err = DYNCALL_ERR_RANGE;
	if (p == MAP_FAILED)
		return NULL;
	r = dc_alloc(sizeof(*r));
	*err = DYNCALL_ERR_NOMEM;
	if (!r) {
		munmap(p, REGION_SIZE);
		return NULL;
	}
	r->base = (uintptr_t)p;
	r->filled = 0;
	*err = region_fill(r, ARCH_REGION_HEADER);
	if (*err) {
		munmap(p, REGION_SIZE);
		dc_free(r, sizeof(*r));
		return NULL;
	}
	r->used = ARCH_REGION_HEADER;
	r->next = regions;
	regions = r;
	return r;
}

static int alloc_err; /* why the last code_alloc returned 0 */

/* `size` bytes of fresh code memory reachable from [lo, hi). */
static uintptr_t code_alloc(uintptr_t lo, uintptr_t hi, size_t size,
			    struct region **rp)
{
	struct region *r;

	for (r = regions; r; r = r->next)
		if (r->used + size <= REGION_SIZE &&
		    reaches(lo, hi, r->base, r->base + REGION_SIZE))
			break;
	alloc_err = DYNCALL_ERR_RANGE; /* (also: larger than a region) */
	if (!r && size <= REGION_SIZE - ARCH_REGION_HEADER)
		r = region_new(lo, hi, &alloc_err);
	if (!r || (alloc_err = region_fill(r, r->used + size)))
		return 0;
	*rp = r;
	r->used += size;
	return r->base + r->used - size;
}

/* `size` bytes of fresh code memory every point of [lo, hi) reaches, or
 * 0 and *why (if not NULL): DYNCALL_ERR_RANGE (no memory in reach) or why
 * the region could not be written (its trap fill: a text writer refused,
 * DYNCALL_ERR_MPROTECT); the caller writes them (dc_text_write) before
 * anything branches there (function-entry patching:
 * arch_fentry_emit_near). */
uintptr_t dc_code_near(uintptr_t lo, uintptr_t hi, size_t size, int *why)
{
	struct region *r;
	uintptr_t at = code_alloc(lo, hi, (size + 15) & ~(size_t)15, &r);

	if (!at && why)
		*why = alloc_err;
	return at;
}

static struct region *region_of(uintptr_t addr)
{
	for (struct region *r = regions; r; r = r->next)
		if (addr >= r->base && addr < r->base + REGION_SIZE)
			return r;
	return NULL;
}

bool dc_is_stub(uintptr_t addr)
{
	return region_of(addr) != NULL;
}

uintptr_t dc_stub_region(uintptr_t addr)
{
	const struct region *r = region_of(addr);

	return r ? r->base : 0;
}

static size_t hash(const uintptr_t *tg, unsigned n, unsigned kind,
		   uintptr_t site)
{
	uint64_t h = (site * 31) ^ kind ^ n;

	for (unsigned i = 0; i < n; i++)
		h = (h ^ tg[i]) * 0x9e3779b97f4a7c15ULL;
	return (size_t)((h * 0x9e3779b97f4a7c15ULL) >> 20);
}

static bool same(const struct stub_ent *e, const uintptr_t *tg, unsigned n,
		 unsigned kind, uintptr_t site)
{
	return e->kind == kind && e->site == site && e->n == n &&
	       !memcmp(e->tg, tg, n * sizeof(*tg));
}

static bool table_grow(void)
{
	size_t nsize = table_size ? 2 * table_size : 256;
	struct stub_ent *nt = dc_alloc(nsize * sizeof(*nt));

	if (!nt)
		return false;
	for (size_t i = 0; i < table_size; i++) {
		struct stub_ent *e = &table[i];
		size_t j;

		if (!e->stub)
			continue;
		for (j = hash(e->tg, e->n, e->kind, e->site) & (nsize - 1);
		     nt[j].stub; j = (j + 1) & (nsize - 1))
			;
		nt[j] = *e;
	}
	dc_free(table, table_size * sizeof(*table));
	table = nt;
	table_size = nsize;
	return true;
}

static uintptr_t stub_get(uintptr_t lo, uintptr_t hi, const uintptr_t *tg,
			  unsigned n, unsigned kind, uintptr_t s)
{
	uint8_t buf[ARCH_GUARD_MAX > ARCH_FAR_SIZE ? ARCH_GUARD_MAX :
						     ARCH_FAR_SIZE];
	size_t size = kind & KIND_FAR ? ARCH_FAR_SIZE : arch_guard_size(n, kind & KIND_COND);
	struct region *r;
	uintptr_t at;
	size_t i;

	if (table_size) {
		for (i = hash(tg, n, kind, s) & (table_size - 1);
		     table[i].stub; i = (i + 1) & (table_size - 1)) {
			struct stub_ent *e = &table[i];

			if (same(e, tg, n, kind, s) &&
			    reaches(lo, hi, e->stub, e->stub + size))
				return e->stub;
		}
	}
	if (2 * (table_used + 1) > table_size && !table_grow())
		return 0;
	at = code_alloc(lo, hi, size, &r);
	if (!at)
		return 0;
	if (kind & KIND_FAR) {
		arch_emit_far(buf, at, r->base, tg[0], kind & ~KIND_FAR);
	} else {
		struct arch_guard g = {
			.targets = tg,
			.ntargets = n,
			.flavor = kind & DC_FLAVOR_RETPOLINE,
			.miss = kind & KIND_MISS_ENTRY ? ARCH_MISS_ENTRY :
							 ARCH_MISS_SLOW,
			.site = s,
			.cond = (kind & KIND_COND) != 0,
		};

		arch_emit_guard(buf, at, r->base, &g);
	}
	if (dc_text_write(at, buf, size))
		return 0; /* the slot is lost; it was never reachable */
	for (i = hash(tg, n, kind, s) & (table_size - 1); table[i].stub;
	     i = (i + 1) & (table_size - 1))
		;
	table[i] = (struct stub_ent){ .site = s, .stub = at, .kind = kind,
				      .n = n };
	memcpy(table[i].tg, tg, n * sizeof(*tg));
	table_used++;
	DC_STAT_ADD(stubs, 1);
	return at;
}

uintptr_t dc_guard_stub(uintptr_t lo, uintptr_t hi, const uintptr_t *tg,
			unsigned n, unsigned flavor, bool miss_entry,
			const struct dc_site *site)
{
	/* The sites of a key come in a row: remember the last shared stub
	 * (stubs are never freed). */
	static uintptr_t last_lo, last_hi, last_target, last_stub;
	static unsigned last_flavor;
	unsigned kind = flavor & DC_FLAVOR_RETPOLINE;

	if (site && site->kind == DYNCALL_KIND_COND)
		kind |= KIND_COND;
	if (n > ARCH_MAX_TARGETS)
		n = ARCH_MAX_TARGETS;
	if (miss_entry)
		return stub_get(lo, hi, tg, n, kind | KIND_MISS_ENTRY,
				(uintptr_t)site);
	if (n != 1)
		return n ? stub_get(lo, hi, tg, n, kind, 0) : 0;
	if (last_stub && tg[0] == last_target && kind == last_flavor &&
	    lo == last_lo && hi == last_hi)
		return last_stub;
	last_stub = stub_get(lo, hi, tg, 1, kind, 0);
	last_lo = lo;
	last_hi = hi;
	last_target = tg[0];
	last_flavor = kind;
	return last_stub;
}

uintptr_t dc_far_stub(uintptr_t lo, uintptr_t hi, uintptr_t target,
		      unsigned flavor)
{
	return stub_get(lo, hi, &target, 1,
			(flavor & DC_FLAVOR_RETPOLINE) | KIND_FAR, 0);
}

/* A module goes away: its per-site stubs must never be handed to a new
 * site that happens to get the same address. */
void dc_stub_forget_site(const struct dc_site *site)
{
	for (size_t i = 0; i < table_size; i++)
		if (table[i].stub && table[i].site == (uintptr_t)site)
			table[i].site = (uintptr_t)-1;
}

/* The discovery thunk of one record, made when it is needed (an inline
 * guard's hit trampoline, once its target is set); 0: none. */
uintptr_t dc_disc_thunk_one(struct dc_site *s)
{
	uint8_t buf[ARCH_THUNK_SIZE];
	struct region *r;
	uintptr_t at = code_alloc(s->mod->lo, s->mod->hi, ARCH_THUNK_SIZE, &r);

	if (!at)
		return 0;
	arch_emit_disc_thunk(buf, at, r->base, (uintptr_t)s,
			     s->flags & DYNCALL_SITE_RETPOLINE ?
				     DC_FLAVOR_RETPOLINE : 0);
	if (dc_text_write(at, buf, ARCH_THUNK_SIZE))
		return 0;
	DC_STAT_ADD(stubs, 1);
	return at;
}

/* One discovery thunk per CALL site without a known call instruction,
 * written in one go for the whole module (an inline guard's is made when
 * its target is set: dc_disc_thunk_one). */
int dc_disc_thunks(struct dc_module *m)
{
	size_t k = 0, size, off = 0;
	struct region *r;
	uint8_t *buf;
	uintptr_t at;
	int err;

	for (unsigned i = 0; i < m->nsites; i++)
		k += m->sites[i].disc_thunk == 1;
	if (!k)
		return 0;
	size = k * ARCH_THUNK_SIZE;
	at = code_alloc(m->lo, m->hi, size, &r);
	buf = at ? dc_alloc(size) : NULL;
	if (!buf) {
		for (unsigned i = 0; i < m->nsites; i++)
			m->sites[i].disc_thunk = 0;
		return DYNCALL_ERR_NOMEM;
	}
	for (unsigned i = 0; i < m->nsites; i++) {
		struct dc_site *s = &m->sites[i];

		if (s->disc_thunk != 1)
			continue;
		arch_emit_disc_thunk(buf + off, at + off, r->base,
				     (uintptr_t)s,
				     s->flags & DYNCALL_SITE_RETPOLINE ?
					     DC_FLAVOR_RETPOLINE : 0);
		s->disc_thunk = at + off;
		off += ARCH_THUNK_SIZE;
	}
	err = dc_text_write(at, buf, size);
	dc_free(buf, size);
	if (err) {
		for (unsigned i = 0; i < m->nsites; i++)
			m->sites[i].disc_thunk = 0;
		return err;
	}
	DC_STAT_ADD(stubs, k);
	return 0;
}
