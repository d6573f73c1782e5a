/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Batched branch writes: the only code that writes to text.
 *
 * A batch is a list of points, each with the destination it should get.
 * dc_batch_run():
 *   1. verifies that every point still holds the branch it is believed to
 *      hold (else that point is refused, DYNCALL_ERR_BYTES: never write
 *      over unexpected bytes) and drops points with nothing to change;
 *   2. makes the smallest page spans around the writes RWX;
 *   3. for step i = 0, 1, ...: does step i of every point's plan
 *      (arch_branch_plan), then synchronizes all cores once;
 *   4. restores R-X on every span, on every path.
 * So a batch of any size costs one membarrier per step (1, or 3 when a
 * point needs the jump-to-self protocol), not one per point.
 *
 * Caller holds the lock.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "internal.h"

#define QUEUED 0xff /* point->nsteps while in a batch, before planning */
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
	/* Registered at start-up, so this cannot fail; if it does, written
	 * branches may not be seen atomically by the other cores and we
	 * cannot go on (see docs/runtime.md, "The impossible case"). */
	dc_fatal("membarrier(SYNC_CORE) failed: %s", strerror(errno));
}

/* In-place heapsort: qsort may call malloc, which is not signal-safe. */
static void sort_addrs(uintptr_t *a, size_t n)
{
	for (size_t k = n; k-- > 0;) {
		for (size_t i = k, j; (j = 2 * i + 1) < n; i = j) {
			if (j + 1 < n && a[j + 1] > a[j])
				j++;
			if (a[i] >= a[j])
				break;
			uintptr_t t = a[i]; a[i] = a[j]; a[j] = t;
		}
	}
	for (size_t end = n; end-- > 1;) {
		uintptr_t t = a[0]; a[0] = a[end]; a[end] = t;
		for (size_t i = 0, j; (j = 2 * i + 1) < end; i = j) {
			if (j + 1 < end && a[j + 1] > a[j])
				j++;
			if (a[i] >= a[j])
				break;
			t = a[i]; a[i] = a[j]; a[j] = t;
		}
	}
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
 * writable until its end, so the two batches of one store (undo, then
 * repatch) of the same pages cost one mprotect pair, not two: restoring R-X
 * shoots down TLBs on every core and dominates the cost of an update.
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

static void close_spans(const uintptr_t *lo, const uintptr_t *hi, size_t n);

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

static void close_spans(const uintptr_t *lo, const uintptr_t *hi, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int err;

		if (hi[i] == lo[i])
			continue;
		err = protect(lo[i], hi[i], ARCH_TEXT_PROT);

		if (err)
			note_mprotect_failure(lo[i], ARCH_TEXT_PROT, err);
	}
}

/* One store of a plan.  Atomic stores rewrite the whole aligned quadword
 * (one `mov` of 8 bytes): the other bytes keep their current value, and
 * only we write text, under the lock. */
static void do_step(const struct arch_step *s)
{
	if (s->atomic && ARCH_STORE_WORD == 4) {
		/* aarch64, ppc64le: one aligned 32-bit store of the word that
		 * holds the instruction (arch_branch_plan: addr 4-aligned) */
		uintptr_t w = s->addr & ~(uintptr_t)3;
		_Atomic uint32_t *wp = (_Atomic uint32_t *)w;
		uint32_t v = atomic_load_explicit(wp, memory_order_relaxed);

		memcpy((char *)&v + (s->addr - w), s->bytes, s->len);
		atomic_store_explicit(wp, v, memory_order_release);
	} else if (s->atomic) {
		uintptr_t q = s->addr & ~(uintptr_t)7;
		_Atomic uint64_t *qp = (_Atomic uint64_t *)q;
		uint64_t v = atomic_load_explicit(qp, memory_order_relaxed);

		memcpy((char *)&v + (s->addr - q), s->bytes, s->len);
		atomic_store_explicit(qp, v, memory_order_release);
	} else {
		volatile uint8_t *p = (volatile uint8_t *)s->addr;

		for (unsigned i = 0; i < s->len; i++)
			p[i] = s->bytes[i];
	}
	arch_flush_icache(s->addr, s->len);
	DC_STAT_ADD(patches, 1);
}

void dc_batch_add(struct dc_batch *b, struct dc_point *p, uintptr_t want,
		  int want_kind)
{
	if (!atomic_load_explicit(&p->addr, memory_order_acquire))
		return;
	if (p->nsteps == QUEUED) {
		p->want = want;
		p->want_kind = want_kind;
		return;
	}
	if (p->cur == want) {
		p->cur_kind = want_kind;
		DC_STAT_ADD(skipped, 1);
		return;
	}
	if (dc_cfg.disabled && want_kind >= DC_DEST_GUARD) {
		p->status = dc_cfg.status;
		return;
	}
	p->want = want;
	p->want_kind = want_kind;
	p->nsteps = QUEUED;
	p->next = b->head;
	b->head = p;
	b->n++;
}

static void refuse(struct dc_batch *b, struct dc_point *p, int status)
{
	p->status = status;
	p->nsteps = 0;
	if (!b->status)
		b->status = status;
	DC_STAT_ADD(refused, 1);
}

/* Write to fresh memory nobody executes yet (new stubs): plain stores
 * under a temporarily writable span. */
int dc_text_write(uintptr_t addr, const void *bytes, size_t len)
{
	uintptr_t lo = addr & ~(page_size() - 1);
	uintptr_t hi = (addr + len + page_size() - 1) & ~(page_size() - 1);
	int err = protect(lo, hi, ARCH_TEXT_PROT | PROT_WRITE);

	if (err) {
		note_mprotect_failure(lo, ARCH_TEXT_PROT | PROT_WRITE, err);
		return DYNCALL_ERR_MPROTECT;
	}
	memcpy((void *)addr, bytes, len);
	arch_flush_icache(addr, len);
	err = protect(lo, hi, ARCH_TEXT_PROT);
	if (err)
		note_mprotect_failure(lo, ARCH_TEXT_PROT, err);
	dc_stubs_dirty = true;
	return 0;
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

int dc_batch_run(struct dc_batch *b)
{
	struct arch_step steps[ARCH_MAX_STEPS];
	uintptr_t stackbuf[3 * 64], *pages = stackbuf, *lo, *hi;
	size_t npages = 0, bufsize = 0;
	long nspans;
	int maxsteps = 0, n;
	struct dc_point *p;

	if (!b->head)
		return b->status;
	/* Stubs written for this batch must be seen before any branch
	 * that leads to them. */
	if (dc_stubs_dirty) {
		dc_sync_cores();
		dc_stubs_dirty = false;
	}
	if (b->n > 32) {
		/* Kept between batches: unmapping shoots down TLBs too. */
		static uintptr_t *scratch;
		static size_t scratch_size;

		bufsize = 6 * b->n * sizeof(uintptr_t);
		if (bufsize > scratch_size) {
			dc_free(scratch, scratch_size);
			scratch = dc_alloc(bufsize);
			scratch_size = scratch ? bufsize : 0;
		}
		pages = scratch;
		bufsize = 0;
		if (!pages) {
			for (p = b->head; p; p = p->next)
				refuse(b, p, DYNCALL_ERR_NOMEM);
			goto out;
		}
	}
	lo = pages + 2 * b->n;
	hi = lo + 2 * b->n;

	for (p = b->head; p; p = p->next) {
		uintptr_t at = atomic_load(&p->addr), dest;

		if (!arch_branch_read(at, p->op, &dest) || dest != p->cur) {
			refuse(b, p, DYNCALL_ERR_BYTES);
			continue;
		}
		n = arch_branch_plan(at, p->op, p->cur, p->want, steps);
		if (n < 0) {
			refuse(b, p, n);
			continue;
		}
		p->nsteps = n;
		if (n == 0) {
			p->cur = p->want;
			p->cur_kind = p->want_kind;
			DC_STAT_ADD(skipped, 1);
			continue;
		}
		if (n > maxsteps)
			maxsteps = n;
		if (n > 1)
			DC_STAT_ADD(jump_to_self, 1);
		add_page(pages, &npages, at & ~(page_size() - 1));
		add_page(pages, &npages,
			 (at + ARCH_BRANCH_LEN - 1) & ~(page_size() - 1));
	}
	if (!maxsteps)
		goto out;
	nspans = open_spans(pages, npages, lo, hi);
	if (nspans < 0) {
		for (p = b->head; p; p = p->next)
			if (p->nsteps)
				refuse(b, p, DYNCALL_ERR_MPROTECT);
		goto out;
	}
	for (int i = 0; i < maxsteps; i++) {
		for (p = b->head; p; p = p->next) {
			if (p->nsteps <= i)
				continue;
			arch_branch_plan(atomic_load(&p->addr), p->op, p->cur,
					 p->want, steps);
			do_step(&steps[i]);
		}
		dc_sync_cores();
	}
	close_spans(lo, hi, (size_t)nspans);
	for (p = b->head; p; p = p->next) {
		if (!p->nsteps)
			continue;
		p->cur = p->want;
		p->cur_kind = p->want_kind;
		p->status = DYNCALL_OK;
	}
out:
	for (p = b->head; p; p = p->next)
		p->nsteps = 0;
	b->head = NULL;
	b->n = 0;
	if (bufsize)
		dc_free(pages, bufsize);
	return b->status;
}
