/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Included at the end of every aarch64 assembly file of the runtime: mark
 * the object BTI/PAC compatible when the C code is built so
 * (-mbranch-protection=...).  The linker ANDs the property of all inputs,
 * and one unmarked object would unguard the whole libdyncall.
 */
#ifndef DYNCALL_ARCH_AARCH64_PROPERTY_H
#define DYNCALL_ARCH_AARCH64_PROPERTY_H

#if defined(__ARM_FEATURE_BTI_DEFAULT) || defined(__ARM_FEATURE_PAC_DEFAULT)
#define GNU_PROPERTY_AARCH64_FEATURE_1_AND 0xc0000000
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define PROP_BTI 1
#else
#define PROP_BTI 0
#endif
#if defined(__ARM_FEATURE_PAC_DEFAULT) && __ARM_FEATURE_PAC_DEFAULT
#define PROP_PAC 2
#else
#define PROP_PAC 0
#endif
	.section .note.gnu.property, "a"
	.p2align 3
	.long	4			/* name size */
	.long	16			/* descriptor size */
	.long	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	GNU_PROPERTY_AARCH64_FEATURE_1_AND
	.long	4
	.long	PROP_BTI | PROP_PAC
	.long	0
#endif

#endif /* DYNCALL_ARCH_AARCH64_PROPERTY_H */
