// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * One runtime per process, or none patching.
 *
 * Keys are shared across modules: one store must repatch every site of
 * its key, so every module must register its sites with, and store
 * through, the same runtime (docs/tools.md "Why the shared runtime by
 * default").  A process can still end up with two copies: an executable
 * linked with libdyncall.a (--dyncall-static-runtime) that loads a library
 * built against libdyncall.so.  Its modules then bind each entry point to
 * whichever copy the dynamic linker finds first: seen, a library's
 * __dyncall_register bound to the executable's copy (which exported it
 * for the library) and its __dyncall_store to libdyncall.so's, so the
 * store reached a runtime that did not know the sites, and a site made
 * direct by the other kept calling the key's old target: a wrong call,
 * silently (test/exec/two-runtimes.test).
 *
 * So each copy marks its module with an ELF note (SHT_NOTE in a PT_NOTE
 * segment: readable in memory from the program headers, no file I/O)
 * that gives the offset of its dc_runtime_yield, and looks for other
 * copies' notes (dl_iterate_phdr) before each registration and each use
 * of the function-entry API when the set of loaded modules grew, and
 * before its first store (a library may only store through a copy no
 * module registered with: it finds the older copy then).  When it finds
 * one, both yield: patching stops (dc_cfg.disabled,
 * DYNCALL_ERR_RUNTIMES), every direct branch goes back to its slow path,
 * which loads the key at each call and is right whichever copy the
 * stores reach; guards compare with the loaded value and stay.  Each
 * copy warns once, naming the other's module.  The note is in this file,
 * which every registration references, so a static link that uses the
 * runtime carries it.  A copy with another note version cannot be
 * called: this one yields alone and says so.
 *
 * The scan runs outside the lock (the other copy's yield takes that
 * copy's lock; two copies scanning at once never wait for each other).
 */
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define NOTE_TYPE 0x44430001u /* "DC", 1 */
#define NOTE_VERSION 1

/* namesz, descsz, type, "dyncall\0", then the description: the version
 * and dc_runtime_yield's distance from that word (a link-time constant:
 * no relocation in the read-only note) */
__asm__(".pushsection .note.dyncall.runtime,\"a\",%note\n"
	".balign 4\n"
	".globl dc_runtime_note\n"
	".hidden dc_runtime_note\n"
	"dc_runtime_note:\n"
	".long 8\n"
	".long 8\n"
	".long 0x44430001\n"
	".asciz \"dyncall\"\n"
	".long 1\n"
	".long dc_runtime_yield - .\n"
	".popsection\n");
extern const uint32_t dc_runtime_note[] DC_HIDDEN;

void dc_runtime_yield(const char *other) DC_HIDDEN;

struct other_runtime {
	const char *module;
	uint32_t version;
	void (*yield)(const char *other);
};

struct scan {
	unsigned long long prev; /* dlpi_adds at the last scan (0: none) */
	bool same; /* no module loaded since: stopped */
	unsigned long long adds; /* dlpi_adds now */
	const char *self; /* this copy's module */
	unsigned n;
	struct other_runtime o[8];
};

static const char *module_name(const struct dl_phdr_info *info)
{
	return info->dlpi_name && *info->dlpi_name ? info->dlpi_name :
						     "the executable";
}

/* The dyncall runtime notes of one PT_NOTE segment. */
static void scan_notes(const struct dl_phdr_info *info, const ElfW(Phdr) * ph,
		       struct scan *sc)
{
	const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
	const uint8_t *end = p + ph->p_memsz;
	size_t a = ph->p_align == 8 ? 8 : 4;

	while (p + 12 <= end) {
		uint32_t nsz, dsz, type, version;
		int32_t off;
		const uint8_t *name = p + 12, *desc, *next;

		memcpy(&nsz, p, 4);
		memcpy(&dsz, p + 4, 4);
		memcpy(&type, p + 8, 4);
		desc = name + ((nsz + a - 1) & ~(a - 1));
		next = desc + ((dsz + a - 1) & ~(a - 1));
		if (next > end || next <= p)
			return;
		if (type == NOTE_TYPE && nsz == 8 && dsz >= 8 &&
		    !memcmp(name, "dyncall", 8)) {
			if (p == (const uint8_t *)dc_runtime_note) {
				sc->self = module_name(info);
			} else if (sc->n < sizeof(sc->o) / sizeof(sc->o[0])) {
				struct other_runtime *o = &sc->o[sc->n++];

				memcpy(&version, desc, 4);
				memcpy(&off, desc + 4, 4);
				o->module = module_name(info);
				o->version = version;
				o->yield = (void (*)(const char *))(
					uintptr_t)(desc + 4 + off);
			}
		}
		p = next;
	}
}

static int scan_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *sc = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs)) {
		sc->adds = info->dlpi_adds;
		if (sc->adds && sc->adds == sc->prev) {
			sc->same = true;
			return 1; /* the same modules as at the last scan */
		}
	}
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE)
			scan_notes(info, &info->dlpi_phdr[i], sc);
	return 0;
}

static unsigned long long scanned_adds; /* dlpi_adds at the last scan */
static bool yielded;

void dc_runtime_claim(bool once)
{
	struct scan sc = { .self = "?" };

	if (__atomic_load_n(&yielded, __ATOMIC_ACQUIRE))
		return;
	sc.prev = __atomic_load_n(&scanned_adds, __ATOMIC_RELAXED);
	if (once && sc.prev)
		return;
	dl_iterate_phdr(scan_module, &sc);
	if (sc.same)
		return;
	__atomic_store_n(&scanned_adds, sc.adds, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < sc.n; i++) {
		if (sc.o[i].version == NOTE_VERSION)
			sc.o[i].yield(sc.self);
		dc_runtime_yield(sc.o[i].module);
	}
}

/* Patching stops and every direct branch goes back to its slow path
 * (above); called by this copy or by another one, with the other's
 * module name.  (used: only the note's offset refers to it.) */
__attribute__((used)) void dc_runtime_yield(const char *other)
{
	char msg[512];
	sigset_t saved;
	int n;

	dc_lock(&saved);
	dc_init_locked();
	if (!yielded) {
		__atomic_store_n(&yielded, true, __ATOMIC_RELEASE);
		dc_cfg.disabled = true;
		dc_set_status(DYNCALL_ERR_RUNTIMES,
			      "another dyncall runtime in this process (%s): "
			      "nothing is patched; link one runtime",
			      other);
		dc_modules_slow();
		n = snprintf(msg, sizeof(msg),
			     "dyncall: warning: another dyncall runtime in "
			     "this process (%.200s): every call takes its slow "
			     "path; link one runtime (docs/tools.md)\n",
			     other);
		if (n > 0)
			write(STDERR_FILENO, msg,
			      (size_t)n < sizeof(msg) ? (size_t)n :
							sizeof(msg));
	}
	dc_unlock(&saved);
}
