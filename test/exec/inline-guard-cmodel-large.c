// Checks GCC whole-program sites with inline guards under -mcmodel=large (gcc-12, gcc-11; plain, PIE, LTO): the hit call is not a direct call there (the hit trampoline's address is loaded with movabs, or as a GOTOFF64 offset, and called through a register), so the RTL pass sees no hit call to label, yet the hit trampoline is referenced and must be defined (it was not: "undefined reference to `__dyncall_hit.<unit>.<n>'" and the link failed).  The program (struct returns, a tail site, 8 register and stack arguments, varargs) must print what the plain build prints.
// REQUIRES: x86_64, dyncall-runtime, gcc-plugin, gcc11-plugin
// RUN: rm -rf %t && mkdir -p %t
// RUN: gcc-12 -O2 -mcmodel=large %s -o %t/ref
// RUN: %t/ref > %t/ref.out
// RUN: FileCheck --input-file=%t/ref.out %s
// RUN: %dyncall_cc gcc-12 --dyncall-whole-program -O2 -mcmodel=large %s -o %t/g12
// RUN: %t/g12 > %t/g12.out && diff %t/ref.out %t/g12.out
// RUN: %dyncall_cc gcc-12 --dyncall-whole-program -O2 -mcmodel=large -fPIE -pie %s -o %t/g12pie
// RUN: %t/g12pie > %t/g12pie.out && diff %t/ref.out %t/g12pie.out
// RUN: %dyncall_cc gcc-12 --dyncall-whole-program -O2 -mcmodel=large -flto %s -o %t/g12lto
// RUN: %t/g12lto > %t/g12lto.out && diff %t/ref.out %t/g12lto.out
// RUN: %dyncall_cc gcc-11 --dyncall-whole-program -O2 -mcmodel=large %s -o %t/g11
// RUN: %t/g11 > %t/g11.out && diff %t/ref.out %t/g11.out
// The hit trampolines are there, defined in the program:
// RUN: nm %t/g12 | FileCheck --check-prefix=SYMS %s
// SYMS: t __dyncall_hit.
// And the default code model still labels its hit calls and sets the guards:
// RUN: %dyncall_cc gcc-12 --dyncall-whole-program -O2 %s -o %t/small
// RUN: env DYNCALL_STATS=1 %t/small 2>&1 >/dev/null | FileCheck --check-prefix=SMALL %s
// SMALL: dyncall: 3 of 3 inline guards set

// CHECK: 200001200000 159999200000.0
#include <stdarg.h>
#include <stdio.h>

struct big {
	long a[6];
};
struct two {
	double x, y;
};

__attribute__((noinline)) struct big mk(long i, long j, long k, long l,
					long m, long n, long o, long p)
{
	struct big b = { { i, j + k, l, m, n + o, p } };
	return b;
}

__attribute__((noinline)) struct two mk2(double x, struct big b)
{
	struct two t = { x, (double)b.a[5] };
	return t;
}

__attribute__((noinline)) long va(int n, ...)
{
	va_list ap;
	long s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, long) + (long)va_arg(ap, double);
	va_end(ap);
	return s;
}

struct big (*volatile fb)(long, long, long, long, long, long, long,
			  long) = mk;
struct two (*volatile f2)(double, struct big) = mk2;
long (*volatile fv)(int, ...) = va;

__attribute__((noinline)) struct big tailb(long i)
{
	return fb(i, 1, 2, 3, 4, 5, 6, i * 7);
}

int main(void)
{
	long s = 0;
	double d = 0;

	for (long i = 0; i < 200000; i++) {
		struct big b = tailb(i);
		struct two t = f2((double)i, b);

		s += b.a[0] + b.a[1] + b.a[5] +
		     fv(3, i, 1.5, 2L, 2.5, 3L, (double)i);
		d += t.x + t.y;
	}
	printf("%ld %.1f\n", s, d);
	return 0;
}
