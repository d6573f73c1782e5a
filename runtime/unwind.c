// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Unwind information for the jump functions the runtime generates
 * (docs/prologues.md "Unwinding from a handler"), so that an unwinder
 * that needs an FDE (libgcc's, behind backtrace() and C++ exceptions)
 * goes on from a handler through the jump function to the hooked
 * function's caller instead of stopping there.
 *
 * The arch gives the call frame instructions of each jump function
 * (struct arch_cfi, arch.h) and its CIE (ARCH_CFI_*); this file writes
 * them as .eh_frame data (a CIE, FDEs with absolute addresses, a zero
 * terminator) and hands them to the unwinder with __register_frame_info,
 * the interface crtstuff and JIT compilers use with libgcc.
 *
 * What libgcc 12 (Debian 12's libgcc_s) does with them decides the
 * layout:
 *  - its registered objects are a list walked under one lock on every
 *    frame lookup, so they must stay few;
 *  - an object cannot grow (libgcc counts its FDEs, then fills an array
 *    of that size, in two walks of the data);
 *  - the list is sorted by each object's lowest address, highest first,
 *    and a lookup searches only the first object that starts at or below
 *    the pc: objects must not interleave, or a pc in one behind another's
 *    start is not found.
 * So the FDEs of each pool chunk (dc_pool_chunk: blocks handed out upwards,
 * never given back) are kept apart from every other chunk's, and each
 * batch that generated jump functions registers one new object per chunk
 * it wrote (dc_unwind_commit), above the chunk's older ones.  A chunk's
 * objects are merged like a binary counter: when the newest holds at
 * least as many FDEs as the one below it, both are copied into a new
 * object M, which is registered first; then the older one A is
 * deregistered, then the newer B.  M starts where A does and libgcc puts
 * it behind A: while A is there, A answers for its pcs and B for its
 * own; once A is gone, M is the first candidate for A's pcs and B still
 * for its own; no lookup misses at any step (the other order, B first,
 * would leave B's pcs to A for a moment: missed, test/prologues/unwind.c).
 * At most about log2(FDEs) objects per chunk are registered.
 * Deregistered data is never freed nor reused: an unwinder may still be
 * reading an FDE it found just before (a batch of 10,000 jump functions:
 * one object, about 480 KB).
 *
 * __register_frame_info takes the unwinder's per-object record from the
 * caller (struct object, 56 bytes in libgcc 12; OBJECT_SIZE here), and
 * __deregister_frame_info gives it back instead of freeing it.  That
 * matters: libgcc 12's _Unwind_Find_FDE reads the record of the object
 * it found after it has released its lock, so a record freed by a
 * concurrent __deregister_frame (the malloc'd one of the convenience
 * call) was read after the free: an unknown pointer encoding and abort(),
 * seen under qemu when threads unwound while objects were merged
 * (test/prologues/unwind.c).  Here the records are never freed.
 *
 * The references to __register_frame_info and __deregister_frame_info are
 * weak:
 * libdyncall.so is linked with libgcc_s, a program linked with
 * libdyncall.a gets unwind information only if it links the unwinder
 * (C++ programs do).  Without them this file does nothing.
 *
 * Caller holds the lock.
 */
#include <string.h>

#include "arch/arch.h"
#include "internal.h"

#ifdef ARCH_CFI_RA_REG

void __register_frame_info(const void *begin, void *ob) __attribute__((weak));
void *__deregister_frame_info(const void *begin) __attribute__((weak));
#define OBJECT_SIZE 128 /* >= libgcc's struct object (56 bytes) */
#define HAVE_UNWINDER (__register_frame_info && __deregister_frame_info)

/* One jump function's FDE, until the batch's end (48 bytes: a batch of
 * 10,000 fills fresh pages with them). */
struct pending {
	uintptr_t chunk, pc;
	uint32_t len;
	uint8_t nops;
	bool done; /* written to its chunk's object (commit) */
	uint8_t ops[ARCH_CFI_OPS_MAX];
};

/* A registered object: [CIE][FDEs][0] in blob[0..size). */
struct object {
	uint8_t *blob;
	void *ob; /* the unwinder's record of it (never freed) */
	size_t size, fde_off, nfde;
};

/* A pool chunk's objects, in address order (sizes strictly decreasing
 * from the first: at most 64). */
struct chunk_objects {
	uintptr_t chunk;
	struct object objs[64];
	unsigned nobj;
};

static struct pending *pend;
static size_t npend, pend_cap;
static struct chunk_objects *chunks[64]; /* code_pool.c's POOL_MAX */
static unsigned nchunks;

static const uint8_t cie_init[] = { ARCH_CFI_CIE_INIT };

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The CIE: length, id 0, version 1, augmentation "" (FDE addresses are
 * absolute, 8 bytes), code and data alignment, the return address
 * column, the entry rule; padded with DW_CFA_nop (0) to 8 bytes. */
static size_t cie_size(void)
{
	return pad8(4 + 4 + 1 + 1 + 1 + 1 + 1 + sizeof(cie_init));
}

static void put_cie(uint8_t *b)
{
	uint32_t len = (uint32_t)(cie_size() - 4);
	uint8_t *p = b + 4;

	memset(b, 0, cie_size());
	memcpy(b, &len, 4);
	p += 4; /* CIE id 0 */
	*p++ = 1; /* version */
	*p++ = 0; /* augmentation "" */
	*p++ = ARCH_CFI_CODE_ALIGN; /* uleb128, < 128 */
	*p++ = (uint8_t)(ARCH_CFI_DATA_ALIGN & 0x7f); /* sleb128, > -64 */
	*p++ = ARCH_CFI_RA_REG;
	memcpy(p, cie_init, sizeof(cie_init));
}

static size_t fde_size(const struct pending *f)
{
	return pad8(4 + 4 + 8 + 8 + f->nops);
}

/* An FDE at b[at..): length, the distance back to the CIE at b[0],
 * pc_begin, pc_range, the instructions, DW_CFA_nop padding. */
static void put_fde(uint8_t *b, size_t at, const struct pending *f)
{
	uint32_t len = (uint32_t)(fde_size(f) - 4);
	uint32_t cie = (uint32_t)(at + 4);
	uint64_t pc = f->pc, range = f->len;

	memset(b + at, 0, fde_size(f));
	memcpy(b + at, &len, 4);
	memcpy(b + at + 4, &cie, 4);
	memcpy(b + at + 8, &pc, 8);
	memcpy(b + at + 16, &range, 8);
	memcpy(b + at + 24, f->ops, f->nops);
}

/* A new blob for `bytes` of FDEs after the CIE; NULL without memory. */
static uint8_t *blob_new(size_t bytes, struct object *o)
{
	o->fde_off = cie_size();
	o->size = o->fde_off + bytes + 4;
	/* zeroed: the terminator, and the record as libgcc expects it */
	o->blob = dc_alloc(o->size + OBJECT_SIZE);
	if (!o->blob)
		return NULL;
	o->ob = o->blob + ((o->size + 7) & ~(size_t)7);
	put_cie(o->blob);
	return o->blob;
}

/* Copy src's FDEs to b[at..), each pointing back at b's CIE. */
static size_t copy_fdes(uint8_t *b, size_t at, const struct object *src)
{
	size_t n = src->size - 4 - src->fde_off;

	memcpy(b + at, src->blob + src->fde_off, n);
	for (size_t i = at; i < at + n;) {
		uint32_t len, cie = (uint32_t)(i + 4);

		memcpy(&len, b + i, 4);
		memcpy(b + i + 4, &cie, 4);
		i += 4 + len;
	}
	return at + n;
}

/* Merge a chunk's two newest objects into one: registered before they
 * go, the older first (above). */
static void merge_top(struct chunk_objects *c)
{
	struct object *a = &c->objs[c->nobj - 2], *b = &c->objs[c->nobj - 1], m;
	size_t at;

	if (!blob_new(a->size - 4 - a->fde_off + b->size - 4 - b->fde_off, &m))
		return;
	at = copy_fdes(m.blob, m.fde_off, a);
	copy_fdes(m.blob, at, b);
	m.nfde = a->nfde + b->nfde;
	__register_frame_info(m.blob, m.ob);
	__deregister_frame_info(a->blob);
	__deregister_frame_info(b->blob);
	*a = m; /* a's and b's blobs are never freed (above) */
	c->nobj--;
}

static struct chunk_objects *chunk_objects(uintptr_t chunk)
{
	for (unsigned i = 0; i < nchunks; i++)
		if (chunks[i]->chunk == chunk)
			return chunks[i];
	if (nchunks == sizeof(chunks) / sizeof(chunks[0]))
		return NULL;
	chunks[nchunks] = dc_alloc(sizeof(struct chunk_objects));
	if (!chunks[nchunks])
		return NULL;
	chunks[nchunks]->chunk = chunk;
	return chunks[nchunks++];
}

/* Room for n more pending FDEs (false: no memory). */
static bool pend_room(size_t n)
{
	size_t cap = pend_cap ? pend_cap : 64;
	struct pending *p;

	if (pend_cap - npend >= n)
		return true;
	while (cap - npend < n)
		cap *= 2;
	p = dc_alloc_scratch(cap * sizeof(*p));
	if (!p)
		return false;
	if (pend) {
		memcpy(p, pend, npend * sizeof(*p));
		dc_free(pend, pend_cap * sizeof(*p));
	}
	pend = p;
	pend_cap = cap;
	return true;
}

void dc_unwind_reserve(size_t n)
{
	if (HAVE_UNWINDER)
		pend_room(n);
}

void dc_unwind_add(uintptr_t chunk, uintptr_t pc, size_t len,
		   const struct arch_cfi *cfi)
{
	struct pending *f;

	if (!chunk || !cfi->len || !HAVE_UNWINDER || !pend_room(1))
		return; /* no unwind information for this one */
	f = &pend[npend++];
	f->chunk = chunk;
	f->pc = pc;
	f->len = (uint32_t)len;
	f->nops = (uint8_t)cfi->len;
	f->done = false;
	memcpy(f->ops, cfi->ops, cfi->len);
}

/* The pending FDEs of one chunk (in address order: the pool hands its
 * blocks out upwards) as its newest object, then the merges. */
static void commit_chunk(uintptr_t chunk)
{
	struct chunk_objects *c = chunk_objects(chunk);
	struct object o;
	size_t bytes = 0, n = 0, at;

	for (size_t i = 0; i < npend; i++)
		if (pend[i].chunk == chunk)
			bytes += fde_size(&pend[i]);
	if (!c || c->nobj == sizeof(c->objs) / sizeof(c->objs[0]) ||
	    !blob_new(bytes, &o))
		c = NULL; /* no unwind information for these */
	at = c ? o.fde_off : 0;
	for (size_t i = 0; i < npend; i++) {
		if (pend[i].chunk != chunk)
			continue;
		pend[i].done = true;
		if (c) {
			put_fde(o.blob, at, &pend[i]);
			at += fde_size(&pend[i]);
			n++;
		}
	}
	if (!c)
		return;
	o.nfde = n;
	__register_frame_info(o.blob, o.ob);
	c->objs[c->nobj++] = o;
	while (c->nobj >= 2 &&
	       c->objs[c->nobj - 1].nfde >= c->objs[c->nobj - 2].nfde) {
		unsigned before = c->nobj;

		merge_top(c);
		if (c->nobj == before)
			break; /* no memory: keep them apart */
	}
}

void dc_unwind_commit(void)
{
	for (size_t i = 0; i < npend; i++)
		if (!pend[i].done)
			commit_chunk(pend[i].chunk);
	npend = 0;
}

#else /* no unwind information from this arch */

void dc_unwind_add(uintptr_t chunk, uintptr_t pc, size_t len,
		   const struct arch_cfi *cfi)
{
	(void)chunk;
	(void)pc;
	(void)len;
	(void)cfi;
}

void dc_unwind_reserve(size_t n)
{
	(void)n;
}

void dc_unwind_commit(void)
{
}

#endif
