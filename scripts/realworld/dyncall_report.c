/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * dyncall_report.so: LD_PRELOAD it into a program built with dyncall to print,
 * when the program exits, one line on stderr:
 *
 *   dyncall-report: status=0 (ok) modules=1 sites=1234 keys=56 refused=0 stores=78
 *                   learned=12 megamorphic=0 guard_misses=0
 *
 * status is dyncall_status() (0: fast paths available) and its string;
 * the counters are dyncall_get_stats(). The program itself is not changed;
 * the real-world test (test/realworld) and scripts/realworld use it to check
 * that the runtime patched the annotated SQLite and Expat without refusals.
 * Built by scripts/realworld/build.sh against build/lib/libdyncall.so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dyncall.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void report(void)
{
	struct dyncall_stats s;
	int st = dyncall_status();

	dyncall_get_stats(&s);
	fprintf(stderr,
		"dyncall-report: status=%d (%s) modules=%" PRIu64 " sites=%" PRIu64
		" keys=%" PRIu64 " refused=%" PRIu64 " stores=%" PRIu64
		" learned=%" PRIu64 " megamorphic=%" PRIu64
		" guard_misses=%" PRIu64 "\n",
		st, st == DYNCALL_OK ? "ok" : dyncall_status_string(), s.modules,
		s.sites, s.keys, s.refused, s.stores, s.learned, s.megamorphic,
		s.guard_misses);
}

/*
 * When to register the report: the program's modules unregister from the
 * runtime in their ELF destructors, which _dl_fini runs, and _dl_fini is
 * registered with atexit by __libc_start_main before the program's
 * constructors and main. A handler registered from a preloaded constructor
 * would be older, so it would run after _dl_fini and see nothing. So wrap
 * main: register the handler when main starts; it runs before _dl_fini.
 */
typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
			void (*)(void), void *);
static main_fn real_main;

static int wrapped_main(int argc, char **argv, char **envp)
{
	atexit(report);
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	start_fn next = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");

	real_main = main;
	return next(wrapped_main, argc, argv, init, fini, rtld_fini, stack_end);
}
