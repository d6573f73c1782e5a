// Checks the runtime's in-place sort (runtime/sort.c) against qsort: element
// sizes 1, 3, 8, 16 and 24 bytes (word-wise and byte-wise swaps), arrays
// sorted, reversed, with duplicates, random, and sorted but for one element
// (the one-pass sorted check must not stop early); equal keys keep their
// payloads together.
// RUN: %cc -O1 -I%src_root/include -I%src_root/runtime %src_root/runtime/sort.c %s -o %t
// RUN: %t | FileCheck %s
// CHECK: sort: 0 mismatches in {{[0-9]+}} arrays
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAXN 3000
#define MAXSIZE 24

static size_t esize; /* the element size of the current run */

/* Key: the element's first byte (size 1) or first 2 bytes, little end;
 * the rest of the element is payload that travels with it. */
static unsigned key(const void *p)
{
	const unsigned char *b = p;

	return esize == 1 ? b[0] : (unsigned)(b[0] | b[1] << 8);
}

static bool lt(const void *a, const void *b)
{
	return key(a) < key(b);
}

static int cmp(const void *a, const void *b)
{
	unsigned x = key(a), y = key(b);

	return x < y ? -1 : x > y;
}

/* The payload of each element: a function of its key, so that after the
 * sort every element must still carry the payload of its own key. */
static void fill(unsigned char *e, unsigned k)
{
	e[0] = (unsigned char)k;
	if (esize > 1)
		e[1] = (unsigned char)(k >> 8);
	for (size_t i = 2; i < esize; i++)
		e[i] = (unsigned char)(k * 31 + i);
}

static unsigned char a[MAXN * MAXSIZE], b[MAXN * MAXSIZE];

int main(void)
{
	static const size_t sizes[] = { 1, 3, 8, 16, 24 };
	static const size_t ns[] = { 0, 1, 2, 3, 17, 1000, MAXN };
	unsigned bad = 0, arrays = 0;

	srand(7);
	for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
		esize = sizes[si];
		for (size_t ni = 0; ni < sizeof(ns) / sizeof(*ns); ni++) {
			size_t n = ns[ni];
			unsigned range = esize == 1 ? 256 : 65536;

			for (int shape = 0; shape < 5; shape++) {
				for (size_t i = 0; i < n; i++) {
					unsigned k;

					switch (shape) {
					case 0: k = (unsigned)i; break;
					case 1: k = (unsigned)(n - i); break;
					case 2: k = (unsigned)(i % 7); break;
					case 3: k = (unsigned)rand(); break;
					default: /* sorted but the middle one */
						k = i == n / 2 ? 0 : (unsigned)i;
					}
					fill(a + i * esize, k % range);
				}
				memcpy(b, a, n * esize);
				dc_sort(a, n, esize, lt);
				qsort(b, n, esize, cmp);
				arrays++;
				if (memcmp(a, b, n * esize)) {
					printf("mismatch: size %zu n %zu shape "
					       "%d\n",
					       esize, n, shape);
					bad++;
				}
			}
		}
	}
	printf("sort: %u mismatches in %u arrays\n", bad, arrays);
	return bad != 0;
}
