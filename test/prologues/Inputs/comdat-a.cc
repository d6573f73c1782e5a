// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "comdat.h"
#include <cstdio>

long in_a(long x)
{
	Box<long> b(x);
	return b.get(3);
}

int main()
{
	long s = 0;
	double d = 0;

	for (long i = 0; i < 1000; i++) {
		s += in_a(i) + in_b(i);
		d += in_b_double((double)i / 8);
	}
	std::printf("%ld %.3f\n", s, d);
	return 0;
}
