/* LD_PRELOAD interposer: refuse mprotect to W+X, as SELinux execmod or a
 * PaX-style policy would. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int mprotect(void *addr, size_t len, int prot)
{
	if ((prot & PROT_WRITE) && (prot & PROT_EXEC)) {
		errno = EACCES;
		return -1;
	}
	return (int)syscall(SYS_mprotect, addr, len, prot);
}
