/* CLOBBER(): what a handler may do to the integer registers, done on
 * purpose, so a jump function that restores too few of them is caught.
 * Shared by int_args.c and int_args.cpp. */
#ifndef CLOBBER_INT_H
#define CLOBBER_INT_H
/* x86-64: every integer register a C function may change; aarch64: x0-x17
 * (x8 too: the indirect result register; x18, the platform register, is
 * left alone) */
#if defined(__x86_64__)
#define CLOBBER()                                                          \
	__asm__ volatile("mov $-1, %%rdi\n\tmov $-1, %%rsi\n\tmov $-1, %%rdx\n\t" \
			 "mov $-1, %%rcx\n\tmov $-1, %%r8\n\tmov $-1, %%r9\n\t" \
			 "mov $-1, %%rax\n\tmov $-1, %%r10\n\tmov $-1, %%r11" \
			 :                                                     \
			 :                                                     \
			 : "rdi", "rsi", "rdx", "rcx", "r8", "r9", "rax",      \
			   "r10", "r11")
#elif defined(__aarch64__)
#define M1(a, b) "mov x" #a ", #-1\n\tmov x" #b ", #-1\n\t"
#define CLOBBER()                                                          \
	__asm__ volatile(M1(0, 1) M1(2, 3) M1(4, 5) M1(6, 7) M1(8, 9)         \
				 M1(10, 11) M1(12, 13) M1(14, 15) M1(16, 17)   \
			 :                                                     \
			 :                                                     \
			 : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7",     \
			   "x8", "x9", "x10", "x11", "x12", "x13", "x14",      \
			   "x15", "x16", "x17")
#elif defined(__powerpc64__)
/* ppc64le: r0 and r3-r12 (r2, the TOC, and r13, the thread pointer, are
 * not the handler's to change) */
#define L1(a, b) "li " #a ", -1\n\tli " #b ", -1\n\t"
#define CLOBBER()                                                          \
	__asm__ volatile(L1(0, 3) L1(4, 5) L1(6, 7) L1(8, 9) L1(10, 11)       \
			 "li 12, -1"                                           \
			 :                                                     \
			 :                                                     \
			 : "r0", "r3", "r4", "r5", "r6", "r7", "r8", "r9",     \
			   "r10", "r11", "r12")
#endif
#endif
