/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * A tiny assembler over a buffer that knows where it will live, for the
 * fixed-width (32-bit instruction) architectures: the arch file emits the
 * region header, guard, far and discovery stubs with it.  Each arch defines
 * EMIT32_FILL, the instruction that pads unused slots (one that traps).
 */
#ifndef DYNCALL_ARCH_EMIT32_H
#define DYNCALL_ARCH_EMIT32_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct emit {
	uint8_t *buf;
	uintptr_t at;
	size_t n;
};

static inline uintptr_t pc(const struct emit *e)
{
	return e->at + e->n;
}

static inline void put32(struct emit *e, uint32_t insn)
{
	memcpy(e->buf + e->n, &insn, 4);
	e->n += 4;
}

static inline void put64(struct emit *e, uint64_t v)
{
	memcpy(e->buf + e->n, &v, 8);
	e->n += 8;
}

static inline void pad_to(struct emit *e, size_t off)
{
	while (e->n < off)
		put32(e, EMIT32_FILL);
}

#endif
