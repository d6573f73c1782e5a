/* Functions with patchable prologues for the rewriter's prologue tests
 * (test/prologues/prologues-*.test).  Built with -fpatchable-function-entry
 * every function has one; with -DPFE=N,M only add1 and twice do (leaf
 * functions: GCC 12 cannot give a ppc64le function with a TOC set-up one). */
#ifdef PFE
#define PATCHABLE __attribute__((patchable_function_entry(PFE)))
#else
#define PATCHABLE
#endif
#define NOINLINE __attribute__((noinline))

PATCHABLE NOINLINE int add1(int x)
{
	return x + 1;
}

PATCHABLE NOINLINE int twice(int x)
{
	return x * 2;
}

NOINLINE int both(int x)
{
	return twice(add1(x));
}

int main(int argc, char **argv)
{
	(void)argv;
	return both(argc) == 4 ? 0 : 1;
}
