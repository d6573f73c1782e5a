/* LD_PRELOAD interposer (range.c): no executable memory can be had near
 * any address.  An mmap that asks for executable memory at a hint (what
 * the runtime does to place code within a branch's reach) fails, as it
 * would when the address space around the text is full; every other
 * mapping, and executable memory without a hint, is granted. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (addr && (prot & PROT_EXEC) && !(flags & MAP_FIXED)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));
