// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Code the runtime wrote, made visible to whatever executes it
 * (dc_code_changed, internal.h): the arch's instruction cache maintenance
 * (arch_flush_icache), and, when the program runs under Valgrind,
 * Valgrind's translations of those bytes discarded (here).
 *
 * Valgrind does not run the program's code: it runs translations of it,
 * made the first time each block executes and kept until told otherwise.
 * By default (--smc-check=all-non-file) it checks for changed code only
 * where no file is mapped: the text of a program or DSO is file-backed,
 * so a patched entry or call site kept running its old translation.
 * Seen with test/exec/Inputs/code_changes.c under `valgrind -q`: no
 * handler ran after dyncall_fn_hook, the redirect was not taken, and a
 * call site kept calling its key's old target (docs/runtime.md "Under
 * Valgrind").  VALGRIND_DISCARD_TRANSLATIONS is the client request made
 * for code that changes (valgrind.h, from the valgrind package: the
 * header is its documented interface for programs; without the header at
 * build time there is no Valgrind branch at all).  RUNNING_ON_VALGRIND is
 * asked once, at start-up; natively a write of code then costs one load
 * and one branch more (dc_code_changed is inline: a batch of 10,000
 * functions makes 30,000 such writes).
 */
#include "arch/arch.h"
#include "internal.h"

#ifdef DYNCALL_HAVE_VALGRIND_H
#include <valgrind.h>

bool dc_under_valgrind;

void dc_code_changed_init(void)
{
	dc_under_valgrind = RUNNING_ON_VALGRIND != 0;
}

void dc_valgrind_discard(uintptr_t addr, size_t len)
{
	VALGRIND_DISCARD_TRANSLATIONS(addr, len);
}
#else
void dc_code_changed_init(void)
{
}
#endif
