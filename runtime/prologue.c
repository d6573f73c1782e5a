// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Function-entry patching: hooks and redirects on the patchable prologues
 * -fpatchable-function-entry leaves (dyncall.h "Function-entry patching",
 * docs/prologues.md).  The arch says what the bytes are (arch.h
 * arch_fentry_*); this file finds the functions, decides what each one's
 * slot and entry should hold, and writes them in batches.
 *
 * Registration.  Every module's __patchable_function_entries is found
 * from the runtime's side, so a module needs nothing linked in: the loaded
 * modules come from dl_iterate_phdr, and the section from the module's
 * file (its section headers, read once; the section is SHF_ALLOC, its
 * entries are read from memory, relocated).  A __start_ symbol cannot do
 * it from here: it resolves to the section of the module that references
 * it, and the runtime is a DSO of its own.  The scan runs again when
 * dl_iterate_phdr's load/unload counters move (dlopen, dlclose), checked
 * on every call of the API.  Zero entries (functions the linker dropped)
 * and duplicates (COMDAT copies, the same DSO reached twice) are skipped;
 * names come from the file's .symtab (else .dynsym).  On ppc64le
 * (ARCH_FENTRY_XRAY) the entry sleds of the module's xray_instr_map are
 * registered the same way (Clang's route: arch_fentry_probe_xray).
 *
 * State per function: its handlers (in order) and its redirect target.
 * What the slot holds follows from them: nothing patched (the entry's
 * NOPs), a jump function (handlers, then the body or the redirect
 * target), or the redirect target itself.  Jump functions are generated
 * once per (function, handler set, resume) and kept: a thread that read
 * an old slot value may still be on its way into one.
 *
 * Batch protocol (the arch file has the byte-level steps):
 *   1. generate the jump functions the batch needs; write the out-of-line
 *      sequences of the functions being turned on (fresh bytes: no thread
 *      reaches them while their entry is off);
 *   2. one membarrier if 1. wrote code some thread may execute next;
 *   3. the slots (one atomic store each);
 *   4. the entries, on or off (one atomic store each).
 * No membarrier after 4: a thread still running an old entry reaches what
 * the slot held, which stays valid (one more handler run or one more call
 * of the redirect target: the documented window).
 *
 * Caller holds the lock.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/arch.h"
#include "internal.h"

#define PFE_SECTION "__patchable_function_entries"

/* The recursion guard the trampolines test (initial-exec: one %fs load). */
DC_HIDDEN __thread int dc_fentry_busy
	__attribute__((tls_model("initial-exec")));

/* One generated jump function, cached per function: its handlers and
 * their data in hd[0..n) (sized to n: 10,000 records of 16 handlers each
 * were 5 MB of fresh pages for one batch). */
struct dc_jf {
	struct dc_jf *next;
	uintptr_t code;
	uintptr_t resume;
	unsigned n;
	struct arch_fentry_vec vec; /* the vector registers it saves */
	uintptr_t hd[]; /* struct dc_hd[n] */
};

static size_t jf_rec_size(unsigned n)
{
	return sizeof(struct dc_jf) + 2 * n * sizeof(uintptr_t);
}

struct dc_fmod;

/* A direct call or jump of a patchable function in its module, from the
 * relocations the linker kept (docs/prologues.md "Redirects at the call
 * sites"). */
struct dc_csite {
	struct dc_point p; /* the branch; p.cur: where it goes now */
	uintptr_t callee; /* the function the file's bytes call */
};
#define CS_UNREAD 1

/* A handler and its data. */
struct dc_hd {
	uintptr_t h, d;
};

/* What a function should run: the part a refused change rolls back.
 * Its first handler is inline, the others in the function's `more`. */
struct dc_fwant {
	uintptr_t redirect;
	struct dc_hd one; /* handler 0 while `more` is NULL */
	uint16_t novec; /* bit k: handler k hooked with DYNCALL_FN_NO_VEC */
	uint8_t nh;
	bool in_more; /* the handlers are in `more` (never rolled back) */
};

/* One patchable function: three cache lines.  A batch reads and writes
 * the first two of every function it changes (the arch's bytes; the slot,
 * the state, the redirect and the first handler), the third where it
 * applies (its sites, its other handlers).  Every patchable function of
 * every module has one, made present at registration: with 16 handlers
 * inline each was 448 bytes (4.5 MB for 10,000 functions) where most
 * functions have one handler or none; and a batch over 10,000 functions
 * walks them in three passes (fn_op): the fewer lines each pass brings
 * in, the less a cold cache costs. */
struct dc_fn {
	struct arch_fentry a; /* line 0 */
	uintptr_t slot_val; /* line 1: what the slot holds (never cleared) */
	uintptr_t want; /* what the slot should hold (apply: 0 = off) */
	struct dc_jf *jfs;
	struct dc_fwant w; /* handlers (in order), redirect target */
	int status; /* probe result: DYNCALL_OK or why not */
	bool on; /* the entry branches to ool */
	bool ool_done;
	bool queued;
	/* line 2: the handlers once there are two or more
	 * (DYNCALL_FN_MAX_HANDLERS, w.one copied in first; kept for the
	 * function's life), or NULL */
	struct dc_hd *more;
	struct dc_csite *cs; /* its listed caller sites (mod->cs), or NULL */
	unsigned ncs;
	unsigned cs_skipped; /* sites the last change could not write */
	int cs_why; /* why (the first reason), DYNCALL_OK if none */
	unsigned rec_flags; /* its __dyncall_fn_records flags, or 0 */
	/* read outside batches */
	uintptr_t rec; /* its __patchable_function_entries record */
	struct dc_fmod *mod;
	const char *name;
	uintptr_t orig; /* dyncall_fn_original thunk, or 0 */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct dc_fn) == 3 * 64,
	       "a function's record is three cache lines");

/* f's handlers, in order: w.nh of them */
static struct dc_hd *hd_of(const struct dc_fn *f)
{
	/* w.in_more, not `more` itself: a batch over functions with one
	 * handler reads only their first two lines */
	return f->w.in_more ? f->more : (struct dc_hd *)&f->w.one;
}

struct dc_fmod {
	struct dc_fmod *next;
	uintptr_t base;
	char *path;
	size_t path_len;
	bool seen;
	unsigned nfn;
	struct dc_fn *fns;
	size_t fns_cap; /* allocated (records before duplicates were skipped) */
	struct dc_segs exec; /* executable PT_LOAD segments */
	/* redirects at the call sites: the module's direct calls of its
	 * patchable functions, sorted by callee (read at the first redirect
	 * that needs them), or why there are none */
	int cs_status; /* CS_UNREAD, DYNCALL_OK or why not */
	/* DYNCALL_OK, or DYNCALL_ERR_NOMEM: its file could not be opened or
	 * mapped for want of descriptors or memory (EMFILE, ENFILE, ENOMEM,
	 * EAGAIN); read again at the next API call */
	int load_status;
	struct dc_csite *cs;
	size_t ncs, cs_cap;
	/* ppc64le (ARCH_CALLER_TARGET_CHECK): the module's functions whose
	 * symbol gives a local entry a site may branch to
	 * (ARCH_CALLER_LOCAL_ENTRY), sorted, read with the sites: the
	 * address, bit 0 set for an offset of 8 (one entry otherwise) */
	uintptr_t *lep;
	size_t nlep;
	/* ppc64le (ARCH_FENTRY_TARGET_CHECK): the module's functions whose
	 * symbol says they may not keep r2 (ARCH_SYM_DROPS_TOC), sorted, read
	 * at registration: not redirect targets (target_keeps_toc) */
	uintptr_t *notoc;
	size_t nnotoc;
	uint8_t bid[64]; /* NT_GNU_BUILD_ID of the mapped image */
	unsigned bid_len;
};

static struct dc_fmod *fmods;
static unsigned long long seen_adds, seen_subs;
static bool scanned;
static bool load_retry; /* a module's file to read again (load_status) */

/* func -> struct dc_fn, open addressing over every module's functions */
static struct dc_fn **fn_hash;
static size_t fn_hash_cap;

static int code_err; /* why the last generated code was not written */

static uintptr_t write_code(const uint8_t *buf, size_t len, uintptr_t at)
{
	int err = dc_pool_write(at, buf, len);

	code_err = err;
	return err ? 0 : at;
}

/* The vector argument registers f's prototype uses, from its
 * __dyncall_fn_records flags (abi.h enum dyncall_fn_record_flags): none
 * with DYNCALL_FN_REC_NO_VEC, the first n with DYNCALL_FN_REC_VEC_COUNT
 * (a variadic function is recorded with 8; ppc64le: n f1.. and, with
 * DYNCALL_FN_REC_VEC2_COUNT, n2 v2.., n = 0 allowed then), their width from
 * DYNCALL_FN_REC_VEC_YMM/ZMM; every one, 16 bytes each, without a record
 * (what an old record's or an unknown flag's reader does too) or with a
 * count out of range (a malformed record: the safe default).  upper_dead
 * when a valid record said it: nothing beyond those n registers' recorded
 * width carries an argument. */
static struct arch_fentry_vec rec_vec(unsigned rec)
{
	struct arch_fentry_vec v = {
		ARCH_FENTRY_VEC_REGS, 16, false, false, ARCH_FENTRY_INT_REGS,
		ARCH_FENTRY_VEC2_REGS
	};
	unsigned n = DYNCALL_FN_REC_VEC_NREGS(rec);
	/* ppc64le's second register file (v2..): all without the count */
	unsigned n2 = rec & DYNCALL_FN_REC_VEC2_COUNT ?
			      DYNCALL_FN_REC_VEC2_NREGS(rec) :
			      ARCH_FENTRY_VEC2_REGS;

	if (rec & DYNCALL_FN_REC_NO_VEC) {
		if (!(rec &
		      (DYNCALL_FN_REC_VEC_COUNT | DYNCALL_FN_REC_VEC2_COUNT))) {
			v.n = v.n2 = 0;
			v.upper_dead = true;
		}
	} else if ((rec & DYNCALL_FN_REC_VEC_COUNT) &&
		   n <= ARCH_FENTRY_VEC_REGS && n2 <= ARCH_FENTRY_VEC2_REGS &&
		   (n >= 1 || n2 >= 1)) {
		v.n = n;
		v.n2 = n2;
		v.upper_dead = true;
	}
	if (rec & DYNCALL_FN_REC_VEC_ZMM)
		v.width = 64;
	else if (rec & DYNCALL_FN_REC_VEC_YMM)
		v.width = 32;
	/* the integer argument registers: the first DYNCALL_FN_REC_INT_NREGS
	 * with DYNCALL_FN_REC_INT_COUNT, every one without it, on a variadic
	 * record or with a count beyond the arch's (malformed) */
	if ((rec & DYNCALL_FN_REC_INT_COUNT) &&
	    !(rec & DYNCALL_FN_REC_VARIADIC) &&
	    DYNCALL_FN_REC_INT_NREGS(rec) <= ARCH_FENTRY_INT_REGS) {
		v.int_known = true;
		v.ints = DYNCALL_FN_REC_INT_NREGS(rec);
	}
	return v;
}

/* The vector argument registers f's jump function saves: those its
 * prototype uses (rec_vec; registers it takes nothing in are dead at its
 * entry), none when every handler has DYNCALL_FN_NO_VEC (then a wide
 * argument's upper half is not saved, so not dead either). */
static struct arch_fentry_vec want_vec(const struct dc_fn *f)
{
	struct arch_fentry_vec v = rec_vec(f->rec_flags);

	if (f->w.nh &&
	    (f->w.novec & ((1u << f->w.nh) - 1)) != (1u << f->w.nh) - 1)
		return v;
	if (v.n && v.width > 16)
		v.upper_dead = false;
	v.n = v.n2 = 0;
	return v;
}

static uintptr_t jf_get(struct dc_fn *f, uintptr_t resume)
{
	uint8_t buf[1536]; /* arch_fentry_jf_size(DYNCALL_FN_MAX_HANDLERS) */
	uintptr_t hs[DYNCALL_FN_MAX_HANDLERS], ds[DYNCALL_FN_MAX_HANDLERS];
	struct dc_jf *j;
	uintptr_t at;
	size_t len;
	struct arch_fentry_vec vec = want_vec(f);
	struct arch_cfi cfi;
	const struct dc_hd *hd = hd_of(f);
	unsigned n = f->w.nh;

	for (j = f->jfs; j; j = j->next)
		if (j->resume == resume && j->n == n && j->vec.n == vec.n &&
		    j->vec.n2 == vec.n2 &&
		    (!vec.n || j->vec.width == vec.width) &&
		    j->vec.upper_dead == vec.upper_dead &&
		    j->vec.int_known == vec.int_known &&
		    j->vec.ints == vec.ints &&
		    !memcmp(j->hd, hd, n * sizeof(*hd)))
			return j->code;
	if (arch_fentry_jf_size(n) > sizeof(buf))
		return 0;
	code_err = DYNCALL_ERR_NOMEM;
	at = dc_pool_get(arch_fentry_jf_size(n),
			 ARCH_FENTRY_JF_NEAR_FN ? f->a.func : hd[0].h);
	j = at ? dc_alloc(jf_rec_size(n)) : NULL;
	if (!j)
		return 0;
	for (unsigned k = 0; k < n; k++) {
		hs[k] = hd[k].h;
		ds[k] = hd[k].d;
	}
	len = arch_fentry_emit_jf(buf, at, f->a.func, resume, hs, ds, n, vec,
				  &cfi);
	dc_pool_trim(at, arch_fentry_jf_size(n), len);
	if (!write_code(buf, len, at)) {
		dc_free(j, jf_rec_size(n));
		return 0;
	}
	/* registered at the batch's end */
	dc_unwind_add(dc_pool_chunk(at), at, len, &cfi);
	j->code = at;
	j->resume = resume;
	j->n = n;
	j->vec = vec;
	memcpy(j->hd, hd, n * sizeof(*hd));
	j->next = f->jfs;
	f->jfs = j;
	return at;
}

/* Code near the entry (arch.h ARCH_FENTRY_NEAR_SIZE: aarch64's bl reaches
 * +-128 MiB): shared copies are kept and reused by every function in
 * their reach.  DYNCALL_ERR_RANGE when no memory can be had in reach. */
#if ARCH_FENTRY_NEAR_SIZE
#define NEAR_MAX 64
static uintptr_t near_shared[NEAR_MAX];
static unsigned near_n;

static int near_get(struct dc_fn *f)
{
	uint8_t buf[ARCH_FENTRY_NEAR_SIZE];
	uintptr_t at = 0;
	int why;

	if (f->a.tramp)
		return DYNCALL_OK;
	for (unsigned i = 0; ARCH_FENTRY_NEAR_SHARED && i < near_n; i++)
		if (arch_fentry_near_reaches(&f->a, near_shared[i])) {
			arch_fentry_set_near(&f->a, near_shared[i]);
			return DYNCALL_OK;
		}
	at = dc_code_near(f->a.site, f->a.site + f->a.site_len,
			  ARCH_FENTRY_NEAR_SIZE, &why);
	if (!at)
		return why; /* none in reach, or its region not writable */
	if (!arch_fentry_near_reaches(&f->a, at))
		return DYNCALL_ERR_RANGE;
	arch_fentry_emit_near(buf, at, &f->a);
	if (!write_code(buf, sizeof(buf), at))
		return code_err;
	if (ARCH_FENTRY_NEAR_SHARED && near_n < NEAR_MAX)
		near_shared[near_n++] = at;
	arch_fentry_set_near(&f->a, at);
	return DYNCALL_OK;
}
#else
static int near_get(struct dc_fn *f)
{
	(void)f;
	return DYNCALL_OK;
}
#endif

/* --- registration --- */
static void hash_put(struct dc_fn *f)
{
	size_t i = (f->a.func >> 3) & (fn_hash_cap - 1);

	while (fn_hash[i])
		i = (i + 1) & (fn_hash_cap - 1);
	fn_hash[i] = f;
}

static void hash_rebuild(void)
{
	size_t n = 0, cap = 64;

	for (struct dc_fmod *m = fmods; m; m = m->next)
		n += m->nfn;
	while (cap < 2 * n)
		cap *= 2;
	dc_free(fn_hash, fn_hash_cap * sizeof(*fn_hash));
	fn_hash = dc_alloc(cap * sizeof(*fn_hash));
	fn_hash_cap = fn_hash ? cap : 0;
	if (!fn_hash)
		return;
	for (struct dc_fmod *m = fmods; m; m = m->next)
		for (unsigned i = 0; i < m->nfn; i++)
			hash_put(&m->fns[i]);
}

static struct dc_fn *fn_lookup(uintptr_t func)
{
	if (!fn_hash_cap)
		return NULL;
	for (size_t i = (func >> 3) & (fn_hash_cap - 1); fn_hash[i];
	     i = (i + 1) & (fn_hash_cap - 1))
		if (fn_hash[i]->a.func == func)
			return fn_hash[i];
	return NULL;
}

/* A registration record: a __patchable_function_entries record (func 0),
 * or an XRay entry sled and its function (ARCH_FENTRY_XRAY). */
struct frec {
	uintptr_t rec, func;
};

static bool frec_lt(const void *pa, const void *pb)
{
	const struct frec *a = pa, *b = pb;

	return a->rec < b->rec || (a->rec == b->rec && a->func < b->func);
}

static bool in_exec(const struct dl_phdr_info *info, uintptr_t a)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && a >= lo &&
		    a < lo + ph->p_memsz)
			return true;
	}
	return false;
}

static bool sh_ok(const ElfW(Ehdr) * eh, size_t size, const ElfW(Shdr) * sh)
{
	return sh->sh_type == SHT_NOBITS ||
	       (sh->sh_offset <= size && sh->sh_size <= size - sh->sh_offset);
}

/* A function symbol at a record the layout says is pre-entry padding:
 * the record is the function's entry, built with another layout (e.g.
 * aarch64 -fpatchable-function-entry=4,0, whose four entry NOPs look like
 * two pre-entry NOPs and two entry NOPs), or a record at a ppc64le global
 * entry whose local entry lies past it (GCC 12's own
 * -fpatchable-function-entry: calls from the module skip the NOP).
 * Patching would store into instructions threads execute, or miss calls:
 * refused. */
static bool refuse_at_record(struct dc_fmod *m, uintptr_t addr,
			     unsigned char st_other)
{
	struct dc_fn *at = fn_lookup(addr);
	size_t lo = 0, hi = m->nfn;

	if (at && at->mod == m && at->rec <= addr) {
		/* the usual symbol: a registered function's entry; a record
		 * at it can only follow that function's own record in
		 * m->fns (sorted by record), and the records between lie
		 * below addr: a short walk from there, no binary search
		 * through cold entries (registering 10,000
		 * functions: 1.35 -> 0.4 ms) */
		lo = (size_t)(at - m->fns);
		while (lo < m->nfn && m->fns[lo].rec < addr)
			lo++;
	} else {
		while (lo < hi) { /* m->fns is sorted by record */
			size_t mid = lo + (hi - lo) / 2;

			if (m->fns[mid].rec < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	if (lo < m->nfn && m->fns[lo].rec == addr &&
	    (m->fns[lo].a.func != addr || ARCH_LOCAL_ENTRY(st_other)) &&
	    m->fns[lo].status == DYNCALL_OK) {
		m->fns[lo].status = DYNCALL_ERR_BYTES;
		m->fns[lo].a.func = addr; /* known by its real entry */
		return true;
	}
	return false;
}

/* Name the module's functions from its symbol table (by address). */
static void name_fns(struct dc_fmod *m, const uint8_t *file, size_t size,
		     const ElfW(Ehdr) * eh, const ElfW(Shdr) * shs)
{
	bool rehash = false;

	for (int pass = 0; pass < 2; pass++) {
		unsigned want = pass ? SHT_DYNSYM : SHT_SYMTAB;
		bool any = false;

		for (unsigned s = 0; s < eh->e_shnum; s++) {
			const ElfW(Shdr) *sh = &shs[s], *st;
			const ElfW(Sym) * syms;

			if (sh->sh_type != want || sh->sh_link >= eh->e_shnum ||
			    !sh_ok(eh, size, sh) || !sh->sh_entsize)
				continue;
			st = &shs[sh->sh_link];
			if (!sh_ok(eh, size, st))
				continue;
			any = true;
			syms = (const ElfW(Sym) *)(file + sh->sh_offset);
			for (size_t i = 0; i < sh->sh_size / sizeof(*syms);
			     i++) {
				const ElfW(Sym) *y = &syms[i];
				struct dc_fn *f;
				const char *nm;
				size_t len;
				char *copy;

				if (ELF64_ST_TYPE(y->st_info) != STT_FUNC ||
				    !y->st_value || y->st_name >= st->sh_size)
					continue;
				rehash |= refuse_at_record(
					m, m->base + y->st_value, y->st_other);
				f = fn_lookup(m->base + y->st_value);
				if (!f || f->mod != m || f->name)
					continue;
				nm = (const char *)file + st->sh_offset +
				     y->st_name;
				len = strnlen(nm, st->sh_size - y->st_name);
				copy = dc_alloc(len + 1);
				if (!copy)
					goto out;
				memcpy(copy, nm, len);
				f->name = copy;
			}
		}
		if (any)
			break;
	}
out:
	if (rehash)
		hash_rebuild();
}

static bool sh_named(const uint8_t *file, const ElfW(Shdr) * shstr,
		     const ElfW(Shdr) * sh, const char *name)
{
	return sh->sh_name < shstr->sh_size &&
	       !strncmp((const char *)file + shstr->sh_offset + sh->sh_name,
			name, shstr->sh_size - sh->sh_name) &&
	       (sh->sh_flags & SHF_ALLOC);
}

/* The module's __dyncall_fn_records (abi.h, from memory, relocated): the
 * flags the compiler recorded per function.  A record that names no
 * registered function of this module (zero, dropped, an interposed symbol
 * resolved into another module) is ignored: that function keeps the safe
 * default. */
static void mod_records(struct dc_fmod *m, const uint8_t *file,
			const ElfW(Ehdr) * eh, const ElfW(Shdr) * shs,
			const ElfW(Shdr) * shstr)
{
	for (unsigned s = 0; s < eh->e_shnum; s++) {
		const ElfW(Shdr) *sh = &shs[s];
		const struct dyncall_fn_record *r;

		if (!sh_named(file, shstr, sh, DYNCALL_FN_RECORDS_SECTION) ||
		    sh->sh_size % sizeof(*r))
			continue;
		r = (const struct dyncall_fn_record *)(m->base + sh->sh_addr);
		for (size_t i = 0; i < sh->sh_size / sizeof(*r); i++) {
			struct dc_fn *f =
				r[i].fn ? fn_lookup((uintptr_t)r[i].fn) : NULL;

			if (f && f->mod == m)
				f->rec_flags = r[i].flags;
		}
	}
}

/* Room for n more records in *recs (capacity *cap). */
static bool recs_grow(struct frec **recs, size_t nrecs, size_t *cap, size_t n)
{
	size_t ncap = 2 * (nrecs + n);
	struct frec *nr;

	if (nrecs + n <= *cap)
		return true;
	nr = dc_alloc(ncap * sizeof(*nr));
	if (!nr)
		return false;
	memcpy(nr, *recs, nrecs * sizeof(*nr));
	dc_free(*recs, *cap * sizeof(**recs));
	*recs = nr;
	*cap = ncap;
	return true;
}

#if ARCH_FENTRY_XRAY
/* One xray_instr_map entry (Clang, version 2: addresses relative to the
 * entry, which the linker may leave unaligned: read with memcpy). */
#define XRAY_SECTION "xray_instr_map"
#define XRAY_ENTRY_SIZE 32
#define XRAY_KIND_ENTRY 0
#define XRAY_VERSION 2

/* The module's XRay entry sleds (ppc64le, the Clang route): every entry
 * of kind 0 gives (sled, function); entries of other kinds (exit, tail
 * call: not emitted with -fxray-instrumentation-bundle=function-entry),
 * zero entries, other versions and sleds outside the executable segments
 * are skipped. */
static size_t xray_recs(struct dl_phdr_info *info, uintptr_t base,
			const ElfW(Shdr) * sh, struct frec **recs, size_t nrecs,
			size_t *cap)
{
	size_t n = sh->sh_size / XRAY_ENTRY_SIZE;

	if (sh->sh_size % XRAY_ENTRY_SIZE || !recs_grow(recs, nrecs, cap, n))
		return nrecs;
	for (size_t i = 0; i < n; i++) {
		uintptr_t e = base + sh->sh_addr + i * XRAY_ENTRY_SIZE;
		int64_t sled_rel, fn_rel;
		uint8_t kind, version;

		memcpy(&sled_rel, (const void *)e, 8);
		memcpy(&fn_rel, (const void *)(e + 8), 8);
		kind = *(const uint8_t *)(e + 16);
		version = *(const uint8_t *)(e + 18);
		if (kind != XRAY_KIND_ENTRY || version != XRAY_VERSION ||
		    !sled_rel)
			continue;
		uintptr_t sled = e + (uintptr_t)sled_rel;
		uintptr_t fn = e + 8 + (uintptr_t)fn_rel;

		if (in_exec(info, sled) && in_exec(info, fn))
			(*recs)[nrecs++] = (struct frec){ sled, fn };
	}
	return nrecs;
}
#endif

/* The module's records: every __patchable_function_entries output
 * section (one, with GNU ld and lld) and, on ppc64le, every
 * xray_instr_map; into *recs (capacity *cap), their number returned. */
static size_t mod_recs(struct dc_fmod *m, struct dl_phdr_info *info,
		       const uint8_t *file, const ElfW(Ehdr) * eh,
		       const ElfW(Shdr) * shs, const ElfW(Shdr) * shstr,
		       struct frec **recs, size_t *cap)
{
	size_t nrecs = 0;

	for (unsigned s = 0; s < eh->e_shnum; s++) {
		const ElfW(Shdr) *sh = &shs[s];
		const uintptr_t *e;
		size_t n;

#if ARCH_FENTRY_XRAY
		if (sh_named(file, shstr, sh, XRAY_SECTION)) {
			nrecs = xray_recs(info, m->base, sh, recs, nrecs, cap);
			continue;
		}
#endif
		if (!sh_named(file, shstr, sh, PFE_SECTION) || sh->sh_size % 8)
			continue;
		e = (const uintptr_t *)(m->base + sh->sh_addr);
		n = sh->sh_size / 8;
		if (!recs_grow(recs, nrecs, cap, n))
			break;
		for (size_t i = 0; i < n; i++)
			/* zero (or the base alone): a dropped function */
			if (e[i] && e[i] != m->base && in_exec(info, e[i]))
				(*recs)[nrecs++] = (struct frec){ e[i], 0 };
	}
	return nrecs;
}

/* Map a module's file read-only; NULL if it cannot be opened or is too
 * short to be ELF.  The caller munmaps `*size` bytes. */
static uint8_t *map_elf_file(const char *path, size_t *size)
{
	struct stat st;
	void *file;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return NULL;
	}
	*size = (size_t)st.st_size;
	file = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	return file == MAP_FAILED ? NULL : file;
}

#if ARCH_CALLER_TARGET_CHECK || ARCH_FENTRY_TARGET_CHECK
static bool addr_lt(const void *pa, const void *pb)
{
	return *(const uintptr_t *)pa < *(const uintptr_t *)pb;
}

/* Keeps the function symbol sy of a module loaded at base?  Then *word is
 * what the sorted table holds for it. */
typedef bool (*sym_pick_fn)(const ElfW(Sym) * sy, uintptr_t base,
			    uintptr_t *word);

/* *table, *count: the words pick() gives for the defined functions of the
 * file's .symtab (and .dynsym when with_dynsym), sorted by address; one
 * pass counts, the second fills what was allocated.  Left as they are
 * (empty) when none is kept or out of memory: the callers then know less,
 * never something wrong. */
static void sym_words(uintptr_t base, const uint8_t *file, size_t size,
		      const ElfW(Shdr) * shs, bool with_dynsym,
		      sym_pick_fn pick, uintptr_t **table, size_t *count)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)file;
	uintptr_t *out = NULL;
	size_t n = 0, k = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (unsigned s = 0; s < eh->e_shnum; s++) {
			const ElfW(Sym) * sy;
			size_t ns;

			if ((shs[s].sh_type != SHT_SYMTAB &&
			     (!with_dynsym || shs[s].sh_type != SHT_DYNSYM)) ||
			    shs[s].sh_entsize != sizeof(ElfW(Sym)) ||
			    !sh_ok(eh, size, &shs[s]))
				continue;
			sy = (const ElfW(Sym) *)(file + shs[s].sh_offset);
			ns = shs[s].sh_size / sizeof(*sy);
			for (size_t i = 1; i < ns; i++) {
				uintptr_t w;

				if (ELF64_ST_TYPE(sy[i].st_info) != STT_FUNC ||
				    sy[i].st_shndx == SHN_UNDEF ||
				    sy[i].st_shndx >= SHN_LORESERVE ||
				    !pick(&sy[i], base, &w))
					continue;
				if (out && k < n)
					out[k] = w;
				k++;
			}
		}
		if (pass || !k)
			break;
		n = k;
		k = 0;
		out = dc_alloc(n * sizeof(*out));
		if (!out)
			return;
	}
	if (!out)
		return;
	dc_sort(out, n, sizeof(*out), addr_lt);
	*table = out;
	*count = n;
}
#endif

#if ARCH_FENTRY_TARGET_CHECK
/* m->notoc from the file's symbol tables (.symtab, .dynsym): the defined
 * functions whose st_other says they may not keep r2 (ppc64le's
 * local-entry field 1, ARCH_SYM_DROPS_TOC); none when there is no such
 * function, or when out of memory (then only the dynamic symbols speak,
 * target_keeps_toc). */
static bool pick_notoc(const ElfW(Sym) * sy, uintptr_t base, uintptr_t *word)
{
	*word = base + sy->st_value;
	return ARCH_SYM_DROPS_TOC(sy->st_other);
}

/* Does the function at t keep r2?  Not when the symbol table of a
 * registered module (m->notoc) or the dynamic symbol the loader finds at
 * t says otherwise (ARCH_SYM_DROPS_TOC); a function without a symbol
 * either way is assumed to (what its bytes say is arch_fentry_target_ok's
 * part). */
static bool target_keeps_toc(uintptr_t t)
{
	const ElfW(Sym) *sym = NULL;
	Dl_info di;

	for (const struct dc_fmod *m = fmods; m; m = m->next) {
		size_t lo = 0, hi = m->nnotoc;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (m->notoc[mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m->nnotoc && m->notoc[lo] == t)
			return false;
	}
	return !(dladdr1((void *)t, &di, (void **)&sym, RTLD_DL_SYMENT) &&
		 sym && (uintptr_t)di.dli_saddr == t &&
		 ELF64_ST_TYPE(sym->st_info) == STT_FUNC &&
		 ARCH_SYM_DROPS_TOC(sym->st_other));
}
#endif

/* Read the module's file: its __patchable_function_entries (the
 * addresses, from memory), its XRay entry sleds (ppc64le), its
 * __dyncall_fn_records and its symbols. */
static void mod_load(struct dc_fmod *m, struct dl_phdr_info *info)
{
	const char *path = m->path[0] ? m->path : "/proc/self/exe";
	struct frec *recs = NULL;
	size_t nrecs = 0, cap = 0, size;
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * shs, *shstr;
	uint8_t *file;

	/* linux-vdso.so.1, a deleted file: nothing to find; out of
	 * descriptors or memory: its functions are unknown for now (a server
	 * at its descriptor limit got DYNCALL_ERR_NOFN for every function of
	 * the module before) */
	m->load_status = DYNCALL_OK;
	file = map_elf_file(path, &size);
	if (!file) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
		    errno == EAGAIN) {
			m->load_status = DYNCALL_ERR_NOMEM;
			load_retry = true;
		}
		return;
	}
	eh = (const ElfW(Ehdr) *)file;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || !eh->e_shoff ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		goto out;
	shs = (const ElfW(Shdr) *)(file + eh->e_shoff);
	shstr = &shs[eh->e_shstrndx];
	if (!sh_ok(eh, size, shstr))
		goto out;
	nrecs = mod_recs(m, info, file, eh, shs, shstr, &recs, &cap);
	if (!nrecs)
		goto out;
	dc_sort(recs, nrecs, sizeof(*recs), frec_lt);
	m->fns = dc_alloc(nrecs * sizeof(*m->fns));
	if (!m->fns)
		goto out;
	m->fns_cap = nrecs;
	for (size_t i = 0; i < nrecs; i++) {
		struct dc_fn *f = &m->fns[m->nfn];

		if (i && recs[i].rec == recs[i - 1].rec)
			continue; /* duplicate */
		f->mod = m;
		f->rec = recs[i].rec;
#if ARCH_FENTRY_XRAY
		if (recs[i].func)
			f->status = arch_fentry_probe_xray(recs[i].rec,
							   recs[i].func, &f->a);
		else
#endif
			f->status = arch_fentry_probe(recs[i].rec, &f->a);
		if (f->status == DYNCALL_ERR_UNSUPPORTED)
			break;
		/* refused: known by its record */
		if (f->status != DYNCALL_OK && !f->a.func)
			f->a.func = recs[i].rec;
		m->nfn++;
	}
	hash_rebuild();
	mod_records(m, file, eh, shs, shstr);
	name_fns(m, file, size, eh, shs);
#if ARCH_FENTRY_TARGET_CHECK
	sym_words(m->base, file, size, shs, true, pick_notoc, &m->notoc,
		  &m->nnotoc);
#endif
out:
	dc_free(recs, cap * sizeof(*recs));
	munmap(file, size);
}

struct scan {
	bool first;
	bool retry; /* a module's file to read again: no shortcut */
	bool unchanged;
	bool subs_moved; /* something was unloaded since the last scan */
};

/* dlclose then dlopen of the same file at the same address looks like the
 * same module; its text is fresh: an out-of-line sequence we wrote is
 * gone.  (A module none of whose functions was ever patched is the same
 * as a fresh load of it.) */
static bool reloaded(const struct dc_fmod *m)
{
	struct arch_step st;

	for (unsigned i = 0; i < m->nfn; i++)
		if ((m->fns[i].ool_done &&
		     arch_fentry_ool_steps(&m->fns[i].a, &st, 1) != 0) ||
		    (m->fns[i].on &&
		     arch_fentry_entry_state(&m->fns[i].a) != 1))
			return true;
	return false;
}

static void mod_build_id(struct dc_fmod *m, const struct dl_phdr_info *info);

static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *sc = arg;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	size_t len = strlen(name);
	struct dc_fmod *m;

	if (sc->first) {
		sc->first = false;
		if (scanned && !sc->retry && info->dlpi_adds == seen_adds &&
		    info->dlpi_subs == seen_subs) {
			sc->unchanged = true;
			return 1; /* nothing loaded or unloaded since */
		}
		sc->subs_moved = info->dlpi_subs != seen_subs;
		seen_adds = info->dlpi_adds;
		seen_subs = info->dlpi_subs;
	}
	for (m = fmods; m; m = m->next)
		if (m->base == info->dlpi_addr && m->path_len == len &&
		    !memcmp(m->path, name, len) && !m->seen) {
			if (sc->subs_moved && reloaded(m))
				break; /* a new load: a new record */
			m->seen = true;
			if (m->load_status != DYNCALL_OK && !m->nfn)
				mod_load(m, info); /* again (load_status) */
			return 0;
		}
	m = dc_alloc(sizeof(*m));
	if (!m)
		return 0;
	m->path = dc_alloc(len + 1);
	if (!m->path) {
		dc_free(m, sizeof(*m));
		return 0;
	}
	memcpy(m->path, name, len);
	m->path_len = len;
	m->base = info->dlpi_addr;
	m->seen = true;
	m->cs_status = CS_UNREAD;
	dc_segs_read(info, &m->exec);
	mod_build_id(m, info);
	/* the main program first, then in load order */
	struct dc_fmod **tail = &fmods;

	while (*tail)
		tail = &(*tail)->next;
	*tail = m;
	mod_load(m, info);
	return 0;
}

/* The memory of a function whose module is gone: its other handlers,
 * its name, its jump functions' records (their code stays in the pool:
 * a thread may still be leaving one). */
static void fn_forget(struct dc_fn *f)
{
	if (f->more)
		dc_free(f->more, DYNCALL_FN_MAX_HANDLERS * sizeof(*f->more));
	if (f->name)
		dc_free((char *)f->name, strlen(f->name) + 1);
	while (f->jfs) {
		struct dc_jf *j = f->jfs;

		f->jfs = j->next;
		dc_free(j, jf_rec_size(j->n));
	}
}

/* Bring the module list up to date (dlopen, dlclose since the last call). */
static void rescan(void)
{
	struct scan sc = { .first = true, .retry = load_retry };
	bool dropped = false;

	for (struct dc_fmod *m = fmods; m; m = m->next)
		m->seen = false;
	load_retry = false; /* set again by a load that fails again */
	dl_iterate_phdr(scan_cb, &sc);
	scanned = true;
	if (sc.unchanged) {
		for (struct dc_fmod *m = fmods; m; m = m->next)
			m->seen = true;
		return;
	}
	for (struct dc_fmod **pm = &fmods; *pm;) {
		struct dc_fmod *m = *pm;

		if (m->seen) {
			pm = &m->next;
			continue;
		}
		/* dlclosed (or loaded again: a new record was made): its
		 * functions are gone (their jump functions stay in the pool:
		 * a thread may still be leaving one), and so are the text
		 * writers' aliases of its pages: a module loaded there next
		 * has fresh pages the old alias does not reach */
		*pm = m->next;
		for (unsigned i = 0; i < m->exec.n; i++)
			dc_text_forget(m->exec.lo[i], m->exec.hi[i]);
		for (unsigned i = 0; i < m->nfn; i++)
			fn_forget(&m->fns[i]);
		dc_free(m->fns, m->fns_cap * sizeof(*m->fns));
		dc_free(m->cs, m->cs_cap * sizeof(*m->cs));
		dc_free(m->lep, m->nlep * sizeof(*m->lep));
		dc_free(m->notoc, m->nnotoc * sizeof(*m->notoc));
		dc_free(m->path, m->path_len + 1);
		dc_free(m, sizeof(*m));
		dropped = true;
	}
	if (dropped)
		hash_rebuild();
}

/* Text writers alias whole 64 KiB chunks inside one executable segment
 * (patch.c): the segments of the modules with patchable functions. */
bool dc_fentry_same_segment(uintptr_t lo, uintptr_t hi)
{
	if (dc_pool_alias_chunk(lo, hi))
		return true;
	for (struct dc_fmod *m = fmods; m; m = m->next)
		if (m->nfn && dc_segs_contain(&m->exec, lo, hi, true))
			return true;
	return false;
}

/* --- redirects at the call sites ---
 * (docs/prologues.md "Redirects at the call sites").  A redirect of a
 * function with no handlers also rewrites the direct calls and jumps of
 * it that its module's file lists: the relocations the linker kept
 * (--emit-relocs), read once per module when a redirect first needs them,
 * each kept only if the instruction in memory is a direct branch to
 * exactly the destination the relocation gives it and a registered
 * patchable function of the module is there.  The branches are written
 * like call sites (patch.c dc_batch: old bytes checked first, one aligned
 * store or the jump-to-self steps).
 *
 * Order, so that every state a thread can see is correct: a change that
 * takes a site off the redirect target (restore, another target, a
 * handler added) first puts its sites back to `call f` and synchronizes
 * the cores (phase A: a site still going to the old target refuses the
 * change), then changes the entry (apply), then points the sites of the
 * functions that are now pure redirects at their target (phase B). */

/* The first NT_GNU_BUILD_ID note in [p, p + size) (notes aligned to
 * `align`); its length, 0 if none. */
static unsigned note_build_id(const uint8_t *p, size_t size, size_t align,
			      const uint8_t **id)
{
	align = align == 8 ? 8 : 4;
	while (size >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		size_t nsz = (n->n_namesz + align - 1) & ~(align - 1);
		size_t dsz = (n->n_descsz + align - 1) & ~(align - 1);

		if (nsz > size || dsz > size || sizeof(*n) + nsz + dsz > size)
			break;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(p + sizeof(*n), "GNU", 4) && n->n_descsz) {
			*id = p + sizeof(*n) + nsz;
			return n->n_descsz;
		}
		p += sizeof(*n) + nsz + dsz;
		size -= sizeof(*n) + nsz + dsz;
	}
	return 0;
}

/* The mapped image's build-id (its PT_NOTE segments, in memory). */
static void mod_build_id(struct dc_fmod *m, const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *id;
		unsigned len;

		if (ph->p_type != PT_NOTE)
			continue;
		len = note_build_id(
			(const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
			ph->p_memsz, ph->p_align, &id);
		if (len && len <= sizeof(m->bid)) {
			memcpy(m->bid, id, len);
			m->bid_len = len;
			return;
		}
	}
}

#if ARCH_HAS_CALLERS
static bool cs_lt(const void *pa, const void *pb)
{
	const struct dc_csite *a = pa, *b = pb;

	return a->callee < b->callee ||
	       (a->callee == b->callee && a->p.addr < b->p.addr);
}

/* The caller sites of one relocation section (`rs`, whose symbols are in
 * `ss`), appended to out[*n] (out NULL: only counted). */
static void rela_sites(struct dc_fmod *m, const uint8_t *file,
		       const ElfW(Shdr) * rs, const ElfW(Shdr) * ss,
		       struct dc_csite *out, size_t *n)
{
	const ElfW(Rela) *r = (const ElfW(Rela) *)(file + rs->sh_offset);
	const ElfW(Sym) *syms = (const ElfW(Sym) *)(file + ss->sh_offset);
	size_t nr = rs->sh_size / sizeof(*r),
	       nsyms = ss->sh_size / sizeof(*syms);

	for (size_t i = 0; i < nr; i++) {
		uintptr_t field = m->base + r[i].r_offset, site, dest, want;
		size_t sym = ELF64_R_SYM(r[i].r_info);
		enum arch_op op;
		struct dc_fn *f;
		int64_t bias;

		if (!sym || sym >= nsyms || syms[sym].st_shndx == SHN_UNDEF ||
		    syms[sym].st_shndx >= SHN_LORESERVE ||
		    !dc_segs_contain(&m->exec, field - ARCH_CALLER_BEFORE,
				     field + ARCH_CALLER_AFTER, false) ||
		    !arch_caller_reloc((uint32_t)ELF64_R_TYPE(r[i].r_info),
				       field, &site, &op, &bias))
			continue;
		want = m->base + syms[sym].st_value + (uintptr_t)r[i].r_addend +
		       (uintptr_t)bias;
		if (!arch_branch_read(site, op, &dest) || dest != want ||
		    !(f = fn_lookup(dest)) || f->mod != m ||
		    f->status != DYNCALL_OK)
			continue;
		if (out) {
			struct dc_csite *c = &out[*n];

			atomic_init(&c->p.addr, site);
			c->p.cur = dest;
			c->p.op = (uint8_t)op;
			c->p.cur_kind = DC_DEST_SLOW;
			c->callee = dest;
		}
		++*n;
	}
}

/* Is the file (its PT_NOTE segments) m's mapped image: the same
 * build-id?  The caller checked its program headers' bounds. */
static bool same_build_id(const struct dc_fmod *m, const uint8_t *file,
			  size_t size)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)file;
	const uint8_t *id = NULL;
	unsigned len = 0;

	for (unsigned i = 0; i < eh->e_phnum && !len; i++) {
		const ElfW(Phdr) *ph =
			(const ElfW(Phdr) *)(file + eh->e_phoff) + i;

		if (ph->p_type == PT_NOTE && ph->p_offset <= size &&
		    ph->p_filesz <= size - ph->p_offset)
			len = note_build_id(file + ph->p_offset, ph->p_filesz,
					    ph->p_align, &id);
	}
	return m->bid_len && len == m->bid_len && !memcmp(id, m->bid, len);
}

/* Is shs[s] what --emit-relocs keeps of an executable section: a
 * non-alloc SHT_RELA (.rela.dyn, .rela.plt are SHF_ALLOC) whose symbols
 * are readable? */
static bool code_rela(const ElfW(Ehdr) * eh, size_t size,
		      const ElfW(Shdr) * shs, unsigned s)
{
	const ElfW(Shdr) *rs = &shs[s];

	return rs->sh_type == SHT_RELA && !(rs->sh_flags & SHF_ALLOC) &&
	       rs->sh_entsize == sizeof(ElfW(Rela)) && sh_ok(eh, size, rs) &&
	       rs->sh_info < eh->e_shnum &&
	       (shs[rs->sh_info].sh_flags & SHF_EXECINSTR) &&
	       rs->sh_link < eh->e_shnum &&
	       (shs[rs->sh_link].sh_type == SHT_SYMTAB ||
		shs[rs->sh_link].sh_type == SHT_DYNSYM) &&
	       sh_ok(eh, size, &shs[rs->sh_link]);
}

/* Sorted, one entry per site (two relocations of one field: once); each
 * function told where its sites are. */
static void index_sites(struct dc_fmod *m)
{
	size_t k = 0;

	dc_sort(m->cs, m->ncs, sizeof(*m->cs), cs_lt);
	for (size_t i = 0; i < m->ncs; i++)
		if (!k || m->cs[i].p.addr != m->cs[k - 1].p.addr)
			m->cs[k++] = m->cs[i];
	m->ncs = k;
	for (size_t i = 0; i < m->ncs;) {
		struct dc_fn *f = fn_lookup(m->cs[i].callee);
		size_t j = i;

		while (j < m->ncs && m->cs[j].callee == m->cs[i].callee)
			j++;
		f->cs = &m->cs[i];
		f->ncs = (unsigned)(j - i);
		i = j;
	}
}

#if ARCH_CALLER_TARGET_CHECK
/* m->lep from the file's symbol tables (ppc64le's st_other local-entry
 * field: ARCH_CALLER_LOCAL_ENTRY); none when out of memory (the sites
 * then stay on their callee). */
static bool pick_lep(const ElfW(Sym) * sy, uintptr_t base, uintptr_t *word)
{
	int l = ARCH_CALLER_LOCAL_ENTRY(sy->st_other);

	*word = (base + sy->st_value) | (l == 8);
	return (l == 0 || l == 8) && !(sy->st_value & 3);
}

/* The local entry offset m's symbols give the function at a (0 or 8), or
 * -1 (no such symbol, or another offset). */
static int sym_local_entry(const struct dc_fmod *m, uintptr_t a)
{
	size_t lo = 0, hi = m->nlep;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((m->lep[mid] & ~(uintptr_t)1) < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->nlep || (m->lep[lo] & ~(uintptr_t)1) != a)
		return -1;
	return m->lep[lo] & 1 ? 8 : 0;
}
#endif

/* Read m's caller sites from its file (once). */
static void mod_callers(struct dc_fmod *m)
{
	const char *path = m->path[0] ? m->path : "/proc/self/exe";
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * shs;
	size_t size, n = 0, k = 0;
	struct dc_csite *cs;
	uint8_t *file;
	int pass;

	if (m->cs_status != CS_UNREAD)
		return;
	m->cs_status = DYNCALL_ERR_NORELOCS;
	file = map_elf_file(path, &size);
	if (!file)
		return;
	eh = (const ElfW(Ehdr) *)file;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff > size ||
	    (size - eh->e_phoff) / sizeof(ElfW(Phdr)) < eh->e_phnum)
		goto out;
	/* the file must be the image in memory: the same build-id */
	if (!same_build_id(m, file, size)) {
		m->cs_status = DYNCALL_ERR_BUILDID;
		goto out;
	}
	shs = (const ElfW(Shdr) *)(file + eh->e_shoff);
	for (pass = 0; pass < 2; pass++) {
		cs = pass ? m->cs : NULL;
		k = 0;
		for (unsigned s = 0; s < eh->e_shnum; s++) {
			if (!code_rela(eh, size, shs, s))
				continue;
			m->cs_status = DYNCALL_OK;
			rela_sites(m, file, &shs[s], &shs[shs[s].sh_link], cs,
				   &k);
		}
		if (pass)
			break;
		n = k;
		if (!n)
			goto out;
		m->cs = dc_alloc(n * sizeof(*m->cs));
		if (!m->cs) {
			m->cs_status = DYNCALL_ERR_NOMEM;
			goto out;
		}
		m->cs_cap = n;
	}
	m->ncs = k <= n ? k : n;
	index_sites(m);
#if ARCH_CALLER_TARGET_CHECK
	sym_words(m->base, file, size, shs, false, pick_lep, &m->lep, &m->nlep);
#endif
out:
	munmap(file, size);
}
#else
static void mod_callers(struct dc_fmod *m)
{
	m->cs_status = DYNCALL_ERR_UNSUPPORTED;
}
#endif

/* Where f's listed sites go in f's wanted state: the redirect target of
 * a pure redirect (no handlers), else f. */
static uintptr_t sites_want(const struct dc_fn *f)
{
	return !f->w.nh && f->w.redirect ? f->w.redirect : f->a.func;
}

/* May f's sites call `want` directly?  DYNCALL_OK or why not
 * (arch_caller_target: ppc64le's local entry and TOC rules). */
static int callers_target(const struct dc_fn *f, uintptr_t want)
{
#if ARCH_CALLER_TARGET_CHECK
	if (want == f->a.func || !f->ncs)
		return DYNCALL_OK;
	return arch_caller_target(&f->a, want, sym_local_entry(f->mod, want));
#else
	(void)f, (void)want;
	return DYNCALL_OK;
#endif
}

/* --- the API --- */
enum op { OP_HOOK, OP_UNHOOK, OP_REDIRECT, OP_RESTORE };

/* The function at fn, or why there is none. */
static struct dc_fn *fn_get(const void *fn, int *status)
{
	struct dc_fn *f;

	if (!fn) {
		*status = DYNCALL_ERR_INVAL;
		return NULL;
	}
	f = fn_lookup((uintptr_t)fn);
	if (!f) {
		*status = DYNCALL_ERR_NOFN;
		for (const struct dc_fmod *m = fmods; m; m = m->next)
			if (m->load_status != DYNCALL_OK &&
			    dc_segs_contain(&m->exec, (uintptr_t)fn,
					    (uintptr_t)fn + 1, false))
				*status = m->load_status; /* unknown for now */
		return NULL;
	}
	if (f->status) {
		*status = f->status;
		return NULL;
	}
	return f;
}

static void state_begin(sigset_t *saved)
{
	dc_runtime_claim(false); /* not locked: it may take another copy's */
	dc_lock(saved);
	dc_init_locked();
	rescan();
}

/* Handler h's index in f's handlers (f->w.nh: none). */
static unsigned handler_index(const struct dc_fn *f, uintptr_t h)
{
	unsigned k;

	for (k = 0; k < f->w.nh && hd_of(f)[k].h != h; k++)
		;
	return k;
}

/* Room for a second handler (before op_do adds it): f->more, the inline
 * one copied in.  DYNCALL_ERR_NOMEM if there is no memory for it. */
static int handler_room(struct dc_fn *f)
{
	if (f->w.nh != 1 || f->w.in_more)
		return DYNCALL_OK;
	f->more = dc_alloc(DYNCALL_FN_MAX_HANDLERS * sizeof(*f->more));
	if (!f->more)
		return DYNCALL_ERR_NOMEM;
	f->more[0] = f->w.one;
	f->w.in_more = true;
	return DYNCALL_OK;
}

/* May op (with handler or target h) be done on f? */
static int op_check(const struct dc_fn *f, enum op op, uintptr_t h)
{
	switch (op) {
	case OP_HOOK:
		if (!h || handler_index(f, h) < f->w.nh)
			return DYNCALL_ERR_INVAL;
		if (f->w.nh == DYNCALL_FN_MAX_HANDLERS)
			return DYNCALL_ERR_NOMEM;
		return DYNCALL_OK;
	case OP_UNHOOK:
		return handler_index(f, h) == f->w.nh ? DYNCALL_ERR_NOHOOK :
							DYNCALL_OK;
#if ARCH_FENTRY_TARGET_CHECK
	case OP_REDIRECT:
		return arch_fentry_target_ok(&f->a, h, target_keeps_toc(h));
#endif
	default:
		return DYNCALL_OK;
	}
}

/* f's wanted state after op (checked by op_check). */
static void op_do(struct dc_fn *f, enum op op, uintptr_t h, uintptr_t d,
		  unsigned fl)
{
	unsigned k = handler_index(f, h);

	switch (op) {
	case OP_HOOK:
		hd_of(f)[f->w.nh] = (struct dc_hd){ h, d };
		f->w.novec =
			(uint16_t)((f->w.novec & ((1u << f->w.nh) - 1)) |
				   (fl & DYNCALL_FN_NO_VEC ? 1u << f->w.nh :
							     0));
		f->w.nh++;
		break;
	case OP_UNHOOK: {
		unsigned lo = f->w.novec & ((1u << k) - 1);

		memmove(hd_of(f) + k, hd_of(f) + k + 1,
			(f->w.nh - k - 1) * sizeof(struct dc_hd));
		f->w.novec =
			(uint16_t)(lo | ((f->w.novec >> 1) & ~((1u << k) - 1)));
		f->w.nh--;
		break;
	}
	case OP_REDIRECT:
		f->w.redirect = h;
		break;
	case OP_RESTORE:
		f->w.nh = 0;
		f->w.novec = 0;
		f->w.redirect = 0;
		break;
	}
}

/* The part of f's wanted state a refused change rolls back, packed into
 * u: nh and the no-vector bits, redirect, then (handler, data) per
 * handler; words used.  A batch of 10,000 functions keeps 2 to 4 words
 * each, not a whole struct dc_fwant (280 bytes: 2.8 MB per batch). */
static size_t undo_words(const struct dc_fn *f)
{
	return 2 + 2 * (size_t)f->w.nh;
}

static size_t undo_save(const struct dc_fn *f, uintptr_t *u)
{
	u[0] = f->w.nh | (uintptr_t)f->w.novec << 16;
	u[1] = f->w.redirect;
	memcpy(u + 2, hd_of(f), f->w.nh * sizeof(struct dc_hd));
	return undo_words(f);
}

static void undo_load(struct dc_fn *f, const uintptr_t *u)
{
	f->w.nh = (unsigned)(u[0] & 0xffff);
	f->w.novec = (uint16_t)(u[0] >> 16);
	f->w.redirect = u[1];
	memcpy(hd_of(f), u + 2, f->w.nh * sizeof(struct dc_hd));
}

/* The words undo_save wrote at u. */
static size_t undo_len(const uintptr_t *u)
{
	return 2 + 2 * (size_t)(u[0] & 0xffff);
}

/* --- patching ---
 *
 * A batch (fn_op) walks its functions three times, APPLY_CHUNK at a time
 * where the protocol allows: (1) find each function, change its wanted
 * state, keep the old one (then phase A: the caller sites that must go
 * back to `call f`, for the functions that have listed sites, and their
 * membarrier); (2) generate the jump functions and out-of-line
 * sequences, verify the entries; then the one membarrier; (3) per chunk:
 * the slots, the entries, each verified, a refused change rolled back,
 * and the sites of the pure redirects queued (phase B).  Each step only
 * orders a function's own stores (its slot before its entry; every
 * generated byte of the batch before the membarrier, the membarrier
 * before any slot), so chunking changes no order the protocol needs.
 * With 10,000 functions, twelve walks over every function's records and
 * text were most of a batch's time when its memory was cold. */
#define APPLY_CHUNK 64

static uintptr_t want_slot(struct dc_fn *f)
{
	if (f->w.nh)
		return jf_get(f, f->w.redirect ? f->w.redirect : f->a.resume);
	return f->w.redirect;
}

/* Patching is off: nothing is written; what needs no write is done. */
static void apply_disabled(struct dc_fn **fs, size_t n, int *st)
{
	for (size_t i = 0; i < n; i++) {
		bool noop = !fs[i]->on && !fs[i]->w.nh && !fs[i]->w.redirect;

		st[i] = noop	      ? DYNCALL_OK :
			dc_cfg.status ? dc_cfg.status :
					DYNCALL_ERR_DISABLED;
	}
}

/* 1. fs[0..n) (n <= APPLY_CHUNK): the jump functions, the out-of-line
 * sequences; the entries verified.  f->want: what its slot should hold.
 * Returns whether fresh code was written. */
static bool prepare(struct dc_fn **fs, size_t n, int *st)
{
	struct arch_step steps[APPLY_CHUNK];
	long first[APPLY_CHUNK];
	bool ok[APPLY_CHUNK];
	size_t nsteps = 0;
	bool fresh = false;

	for (size_t i = 0; i < n; i++) {
		struct dc_fn *f = fs[i];
		int es = arch_fentry_entry_state(&f->a), k;

		st[i] = DYNCALL_OK;
		first[i] = -1;
		f->want = 0;
		if (es < 0 || (es == 1) != f->on) {
			st[i] = DYNCALL_ERR_BYTES; /* someone else wrote it */
			continue;
		}
		f->want = want_slot(f);
		if ((f->w.nh || f->w.redirect) && !f->want) {
			st[i] = code_err ? code_err : DYNCALL_ERR_NOMEM;
			continue;
		}
		if (!f->want || f->ool_done)
			continue;
		k = near_get(f);
		if (!k)
			k = arch_fentry_ool_steps(&f->a, &steps[nsteps], 1);
		if (k < 0) {
			st[i] = k;
			continue;
		}
		if (k)
			first[i] = (long)nsteps;
		nsteps += (size_t)k;
		fresh |= k > 0;
	}
	dc_text_steps(steps, nsteps, ok);
	for (size_t i = 0; i < n; i++) {
		if (st[i] != DYNCALL_OK || !fs[i]->want)
			continue;
		if (first[i] >= 0 && !ok[first[i]])
			st[i] = DYNCALL_ERR_MPROTECT;
		else
			fs[i]->ool_done = true;
	}
	return fresh;
}

/* 3. and 4. for fs[0..n) (n <= APPLY_CHUNK): the slots (up to
 * ARCH_FENTRY_SLOT_STEPS stores each; a function with a store refused
 * keeps its entry as it is), then the entries on or off, then checked */
static void write_chunk(struct dc_fn **fs, size_t n, int *st)
{
	struct arch_step steps[APPLY_CHUNK * ARCH_FENTRY_SLOT_STEPS];
	bool ok[APPLY_CHUNK * ARCH_FENTRY_SLOT_STEPS];
	size_t first[APPLY_CHUNK + 1], nsteps = 0;

	for (size_t i = 0; i < n; i++) {
		first[i] = nsteps;
		if (st[i] != DYNCALL_OK || !fs[i]->want)
			continue;
		nsteps += (size_t)arch_fentry_slot_step(&fs[i]->a, fs[i]->want,
							&steps[nsteps]);
	}
	first[n] = nsteps;
	if (dc_text_steps(steps, nsteps, ok))
		for (size_t i = 0; i < n; i++)
			for (size_t k = first[i]; k < first[i + 1]; k++)
				if (!ok[k])
					st[i] = DYNCALL_ERR_MPROTECT;
	for (size_t i = 0; i < n; i++)
		if (st[i] == DYNCALL_OK && fs[i]->want)
			fs[i]->slot_val = fs[i]->want;

	nsteps = 0;
	for (size_t i = 0; i < n; i++) {
		struct dc_fn *f = fs[i];
		struct arch_step *s = &steps[nsteps];
		int k;

		if (st[i] != DYNCALL_OK || (!f->want && !f->on))
			continue;
		/* on, off, or on with another value (x86-64's direct entry
		 * jump): written only where the bytes change */
		k = arch_fentry_entry_step(&f->a, f->want, s);
		if (k < 0) {
			st[i] = k;
			continue;
		}
		if (k && !memcmp((const void *)s->addr, s->bytes, s->len))
			continue;
		nsteps += (size_t)k;
	}
	dc_text_steps(steps, nsteps, NULL);
	for (size_t i = 0; i < n; i++) {
		int es;

		if (st[i] != DYNCALL_OK)
			continue;
		es = arch_fentry_entry_state(&fs[i]->a);
		if (es < 0 || (es == 1) != (fs[i]->want != 0)) {
			st[i] = DYNCALL_ERR_MPROTECT;
			continue;
		}
		fs[i]->on = es == 1;
	}
}

/* One batch of fn_op: its functions, their statuses, their old state
 * (undo: undo_save's words, in order), the phase A refusals, and the
 * phase B site writes. */
struct fbatch {
	struct dc_fn **v;
	size_t m;
	int *st;
	int *pre; /* phase A refusals; NULL: none */
	uintptr_t *undo;
	size_t undo_at; /* the next function's words, in pass 3 */
	struct dc_batch sites;
	bool sites_any, cs_any;
};

/* Phase A for f (after pass 1, its wanted state changed): every site
 * whose target is about to change goes back to `call f` (one membarrier
 * for the batch, in dc_batch_run: the sites were DC_DEST_DIRECT). */
static bool sites_reset_add(struct dc_batch *b, struct dc_fn *f)
{
	uintptr_t want = sites_want(f), fn = f->a.func;
	bool any = false;

	for (unsigned k = 0; k < f->ncs; k++) {
		struct dc_point *p = &f->cs[k].p;

		if (p->cur != fn && p->cur != want) {
			dc_batch_add(b, p, fn, DC_DEST_SLOW);
			any = true;
		}
	}
	return any;
}

/* After phase A: why a site of f is left on its old target, or OK.  f
 * must then keep its old state (apply rewrites what it already runs:
 * nothing changes). */
static int sites_reset_status(const struct dc_fn *f)
{
	uintptr_t want = sites_want(f), fn = f->a.func;

	for (unsigned k = 0; k < f->ncs; k++) {
		const struct dc_point *p = &f->cs[k].p;

		if (p->cur != fn && p->cur != want)
			return p->status ? p->status : DYNCALL_ERR_BYTES;
	}
	return DYNCALL_OK;
}

/* Pass 3, after fs[0..n) (fb->v[base..base+n)) were written: a refused
 * change gets its old state back (every write is checked before the next
 * one, so the function still runs what it ran: its old handlers and
 * redirect); then phase B: the sites of every pure redirect (its entry
 * already leads to the target) are queued to call the target; a site
 * refused stays `call f`, which reaches it through the entry. */
static void finish_chunk(struct fbatch *fb, size_t base, size_t n)
{
	for (size_t i = base; i < base + n; i++) {
		struct dc_fn *f = fb->v[i];
		const uintptr_t *u = fb->undo + fb->undo_at;
		uintptr_t want;

		fb->undo_at += undo_len(u);
		f->queued = false;
		if (!(fb->pre && fb->pre[i]) && fb->st[i])
			undo_load(f, u);
		f->cs_skipped = 0;
		want = f->on ? sites_want(f) : f->a.func;
		if (want != f->a.func && f->mod->cs_status == CS_UNREAD)
			mod_callers(f->mod);
		f->cs_why = callers_target(f, want);
		if (f->cs_why)
			want = f->a.func; /* the sites stay `call f` */
		fb->cs_any |= f->ncs != 0;
		for (unsigned k = 0; k < f->ncs; k++) {
			struct dc_point *p = &f->cs[k].p;

			if (p->cur == want)
				continue;
			dc_batch_add(&fb->sites, p, want,
				     want == f->a.func ? DC_DEST_SLOW :
							 DC_DEST_DIRECT);
			fb->sites_any = true;
		}
	}
}

/* A batch with this many functions with handlers or more takes its new
 * jump functions from bulk chunks (code_pool.c: fresh pages, made R-X at
 * once; one huge-page fault instead of hundreds of small-page faults in
 * two views).  1,024 jump functions are about 150 KB; by the strace figures
 * of docs/prologues.md ("The first batch: the pool's pages": the huge page
 * 0.36 to 0.43 ms, the alias chunks' pages 0.23 ms per 128 KiB of both
 * views) the two cost about the same near 200 KB: an estimate, the
 * threshold was not swept. */
#define BULK_MIN 1024

/* f's jump functions that were refused their seal: forgotten (never run,
 * never reused); whether its wanted slot value was one of them. */
static bool jf_drop_refused(struct dc_fn *f)
{
	bool hit = false;

	for (struct dc_jf **p = &f->jfs; *p;) {
		struct dc_jf *j = *p;

		if (!dc_pool_bulk_refused(j->code)) {
			p = &j->next;
			continue;
		}
		hit |= j->code == f->want;
		*p = j->next;
		dc_free(j, jf_rec_size(j->n));
	}
	return hit;
}

/* 1. for v[0..m), APPLY_CHUNK at a time (prepare), from bulk chunks when
 * the batch is large; a function whose jump function could not be made
 * executable is refused (DYNCALL_ERR_MPROTECT).  Returns whether fresh
 * code was written. */
static bool generate(struct dc_fn **v, size_t m, int *st)
{
	size_t hooked = 0;
	bool fresh = false;

	for (size_t i = 0; i < m; i++)
		hooked += v[i]->w.nh != 0;
	if (hooked >= BULK_MIN)
		dc_pool_bulk_begin();
	dc_unwind_reserve(hooked); /* at most one new jump function each */
	for (size_t c = 0; c < m; c += APPLY_CHUNK)
		fresh |= prepare(v + c,
				 m - c < APPLY_CHUNK ? m - c : APPLY_CHUNK,
				 st + c);
	if (hooked >= BULK_MIN && !dc_pool_bulk_end())
		for (size_t i = 0; i < m; i++)
			if (jf_drop_refused(v[i]) && st[i] == DYNCALL_OK)
				st[i] = DYNCALL_ERR_MPROTECT;
	/* the FDEs of the new jump functions, one object per pool chunk (a
	 * dropped one's FDE describes code that never runs, at addresses
	 * never reused) */
	dc_unwind_commit();
	return fresh;
}

/* Write the wanted state of fb->v[0..m) (passes 2 and 3), then the
 * sites.  Returns the first error. */
static int apply(struct fbatch *fb)
{
	struct dc_fn **v = fb->v;
	size_t m = fb->m;
	int *st = fb->st, ret = DYNCALL_OK;
	bool fresh = false, synced = true;

	if (dc_cfg.disabled) {
		apply_disabled(v, m, st);
	} else {
		fresh = generate(v, m, st);
		/* 2. new jump functions set dc_stubs_dirty (dc_pool_write);
		 * cached ones were synchronized when they were written */
		if ((fresh || dc_stubs_dirty) && dc_sync_cores()) {
			ret = DYNCALL_ERR_MEMBARRIER;
			for (size_t i = 0; i < m; i++)
				st[i] = ret;
			synced = false;
		} else {
			dc_stubs_dirty = false;
		}
	}
	fb->undo_at = 0;
	for (size_t c = 0; c < m; c += APPLY_CHUNK) {
		size_t k = m - c < APPLY_CHUNK ? m - c : APPLY_CHUNK;

		if (!dc_cfg.disabled && synced)
			write_chunk(v + c, k, st + c);
		finish_chunk(fb, c, k);
	}
	if (fb->sites_any)
		dc_batch_run(&fb->sites);
	for (size_t i = 0; fb->cs_any && i < m; i++) {
		struct dc_fn *f = v[i];
		uintptr_t want = f->on ? sites_want(f) : f->a.func;

		for (unsigned k = 0; k < f->ncs; k++) {
			const struct dc_point *p = &f->cs[k].p;

			if (p->cur == want && p->status == DYNCALL_OK)
				continue;
			f->cs_skipped++;
			if (!f->cs_why) /* (no status: writes refused) */
				f->cs_why = p->status ? p->status :
							DYNCALL_ERR_MPROTECT;
		}
	}
	for (size_t i = 0; i < m && !ret; i++)
		ret = st[i];
	for (size_t i = 0; fb->pre && i < m && !ret; i++)
		ret = fb->pre[i];
	return ret;
}

/* Phase A of a batch with functions that have listed sites (a caller
 * table was read), then its membarrier: before any entry changes.  A
 * function one of whose sites is left on its old target keeps its old
 * state (fb->pre[i]: why).  Returns DYNCALL_ERR_NOMEM if that could not
 * be recorded, else OK. */
static int phase_a(struct fbatch *fb)
{
	struct dc_batch reset = { 0 };
	bool any = false;
	int ret = DYNCALL_OK;

	for (size_t i = 0; i < fb->m; i++)
		if (fb->v[i]->ncs)
			any |= sites_reset_add(&reset, fb->v[i]);
	if (!any)
		return DYNCALL_OK;
	dc_batch_run(&reset);
	fb->pre = dc_alloc_scratch(fb->m * sizeof(*fb->pre));
	for (size_t i = 0, at = 0; i < fb->m; i++) {
		const uintptr_t *u = fb->undo + at;
		int s = fb->v[i]->ncs ? sites_reset_status(fb->v[i]) :
					DYNCALL_OK;

		at += undo_len(u);
		if (fb->pre)
			fb->pre[i] = s;
		else if (s)
			ret = DYNCALL_ERR_NOMEM;
		if (s)
			undo_load(fb->v[i], u);
	}
	return ret;
}

/* undo words for about n functions: grown (doubled) as pass 1 needs */
static bool undo_grow(uintptr_t **undo, size_t *cap, uintptr_t *stack,
		      size_t need)
{
	size_t ncap = *cap;
	uintptr_t *nu;

	while (ncap < need)
		ncap *= 2;
	nu = dc_alloc_scratch(ncap * sizeof(*nu));
	if (!nu)
		return false;
	memcpy(nu, *undo, *cap * sizeof(*nu));
	if (*undo != stack)
		dc_free(*undo, *cap * sizeof(**undo));
	*undo = nu;
	*cap = ncap;
	return true;
}

/* Change the state of fns[0..n) by op; returns the first error. */
static int fn_op(void *const *fns, size_t n, enum op op, uintptr_t h,
		 uintptr_t d, unsigned fl)
{
	struct dc_fn *stackf[16];
	uintptr_t stacku[16 * 4];
	int stacks[16];
	struct fbatch fb = { .v = stackf, .st = stacks, .undo = stacku };
	bool cs_seen = false;
	int ret = DYNCALL_OK;
	size_t size = 0, ucap = sizeof(stacku) / sizeof(stacku[0]), words = 0;
	sigset_t saved;

	if (!fns || !n)
		return DYNCALL_ERR_INVAL;
#if !ARCH_HAS_FENTRY
	return DYNCALL_ERR_UNSUPPORTED;
#endif
	state_begin(&saved);
	if (n > 16) {
		size = n * (sizeof(*fb.v) + sizeof(*fb.st));
		fb.v = dc_alloc_scratch(size);
		if (!fb.v) {
			dc_unlock(&saved);
			return DYNCALL_ERR_NOMEM;
		}
		fb.st = (int *)(fb.v + n);
	}
	/* pass 1: the new wanted state, the old one kept to roll back what
	 * a refused write left */
	for (size_t i = 0; i < n; i++) {
		int s = DYNCALL_OK;
		struct dc_fn *f = fn_get(fns[i], &s);

		if (f && f->queued)
			continue; /* twice in one batch: once */
		if (f)
			s = op_check(f, op, h);
		if (!s && op == OP_HOOK)
			s = handler_room(f);
		if (s) {
			ret = ret ? ret : s;
			continue;
		}
		if (words + undo_words(f) > ucap &&
		    !undo_grow(&fb.undo, &ucap, stacku,
			       words + undo_words(f) + 2 * (n - i))) {
			/* nothing written yet: every change is taken back */
			for (size_t k = 0, at = 0; k < fb.m; k++) {
				undo_load(fb.v[k], fb.undo + at);
				at += undo_len(fb.undo + at);
				fb.v[k]->queued = false;
			}
			fb.m = 0;
			ret = DYNCALL_ERR_NOMEM;
			break;
		}
		f->queued = true;
		fb.v[fb.m++] = f;
		words += undo_save(f, fb.undo + words);
		op_do(f, op, h, d, fl);
		cs_seen |= f->ncs != 0;
	}
	if (cs_seen) {
		int r = phase_a(&fb);

		ret = ret ? ret : r;
	}
	if (fb.m) {
		int r = apply(&fb);

		ret = ret ? ret : r;
	}
	if (fb.pre)
		dc_free(fb.pre, fb.m * sizeof(*fb.pre));
	if (fb.undo != stacku)
		dc_free(fb.undo, ucap * sizeof(*fb.undo));
	if (fb.v != stackf)
		dc_free(fb.v, size);
	dc_unlock(&saved);
	return ret;
}

DC_EXPORT int dyncall_fn_hook(void *fn, dyncall_fn_handler handler, void *data)
{
	return fn_op(&fn, 1, OP_HOOK, (uintptr_t)handler, (uintptr_t)data, 0);
}

DC_EXPORT int dyncall_fn_hook_flags(void *fn, dyncall_fn_handler handler,
				    void *data, unsigned flags)
{
	if (flags & ~(unsigned)DYNCALL_FN_NO_VEC)
		return DYNCALL_ERR_INVAL;
	return fn_op(&fn, 1, OP_HOOK, (uintptr_t)handler, (uintptr_t)data,
		     flags);
}

DC_EXPORT int dyncall_fn_unhook(void *fn, dyncall_fn_handler handler)
{
	return fn_op(&fn, 1, OP_UNHOOK, (uintptr_t)handler, 0, 0);
}

DC_EXPORT int dyncall_fn_redirect(void *fn, void *target)
{
	if (!target || target == fn)
		return DYNCALL_ERR_INVAL;
	return fn_op(&fn, 1, OP_REDIRECT, (uintptr_t)target, 0, 0);
}

DC_EXPORT int dyncall_fn_restore(void *fn)
{
	return fn_op(&fn, 1, OP_RESTORE, 0, 0, 0);
}

DC_EXPORT int dyncall_fn_hook_batch(void *const *fns, size_t n,
				    dyncall_fn_handler handler, void *data)
{
	return fn_op(fns, n, OP_HOOK, (uintptr_t)handler, (uintptr_t)data, 0);
}

DC_EXPORT int dyncall_fn_hook_batch_flags(void *const *fns, size_t n,
					  dyncall_fn_handler handler,
					  void *data, unsigned flags)
{
	if (flags & ~(unsigned)DYNCALL_FN_NO_VEC)
		return DYNCALL_ERR_INVAL;
	return fn_op(fns, n, OP_HOOK, (uintptr_t)handler, (uintptr_t)data,
		     flags);
}

DC_EXPORT int dyncall_fn_unhook_batch(void *const *fns, size_t n,
				      dyncall_fn_handler handler)
{
	return fn_op(fns, n, OP_UNHOOK, (uintptr_t)handler, 0, 0);
}

DC_EXPORT int dyncall_fn_restore_batch(void *const *fns, size_t n)
{
	return fn_op(fns, n, OP_RESTORE, 0, 0, 0);
}

DC_EXPORT void *dyncall_fn_original(void *fn)
{
	uint8_t buf[ARCH_FENTRY_ORIG_SIZE];
	struct dc_fn *f;
	sigset_t saved;
	uintptr_t at = 0;
	int s;

#if !ARCH_HAS_FENTRY
	return NULL;
#endif
	state_begin(&saved);
	f = fn_get(fn, &s);
	if (f && !f->orig) {
		at = dc_pool_get(ARCH_FENTRY_ORIG_SIZE, f->a.func);
		if (at) {
			size_t len = arch_fentry_emit_orig(buf, at, &f->a);

			if (write_code(buf, len, at) && !dc_sync_cores())
				f->orig = at;
			dc_stubs_dirty = false;
		}
	}
	at = f ? f->orig : 0;
	dc_unlock(&saved);
	return (void *)at;
}

DC_EXPORT void *dyncall_fn_find(const char *name)
{
	sigset_t saved;
	void *ret = NULL;

	if (!name)
		return NULL;
	state_begin(&saved);
	for (struct dc_fmod *m = fmods; m && !ret; m = m->next)
		for (unsigned i = 0; i < m->nfn; i++)
			if (m->fns[i].name && !strcmp(m->fns[i].name, name)) {
				ret = (void *)m->fns[i].a.func;
				break;
			}
	dc_unlock(&saved);
	return ret;
}

DC_EXPORT size_t dyncall_fn_list(void **fns, size_t max)
{
	sigset_t saved;
	size_t n = 0;

#if !ARCH_HAS_FENTRY
	return 0;
#endif
	state_begin(&saved);
	for (struct dc_fmod *m = fmods; m; m = m->next)
		for (unsigned i = 0; i < m->nfn; i++, n++)
			if (n < max && fns)
				fns[n] = (void *)m->fns[i].a.func;
	dc_unlock(&saved);
	return n;
}

/* A query about the function at fn (dyncall_fn_info, _callers, _flags):
 * the answer's `size` bytes at out zeroed, then filled by fill(f, out)
 * under the state lock.  DYNCALL_OK, or why not (DYNCALL_ERR_INVAL: fn
 * or out is NULL; DYNCALL_ERR_NOFN). */
static int fn_query(const void *fn, void *out, size_t size,
		    void (*fill)(struct dc_fn *f, void *out))
{
	struct dc_fn *f;
	sigset_t saved;

	if (!out)
		return DYNCALL_ERR_INVAL;
	memset(out, 0, size);
	state_begin(&saved);
	f = fn ? fn_lookup((uintptr_t)fn) : NULL;
	if (f)
		fill(f, out);
	dc_unlock(&saved);
	return f ? DYNCALL_OK : fn ? DYNCALL_ERR_NOFN : DYNCALL_ERR_INVAL;
}

static void fill_info(struct dc_fn *f, void *p)
{
	struct dyncall_fn_info *out = p;

	out->name = f->name;
	out->fn = (const void *)f->a.func;
	out->nhandlers = f->w.nh;
	out->redirect = (const void *)f->w.redirect;
	out->patched = f->on;
	out->status = f->status;
}

DC_EXPORT int dyncall_fn_info(const void *fn, struct dyncall_fn_info *out)
{
	return fn_query(fn, out, sizeof(*out), fill_info);
}

static void fill_callers(struct dc_fn *f, void *p)
{
	struct dyncall_fn_callers *out = p;

	mod_callers(f->mod);
	out->status = f->mod->cs_status;
	out->sites = f->ncs;
	for (unsigned k = 0; k < f->ncs; k++)
		out->redirected += f->cs[k].p.cur != f->a.func;
	out->skipped = f->cs_skipped;
	out->skipped_status = f->cs_skipped ? f->cs_why : DYNCALL_OK;
}

DC_EXPORT int dyncall_fn_callers(const void *fn, struct dyncall_fn_callers *out)
{
	return fn_query(fn, out, sizeof(*out), fill_callers);
}

static void fill_flags(struct dc_fn *f, void *p)
{
	struct arch_fentry_vec abi = rec_vec(f->rec_flags);
	struct arch_fentry_vec v = want_vec(f);
	unsigned *flags = p;

	if (!abi.n && !abi.n2)
		*flags |= DYNCALL_FN_NO_VEC_ABI;
	if (f->rec_flags & DYNCALL_FN_REC_VARIADIC)
		*flags |= DYNCALL_FN_VARIADIC_ABI;
	*flags |= abi.n << DYNCALL_FN_VEC_NREGS_SHIFT;
	*flags |= abi.n2 << DYNCALL_FN_VEC2_NREGS_SHIFT;
	if (abi.width == 32)
		*flags |= DYNCALL_FN_VEC_YMM;
	if (abi.width == 64)
		*flags |= DYNCALL_FN_VEC_ZMM;
	if (f->w.nh && (v.n || v.n2))
		*flags |= DYNCALL_FN_VEC_SAVED;
	if (abi.int_known)
		*flags |= DYNCALL_FN_INT_ABI;
	*flags |= abi.ints << DYNCALL_FN_INT_NREGS_SHIFT;
}

DC_EXPORT int dyncall_fn_flags(const void *fn, unsigned *flags)
{
	return fn_query(fn, flags, sizeof(*flags), fill_flags);
}
