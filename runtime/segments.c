/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * The executable segments of loaded objects: which PT_LOAD segments of a
 * module are executable, whether a range of text lies inside one of them,
 * and whether a range lies in the pages of one segment of any module the
 * runtime knows (registered sites, patchable functions).  registry.c and
 * prologue.c record modules; patch.c asks before it aliases a 64 KiB
 * chunk (one mapping may cover it only if no gap and no other object's
 * mapping is inside).
 */
#include <link.h>
#include <unistd.h>

#include "internal.h"

void dc_segs_read(const struct dl_phdr_info *info, struct dc_segs *s)
{
	s->n = 0;
	for (int i = 0; i < info->dlpi_phnum && s->n < DC_MAX_EXEC_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		s->lo[s->n] = lo;
		s->hi[s->n++] = lo + ph->p_memsz;
	}
}

bool dc_segs_contain(const struct dc_segs *s, uintptr_t lo, uintptr_t hi,
		     bool paged)
{
	uintptr_t pm = paged ? (uintptr_t)getpagesize() - 1 : 0;

	for (unsigned i = 0; i < s->n; i++)
		if (lo >= (s->lo[i] & ~pm) && hi <= ((s->hi[i] + pm) & ~pm))
			return true;
	return false;
}

struct find {
	uintptr_t addr;
	struct dc_segs *segs;
	const char **path;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find *f = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= lo &&
		    f->addr < lo + ph->p_memsz) {
			dc_segs_read(info, f->segs);
			*f->path = info->dlpi_name;
			return 1;
		}
	}
	return 0;
}

bool dc_segs_of(const void *addr, struct dc_segs *s, const char **path)
{
	struct find f = { (uintptr_t)addr, s, path };

	s->n = 0;
	return dl_iterate_phdr(find_cb, &f) != 0;
}

bool dc_in_exec(const struct dc_module *m, uintptr_t lo, uintptr_t hi)
{
	return dc_segs_contain(&m->exec, lo, hi, false);
}

bool dc_same_segment(uintptr_t lo, uintptr_t hi)
{
	for (struct dc_module *m = dc_modules; m; m = m->next)
		if (dc_segs_contain(&m->exec, lo, hi, true))
			return true;
	if (dc_registering &&
	    dc_segs_contain(&dc_registering->exec, lo, hi, true))
		return true;
	return dc_fentry_same_segment(lo, hi); /* modules with prologues */
}
