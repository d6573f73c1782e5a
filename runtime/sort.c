/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * sort.c - the runtime's one sort: an in-place heapsort.
 *
 * Not qsort: glibc's may call malloc, which is neither signal-safe nor
 * usable while the runtime holds its lock in a fork child.
 *
 * The arrays are patch addresses of one batch, a module's function
 * records and its caller sites: up to tens of thousands of elements, and
 * the records and sites mostly arrive in address order already (the
 * linker keeps __patchable_function_entries in section order).  So a
 * sorted array is found in one pass and left alone, and elements whose
 * size is a multiple of 8 are swapped a word at a time.  Before both, the
 * first hook of a program with 10,000 patchable functions spent 25.7 M
 * of its 49 M instructions here (callgrind; docs/prologues.md "Hooking
 * 10,000 functions in one batch").
 */
#include <stdint.h>
#include <string.h>

#include "internal.h"

static void swap_elems(unsigned char *a, unsigned char *b, size_t size)
{
	if (!(size % sizeof(uint64_t))) {
		for (size_t i = 0; i < size; i += sizeof(uint64_t)) {
			uint64_t x, y;

			memcpy(&x, a + i, sizeof(x));
			memcpy(&y, b + i, sizeof(y));
			memcpy(a + i, &y, sizeof(y));
			memcpy(b + i, &x, sizeof(x));
		}
		return;
	}
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
		swap_elems(a + r * size, a + c * size, size);
	}
}

static bool sorted(const unsigned char *a, size_t n, size_t size,
		   bool (*lt)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (lt(a + i * size, a + (i - 1) * size))
			return false;
	return true;
}

void dc_sort(void *base, size_t n, size_t size,
	     bool (*lt)(const void *, const void *))
{
	unsigned char *a = base;

	if (sorted(a, n, size, lt))
		return;
	for (size_t k = n / 2 + 1; k-- > 0;)
		sift(a, k, n, size, lt);
	for (size_t e = n; e-- > 1;) {
		swap_elems(a, a + e * size, size);
		sift(a, 0, e, size, lt);
	}
}
