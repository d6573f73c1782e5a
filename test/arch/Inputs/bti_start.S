/* A BTI-clean _start for BTI execution tests (aarch64).  Debian 12's
 * cross glibc ships Scrt1.o/crti.o/crtbeginS.o without BTI landing pads
 * (the dynamic loader enters _start with `br x16`), so a program linked
 * with -z force-bti dies with SIGILL before main.  Link with
 * -nostartfiles and this file instead: no _init, no crtbegin (no
 * frame_dummy); .init_array still runs (constructors have `bti c`). */
	.text
	.globl	_start
	.type	_start, %function
	.p2align 2
_start:
	hint	#34			/* bti c */
	mov	x29, #0
	mov	x30, #0
	mov	x5, x0			/* rtld_fini */
	ldr	x1, [sp]		/* argc */
	add	x2, sp, #8		/* argv */
	mov	x6, sp			/* stack_end */
	adrp	x0, :got:main
	ldr	x0, [x0, :got_lo12:main]
	mov	x3, #0			/* init: glibc >= 2.34 ignores it */
	mov	x4, #0			/* fini */
	bl	__libc_start_main
	brk	#0
	.size	_start, . - _start

	.section .note.GNU-stack, "", %progbits
	.section .note.gnu.property, "a"
	.p2align 3
	.long	4, 16, 5		/* namesz, descsz, NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000000, 4, 3, 0	/* AARCH64_FEATURE_1_AND: BTI | PAC */
