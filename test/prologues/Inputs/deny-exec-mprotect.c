// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* LD_PRELOAD interposer: mprotect to an executable protection is allowed
 * DENY_EXEC_AFTER times (default 0), then refused with EACCES, as a
 * sandbox installed meanwhile (or SELinux execmem from the start) would. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int mprotect(void *addr, size_t len, int prot)
{
	static long allowed = -1;

	if (allowed < 0) {
		const char *v = getenv("DENY_EXEC_AFTER");

		allowed = v ? atol(v) : 0;
	}
	if ((prot & PROT_EXEC) && allowed-- <= 0) {
		allowed = 0;
		errno = EACCES;
		return -1;
	}
	return (int)syscall(SYS_mprotect, addr, len, prot);
}
