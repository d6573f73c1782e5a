/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Batched branch writes: the only code that writes to text.
 *
 * A batch is an array of branch writes (point, destination), built by
 * dc_batch_add() and executed by dc_batch_run():
 *   1. picks a writer for every point (below); only points that must fall
 *      back to mprotect get their page spans opened (RWX, the last resort);
 *   2. verifies that every point still holds the branch it is believed to
 *      hold (else that point is refused, DYNCALL_ERR_BYTES: never write
 *      over unexpected bytes), plans its write (arch_branch_plan: 1 to
 *      ARCH_MAX_STEPS stores) and does the first store;
 *   3. for step i = 1, 2, ... (jump-to-self only): synchronizes all cores,
 *      then does step i of every point that has one;
 *   4. synchronizes all cores after the last step only if the batch took a
 *      point off a DIRECT destination (see "When cores are synchronized");
 *   5. restores R-X on every span it opened, on every path (at the end of
 *      the text session when there is one).
 *
 * Writers (docs/runtime.md, "Never writable and executable"): text is never
 * mapped writable and executable at the same time, except in the last
 * resort.  In order of preference:
 *   alias     the pages are re-mapped R-X (MAP_PRIVATE) from a memfd
 *             holding a copy of them, plus a second, RW (MAP_SHARED) view
 *             of the same memfd elsewhere, never executable; a write is a
 *             plain store through the RW view (an aligned atomic store for
 *             the protocol's atomic steps): the executing view sees the
 *             same page.  After fork both processes move to fresh memfds
 *             before their next write (the old one is shared by both).
 *   mem       pwrite() to /proc/self/mem (opened at start-up), the kernel's
 *             forced write into a private mapping (how a debugger pokes
 *             text).  The kernel copies with memcpy: on aarch64 and ppc64le
 *             an aligned 4-byte copy from its aligned buffer is one 32-bit
 *             store (single-copy atomic), so every step may use it; on
 *             x86-64 it is `rep movsb` on ERMS/FSRM CPUs, bytes in any
 *             order, so only fresh bytes and non-atomic steps (written
 *             while no thread can execute them) may.
 *   mprotect  the pages RWX around the write, R-X again after it: the last
 *             resort, when memfd/mmap and /proc/self/mem are refused.
 * A point is made DIRECT only by a writer whose later undo needs no new
 * permission (alias: a store; mem: a pwrite on a descriptor already open),
 * so a sandbox installed mid-run cannot strand a direct branch to a value
 * the key no longer holds; in the last resort a site stays guarded (unless
 * DYNCALL_TEXT_WRITE=mprotect asked for mprotect alone, e.g. qemu-user).
 *
 * When cores are synchronized.  Every state a point can be in (slow,
 * discovery thunk, guard stub, direct) is correct for a thread that sees
 * it, except a DIRECT branch to a value the key no longer holds.  Every
 * single write is atomic: a thread sees the old or the new branch, never a
 * mix (one aligned store, or jump-to-self whose steps are separated by
 * syncs).  So a sync after a batch is needed only when a later action must
 * not be overtaken by a thread still running the old bytes, and the only
 * such old bytes are a DIRECT branch: the store that follows step 1 of the
 * store protocol (state.c), or stores the runtime does not see once a key
 * escapes (registration).  A batch that takes no point off a DIRECT
 * destination ends without a membarrier; a thread may run the old branch
 * for a little longer, which is as correct as running it just before the
 * write.  New stubs are always synchronized before any branch to them.
 *
 * The batch is a dense array (the points live in 300-byte site records):
 * a store to a key with 10,000 sites walks it a few times, not a linked
 * list scattered over megabytes.
 *
 * Caller holds the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "internal.h"

#define MPROTECT_TRIES 100

static uintptr_t page_size(void)
{
	static uintptr_t ps;

	if (!ps)
		ps = (uintptr_t)sysconf(_SC_PAGESIZE);
	return ps;
}

int dc_sync_cores(void)
{
	for (int i = 0; i < MPROTECT_TRIES; i++) {
		if (!syscall(SYS_membarrier,
			     MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0)) {
			DC_STAT_ADD(membarriers, 1);
			return 0;
		}
	}
	/* Registered at start-up; refused later (a sandbox installed
	 * mid-run): no more patching, the status says why, and the writes
	 * already done stay as they are (dyncall.h, "When patching becomes
	 * impossible"). */
	dc_set_status(DYNCALL_ERR_MEMBARRIER, "membarrier(SYNC_CORE) failed "
		      "after start-up: %s", strerror(errno));
	dc_cfg.disabled = true;
	return DYNCALL_ERR_MEMBARRIER;
}

static bool addr_lt(const void *a, const void *b)
{
	return *(const uintptr_t *)a < *(const uintptr_t *)b;
}

static void sort_addrs(uintptr_t *a, size_t n)
{
	dc_sort(a, n, sizeof(*a), addr_lt);
}

static int protect(uintptr_t lo, uintptr_t hi, int prot)
{
	int tries = prot == ARCH_TEXT_PROT ? MPROTECT_TRIES : 1;

	for (int i = 0; i < tries; i++)
		if (!mprotect((void *)lo, hi - lo, ARCH_PROT(lo, prot)))
			return 0;
	return -errno;
}

static void note_mprotect_failure(uintptr_t lo, int prot, int err)
{
	dc_set_status(DYNCALL_ERR_MPROTECT, "mprotect(%#lx, %s) refused: %s",
		      (unsigned long)lo,
		      prot == ARCH_TEXT_PROT ? "R-X" : "RWX", strerror(-err));
	dc_cfg.disabled = true;
}

/*
 * A text session (dc_text_begin/end) keeps the spans a batch opened
 * writable until its end, so the two batches of one store (steps 1 and 3)
 * of the same pages cost one mprotect per span to open and one per
 * segment to close, not two pairs: restoring R-X shoots down TLBs on every
 * core, splitting and merging VMAs costs microseconds per call, and
 * together they dominate the cost of a small update.
 */
#define MAX_OPEN 32
#define MAX_GAP_PAGES 16 /* merge spans this close inside one segment */
static uintptr_t open_lo[MAX_OPEN], open_hi[MAX_OPEN];
static int nopen;
static bool session;

void dc_text_begin(void)
{
	session = true;
}

static void close_spans(uintptr_t *lo, uintptr_t *hi, size_t n);

void dc_text_end(void)
{
	close_spans(open_lo, open_hi, (size_t)nopen);
	nopen = 0;
	session = false;
}

static bool already_open(uintptr_t lo, uintptr_t hi)
{
	for (int i = 0; i < nopen; i++)
		if (lo >= open_lo[i] && hi <= open_hi[i])
			return true;
	return false;
}

/*
 * Make the pages of [addr[i], addr[i] + len) writable (RWX, threads keep
 * executing them), merging adjacent pages into spans.  Returns the number
 * of spans opened (their bounds in lo[]/hi[], reusing addr[]), or a
 * negative errno; on failure nothing is left writable.
 */
static long open_spans(uintptr_t *pages, size_t n, uintptr_t *lo,
		       uintptr_t *hi)
{
	size_t nspans = 0;
	int err;

	sort_addrs(pages, n);
	for (size_t i = 0; i < n; i++) {
		if (nspans && (pages[i] <= hi[nspans - 1] ||
			       (pages[i] - hi[nspans - 1] <=
					MAX_GAP_PAGES * page_size() &&
				dc_same_segment(lo[nspans - 1],
						pages[i] + page_size())))) {
			if (pages[i] + page_size() > hi[nspans - 1])
				hi[nspans - 1] = pages[i] + page_size();
			continue;
		}
		lo[nspans] = pages[i];
		hi[nspans] = pages[i] + page_size();
		nspans++;
	}
	for (size_t i = 0; i < nspans; i++) {
		if (already_open(lo[i], hi[i])) {
			hi[i] = lo[i]; /* nothing to close */
			continue;
		}
		err = protect(lo[i], hi[i], ARCH_TEXT_PROT | PROT_WRITE);
		if (err) {
			note_mprotect_failure(lo[i], ARCH_TEXT_PROT | PROT_WRITE,
					      err);
			while (i-- > 0)
				if (hi[i] != lo[i])
					protect(lo[i], hi[i], ARCH_TEXT_PROT);
			return err;
		}
	}
	/* In a session, the session closes them. */
	for (size_t i = 0; session && i < nspans; i++) {
		if (hi[i] == lo[i] || nopen == MAX_OPEN)
			continue;
		open_lo[nopen] = lo[i];
		open_hi[nopen++] = hi[i];
		hi[i] = lo[i];
	}
	return (long)nspans;
}

/*
 * Restore R-X.  Spans inside one executable segment are closed by a single
 * mprotect over their hull: the pages between them are R-X already, which
 * the kernel skips without touching their page tables, so this costs one
 * system call and one TLB shootdown (IPIs to the cores running the
 * process) per segment instead of one per span.  The hull is only ever
 * made R-X, never writable.  If that fails, span by span.
 */
static void close_spans(uintptr_t *lo, uintptr_t *hi, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) { /* drop empty spans, sort by lo */
		uintptr_t l = lo[i], h = hi[i];
		size_t j = m++;

		if (h == l) {
			m--;
			continue;
		}
		for (; j > 0 && lo[j - 1] > l; j--) {
			lo[j] = lo[j - 1];
			hi[j] = hi[j - 1];
		}
		lo[j] = l;
		hi[j] = h;
	}
	for (size_t i = 0, j; i < m; i = j + 1) {
		uintptr_t h = hi[i];
		int err;

		for (j = i; j + 1 < m && dc_same_segment(lo[i], hi[j + 1]); j++)
			if (hi[j + 1] > h)
				h = hi[j + 1];
		if (j > i && !protect(lo[i], h, ARCH_TEXT_PROT))
			continue;
		for (size_t k = i; k <= j; k++) {
			err = protect(lo[k], hi[k], ARCH_TEXT_PROT);
			if (err)
				note_mprotect_failure(lo[k], ARCH_TEXT_PROT,
						      err);
		}
	}
}

/* ---- writers ----------------------------------------------------------- */

enum { W_NONE, W_ALIAS, W_MEM, W_PROT };

#define ALIAS_CHUNK (64 * 1024) /* aliased at once inside one mapping */

struct alias {
	uintptr_t lo, hi; /* the executing (R-X) view */
	uintptr_t rw;     /* the writable view of the same memfd pages */
	unsigned gen;     /* fork generation it was made in */
};
static struct alias *al;   /* sorted by lo, disjoint */
static size_t al_n, al_cap;
static int mem_fd = -1;
static pid_t text_pid;
static unsigned fork_gen;
static unsigned writers = DC_WRITE_ALIAS | DC_WRITE_MEM | DC_WRITE_PROT;
static bool prot_direct; /* DYNCALL_TEXT_WRITE=mprotect: asked for */

void dc_text_init(unsigned allowed)
{
	writers = allowed;
	prot_direct = allowed == DC_WRITE_PROT;
	text_pid = getpid();
	if (mem_fd >= 0)
		close(mem_fd);
	mem_fd = (writers & DC_WRITE_MEM) ?
		open("/proc/self/mem", O_RDWR | O_CLOEXEC) : -1;
}

unsigned dc_text_writers(void)
{
	return writers;
}

/* After fork (both sides): the aliases' memfds are shared with the other
 * process, so each moves to fresh ones before its next write; a child's
 * /proc/self/mem descriptor still names the parent. */
void dc_text_forked(void)
{
	fork_gen++;
	if (getpid() != text_pid)
		dc_text_init(writers);
}

/* A fork that ran no pthread_atfork handler (a raw system call): found
 * by the pid, once per hold of the runtime lock.  Within one hold the pid
 * cannot change under the holder (a fork made meanwhile by another thread
 * gives a child without this thread), so the first write of a hold checks
 * and the others skip the system call: generating 10,000 jump functions
 * made 10,000 getpid calls.  A call without the lock (even hold count)
 * always checks. */
static unsigned fork_checked_hold;

static void check_fork(void)
{
	unsigned hold = dc_lock_hold;

	if ((hold & 1) && hold == fork_checked_hold)
		return;
	fork_checked_hold = hold;
	if (getpid() != text_pid)
		dc_text_forked();
}

/*
 * Aliases found recently, by page: a batch alternates between a few pages
 * (call sites, trampolines, stubs) and asks for each point's alias twice
 * (writer choice, then the write), so a binary search over hundreds of
 * aliases per write was the largest cost of a 10,000-site update.  An
 * entry names an alias by its index and range; it is valid only while
 * al[idx] still has that range (aliases are disjoint, so the range names
 * one alias): inserting or dropping aliases needs no invalidation.
 */
#define AL_CACHE 256
static struct {
	uintptr_t lo, hi;
	size_t idx;
} al_cache[AL_CACHE];

static inline struct alias *alias_cached(uintptr_t lo, uintptr_t hi)
{
	size_t slot = (lo >> 12) % AL_CACHE; /* a hash: any page size */
	size_t c = al_cache[slot].idx;

	if (c < al_n && al[c].lo == al_cache[slot].lo &&
	    al[c].hi == al_cache[slot].hi && al[c].lo <= lo && hi <= al[c].hi)
		return &al[c];
	return NULL;
}

static struct alias *alias_find(uintptr_t lo, uintptr_t hi)
{
	size_t slot = (lo >> 12) % AL_CACHE;
	size_t l = 0, h = al_n;
	struct alias *a = alias_cached(lo, hi);

	if (a)
		return a;
	while (l < h) {
		size_t m = (l + h) / 2;

		if (al[m].hi <= lo)
			l = m + 1;
		else
			h = m;
	}
	if (l < al_n && al[l].lo <= lo && hi <= al[l].hi) {
		al_cache[slot].lo = al[l].lo;
		al_cache[slot].hi = al[l].hi;
		al_cache[slot].idx = l;
		return &al[l];
	}
	return NULL;
}

/* mmap(at, len, prot, MAP_FIXED | flags, fd, 0) as the system call
 * itself: a view of the same bytes put in place of text or of fresh code
 * memory.  Not through the libc symbol, which a sanitizer intercepts: to
 * ThreadSanitizer a MAP_FIXED mapping is new application memory, and its
 * interceptor reset the shadow of the program's text range and crashed
 * there (SIGSEGV in __tsan::MemoryRangeSet, examples/call_counter.c
 * built with -fsanitize=thread, both compilers); for the program nothing
 * changed at these addresses. */
static void *map_in_place(uintptr_t at, size_t len, int prot, int flags, int fd)
{
	return (void *)syscall(SYS_mmap, at, len, prot, flags | MAP_FIXED, fd,
			       0L);
}

static bool alias_overlaps(uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < al_n; i++)
		if (al[i].lo < hi && lo < al[i].hi)
			return true;
	return false;
}

/* Map [lo, hi) R-X from a new memfd holding its current bytes, and a RW
 * view of it; returns the RW view or 0 (nothing changed). */
static uintptr_t alias_map(uintptr_t lo, uintptr_t hi)
{
	size_t len = hi - lo;
	void *rw, *rx;
	int fd = memfd_create("dyncall-text", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (ftruncate(fd, (off_t)len))
		goto fail;
	/* MAP_POPULATE, both views: one call makes the pages instead of a
	 * fault per page (the copy, then the first execution of each). */
	rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  fd, 0);
	if (rw == MAP_FAILED)
		goto fail;
	memcpy(rw, (const void *)lo, len); /* under the lock: nobody writes */
	/* Replaces the pages in one step (the mmap lock is held for
	 * writing: a thread executing them faults and waits, then runs the
	 * same bytes from the new mapping).  A refusal happens before the
	 * old mapping is touched. */
	rx = map_in_place(lo, len, ARCH_PROT(lo, PROT_READ | PROT_EXEC),
			  MAP_PRIVATE | MAP_POPULATE, fd);
	if (rx == MAP_FAILED) {
		munmap(rw, len);
		goto fail;
	}
	close(fd);
	return (uintptr_t)rw;
fail:
	close(fd);
	return 0;
}

static void alias_drop(struct alias *a)
{
	size_t i = (size_t)(a - al);

	munmap((void *)a->rw, a->hi - a->lo);
	memmove(&al[i], &al[i + 1], (al_n - i - 1) * sizeof(*al));
	al_n--;
}

/* The pages a new alias for addr covers: the 64 KiB chunk around it when
 * it lies in stub regions; else, when the branch's pages lie in one
 * executable segment, those pages grown page by page inside the chunk as
 * far as that segment goes (a chunk often holds the edge of a module's
 * text: aliasing such text one page at a time cost a memfd, two mappings
 * and their faults per page, ~30 per run for Expat); never overlapping
 * another alias or a span the text session holds open (mprotect), whose
 * pages must keep their mapping. */
static void alias_range(uintptr_t addr, size_t len, uintptr_t *lo,
			uintptr_t *hi)
{
	uintptr_t ps = page_size();
	uintptr_t clo = addr & ~(uintptr_t)(ALIAS_CHUNK - 1);
	uintptr_t chi = clo + ALIAS_CHUNK;
	bool stub = true;

	for (uintptr_t p = clo; p < chi && stub; p += ps)
		stub = dc_is_stub(p);
	*lo = addr & ~(ps - 1);
	*hi = (addr + len + ps - 1) & ~(ps - 1);
	if (*hi > chi || alias_overlaps(*lo, *hi))
		return; /* across the chunk, or merged with its neighbours */
	if (stub) {
		if (!alias_overlaps(clo, chi)) {
			*lo = clo;
			*hi = chi;
		}
		return;
	}
	if (!dc_same_segment(*lo, *hi))
		return;
	while (*lo > clo && dc_same_segment(*lo - ps, *hi) &&
	       !alias_overlaps(*lo - ps, *lo))
		*lo -= ps;
	while (*hi < chi && dc_same_segment(*lo, *hi + ps) &&
	       !alias_overlaps(*hi, *hi + ps))
		*hi += ps;
}

static bool alias_reserve(void)
{
	size_t ncap = al_cap ? 2 * al_cap : 16;
	struct alias *na;

	if (al_n < al_cap)
		return true;
	na = dc_alloc(ncap * sizeof(*na));
	if (!na)
		return false;
	memcpy(na, al, al_n * sizeof(*na));
	dc_free(al, al_cap * sizeof(*al));
	al = na;
	al_cap = ncap;
	return true;
}

/* A new alias over [lo, hi) (alias_map), in order; NULL: not made. */
static struct alias *alias_add(uintptr_t lo, uintptr_t hi)
{
	uintptr_t rw;
	size_t i;

	if (!alias_reserve())
		return NULL;
	rw = alias_map(lo, hi);
	if (!rw)
		return NULL;
	for (i = al_n; i > 0 && al[i - 1].lo > lo; i--)
		al[i] = al[i - 1];
	al[i] = (struct alias){ lo, hi, rw, fork_gen };
	al_n++;
	return &al[i];
}

/* alias_get() when the cache does not know [addr, addr + len). */
static __attribute__((noinline)) struct alias *alias_get_slow(uintptr_t addr,
							      size_t len)
{
	struct alias *a = alias_find(addr, addr + len);
	uintptr_t lo, hi;

	if (a && a->gen == fork_gen)
		return a;
	if (a) { /* forked: move to a fresh memfd (or to the other writers) */
		lo = a->lo;
		hi = a->hi;
		alias_drop(a);
	} else {
		if (!(writers & DC_WRITE_ALIAS))
			return NULL;
		alias_range(addr, len, &lo, &hi);
		/* [lo, hi) meets aliases (a branch straddling the edge of an
		 * aliased page): one alias over the union replaces them.  Its
		 * copy is taken from the executing view, which shows their
		 * current bytes.  Never write such pages any other way: a
		 * store through the executing (private) mapping, by mprotect
		 * or /proc/self/mem, would copy the page on write and hide
		 * every later write through the alias. */
		for (size_t j = 0; j < al_n;) {
			if (al[j].lo < hi && lo < al[j].hi) {
				lo = al[j].lo < lo ? al[j].lo : lo;
				hi = al[j].hi > hi ? al[j].hi : hi;
				alias_drop(&al[j]);
				j = 0;
				continue;
			}
			j++;
		}
	}
	if (already_open(lo, hi))
		return NULL;
	return alias_add(lo, hi);
}

/* The executing view of a no longer shows its memfd: something wrote
 * through it, which copied the written page on write (a debugger's
 * breakpoint: ptrace writes with FOLL_FORCE; the memfd is never written
 * that way by the runtime), and no store through the alias reaches that
 * page any more.  Seen under gdb: a breakpoint hit in a page of main's
 * text after a hook there, then dyncall_fn_redirect returned 0 and the
 * calls still ran the hooked function, dyncall_fn_restore returned -4
 * and the handler kept running (test/runtime/debugger-wrote-text.c).
 * The cure is the fork one: a fresh memfd holding what executes now (the
 * debugger's bytes included), mapped in place of the whole alias. */
static struct alias *alias_renew(struct alias *a)
{
	uintptr_t lo = a->lo, hi = a->hi;

	alias_drop(a);
	return alias_add(lo, hi);
}

/* The alias covering [addr, addr + len), made if it can be; NULL: none.
 * Inline: every write of a batch asks twice and nearly always hits. */
static inline struct alias *alias_get(uintptr_t addr, size_t len)
{
	struct alias *a = alias_cached(addr, addr + len);

	return a && a->gen == fork_gen ? a : alias_get_slow(addr, len);
}

/* A module goes away: its aliases' RW views too (the loader unmaps the
 * executing views with the module). */
void dc_text_forget(uintptr_t lo, uintptr_t hi)
{
	lo &= ~(page_size() - 1); /* the hull of the segments, paged */
	hi = (hi + page_size() - 1) & ~(page_size() - 1);
	for (size_t i = al_n; i-- > 0;)
		if (al[i].lo >= lo && al[i].hi <= hi)
			alias_drop(&al[i]);
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * Fresh code memory (the function-entry pool, prologue.c) made an alias
 * from the start: [at, at + len), an anonymous mapping nobody executes
 * yet, is replaced by a R-X view of a new memfd, and the memfd's RW view
 * is registered as its alias.  Every later write is a store through the
 * alias, as for aliased text, without the copy alias_map makes of pages
 * that hold nothing yet (generating 10,000 jump functions made ~45 such
 * aliases of 64 KiB: a memfd, two populated mappings and a copy each).
 * After fork the alias moves to a fresh memfd like any other.
 */
int dc_text_code_map(uintptr_t at, size_t len)
{
	void *rw, *rx;
	size_t i;
	int fd;

	check_fork();
	if (!(writers & DC_WRITE_ALIAS) || alias_overlaps(at, at + len) ||
	    !alias_reserve())
		return DYNCALL_ERR_MPROTECT;
	fd = memfd_create("dyncall-text", MFD_CLOEXEC);
	if (fd < 0)
		return DYNCALL_ERR_MPROTECT;
	if (ftruncate(fd, (off_t)len)) {
		close(fd);
		return DYNCALL_ERR_MPROTECT;
	}
	rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (rw == MAP_FAILED) {
		close(fd);
		return DYNCALL_ERR_MPROTECT;
	}
	rx = map_in_place(at, len, ARCH_PROT(at, ARCH_TEXT_PROT), MAP_PRIVATE,
			  fd);
	close(fd);
	if (rx == MAP_FAILED) {
		munmap(rw, len);
		return DYNCALL_ERR_MPROTECT;
	}
	for (i = al_n; i > 0 && al[i - 1].lo > at; i--)
		al[i] = al[i - 1];
	al[i] = (struct alias){ at, at + len, (uintptr_t)rw, fork_gen };
	al_n++;
	return DYNCALL_OK;
}

/* The pages of [lo, hi) present in both views before they are written
 * (two system calls instead of a fault per page of each view); a kernel
 * without MADV_POPULATE_* (before 5.14) faults them in as they come. */
void dc_text_prefault(uintptr_t lo, uintptr_t hi)
{
	struct alias *a = alias_find(lo, hi);

	if (!a || a->gen != fork_gen)
		return;
	madvise((void *)(a->rw + (lo - a->lo)), hi - lo, MADV_POPULATE_WRITE);
	madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
}

/* The writer for the branch at `at`, or W_PROT when only mprotect is
 * left (the caller opens its pages), W_NONE when not even that. */
static int pick_writer(uintptr_t at, size_t len)
{
	if (alias_get(at, len))
		return W_ALIAS;
	if (alias_overlaps(at & ~(page_size() - 1),
			   (at + len + page_size() - 1) & ~(page_size() - 1)))
		return W_NONE; /* see alias_get: refused, the point stays */
	if (mem_fd >= 0 && ARCH_STORE_WORD == 4)
		return W_MEM; /* every step is one aligned 32-bit copy */
	return (writers & DC_WRITE_PROT) ? W_PROT : W_NONE;
}

/* One aligned store of the word (8 or 4 bytes) at bytes to p. */
static void store_word(uintptr_t p, const void *bytes, size_t word)
{
	if (word == 8)
		atomic_store_explicit((_Atomic uint64_t *)p,
				      *(const uint64_t *)bytes,
				      memory_order_release);
	else
		atomic_store_explicit((_Atomic uint32_t *)p,
				      *(const uint32_t *)bytes,
				      memory_order_release);
}

/* Store bytes at p, the RW view of [addr, addr + len): one aligned word
 * (word 8 or 4) or a copy; true when the executing view shows them (it
 * shares the memfd page unless something copied it: alias_renew). */
static bool alias_store(uintptr_t p, uintptr_t addr, const void *bytes,
			size_t len, size_t word)
{
	if (word == 8) {
		store_word(p, bytes, word);
		return *(const volatile uint64_t *)addr ==
		       *(const uint64_t *)bytes;
	}
	if (word == 4) {
		store_word(p, bytes, word);
		return *(const volatile uint32_t *)addr ==
		       *(const uint32_t *)bytes;
	}
	/* bytes nobody executes yet: any order will do (a byte loop was a
	 * third of generating 10,000 jump functions) */
	memcpy((void *)p, bytes, len);
	return !memcmp((const void *)addr, bytes, len);
}

/* [addr, addr + len) <- bytes through writer w; false if refused. */
static bool poke(int w, uintptr_t addr, const void *bytes, size_t len,
		 size_t word)
{
	struct alias *a;

	if (w == W_ALIAS && (a = alias_get(addr, len))) {
		if (alias_store(a->rw + (addr - a->lo), addr, bytes, len, word))
			return true;
		a = alias_renew(a); /* the executing page was copied */
		return a && alias_store(a->rw + (addr - a->lo), addr, bytes,
					len, word);
	}
	if (w == W_MEM || (w == W_ALIAS && mem_fd >= 0 &&
			   (word != 8 || (ARCH_STORE_WORD == 4 && len <= 4)))) {
		for (int i = 0; i < 3; i++)
			if (pwrite(mem_fd, bytes, len, (off_t)addr) ==
			    (ssize_t)len)
				return true;
		return false;
	}
	if (w == W_PROT) {
		if (word)
			store_word(addr, bytes, word);
		else
			for (size_t i = 0; i < len; i++)
				((volatile uint8_t *)addr)[i] =
					((const uint8_t *)bytes)[i];
		return true;
	}
	return false;
}

/* One store of a plan through writer w.  Atomic stores rewrite the whole
 * aligned word (ARCH_STORE_WORD bytes) that holds them: the other bytes
 * keep their current value, and only we write text, under the lock. */
static unsigned step_word(const struct arch_step *s, uintptr_t *at,
			  uint64_t *v)
{
	if (s->atomic && ARCH_STORE_WORD == 4 && s->len <= 4) {
		/* aarch64, ppc64le: one aligned 32-bit store of the word that
		 * holds the instruction (arch_branch_plan: addr 4-aligned);
		 * an 8-byte atomic step (a function-entry slot) is one aligned
		 * 64-bit store, below */
		uintptr_t wa = s->addr & ~(uintptr_t)3;
		uint32_t w = atomic_load_explicit((_Atomic uint32_t *)wa,
						  memory_order_relaxed);

		memcpy((char *)&w + (s->addr - wa), s->bytes, s->len);
		*at = wa;
		*v = w;
		return 4;
	}
	if (s->atomic) {
		uintptr_t q = s->addr & ~(uintptr_t)7;
		uint64_t w = atomic_load_explicit((_Atomic uint64_t *)q,
						  memory_order_relaxed);
		unsigned sh = (unsigned)(s->addr - q) * 8;
		uint64_t b, mask;

		/* the step lies in the quadword: sh + 8 * len <= 64 */
		memcpy(&b, s->bytes, sizeof(b));
		mask = s->len >= 8 ? ~(uint64_t)0 :
				     ((uint64_t)1 << (s->len * 8)) - 1;
		*at = q;
		*v = (w & ~(mask << sh)) | ((b & mask) << sh);
		return 8;
	}
	return 0;
}

static bool do_step(const struct arch_step *s, int w)
{
	uintptr_t at;
	uint64_t v;
	uint32_t v4;
	bool ok;

	switch (step_word(s, &at, &v)) {
	case 4:
		v4 = (uint32_t)v;
		ok = poke(w, at, &v4, 4, 4);
		break;
	case 8:
		ok = poke(w, at, &v, 8, 8);
		break;
	default:
		ok = poke(w, s->addr, s->bytes, s->len, 0);
	}
	if (ok)
		dc_code_changed(s->addr, s->len);
	return ok;
}

/* do_step through the alias whose executing view starts at lo and whose
 * writable view is rw (poke's W_ALIAS stores, without finding the alias
 * again for every step of a batch); false: the executing view did not
 * show the store (alias_renew: the caller does the step again by
 * do_step). */
static bool alias_step(const struct arch_step *s, uintptr_t lo, uintptr_t rw)
{
	uintptr_t at;
	uint64_t v;
	uint32_t v4;
	bool ok;

	switch (step_word(s, &at, &v)) {
	case 4:
		v4 = (uint32_t)v;
		ok = alias_store(rw + (at - lo), at, &v4, 4, 4);
		break;
	case 8:
		ok = alias_store(rw + (at - lo), at, &v, 8, 8);
		break;
	default:
		ok = alias_store(rw + (s->addr - lo), s->addr, s->bytes, s->len,
				 0);
	}
	if (ok)
		dc_code_changed(s->addr, s->len);
	return ok;
}

/*
 * Batch storage.  Small batches use the array inside struct dc_batch; a
 * large one takes the cached buffer (kept between batches: unmapping
 * shoots down TLBs too), or a private one if that is in use.
 */
static struct dc_bent *big_buf;
static size_t big_cap;
static bool big_busy;

static bool batch_grow(struct dc_batch *b)
{
	struct dc_bent *ne;
	size_t ncap;
	bool big;

	if (!b->e) {
		b->e = b->ent;
		b->cap = DC_BATCH_INLINE;
		return true;
	}
	ncap = b->cap < 1024 ? 1024 : 2 * (size_t)b->cap;
	big = b->e == big_buf || !big_busy; /* may use the cached buffer */
	if (big && b->e != big_buf && big_cap >= ncap) {
		ne = big_buf;
		ncap = big_cap;
	} else if (!(ne = dc_alloc(ncap * sizeof(*ne)))) {
		return false;
	}
	memcpy(ne, b->e, b->n * sizeof(*ne));
	if (b->e != b->ent && b->e != ne)
		dc_free(b->e, b->cap * sizeof(*ne)); /* may be big_buf */
	if (big) {
		if (ne != big_buf && b->e != big_buf)
			dc_free(big_buf, big_cap * sizeof(*ne)); /* too small */
		big_buf = ne;
		big_cap = ncap;
		big_busy = true;
	}
	b->e = ne;
	b->cap = (unsigned)ncap;
	return true;
}

static void batch_release(struct dc_batch *b)
{
	if (b->e == big_buf)
		big_busy = false;
	else if (b->e && b->e != b->ent)
		dc_free(b->e, b->cap * sizeof(*b->e));
	b->e = NULL;
	b->n = b->cap = 0;
}

static void refuse_point(struct dc_batch *b, struct dc_point *p, int status)
{
	p->status = (int16_t)status;
	if (!b->status)
		b->status = status;
	if (p->cur_kind == DC_DEST_DIRECT)
		b->direct_left++;
	DC_STAT_ADD(refused, 1);
}

void dc_batch_add(struct dc_batch *b, struct dc_point *p, uintptr_t want,
		  int want_kind)
{
	uintptr_t at = atomic_load_explicit(&p->addr, memory_order_acquire);
	struct dc_bent *e;

	if (!at)
		return;
	if (p->queued && p->queued <= b->n && b->e[p->queued - 1].p == p) {
		e = &b->e[p->queued - 1];
		e->want = want;
		e->want_kind = (uint8_t)want_kind;
		return;
	}
	if (p->cur == want) {
		p->cur_kind = (uint8_t)want_kind;
		b->skipped++;
		return;
	}
	if (dc_cfg.disabled && want_kind >= DC_DEST_GUARD) {
		p->status = (int16_t)dc_cfg.status;
		if (p->cur_kind == DC_DEST_DIRECT)
			b->direct_left++;
		return;
	}
	if (b->n == b->cap && !batch_grow(b)) {
		refuse_point(b, p, DYNCALL_ERR_NOMEM);
		return;
	}
	e = &b->e[b->n++];
	e->p = p;
	e->at = at;
	e->cur = p->cur;
	e->want = want;
	e->op = p->op;
	e->cur_kind = p->cur_kind;
	e->want_kind = (uint8_t)want_kind;
	e->nsteps = 0;
	p->queued = b->n;
}

static void refuse(struct dc_batch *b, struct dc_bent *e, int status)
{
	e->nsteps = 0;
	e->p->queued = 0;
	refuse_point(b, e->p, status);
}

static void commit(struct dc_bent *e)
{
	struct dc_point *p = e->p;

	p->cur = e->want;
	p->cur_kind = e->want_kind;
	p->status = DYNCALL_OK;
	p->queued = 0;
}

/* Write to fresh memory nobody executes yet (new stubs): through the
 * alias or /proc/self/mem (any copy will do: nobody runs these bytes),
 * else plain stores under a temporarily writable span. */
int dc_text_write(uintptr_t addr, const void *bytes, size_t len)
{
	uintptr_t lo = addr & ~(page_size() - 1);
	uintptr_t hi = (addr + len + page_size() - 1) & ~(page_size() - 1);
	int err;

	check_fork();
	dc_stubs_dirty = true;
	if (alias_get(addr, len) ? poke(W_ALIAS, addr, bytes, len, 0) :
	    mem_fd >= 0 && poke(W_MEM, addr, bytes, len, 0)) {
		dc_code_changed(addr, len); /* (a translation of reused bytes) */
		return 0;
	}
	if (!(writers & DC_WRITE_PROT))
		return DYNCALL_ERR_MPROTECT;
	err = protect(lo, hi, ARCH_TEXT_PROT | PROT_WRITE);
	if (err) {
		note_mprotect_failure(lo, ARCH_TEXT_PROT | PROT_WRITE, err);
		return DYNCALL_ERR_MPROTECT;
	}
	memcpy((void *)addr, bytes, len);
	dc_code_changed(addr, len);
	err = protect(lo, hi, ARCH_TEXT_PROT);
	if (err)
		note_mprotect_failure(lo, ARCH_TEXT_PROT, err);
	return 0;
}

/* A later step of a multi-step write whose first step is done: threads
 * may be spinning on it, so every writer is tried. */
static void finish_step(const struct arch_step *s, int w)
{
	uintptr_t lo = s->addr & ~(page_size() - 1);
	uintptr_t hi = (s->addr + s->len + page_size() - 1) &
		       ~(page_size() - 1);

	if (do_step(s, w) || do_step(s, W_ALIAS) ||
	    (mem_fd >= 0 && (!s->atomic || ARCH_STORE_WORD == 4) &&
	     do_step(s, W_MEM)))
		return;
	if (w != W_PROT && (writers & DC_WRITE_PROT) &&
	    !already_open(lo, hi) &&
	    !protect(lo, hi, ARCH_TEXT_PROT | PROT_WRITE)) {
		int err;

		do_step(s, W_PROT);
		err = protect(lo, hi, ARCH_TEXT_PROT);
		if (err)
			note_mprotect_failure(lo, ARCH_TEXT_PROT, err);
		return;
	}
	dc_set_status(DYNCALL_ERR_STUCK, "cannot finish the write at %#lx",
		      (unsigned long)s->addr);
	dc_cfg.disabled = true;
}

/* Collect a page, skipping recent duplicates: points come in runs on a
 * few pages (trampolines together, call sites together), and the sort is
 * the main cost of a large batch otherwise. */
static void add_page(uintptr_t *pages, size_t *n, uintptr_t page)
{
	for (size_t i = *n, k = 0; i-- > 0 && k < 8; k++)
		if (pages[i] == page)
			return;
	pages[(*n)++] = page;
}

/* What the phases of dc_batch_run() found. */
struct run {
	uint64_t written, jts;
	bool took_direct;
	int maxsteps;
};

/* Page scratch for a batch of more than 32 points: kept between batches
 * (unmapping shoots down TLBs too); NULL if it cannot be had. */
static uintptr_t *batch_scratch(size_t n)
{
	static uintptr_t *scratch;
	static size_t scratch_size;
	size_t size = 6 * n * sizeof(uintptr_t);

	if (size > scratch_size) {
		dc_free(scratch, scratch_size);
		scratch = dc_alloc(size);
		scratch_size = scratch ? size : 0;
	}
	return scratch;
}

/* 1. a writer for every point (every queued point changes: dc_batch_add
 * drops the others); the pages of the points left to the last resort, to
 * open.  Returns how many pages. */
static size_t pick_writers(struct dc_batch *b, uintptr_t *pages)
{
	uintptr_t pm = page_size() - 1;
	size_t npages = 0;

	for (unsigned i = 0; i < b->n; i++) {
		struct dc_bent *e = &b->e[i];
		uintptr_t at = e->at;

		e->writer = (uint8_t)pick_writer(at, ARCH_BRANCH_LEN);
		if (e->writer == W_NONE) {
			refuse(b, e, DYNCALL_ERR_MPROTECT);
			continue;
		}
		if (e->writer == W_PROT && e->want_kind == DC_DEST_DIRECT &&
		    !prot_direct) {
			/* undoing it would need mprotect again, which a
			 * sandbox may refuse by then: stay guarded/slow
			 * (unless mprotect is the writer asked for) */
			e->writer = W_NONE;
			e->p->queued = 0;
			if (e->cur_kind == DC_DEST_DIRECT)
				b->direct_left++;
			b->skipped++;
			continue;
		}
		if (e->writer != W_PROT)
			continue;
		add_page(pages, &npages, at & ~pm);
		if (((at + ARCH_BRANCH_LEN - 1) & ~pm) != (at & ~pm))
			add_page(pages, &npages,
				 (at + ARCH_BRANCH_LEN - 1) & ~pm);
	}
	return npages;
}

/* 2. verify each point, plan it, do its first step */
static void first_steps(struct dc_batch *b, struct run *r)
{
	struct arch_step steps[ARCH_MAX_STEPS];

	for (unsigned i = 0; i < b->n; i++) {
		struct dc_bent *e = &b->e[i];
		uintptr_t dest;
		int n;

		if (e->writer == W_NONE)
			continue;
		if (!arch_branch_read(e->at, e->op, &dest) || dest != e->cur) {
			refuse(b, e, DYNCALL_ERR_BYTES);
			continue;
		}
		n = arch_branch_plan(e->at, e->op, e->cur, e->want, steps);
		if (n <= 0) {
			if (n < 0) {
				refuse(b, e, n);
			} else {
				commit(e);
				b->skipped++;
			}
			continue;
		}
		if (!do_step(&steps[0], e->writer)) {
			refuse(b, e, DYNCALL_ERR_MPROTECT); /* nothing written */
			continue;
		}
		if (e->cur_kind == DC_DEST_DIRECT)
			r->took_direct = true;
		r->written++;
		e->nsteps = (uint8_t)n;
		if (n == 1) {
			commit(e);
			continue;
		}
		r->jts++;
		if (n > r->maxsteps)
			r->maxsteps = n;
	}
}

/* 3. multi-step writes (jump-to-self): a sync before every next step of
 * every such point */
static void later_steps(struct dc_batch *b, struct run *r)
{
	struct arch_step steps[ARCH_MAX_STEPS];

	for (int s = 1; s < r->maxsteps; s++) {
		if (!b->unshared)
			dc_sync_cores();
		for (unsigned i = 0; i < b->n; i++) {
			struct dc_bent *e = &b->e[i];

			if (e->nsteps <= s)
				continue;
			arch_branch_plan(e->at, e->op, e->cur, e->want, steps);
			finish_step(&steps[s], e->writer);
			r->written++;
			if (s == e->nsteps - 1)
				commit(e);
		}
	}
}

int dc_batch_run(struct dc_batch *b)
{
	uintptr_t stackbuf[3 * 64], *pages = stackbuf, *lo, *hi;
	struct run r = { 0 };
	size_t npages;
	long nspans;

	if (!b->n)
		goto out;
	/* Stubs written for this batch must be seen before any branch
	 * that leads to them. */
	if (dc_stubs_dirty) {
		dc_sync_cores();
		dc_stubs_dirty = false;
	}
	if (b->n > 32 && !(pages = batch_scratch(b->n))) {
		for (unsigned i = 0; i < b->n; i++)
			refuse(b, &b->e[i], DYNCALL_ERR_NOMEM);
		goto out;
	}
	lo = pages + 2 * b->n;
	hi = lo + 2 * b->n;

	check_fork();
	npages = pick_writers(b, pages);
	nspans = npages ? open_spans(pages, npages, lo, hi) : 0;
	if (nspans < 0) {
		for (unsigned i = 0; i < b->n; i++)
			if (b->e[i].writer == W_PROT) {
				b->e[i].writer = W_NONE;
				refuse(b, &b->e[i], DYNCALL_ERR_MPROTECT);
			}
		nspans = 0;
	}
	first_steps(b, &r);
	later_steps(b, &r);
	/* 4. see "When cores are synchronized" above; an unshared batch
	 * (registration: points of a module whose code no other thread can
	 * have reached yet) has nobody to synchronize with */
	if (r.took_direct && !b->unshared)
		dc_sync_cores();
	/* 5. R-X again (or at the end of the text session) */
	close_spans(lo, hi, (size_t)nspans);
out:
	if (r.written)
		DC_STAT_ADD(patches, r.written);
	if (r.jts)
		DC_STAT_ADD(jump_to_self, r.jts);
	if (b->skipped)
		DC_STAT_ADD(skipped, b->skipped);
	b->skipped = 0;
	batch_release(b);
	return b->status;
}

/* Step t as pieces (out[0..return)): a non-atomic step that crosses a
 * page is written page by page. */
static int step_pieces(const struct arch_step *t, uintptr_t pm,
		       struct arch_step out[2])
{
	uintptr_t end = t->addr + t->len;
	size_t k = 0;

	out[0] = *t;
	if (!t->atomic && ((t->addr ^ (end - 1)) & ~pm))
		k = ((end - 1) & ~pm) - t->addr; /* bytes on page 1 */
	if (!k)
		return 1;
	out[0].len = (uint8_t)k;
	out[1] = *t;
	out[1].addr = t->addr + k;
	out[1].len = (uint8_t)(t->len - k);
	memmove(out[1].bytes, t->bytes + k, t->len - k);
	return 2;
}

/* The writer of a piece: /proc/self/mem is one aligned 32-bit copy at
 * most, so an atomic 64-bit step (a function-entry slot) needs a store;
 * on x86-64 it copies in any order, and pick_writer only returns W_MEM
 * when every step is one aligned 32-bit copy. */
static int piece_writer(const struct arch_step *s)
{
	int w = pick_writer(s->addr, s->len);

	if (w == W_MEM && s->atomic && s->len > 4)
		w = (writers & DC_WRITE_PROT) ? W_PROT : W_NONE;
	return w;
}

/* piece_writer, remembering the last alias found (*m): the steps of a
 * batch come in address order, many to one alias.  Within one
 * dc_text_steps call an alias is only ever replaced by one over a larger
 * range (alias_get_slow), so a range once found stays aliased; its rw
 * view is only used once no alias can be made any more (the second walk
 * of steps_direct). */
static int piece_writer_near(const struct arch_step *s, struct alias *m)
{
	struct alias *a;
	int w;

	if (s->addr >= m->lo && s->addr + s->len <= m->hi)
		return W_ALIAS;
	w = piece_writer(s);
	if (w == W_ALIAS && (a = alias_cached(s->addr, s->addr + s->len)) &&
	    a->gen == fork_gen)
		*m = *a;
	return w;
}

/* dc_text_steps without scratch when no piece is left to mprotect (the
 * usual case: aliases): the writers are picked first for all (an alias
 * made then copies the page as it is before any of these writes, as in
 * the general path), then the pieces written in order.  False, nothing
 * written: some piece needs mprotect. */
static bool steps_direct(const struct arch_step *steps, size_t n, bool *ok,
			 size_t *np, size_t *refused)
{
	uintptr_t pm = page_size() - 1;
	struct arch_step p[2];
	struct alias m = { 0 };

	for (size_t i = 0; i < n; i++)
		for (int j = 0, k = step_pieces(&steps[i], pm, p); j < k; j++)
			if (piece_writer_near(&p[j], &m) == W_PROT)
				return false;
	m = (struct alias){ 0 };
	for (size_t i = 0; i < n; i++) {
		int k = step_pieces(&steps[i], pm, p);

		if (ok)
			ok[i] = true;
		for (int j = 0; j < k; j++) {
			int w = piece_writer_near(&p[j], &m);
			bool done = true;

			if (w == W_ALIAS && m.rw && p[j].addr >= m.lo &&
			    p[j].addr + p[j].len <= m.hi) {
				if (!alias_step(&p[j], m.lo, m.rw)) {
					m = (struct alias){ 0 }; /* renewed */
					done = do_step(&p[j], W_ALIAS);
				}
			} else {
				done = w != W_NONE && do_step(&p[j], w);
			}

			if (!done && ok)
				ok[i] = false;
			*refused += !done;
			++*np;
		}
	}
	return true;
}

/*
 * Stores on live text outside the branch machinery (function-entry
 * patching, prologue.c): every step through the preferred writer, atomic
 * ones as one aligned word (do_step), the pages left to the last resort
 * opened once for all of them.  A non-atomic step that crosses a page is
 * written page by page, each piece through its page's writer (a page
 * written through an alias must never be written through mprotect: that
 * would give the executing MAP_PRIVATE view a private copy the alias no
 * longer reaches).  No core synchronization: the caller orders its phases
 * with dc_sync_cores().  Returns the number of steps refused; ok[i] says
 * which (NULL: not wanted).
 */
size_t dc_text_steps(const struct arch_step *steps, size_t n, bool *ok)
{
	uintptr_t stackbuf[6 * 16], *pages = stackbuf, *lo, *hi;
	uintptr_t pm = page_size() - 1;
	struct arch_step pstack[16], *s = pstack;
	uint32_t owner_stack[16], *owner = owner_stack;
	size_t np = 0, npages = 0, refused = 0, size = 0;
	uint8_t wbuf[16], *w = wbuf;
	long nspans = 0;

	if (!n)
		return 0;
	check_fork();
	if (steps_direct(steps, n, ok, &np, &refused)) {
		DC_STAT_ADD(patches, np - refused);
		if (refused)
			DC_STAT_ADD(refused, refused);
		return refused;
	}
	if (n > 8) {
		/* pieces (2n), their owners and writers, 3 x 2n page words */
		size = 2 * n * (sizeof(*s) + sizeof(*owner) + 1 +
				3 * sizeof(uintptr_t));
		pages = dc_alloc_scratch(size);
		if (!pages) {
			for (size_t i = 0; ok && i < n; i++)
				ok[i] = false;
			return n;
		}
		s = (struct arch_step *)(pages + 6 * n);
		owner = (uint32_t *)(s + 2 * n);
		w = (uint8_t *)(owner + 2 * n);
	}
	lo = pages + 2 * n;
	hi = lo + 2 * n;
	for (size_t i = 0; i < n; i++) {
		int k = step_pieces(&steps[i], pm, &s[np]);

		if (ok)
			ok[i] = true;
		for (int j = 0; j < k; j++)
			owner[np++] = (uint32_t)i;
	}
	for (size_t i = 0; i < np; i++) {
		w[i] = (uint8_t)piece_writer(&s[i]);
		if (w[i] != W_PROT)
			continue;
		add_page(pages, &npages, s[i].addr & ~pm);
		add_page(pages, &npages, (s[i].addr + s[i].len - 1) & ~pm);
	}
	if (npages) {
		nspans = open_spans(pages, npages, lo, hi);
		if (nspans < 0) {
			for (size_t i = 0; i < np; i++)
				if (w[i] == W_PROT)
					w[i] = W_NONE;
			nspans = 0;
		}
	}
	for (size_t i = 0; i < np; i++) {
		bool done = w[i] != W_NONE && do_step(&s[i], w[i]);

		if (!done && ok)
			ok[owner[i]] = false;
		refused += !done;
	}
	close_spans(lo, hi, (size_t)nspans);
	DC_STAT_ADD(patches, np - refused);
	if (refused)
		DC_STAT_ADD(refused, refused);
	if (pages != stackbuf)
		dc_free(pages, size);
	return refused;
}
