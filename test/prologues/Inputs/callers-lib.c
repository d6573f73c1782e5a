// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* The DSO of callers.c: a function called directly inside the DSO (hidden:
 * no PLT), one called through the DSO's PLT (default visibility, -fPIC),
 * and a redirect target.  -DVARIANT builds another file (other bytes,
 * another build-id) that callers.c puts in its place after the dlopen. */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noipa))
#endif
#define HIDDEN __attribute__((visibility("hidden")))

volatile long lib_sink;

#ifdef VARIANT
#define K 9
#else
#define K 7
#endif

HIDDEN NOINLINE long lf(long x) { lib_sink++; return x + K; }
HIDDEN NOINLINE long lg(long x) { lib_sink++; return x + 70; }
NOINLINE long lcaller(long x) { return lf(x) * 2; }
NOINLINE long lpub(long x) { lib_sink++; return x + 5; }
NOINLINE long lpubcaller(long x) { return lpub(x) * 2; }
/* no TOC on ppc64le: a redirect target of another module that
 * arch_fentry_target_ok accepts (callers.c, PPC) */
NOINLINE long lnotoc(long x) { return x * 3 + 5000; }

void *lib_fn(int i)
{
	void *fns[] = { (void *)lf, (void *)lg, (void *)lcaller, (void *)lpub,
			(void *)lpubcaller, (void *)lnotoc };

	return i >= 0 && i < 6 ? fns[i] : 0;
}
