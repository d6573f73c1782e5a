/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * realworld_execdump.so: LD_PRELOAD it (under callgrind) to save, when main
 * returns, the bytes of every executable mapping of the process into the
 * file named by $REALWORLD_EXECDUMP: for each mapping, a header of four
 * little-endian uint64 (start address, length, file offset, length of the
 * path), the path (empty for anonymous memory), then the bytes.
 * Mappings of valgrind itself and mappings larger than 64 MiB are left out.
 * A file mapping that is not executable gets a header only, its length
 * with bit 63 set and no bytes: it tells where the file was loaded even
 * when every executable page of it was re-mapped from a memfd by the
 * runtime's text writer (such pages are named "/memfd:dyncall-text").
 *
 * bench/realworld_callgrind.py reads it to find the retpolines among the
 * instructions callgrind counted, including the code the dyncall runtime
 * generates at run time in anonymous memory, which exists in no file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dump(void)
{
	const char *out = getenv("REALWORLD_EXECDUMP");
	FILE *maps, *f;
	char line[4096];

	if (!out || !*out)
		return;
	maps = fopen("/proc/self/maps", "r");
	f = fopen(out, "wb");
	if (!maps || !f) {
		perror("realworld_execdump");
		if (maps)
			fclose(maps);
		if (f)
			fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), maps)) {
		uint64_t lo, hi, off, hdr[4];
		char perms[8] = "";
		int pos = 0;
		char *path, *nl;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &lo, &hi, perms,
			   &off, &pos) != 4 || !pos)
			continue;
		path = line + pos;
		nl = strchr(path, '\n');
		if (nl)
			*nl = 0;
		if (strstr(line, "valgrind") || strstr(line, "[v"))
			continue;
		if (perms[2] != 'x' && path[0] == '/' &&
		    strncmp(path, "/memfd:", 7)) {
			hdr[0] = lo;
			hdr[1] = (hi - lo) | (1ULL << 63);
			hdr[2] = off;
			hdr[3] = strlen(path);
			fwrite(hdr, sizeof(hdr), 1, f);
			fwrite(path, 1, hdr[3], f);
			continue;
		}
		if (perms[2] != 'x' || perms[0] != 'r' || hi - lo > (64u << 20))
			continue;
		hdr[0] = lo;
		hdr[1] = hi - lo;
		hdr[2] = off;
		hdr[3] = strlen(path);
		fwrite(hdr, sizeof(hdr), 1, f);
		fwrite(path, 1, hdr[3], f);
		fwrite((const void *)(uintptr_t)lo, 1, hi - lo, f);
	}
	fclose(maps);
	fclose(f);
}

/* Wrap main (as scripts/realworld/dyncall_report.c does): a handler
 * registered when main starts runs before the ELF destructors, while the
 * runtime's generated code is still mapped. */
typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
			void (*)(void), void *);
static main_fn real_main;

static int wrapped_main(int argc, char **argv, char **envp)
{
	atexit(dump);
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	start_fn next = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");

	real_main = main;
	return next(wrapped_main, argc, argv, init, fini, rtld_fini, stack_end);
}
