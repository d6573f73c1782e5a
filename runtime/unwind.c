// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * Unwind information for the jump functions the runtime generates
 * (docs/prologues.md "Unwinding from a handler"; the hook lists' too,
 * docs/hooks.md), so that an unwinder
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
 * Two kinds of libgcc registry decide the layout; which one is linked
 * is probed at the first registration (probe_merges):
 *
 * libgcc 12 and older (Debian 12's libgcc_s; the cross toolchains'):
 *  - its registered objects are a list walked under one lock on every
 *    frame lookup, so they must stay few;
 *  - an object cannot grow (libgcc counts its FDEs, then fills an array
 *    of that size, in two walks of the data);
 *  - the list is sorted by each object's lowest address, highest first,
 *    and a lookup searches only the first object that starts at or below
 *    the pc: objects must not interleave, or a pc in one behind another's
 *    start is not found.
 * So the FDEs of each pool chunk (dc_pool_chunk: blocks handed out upwards,
 * never given back; and of each stub region, dc_stub_region, for the
 * hook-list jump functions, which hooks.c registers one at a time) are
 * kept apart from every other chunk's, and each
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
 *
 * libgcc 13 and later (Debian 13's, Ubuntu 24.04's: ATOMIC_FDE_FAST_PATH)
 * keep the objects in a b-tree keyed by each one's lowest pc, holding its
 * range up to its highest; a lookup takes the one object whose range
 * holds the pc, in O(log n) and without a lock.  A second object with
 * the same lowest pc is not put in it (silently), and ranges must not
 * overlap: M above is not found while A is registered, nor after (libgcc
 * 13 refuses it; libgcc 14 keeps it in a second tree, by its data, and
 * deregistering A removes the pc entry M would have had).  There objects
 * are never merged: each batch's object per chunk stays (the chunks keep
 * them disjoint: a batch's jump functions are above every older one of
 * their chunk), as many as there were batches, each found in O(log n).
 * Merging there lost the merged FDEs (2,048 of 2,079 missing in
 * test/prologues/unwind.c with Debian 13's libgcc_s, GCC 14.2).
 *
 * The probe is the merge itself on one pc no code occupies (a byte of
 * this file's data): A registered, M registered, A deregistered; if the
 * unwinder then finds M's FDE for the pc, merging works and M is
 * deregistered; if not, objects are never merged and M is left as it is
 * (deregistering it would abort in libgcc 13, which never took it: its
 * gcc_assert, read in its source; libgcc 12 and 14 abort the same way
 * for an object they do not hold, seen).
 * Another unwinder (LLVM's libunwind makes __register_frame_info a no-op,
 * read in its source) finds nothing either: its objects are not merged,
 * nor used.
 *
 * Deregistered data is never freed nor reused: an unwinder may still be
 * reading an FDE it found just before.  A batch of 10,000 jump functions
 * is one object of about 480 KB, written in place; 10,000 hooked one at a
 * time copy each FDE into at most log2(10,000), 14, merged objects: at
 * most about 6.7 MB over the process's life (with the b-tree, 10,000
 * objects of 256 bytes: 2.5 MB).
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
 * strong: libdyncall.so is linked with libgcc_s; a fully static program
 * linked with libdyncall.a gets them from libgcc_eh.a, which the compiler
 * drivers link with -static.  (They were weak: an archive member is not
 * extracted for a weak reference, so a static program had no unwind
 * information unless something else pulled the unwinder in.)
 *
 * Caller holds the lock.
 */
#include <string.h>

#include "arch/arch.h"
#include "internal.h"

#ifdef ARCH_CFI_RA_REG

void __register_frame_info(const void *begin, void *ob);
void *__deregister_frame_info(const void *begin);
#define OBJECT_SIZE 128 /* >= libgcc's struct object (56 bytes) */

/* A registered object: [CIE][FDEs][0] in blob[0..size), the unwinder's
 * record of it (never freed: above) right before the CIE. */
struct object {
	uint8_t *blob;
	size_t size, fde_off, nfde;
};
#define RECORD(o) ((o)->blob - OBJECT_SIZE)

/* A pool chunk's objects, in address order (sizes strictly decreasing
 * from the first: at most 64). */
struct chunk_objects {
	uintptr_t chunk;
	struct object objs[64];
	unsigned nobj;
};

/* The batch's FDEs, written where they will be registered: when they are
 * all of one chunk (one module's functions, the usual case) this becomes
 * that chunk's new object as it is; else commit copies them out per
 * chunk.  cap: bytes for FDEs (untouched until written). */
static struct object batch;
static size_t batch_cap;
static uintptr_t batch_chunk; /* the first FDE's chunk */
static bool batch_mixed; /* FDEs of more than one chunk */

/* pool chunks (code_pool.c's POOL_MAX: 64) and up to as many stub
 * regions with hook-list jump functions: each kind has its own half, so
 * that many regions never leave a pool chunk without unwind information
 * (a region past its half gets none) */
#define MAX_CHUNKS 128
static struct chunk_objects *chunks[MAX_CHUNKS];
static unsigned nchunks, nregions;

static const uint8_t cie_init[] = { ARCH_CFI_CIE_INIT };

/* Whether the unwinder linked finds a merged object (above): probed at
 * the first registration. */
static enum { MERGES_UNPROBED, MERGES_FOUND, MERGES_LOST } merges;

/* The longest FDE of a function-entry jump function (what a batch
 * reserves room for): header, instructions, padding. */
#define FDE_MAX ((4 + 4 + 8 + 8 + ARCH_FENTRY_CFI_OPS_MAX + 7) & ~7)

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The code memory pc is in, as the objects are kept apart by: a pool
 * chunk (function-entry jump functions) or a stub region (hook-list
 * ones); both hand out their blocks upwards and never give them back. */
static uintptr_t chunk_of(uintptr_t pc)
{
	uintptr_t c = dc_pool_chunk(pc);

	return c ? c : dc_stub_region(pc);
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

/* A new object with room for `bytes` of FDEs after the CIE, its record
 * zeroed; NULL without memory.  The FDE bytes are not zeroed: each FDE
 * is written whole, the terminator by seal(). */
static uint8_t *object_new(size_t bytes, struct object *o)
{
	uint8_t *mem = dc_alloc_scratch(OBJECT_SIZE + cie_size() + bytes + 4);

	if (!mem)
		return NULL;
	memset(mem, 0, OBJECT_SIZE);
	o->blob = mem + OBJECT_SIZE;
	o->fde_off = cie_size();
	o->size = o->fde_off;
	o->nfde = 0;
	put_cie(o->blob);
	return o->blob;
}

/* The zero terminator after the FDEs; size then counts it. */
static void seal(struct object *o)
{
	memset(o->blob + o->size, 0, 4);
	o->size += 4;
}

/* Append an FDE for [pc, pc + len): length, the distance back to the CIE
 * at blob[0], pc_begin, pc_range, the instructions, DW_CFA_nop padding. */
static void put_fde(struct object *o, uintptr_t pc, size_t len,
		    const uint8_t *ops, unsigned nops)
{
	uint8_t *f = o->blob + o->size;
	size_t size = pad8(4 + 4 + 8 + 8 + nops);
	uint32_t flen = (uint32_t)(size - 4), cie = (uint32_t)(o->size + 4);
	uint64_t begin = pc, range = len;

	memset(f, 0, size);
	memcpy(f, &flen, 4);
	memcpy(f + 4, &cie, 4);
	memcpy(f + 8, &begin, 8);
	memcpy(f + 16, &range, 8);
	memcpy(f + 24, ops, nops);
	o->size += size;
	o->nfde++;
}

/* One FDE of a sealed object, as put_fde wrote it. */
struct fde_view {
	uintptr_t pc, range;
	const uint8_t *ops;
	unsigned nops; /* with the padding (DW_CFA_nop) */
	size_t size; /* its bytes, length field included */
};

/* The FDE at src->blob[*at] into f, *at moved past it; false at the
 * terminator.  The one walk over written FDEs. */
static bool next_fde(const struct object *src, size_t *at, struct fde_view *f)
{
	const uint8_t *b = src->blob + *at;
	uint32_t flen;
	uint64_t pc, range;

	if (*at + 4 >= src->size)
		return false;
	memcpy(&flen, b, 4);
	memcpy(&pc, b + 8, 8);
	memcpy(&range, b + 16, 8);
	f->pc = (uintptr_t)pc;
	f->range = (uintptr_t)range;
	f->ops = b + 24;
	f->nops = flen - 20;
	f->size = 4 + (size_t)flen;
	*at += f->size;
	return true;
}

/* Copy the FDEs of src (of `chunk` only, if not 0) to the end of o. */
static void copy_fdes(struct object *o, const struct object *src,
		      uintptr_t chunk)
{
	struct fde_view f;

	for (size_t at = src->fde_off; next_fde(src, &at, &f);)
		if (!chunk || chunk_of(f.pc) == chunk)
			put_fde(o, f.pc, f.range, f.ops, f.nops);
}

/* The FDE bytes of a sealed object, of the open batch. */
static size_t fde_bytes(const struct object *o)
{
	return o->size - 4 - o->fde_off;
}

static size_t fde_bytes_open(const struct object *o)
{
	return o->size - o->fde_off;
}

/* The pc the probe's FDEs describe: a byte no code occupies. */
static const uint8_t probe_pc[1];

struct dwarf_eh_bases;
const void *_Unwind_Find_FDE(void *pc, struct dwarf_eh_bases *bases);

/* A sealed object with one FDE for probe_pc; false without memory. */
static bool probe_object(struct object *o)
{
	static const uint8_t nop = 0;

	if (!object_new(pad8(4 + 4 + 8 + 8 + 1), o))
		return false;
	put_fde(o, (uintptr_t)probe_pc, 1, &nop, 1);
	seal(o);
	return true;
}

/* The merge protocol on probe_pc (above): does the unwinder find M? */
static void probe_merges(void)
{
	struct object a, m;
	struct {
		void *tbase, *dbase, *func;
	} bases; /* libgcc's, filled */

	merges = MERGES_LOST;
	if (!probe_object(&a) || !probe_object(&m))
		return; /* no memory: nothing is registered anyway */
	__register_frame_info(a.blob, RECORD(&a));
	__register_frame_info(m.blob, RECORD(&m));
	__deregister_frame_info(a.blob);
	if (_Unwind_Find_FDE((void *)probe_pc, (void *)&bases) !=
	    m.blob + m.fde_off)
		return; /* M stays: deregistering it may abort */
	__deregister_frame_info(m.blob);
	merges = MERGES_FOUND;
}

/* Merge a chunk's two newest objects into one: registered before they
 * go, the older first (above). */
static void merge_top(struct chunk_objects *c)
{
	struct object *a = &c->objs[c->nobj - 2], *b = &c->objs[c->nobj - 1], m;

	if (!object_new(fde_bytes(a) + fde_bytes(b), &m))
		return;
	copy_fdes(&m, a, 0);
	copy_fdes(&m, b, 0);
	seal(&m);
	__register_frame_info(m.blob, RECORD(&m));
	__deregister_frame_info(a->blob);
	__deregister_frame_info(b->blob);
	*a = m; /* a's and b's memory is never freed (above) */
	c->nobj--;
}

/* The objects kept for a chunk (NULL: none kept, or no room for one
 * more chunk).  The b-tree's are never merged, so not kept. */
static struct chunk_objects *chunk_objects(uintptr_t chunk)
{
	bool region = dc_pool_chunk(chunk) != chunk; /* a stub region's */

	if (merges == MERGES_LOST)
		return NULL;
	for (unsigned i = 0; i < nchunks; i++)
		if (chunks[i]->chunk == chunk)
			return chunks[i];
	if (nchunks == MAX_CHUNKS || (region && nregions == MAX_CHUNKS / 2) ||
	    (!region && nchunks - nregions == MAX_CHUNKS / 2))
		return NULL;
	chunks[nchunks] = dc_alloc(sizeof(struct chunk_objects));
	if (!chunks[nchunks])
		return NULL;
	chunks[nchunks]->chunk = chunk;
	nregions += region;
	return chunks[nchunks++];
}

/* Room for `bytes` more of FDEs in the batch (false: no memory): that
 * much at most (a reservation: n functions' FDE_MAX), then twice as much
 * each time. */
static bool batch_room(size_t bytes)
{
	size_t used = batch.blob ? fde_bytes_open(&batch) : 0, cap;
	struct object o;

	if (batch.blob && batch_cap - used >= bytes)
		return true;
	cap = batch.blob ? 2 * batch_cap : 0;
	if (cap - used < bytes)
		cap = used + bytes;
	if (cap < 64 * FDE_MAX)
		cap = 64 * FDE_MAX;
	if (!object_new(cap, &o))
		return false;
	if (batch.blob) { /* not registered yet: its memory can go */
		memcpy(o.blob + o.fde_off, batch.blob + batch.fde_off, used);
		o.size += used;
		o.nfde = batch.nfde;
		dc_free(RECORD(&batch),
			OBJECT_SIZE + cie_size() + batch_cap + 4);
	}
	batch = o;
	batch_cap = cap;
	return true;
}

/* The room a batch reserved, made at its first FDE: a batch whose jump
 * functions were all cached, or whose arch writes no FDE for them
 * (ppc64le's function-entry ones), allocates nothing. */
static size_t reserved;

void dc_unwind_reserve(size_t n)
{
	reserved += n * FDE_MAX;
}

void dc_unwind_add(uintptr_t chunk, uintptr_t pc, size_t len,
		   const struct arch_cfi *cfi)
{
	size_t need = pad8(4 + 4 + 8 + 8 + cfi->len);

	if (!chunk || !cfi->len)
		return; /* no unwind information for this one */
	if (reserved > need)
		need = reserved;
	reserved = 0;
	if (!batch_room(need))
		return;
	if (!batch.nfde)
		batch_chunk = chunk;
	batch_mixed |= chunk != batch_chunk;
	put_fde(&batch, pc, len, cfi->ops, cfi->len);
}

/* o (sealed), FDEs of c's chunk above its objects', as c's newest
 * object; then the merges.  The b-tree's: registered, nothing more. */
static void push(struct chunk_objects *c, struct object *o)
{
	__register_frame_info(o->blob, RECORD(o));
	if (merges == MERGES_LOST)
		return;
	c->objs[c->nobj++] = *o;
	while (c->nobj >= 2 &&
	       c->objs[c->nobj - 1].nfde >= c->objs[c->nobj - 2].nfde) {
		unsigned before = c->nobj;

		merge_top(c);
		if (c->nobj == before)
			break; /* no memory: keep them apart */
	}
}

static bool room_in(const struct chunk_objects *c)
{
	if (merges == MERGES_LOST)
		return true; /* nothing kept */
	return c && c->nobj < sizeof(c->objs) / sizeof(c->objs[0]);
}

/* The bytes of the batch's FDEs of one chunk (0: all). */
static size_t batch_bytes(uintptr_t chunk)
{
	struct fde_view f;
	size_t n = 0;

	for (size_t at = batch.fde_off; next_fde(&batch, &at, &f);)
		if (!chunk || chunk_of(f.pc) == chunk)
			n += f.size;
	return n;
}

/* Copy the batch's FDEs (of one chunk, or all: chunk 0) to a new object
 * of their size, registered as c's newest. */
static void copy_out(struct chunk_objects *c, uintptr_t chunk)
{
	struct object o;

	if (!room_in(c) || !object_new(batch_bytes(chunk), &o))
		return; /* no unwind information for these */
	copy_fdes(&o, &batch, chunk);
	seal(&o);
	push(c, &o);
}

/* A batch over several chunks: one object per chunk, copied out. */
static void commit_mixed(void)
{
	uintptr_t done[MAX_CHUNKS];
	unsigned ndone = 0;
	struct fde_view f;

	for (size_t at = batch.fde_off; next_fde(&batch, &at, &f);) {
		uintptr_t chunk = chunk_of(f.pc);
		unsigned k = 0;

		while (k < ndone && done[k] != chunk)
			k++;
		if (k < ndone || ndone == MAX_CHUNKS)
			continue;
		done[ndone++] = chunk;
		copy_out(chunk_objects(chunk), chunk);
	}
}

void dc_unwind_commit(void)
{
	struct chunk_objects *c;

	reserved = 0;
	if (!batch.nfde)
		return;
	if (merges == MERGES_UNPROBED)
		probe_merges();
	seal(&batch);
	c = batch_mixed ? NULL : chunk_objects(batch_chunk);
	/* registered where it was written when it fills at least half of
	 * its room (a large batch: its reservation), else copied out (the
	 * room stays for the next batch; registered memory is never freed) */
	if (!batch_mixed && room_in(c) && 2 * fde_bytes(&batch) >= batch_cap) {
		push(c, &batch);
		batch = (struct object){ 0 }; /* the next one is new */
		batch_cap = 0;
		return;
	}
	if (batch_mixed)
		commit_mixed();
	else
		copy_out(c, 0);
	batch.size = batch.fde_off; /* not registered: reused */
	batch.nfde = 0;
	batch_mixed = false;
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
