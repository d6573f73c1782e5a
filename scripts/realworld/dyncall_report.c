/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * dyncall_report.so: LD_PRELOAD it into a program built with dyncall to print,
 * when the program exits, one line on stderr:
 *
 *   dyncall-report: status=0 (ok) modules=1 sites=1234 keys=56 refused=0 stores=78
 *
 * status is dyncall_status() (0: fast paths available) and its string;
 * the counters are dyncall_get_stats(). The program itself is not changed;
 * the real-world test (test/realworld) and scripts/realworld use it to check
 * that the runtime patched the annotated SQLite and Expat without refusals.
 * Built by scripts/realworld/build.sh against build/lib/libdyncall.so.
 */
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
		" keys=%" PRIu64 " refused=%" PRIu64 " stores=%" PRIu64 "\n",
		st, st == DYNCALL_OK ? "ok" : dyncall_status_string(), s.modules,
		s.sites, s.keys, s.refused, s.stores);
}

/* atexit from a constructor: runs before the ELF destructors, so the
 * program's modules are still registered. */
__attribute__((constructor)) static void report_init(void)
{
	atexit(report);
}
