/* Sites for bench/update_latency.c: keys with 1, 100 and 10,000 fresh
 * call sites, each a trampoline + a caller + a table entry, exactly as the
 * plugins emit them (test/runtime/Inputs/dyncall_asm.inc).  key<N> are
 * direct (no module lets them escape); gkey<N> escape, so their sites are
 * guarded.  The first site of each key is named <key>_site (the bench's
 * caller thread runs it).  All sites of all keys are in one object, so the
 * call instructions and the trampolines of a key are ~80 pages apart: a
 * store opens two page spans (the worst case for a small key). */
	.include "dyncall_asm.inc"

.macro BENCH_SITE key, cell
	DC_SITE bs\@, \key, \cell, 3, DC_FRESH
.endm

.macro BENCH_KEY key, n, kflags
	DC_KEYCELL \key\()_cell, \key
	DC_KEY_ENTRY \key\()_cell, \key, \kflags
	DC_SITE \key\()_site, \key, \key\()_cell, 3, DC_FRESH
	.rept \n - 1
	BENCH_SITE \key, \key\()_cell
	.endr
.endm

	BENCH_KEY key1, 1, 0
	BENCH_KEY key100, 100, 0
	BENCH_KEY key10000, 10000, 0
	BENCH_KEY gkey1, 1, DC_ESCAPES
	BENCH_KEY gkey100, 100, DC_ESCAPES
	BENCH_KEY gkey10000, 10000, DC_ESCAPES

	.section .note.GNU-stack, "", @progbits
