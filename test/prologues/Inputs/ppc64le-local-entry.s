# A ppc64le function with a TOC set-up whose patchable NOPs are at its
# local entry (the layout GCC 13 and later emit, which GCC 12 cannot:
# prologues-cross.test).
	.abiversion 2
	.section ".toc","aw"
	.section ".text"
	.globl f
	.type f,@function
	.p2align 4
f:
	addis 2,12,.TOC.-f@ha
	addi 2,2,.TOC.-f@l
	.localentry f,.-f
.Lrec_f:
	nop
	nop
	addi 3,3,1
	blr
	.size f,.-f
	.section __patchable_function_entries,"aw",@progbits
	.p2align 3
	.quad .Lrec_f
	.section .note.GNU-stack,"",@progbits
