/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Allocation that is safe in a signal handler (only mmap/munmap, which are
 * async-signal-safe, under the runtime lock): a bump allocator over 64 KiB
 * chunks, with per-size-class free lists.  Used for everything the store
 * path may allocate; registration uses it too, for one code path.
 * Blocks are aligned to their size class, up to 64 bytes.
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

static void *big_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void *dc_alloc(size_t size)
{
	int c = size_class(size);
	size_t csize = (size_t)16 << c;
	void *p;

	if (c >= CLASSES)
		return big_alloc(size); /* zeroed by the kernel */
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
		chunk_cur = big_alloc(CHUNK);
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
		munmap(p, size);
		return;
	}
	*(void **)p = free_list[c];
	free_list[c] = p;
}
