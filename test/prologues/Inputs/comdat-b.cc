// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "comdat.h"

long in_b(long x)
{
	Box<long> b(x);
	return b.get(5);
}

double in_b_double(double x)
{
	Box<double> b(x);
	return b.get(0.5);
}
