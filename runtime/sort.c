/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * sort.c - the runtime's one sort: an in-place heapsort.
 *
 * Not qsort: glibc's may call malloc, which is neither signal-safe nor
 * usable while the runtime holds its lock in a fork child.  The arrays are
 * small (patch addresses of one batch, a module's function records, its
 * caller sites), so swapping elements byte by byte costs nothing visible.
 */
#include "internal.h"

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		unsigned char t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/* Move element r down the max-heap a[0..e). */
static void sift(unsigned char *a, size_t r, size_t e, size_t size,
		 bool (*lt)(const void *, const void *))
{
	for (size_t c; (c = 2 * r + 1) < e; r = c) {
		if (c + 1 < e && lt(a + c * size, a + (c + 1) * size))
			c++;
		if (!lt(a + r * size, a + c * size))
			break;
		swap_bytes(a + r * size, a + c * size, size);
	}
}

void dc_sort(void *base, size_t n, size_t size,
	     bool (*lt)(const void *, const void *))
{
	unsigned char *a = base;

	for (size_t k = n / 2 + 1; k-- > 0;)
		sift(a, k, n, size, lt);
	for (size_t e = n; e-- > 1;) {
		swap_bytes(a, a + e * size, size);
		sift(a, 0, e, size, lt);
	}
}
