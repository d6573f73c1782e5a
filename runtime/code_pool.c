// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * The memory of function-entry patching's generated code (prologue.c):
 * jump functions and "original" thunks, placed near the functions they
 * serve (x86-64 jump functions reach the function, its Q and its body
 * with direct jumps: docs/prologues.md "Jump functions, handlers").
 *
 * Two kinds of chunk, both never writable and executable at once:
 *
 * - alias chunks (1 MiB, 64 KiB aligned): the usual kind.  Each is a
 *   memfd mapped R-X where it executes, written through its RW view from
 *   the start (patch.c dc_text_code_map), else like any text
 *   (dc_text_write: /proc/self/mem or, last, mprotect).  Any block may be
 *   added at any time, beside blocks other threads are executing.  Their
 *   pages are small: shared memory gets no transparent huge pages unless
 *   shmem_enabled says so (it says `never` here), and both views are made
 *   present page by page (about 5.5 us a page on the development VM).
 *
 * - bulk chunks (2 MiB, 2 MiB aligned, advised MADV_HUGEPAGE): for a
 *   batch that generates the code of many functions at once (a scope
 *   opened by dc_pool_bulk_begin).  Anonymous memory, RW and not
 *   executable beyond its seal; the scope's blocks are stored there
 *   directly, and dc_pool_bulk_end makes the pages they took R-X
 *   (mprotect of fresh pages nobody can execute yet: no W+X), before
 *   the batch's membarrier and before any slot or entry points at them.
 *   A sealed page is never written again, so the next scope starts on
 *   the next page.  One huge-page fault instead of ~500 small-page
 *   faults in two views (the seals then split its mapping into small
 *   pages: the gain is in the faults, not the TLB): the first batch of
 *   10,000 jump functions, 7.9 -> 6.2 ms here (docs/prologues.md "The
 *   first batch: the pool's pages").  Used
 *   only where mprotect is an allowed writer (DYNCALL_TEXT_WRITE) and
 *   the kernel lets a fresh chunk's page become executable (a probe at
 *   its creation; SELinux execmem refuses it): else the scope's blocks
 *   go to alias chunks, as before.
 *
 * No block crosses a page: a block is always written one way.  Caller
 * holds the lock.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/arch.h"
#include "internal.h"

#define POOL_CHUNK (1UL << 20)
#define POOL_ALIGN (64UL << 10)
#define BULK_CHUNK (2UL << 20) /* one transparent huge page */
#define POOL_MAX 64
#define POOL_REACH (1UL << 30) /* well inside a rel32's +-2 GiB */
#define POOL_HINTS 16
#define POOL_PREFAULT (128UL << 10) /* pages made present at a time */

static struct chunk {
	uintptr_t lo, cur, size;
	uintptr_t pop; /* alias chunks: present below it */
	uintptr_t seal; /* bulk chunks: R-X below it, fresh RW above */
	uintptr_t dead; /* a refused seal: [seal, dead) never executable */
	bool fd; /* alias chunk written through its own alias */
	bool bulk;
} pool[POOL_MAX];
static unsigned pool_n;

static bool bulk_scope, bulk_off;

static uintptr_t page_mask(void)
{
	return (uintptr_t)getpagesize() - 1;
}

static bool pool_near(uintptr_t chunk, uintptr_t near)
{
	uintptr_t d = chunk > near ? chunk - near : near - chunk;

	return !near || d < POOL_REACH;
}

/* A new mapping of size bytes aligned to align, near `near` if possible,
 * else (far_ok) anywhere; prot: its protection.  0 if none. */
static uintptr_t pool_map(uintptr_t near, size_t size, size_t align, int prot,
			  bool far_ok)
{
	for (int i = 0; i <= POOL_HINTS - !far_ok; i++) {
		/* below the module first (i odd), then above (i even) */
		uintptr_t step = (uintptr_t)((i + 1) / 2) * (64UL << 20);
		uintptr_t base = near & ~(BULK_CHUNK - 1), hint = 0;
		uint8_t *p;
		uintptr_t b, e;

		if (near && i < POOL_HINTS)
			hint = i % 2 ? base - step : base + step;
		if (near && i < POOL_HINTS && (hint < (64UL << 20)))
			continue;
		p = mmap((void *)hint, size + align, prot,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue; /* the next hint; the last one: anywhere */
		b = ((uintptr_t)p + align - 1) & ~(align - 1);
		if (i < POOL_HINTS && !pool_near(b, near)) {
			munmap(p, size + align);
			continue;
		}
		e = b + size;
		if (b != (uintptr_t)p)
			munmap(p, b - (uintptr_t)p);
		if ((uintptr_t)p + size + align != e)
			munmap((void *)e, (uintptr_t)p + size + align - e);
		return b;
	}
	return 0;
}

/* A new bulk chunk near `near`, its first page sealed by the probe; NULL
 * when none can be had near (the rest of the scope then takes alias
 * chunks: a far bulk chunk would serve this one function's neighbours at
 * best, a touched huge page each), when half the pool is bulk chunks
 * already (the rest is kept for small batches), and, for good, when the
 * kernel refuses the probe. */
static struct chunk *bulk_new(uintptr_t near)
{
	uintptr_t at, pg = page_mask() + 1;
	unsigned n = 0;

	for (unsigned i = 0; i < pool_n; i++)
		n += pool[i].bulk;
	at = n < POOL_MAX / 2 ? pool_map(near, BULK_CHUNK, BULK_CHUNK,
					 PROT_READ | PROT_WRITE, false) :
				0;
	if (!at) {
		bulk_scope = false; /* not asked again per block */
		return NULL;
	}
	/* the huge page before any mprotect splits the range: one fault
	 * (the kernel zeroes it) */
	madvise((void *)at, BULK_CHUNK, MADV_HUGEPAGE);
	*(volatile uint8_t *)at = 0;
	/* the probe: may fresh anonymous memory become executable? */
	if (mprotect((void *)at, pg, ARCH_PROT(at, ARCH_TEXT_PROT))) {
		munmap((void *)at, BULK_CHUNK);
		bulk_off = true;
		return NULL;
	}
	pool[pool_n] = (struct chunk){ .lo = at,
				       .cur = at + pg,
				       .size = BULK_CHUNK,
				       .seal = at + pg,
				       .bulk = true };
	return &pool[pool_n++];
}

/* A new alias chunk near `near`. */
static struct chunk *alias_new(uintptr_t near)
{
	uintptr_t at =
		pool_map(near, POOL_CHUNK, POOL_ALIGN, ARCH_TEXT_PROT, true);

	if (!at)
		return NULL;
	/* an alias of its own from the start (the writers allowing): no
	 * copy of empty pages, no memfd per 64 KiB */
	pool[pool_n] =
		(struct chunk){ .lo = at,
				.cur = at,
				.pop = at,
				.size = POOL_CHUNK,
				.fd = !dc_text_code_map(at, POOL_CHUNK) };
	return &pool[pool_n++];
}

/* Where a block of size bytes fits in c, or 0. */
static uintptr_t fits(const struct chunk *c, size_t size)
{
	uintptr_t at = c->cur, pm = page_mask();

	if (((at ^ (at + size - 1)) & ~pm))
		at = (at + pm) & ~pm; /* next page */
	return at + size <= c->lo + c->size ? at : 0;
}

/* The newest chunk of the kind that has room for size bytes near `near`
 * (any chunk of it once the pool is full); *at: where. */
static struct chunk *chunk_with_room(size_t size, uintptr_t near, bool bulk,
				     uintptr_t *at)
{
	for (unsigned i = pool_n; i-- > 0;)
		if (pool[i].bulk == bulk &&
		    (pool_near(pool[i].lo, near) || pool_n == POOL_MAX) &&
		    (*at = fits(&pool[i], size)))
			return &pool[i];
	return NULL;
}

uintptr_t dc_pool_get(size_t size, uintptr_t near)
{
	bool bulk = bulk_scope && !bulk_off;
	struct chunk *c = NULL;
	uintptr_t at = 0;

	size = (size + 15) & ~(size_t)15;
	if (bulk)
		c = chunk_with_room(size, near, true, &at);
	if (!c && bulk && pool_n < POOL_MAX) {
		/* near if the address space allows, else anywhere */
		c = bulk_new(near);
		at = c ? fits(c, size) : 0;
	}
	if (!c)
		c = chunk_with_room(size, near, false, &at);
	if (!c && pool_n < POOL_MAX) {
		c = alias_new(near);
		at = c ? fits(c, size) : 0;
	}
	if (!c || !at)
		return 0;
	if (c->fd && at + size > c->pop) {
		uintptr_t hi = (at + size + POOL_PREFAULT - 1) &
			       ~(POOL_PREFAULT - 1);

		hi = hi < c->lo + c->size ? hi : c->lo + c->size;
		dc_text_prefault(c->pop, hi);
		c->pop = hi;
	}
	c->cur = at + size;
	DC_STAT_ADD(stubs, 1);
	return at;
}

/* The block at `at` just taken with dc_pool_get(size) needs only len
 * bytes: the rest goes back (the worst case of a jump function is the
 * far form with the vector saves; most are near and many have none). */
void dc_pool_trim(uintptr_t at, size_t size, size_t len)
{
	size = (size + 15) & ~(size_t)15;
	len = (len + 15) & ~(size_t)15;
	for (unsigned i = pool_n; i-- > 0;)
		if (pool[i].cur == at + size && len <= size) {
			pool[i].cur = at + len;
			return;
		}
}

static struct chunk *chunk_of(uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < pool_n; i++)
		if (lo >= pool[i].lo && hi <= pool[i].lo + pool[i].size)
			return &pool[i];
	return NULL;
}

/* [lo, hi) inside one alias chunk: one segment for the alias writer
 * (dc_fentry_same_segment).  Bulk chunks are not: nothing writes them
 * through the text writers (an alias over their fresh pages would make
 * those R-X under the scope's stores). */
bool dc_pool_alias_chunk(uintptr_t lo, uintptr_t hi)
{
	const struct chunk *c = chunk_of(lo, hi);

	return c && !c->bulk;
}

/* The block [at, at + len) just taken: its bytes; 0 or a status. */
int dc_pool_write(uintptr_t at, const void *bytes, size_t len)
{
	const struct chunk *c = chunk_of(at, at + len);

	if (!c || !c->bulk)
		return dc_text_write(at, bytes, len);
	if (at < c->seal)
		return DYNCALL_ERR_MPROTECT; /* cannot happen: taken fresh */
	memcpy((void *)at, bytes, len); /* fresh, not executable yet */
	dc_stubs_dirty = true;
	return DYNCALL_OK;
}

/* Large batches: see the comment at the top. */
void dc_pool_bulk_begin(void)
{
	bulk_scope = (dc_text_writers() & DC_WRITE_PROT) && !bulk_off;
}

/* Seal what the scope wrote: each bulk chunk's pages from its seal to
 * the page its last block ends in.  A refusal (the kernel changed its
 * mind since the probe) leaves that chunk's unsealed blocks unusable:
 * dc_pool_bulk_refused says which (the caller drops them), the chunk takes
 * nothing more and bulk chunks are off from then on.  Returns whether
 * every page was sealed. */
bool dc_pool_bulk_end(void)
{
	uintptr_t pm = page_mask();
	bool ok = true;

	bulk_scope = false;
	for (unsigned i = 0; i < pool_n; i++) {
		struct chunk *c = &pool[i];
		uintptr_t hi = (c->cur + pm) & ~pm;

		if (!c->bulk || hi == c->seal || c->dead)
			continue; /* (a refused chunk is not asked again) */
		if (mprotect((void *)c->seal, hi - c->seal,
			     ARCH_PROT(c->seal, ARCH_TEXT_PROT))) {
			c->dead = c->cur;
			c->cur = c->lo + c->size; /* full */
			bulk_off = true;
			ok = false;
			continue;
		}
		dc_code_changed(c->seal, hi - c->seal);
		c->seal = c->cur = hi;
	}
	return ok;
}

/* The start of the chunk holding `at` (0: none).  Blocks are handed out
 * upwards in a chunk and never given back: unwind.c keeps the unwind
 * information of each chunk's jump functions apart, in address order. */
uintptr_t dc_pool_chunk(uintptr_t at)
{
	const struct chunk *c = chunk_of(at, at + 1);

	return c ? c->lo : 0;
}

/* Was the block at `at` written but refused its seal (never to run)? */
bool dc_pool_bulk_refused(uintptr_t at)
{
	const struct chunk *c = chunk_of(at, at + 1);

	return c && c->bulk && at >= c->seal && at < c->dead;
}
