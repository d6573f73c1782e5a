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
 *
 * Large memory is made of 2 MiB pages where the kernel allows it
 * (transparent huge pages, MADV_HUGEPAGE): a block of 2 MiB or more is a
 * 2 MiB-aligned mapping advised huge (the records of a module with
 * thousands of functions), and once the small blocks have taken
 * HUGE_AFTER (512 KiB) of 64 KiB chunks, the next chunks are 2 MiB ones.
 * Only a tail of 1.5 MiB or more is rounded up to 2 MiB (round_len):
 * fresh memory costs its first touch (about 2.8 us per 4 KiB on one
 * guest, 5.6 ms per 2 MiB page), so a block is otherwise only as large
 * as asked.  A batch over 10,000 functions touches about 2,000 pages of 4 KiB
 * (the function records, their jump-function records, the scratch); on a
 * virtual machine that refills its page tables after the process was
 * switched out (shadow paging, nested virtualization) each such page cost
 * about 1.4 us to touch again, a hook batch 4 to 17 ms instead of 1.5 ms
 * (docs/prologues.md "Hooking 10,000 functions in one batch").  Small
 * programs keep 4 KiB pages: no 2 MiB of memory for a few blocks.
 */
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define CHUNK (64 * 1024)
#define CLASSES 12 /* 16 B .. 32 KiB, powers of two */
#define HUGE (2UL << 20) /* a huge page (x86-64, and aarch64 with 4 KiB) */
#define HUGE_AFTER (8 * CHUNK) /* small-block memory before HUGE chunks */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static char *chunk_cur, *chunk_end;
static size_t chunk_bytes; /* mapped for small blocks so far */
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

/* Whole pages; and a whole 2 MiB page for a tail of 1.5 MiB or more
 * (big_map makes it one huge page: on the Zen 4 guest of 2026-11-29 the
 * 1.84 MiB of 10,000 function records took 0.75 to 0.83 ms made present
 * in 4 KiB pages, one 2 MiB page 0.19 to 0.25 ms; at most a quarter of it
 * is never used). */
static size_t round_len(size_t size)
{
	size_t len = (size + PAGE - 1) & ~(PAGE - 1);

	if ((len & (HUGE - 1)) >= HUGE - HUGE / 4)
		len = (len + HUGE - 1) & ~(HUGE - 1);
	return len;
}

/* size bytes (round_len), made present; from HUGE on, 2 MiB-aligned and
 * advised huge (its whole 2 MiB pages are; the tail is small pages).
 * (MADV_HUGEPAGE before the pages exist: MAP_POPULATE would make them
 * small first.  Without MADV_POPULATE_WRITE, kernels before 5.14, the
 * pages come at first touch; without THP they are small: the same as
 * before, only slower.) */
static void *big_map(size_t size)
{
	uint8_t *p, *b;

	if (size < HUGE) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	p = mmap(NULL, size + HUGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	b = (uint8_t *)(((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	if (b != p)
		munmap(p, (size_t)(b - p));
	munmap(b + size, (size_t)(p + HUGE - b));
	madvise(b, size, MADV_HUGEPAGE);
	madvise(b, size, MADV_POPULATE_WRITE);
	return b;
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
		size_t len = chunk_bytes < HUGE_AFTER ? CHUNK : HUGE;

		chunk_cur = big_map(len);
		if (!chunk_cur)
			return NULL;
		chunk_end = chunk_cur + len;
		chunk_bytes += len;
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
