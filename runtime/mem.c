/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Allocation that is safe in a signal handler (only mmap/munmap, which are
 * async-signal-safe, under the runtime lock): a bump allocator over 64 KiB
 * chunks, with per-size-class free lists.  Used for everything the store
 * path may allocate; registration uses it too, for one code path.
 * Blocks are aligned to their size class, up to 64 bytes.
 *
 * Blocks above the largest class are mappings of their own, made with
 * MAP_POPULATE (one system call instead of a page fault per page: the
 * callers fill them), and the last few freed are kept for the next large
 * request (BIG_KEEP, at most BIG_KEEP_BYTES in all): a batch of 10,000
 * functions needs a few MiB of scratch, and fresh pages each time cost a
 * fault each (about 1,800 per batch) plus a TLB shootdown at munmap.
 */
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define CHUNK (64 * 1024)
#define CLASSES 12 /* 16 B .. 32 KiB, powers of two */

static char *chunk_cur, *chunk_end;
static void *free_list[CLASSES];

static int size_class(size_t size)
{
	int c = 0;

	while (((size_t)16 << c) < size)
		c++;
	return c;
}

#define BIG_KEEP 4
#define BIG_KEEP_BYTES (8UL << 20)
#define PAGE 4096UL /* mapping lengths are rounded to it (any page size:
		     * munmap rounds up the same way) */

/* Freed large blocks kept for reuse, and large blocks lent from them
 * (their mapping may be longer than what was asked). */
static struct big {
	void *p;
	size_t len;
} kept[BIG_KEEP], lent[BIG_KEEP];

static size_t round_len(size_t size)
{
	return (size + PAGE - 1) & ~(PAGE - 1);
}

static void *big_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A large block, from the kept ones if one is long enough (the shortest
 * such), else a new mapping; zeroed if asked (a new mapping is). */
static void *big_alloc(size_t size, bool zero)
{
	size_t len = round_len(size);
	int best = -1, slot = -1;
	void *p;

	for (int i = 0; i < BIG_KEEP; i++)
		if (kept[i].p && kept[i].len >= len &&
		    (best < 0 || kept[i].len < kept[best].len))
			best = i;
	for (int i = 0; i < BIG_KEEP && slot < 0; i++)
		if (!lent[i].p)
			slot = i;
	if (best < 0 || slot < 0)
		return big_map(len);
	p = kept[best].p;
	lent[slot] = kept[best];
	kept[best].p = NULL;
	if (zero)
		memset(p, 0, size);
	return p;
}

static void big_free(void *p, size_t size)
{
	size_t len = round_len(size), total = 0;
	int slot = -1;

	for (int i = 0; i < BIG_KEEP; i++)
		if (lent[i].p == p) {
			len = lent[i].len;
			lent[i].p = NULL;
		}
	for (int i = 0; i < BIG_KEEP; i++)
		if (kept[i].p)
			total += kept[i].len;
		else if (slot < 0)
			slot = i;
	if (slot < 0 || total + len > BIG_KEEP_BYTES) {
		munmap(p, len);
		return;
	}
	kept[slot] = (struct big){ p, len };
}

void *dc_alloc(size_t size)
{
	int c = size_class(size);
	size_t csize = (size_t)16 << c;
	void *p;

	if (c >= CLASSES)
		return big_alloc(size, true);
	if (free_list[c]) {
		p = free_list[c];
		free_list[c] = *(void **)p;
		memset(p, 0, csize);
		return p;
	}
	/* Naturally aligned up to a cache line (struct dc_site is). */
	if (chunk_cur)
		chunk_cur = (char *)(((uintptr_t)chunk_cur +
				      (csize < 64 ? csize : 64) - 1) &
				     ~(uintptr_t)((csize < 64 ? csize : 64) - 1));
	if (chunk_cur == NULL || chunk_cur > chunk_end ||
	    (size_t)(chunk_end - chunk_cur) < csize) {
		chunk_cur = big_map(CHUNK);
		if (!chunk_cur)
			return NULL;
		chunk_end = chunk_cur + CHUNK;
	}
	p = chunk_cur;
	chunk_cur += csize;
	return p;
}

void dc_free(void *p, size_t size)
{
	int c = size_class(size);

	if (!p)
		return;
	if (c >= CLASSES) {
		big_free(p, size);
		return;
	}
	*(void **)p = free_list[c];
	free_list[c] = p;
}

/* Scratch the caller fills before reading: dc_alloc without the zeroing
 * of a reused large block.  Freed with dc_free. */
void *dc_alloc_scratch(size_t size)
{
	if (size_class(size) >= CLASSES)
		return big_alloc(size, false);
	return dc_alloc(size);
}
