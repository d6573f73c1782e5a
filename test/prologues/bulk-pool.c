// Checks the bulk chunks of the generated-code pool (runtime/code_pool.c): a batch that hooks 10,000 functions (bench/prologue_cost_fns.c; BULK_MIN is 1,024) gets its jump functions in a bulk chunk (/proc/self/maps: anonymous R-X from a 2 MiB boundary up to the seal, the chunk's fresh RW pages right after it), stored directly and made R-X once; a small batch still gets the memfd alias chunks (plain anonymous memory under DYNCALL_TEXT_WRITE=mprotect); a second large batch goes to fresh pages after the first one's seal and on into a second bulk chunk (1.5 MB of jump functions each); no mapping is writable and executable once the batches are done.  Refusals: with mprotect not an allowed writer (DYNCALL_TEXT_WRITE=alias), or the probe of a new bulk chunk refused (an interposer refusing mprotect to PROT_EXEC: SELinux execmem), the large batch falls back to the alias chunks and succeeds; with the probe allowed and the seal refused, the batch returns DYNCALL_ERR_MPROTECT, every function keeps running its original code (no handler runs: a jump function in a page that is not executable would fault), and the retry, bulk chunks off from then on, succeeds.
// REQUIRES: x86_64, dyncall-runtime
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -O2 -DPFE %s %S/../../bench/prologue_cost_fns.c -o %t.gcc
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -DPFE %s %S/../../bench/prologue_cost_fns.c -o %t.clang
// RUN: %cc -O2 -fPIC -shared %S/Inputs/deny-exec-mprotect.c -o %t.deny.so
// RUN: %t.gcc | FileCheck %s --check-prefixes=CHECK,OK,BULK,SMALL-MEMFD
// RUN: %t.clang | FileCheck %s --check-prefixes=CHECK,OK,BULK,SMALL-MEMFD
// RUN: env DYNCALL_TEXT_WRITE=alias %t.clang | FileCheck %s --check-prefixes=CHECK,OK,MEMFD,SMALL-MEMFD
// RUN: env LD_PRELOAD=%t.deny.so %t.gcc | FileCheck %s --check-prefixes=CHECK,OK,MEMFD,SMALL-MEMFD
// RUN: env LD_PRELOAD=%t.deny.so DENY_EXEC_AFTER=1 %t.clang | FileCheck %s --check-prefixes=CHECK,SEAL,MEMFD,SMALL-MEMFD
// (mprotect alone, as asked for: the bulk chunks, and the small batch's
// chunk is plain anonymous memory written through mprotect)
// RUN: env DYNCALL_TEXT_WRITE=mprotect %t.gcc | FileCheck %s --check-prefixes=CHECK,OK,BULK,SMALL-ANON
// aarch64 and ppc64le under qemu (mprotect alone): what the calls and the
// handlers see
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %dyncall_cc %clang --target=aarch64-linux-gnu --dyncall-prologues -O2 -DPFE %s %S/../../bench/prologue_cost_fns.c -o %t.a64 %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 %t.a64 | FileCheck %s --check-prefixes=CHECK,OK %}
// (aarch64, W+X refused: the jump functions are written (bulk chunks
// never need it), the stub region of the near copy is not; the status
// says mprotect, not range)
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %clang --target=aarch64-linux-gnu -O2 -fPIC -shared %S/../runtime/Inputs/deny-mprotect.c -o %t.a64-deny-mp.so %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %qemu_aarch64 -E LD_PRELOAD=%t.a64-deny-mp.so %t.a64 | FileCheck %s --check-prefix=NEARW %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -DPFE %s %S/../../bench/prologue_cost_fns.c -o %t.ppc %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le && gcc-plugin-ppc64le %{ %qemu_ppc64le %t.ppc | FileCheck %s --check-prefixes=CHECK,OK %}
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

/* bench/prologue_cost_fns.c, built with -DPFE: the 10,000 functions
 * many_1000 .. many_10999 in many[], each returns x + its number */
extern void *const many[10000];
#define N 10000
#define SMALL 10

static long calls, calls2, wrong;
static const void *expect;

/* A handler's run: counted in *mine if it is for the function called
 * and has its own data. */
static void seen(const void *fn, const void *data, long *mine)
{
	if (fn == expect && data == mine)
		++*mine;
	else
		wrong++;
}

static void h(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	seen(fn, data, &calls);
	(void)ret, (void)r;
}

static void h2(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	seen(fn, data, &calls2);
	(void)ret, (void)r;
}

/* Calls many[0..n) (x = 0): how many returned the wrong value. */
static long call_all(size_t n)
{
	long bad = 0;

	for (size_t i = 0; i < n; i++) {
		long (*volatile f)(long) = (long (*)(long))many[i];

		expect = many[i];
		bad += f(0) != (long)(1000 + i);
	}
	return bad;
}

static unsigned patched(size_t n)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++) {
		struct dyncall_fn_info fi;

		k += !dyncall_fn_info(many[i], &fi) && fi.patched;
	}
	return k;
}

#ifdef __x86_64__
#define BULK_CHUNK (2UL << 20)
/* The kind of memory /proc/self/maps shows at jf: "memfd" (the pool's
 * alias chunks), "bulk" (anonymous R-X from a 2 MiB boundary to one, or
 * to the chunk's fresh RW tail: bulk chunks, code_pool.c), "anonymous"
 * (other anonymous memory: an alias chunk without its memfd), "a file". */
static const char *kind_at(uintptr_t jf)
{
	char line[512], perms[2][8], path[2][256];
	uintptr_t lo[2], hi[2];
	int n = 0; /* 1: jf's mapping read, 2: and the one after it */
	FILE *maps = fopen("/proc/self/maps", "r");

	while (maps && n < 2 && fgets(line, sizeof(line), maps)) {
		path[n][0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo[n],
			   &hi[n], perms[n], path[n]) >= 3 &&
		    (n || (jf >= lo[0] && jf < hi[0])))
			n++;
	}
	if (maps)
		fclose(maps);
	if (!n)
		return "none";
	if (strstr(path[0], "/memfd:dyncall-text"))
		return "memfd";
	if (path[0][0])
		return "a file";
	/* from a chunk's start to its seal, the fresh tail after it; or
	 * whole chunks (an alias chunk is 1 MiB: never both) */
	if (!strcmp(perms[0], "r-xp") && lo[0] % BULK_CHUNK == 0 &&
	    (hi[0] % BULK_CHUNK == 0 ||
	     (n == 2 && lo[1] == hi[0] && !strcmp(perms[1], "rw-p") &&
	      !path[1][0])))
		return "bulk";
	return "anonymous";
}

/* The kind of memory the jump functions of many[lo, hi) are in, from the
 * jmp in Q (f - 8: 90 90 90 e9 <rel32>); "mixed" if not all the same. */
static const char *backing(size_t lo, size_t hi)
{
	const char *kind = NULL;

	for (size_t i = lo; i < hi; i++) {
		const uint8_t *q = (const uint8_t *)many[i] - 8;
		const char *what;
		int32_t rel;

		if (q[3] != 0xe9)
			return "no jump";
		memcpy(&rel, q + 4, 4);
		what = kind_at((uintptr_t)q + 8 + rel);
		if (kind && strcmp(kind, what))
			return "mixed";
		kind = what;
	}
	return kind;
}
#define SHOW_BACKING(what, lo, hi) printf(what ": %s\n", backing(lo, hi))
#else /* the handlers are called from a common trampoline there */
#define SHOW_BACKING(what, lo, hi) ((void)0)
#endif

/* Mappings writable and executable at once (none, ever). */
static int wx_mappings(void)
{
	char line[512], perms[8];
	int n = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	while (maps && fgets(line, sizeof(line), maps))
		if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' &&
		    perms[2] == 'x')
			n++;
	if (maps)
		fclose(maps);
	return n;
}

int main(void)
{
	int s = dyncall_fn_hook_batch(many, N, h, &calls);
	long bad = call_all(N);

	// OK: large: 0 hooked 10000 calls 10000 wrong 0 bad 0
	// SEAL: large: -4 hooked 0 calls 0 wrong 0 bad 0
	// NEARW: large: -4 hooked 0 calls 0 wrong 0 bad 0
	printf("large: %d hooked %u calls %ld wrong %ld bad %ld\n", s,
	       patched(N), calls, wrong, bad);
	if (s) { /* the retry: bulk chunks off */
		calls = 0;
		s = dyncall_fn_hook_batch(many, N, h, &calls);
		bad = call_all(N);
	}
	// CHECK-NEXT: retried: 0 hooked 10000 calls 10000 wrong 0 bad 0
	printf("retried: %d hooked %u calls %ld wrong %ld bad %ld\n", s,
	       patched(N), calls, wrong, bad);
	// BULK-NEXT: jump functions: bulk
	// MEMFD-NEXT: jump functions: memfd
	SHOW_BACKING("jump functions", 0, N);

	/* a small batch: new jump functions (h, h2) in an alias chunk */
	s = dyncall_fn_hook_batch(many, SMALL, h2, &calls2);
	bad = call_all(SMALL);
	// CHECK-NEXT: small: 0 calls 10010 calls2 10 wrong 0 bad 0
	printf("small: %d calls %ld calls2 %ld wrong %ld bad %ld\n", s, calls,
	       calls2, wrong, bad);
	// SMALL-MEMFD-NEXT: small batch's jump functions: memfd
	// SMALL-ANON-NEXT: small batch's jump functions: anonymous
	SHOW_BACKING("small batch's jump functions", 0, SMALL);

	/* a second large batch: fresh pages after the first one's seal */
	s = dyncall_fn_unhook_batch(many, SMALL, h2);
	s = s ? s : dyncall_fn_unhook_batch(many, N, h);
	s = s ? s : dyncall_fn_hook_batch(many, N, h2, &calls2);
	bad = call_all(N);
	// CHECK-NEXT: second large: 0 hooked 10000 calls 10010 calls2 10010 wrong 0 bad 0
	printf("second large: %d hooked %u calls %ld calls2 %ld wrong %ld "
	       "bad %ld\n",
	       s, patched(N), calls, calls2, wrong, bad);
	// BULK-NEXT: jump functions: bulk
	// MEMFD-NEXT: jump functions: memfd
	SHOW_BACKING("jump functions", 0, N);

	s = dyncall_fn_unhook_batch(many, N, h2);
	bad = call_all(N);
	// CHECK-NEXT: unhooked: 0 hooked 0 calls2 10010 bad 0
	printf("unhooked: %d hooked %u calls2 %ld bad %ld\n", s, patched(N),
	       calls2, bad);
	// CHECK-NEXT: W+X mappings: 0
	printf("W+X mappings: %d\n", wx_mappings());
	return 0;
}
