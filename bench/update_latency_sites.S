/* Sites for bench/update_latency.c: keys with 1, 100 and 10,000 fresh
 * (direct) call sites, each a trampoline + a caller + a table entry,
 * exactly as the plugins emit them (test/runtime/Inputs/dyncall_asm.inc). */
	.include "dyncall_asm.inc"

.macro BENCH_SITE key, cell
	DC_SITE bs\@, \key, \cell, 3, DC_FRESH
.endm

.macro BENCH_KEY key, n
	DC_KEYCELL \key\()_cell, \key
	DC_KEY_ENTRY \key\()_cell, \key, 0
	.rept \n
	BENCH_SITE \key, \key\()_cell
	.endr
.endm

	BENCH_KEY key1, 1
	BENCH_KEY key100, 100
	BENCH_KEY key10000, 10000

	.section .note.GNU-stack, "", @progbits
