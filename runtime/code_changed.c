// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Code the runtime wrote, made visible to whatever executes it: the
 * arch's instruction cache maintenance (arch_flush_icache), and, when the
 * program runs under Valgrind, Valgrind's translations of those bytes
 * discarded.
 *
 * Valgrind does not run the program's code: it runs translations of it,
 * made the first time each block executes and kept until told otherwise.
 * By default (--smc-check=all-non-file) it checks for changed code only
 * where no file is mapped: the text of a program or DSO is file-backed,
 * so a patched entry or call site kept running its old translation.
 * Seen with examples/call_counter.c under `valgrind -q`: after
 * dyncall_fn_redirect the old hooks still ran, and after
 * dyncall_fn_restore every handler still counted (docs/runtime.md
 * "Under Valgrind").  VALGRIND_DISCARD_TRANSLATIONS is the client request
 * made for code that changes (valgrind.h, from the valgrind package: the
 * header is its documented interface for programs; without the header at
 * build time this is the flush alone).  Natively a client request is a
 * few rotate instructions that do nothing; RUNNING_ON_VALGRIND is asked
 * once.
 */
#include "arch/arch.h"
#include "internal.h"

#ifdef DYNCALL_HAVE_VALGRIND_H
#include <valgrind.h>

static int on_valgrind = -1; /* -1: not asked yet */

static bool under_valgrind(void)
{
	if (on_valgrind < 0)
		on_valgrind = RUNNING_ON_VALGRIND ? 1 : 0;
	return on_valgrind;
}
#endif

void dc_code_changed(uintptr_t addr, size_t len)
{
	arch_flush_icache(addr, len);
#ifdef DYNCALL_HAVE_VALGRIND_H
	if (under_valgrind())
		VALGRIND_DISCARD_TRANSLATIONS(addr, len);
#endif
}
