/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * arch.cc - the per-arch table (one row per target, the rows' functions in
 * arch-<arch>.cc) and the assembly text helpers.
 */
#include "plugin.h"

void asm_printf(std::string &out, const char *fmt, ...)
{
	va_list ap, ap2;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		size_t old = out.size();
		out.resize(old + n + 1);
		vsnprintf(&out[old], n + 1, fmt, ap2);
		out.resize(old + n);
	}
	va_end(ap2);
}

void emit_symbol_header(std::string &out, const char *name, bool local)
{
	if (!local)
		asm_printf(out, "\t.globl %s\n\t.hidden %s\n", name, name);
	asm_printf(out, "\t.type %s, @function\n%s:\n", name, name);
}

static const struct dyncall_arch dyncall_arches[] = {
	[DYNCALL_ARCH_X86_64] = {
		.name = "x86_64",
		.func_align = "",
		.site_padding = ".p2align 2\n\t.byte 0x0f,0x1f,0x00\n",
		.cond_site_padding = ".p2align 3\n\t.byte 0x0f,0x1f,0x00\n",
		.has_cond = true,
		.func_from_symbol = false,
		.has_retpoline = true,
		.has_inline_guard = true,
		.trampoline = x86_64_trampoline,
		.register_call = x86_64_register_call,
	},
	[DYNCALL_ARCH_AARCH64] = {
		.name = "aarch64",
		.func_align = "\t.p2align 2\n",
		.site_padding = "",
		.cond_site_padding = "",
		.has_cond = true,
		.func_from_symbol = false,
		.has_retpoline = false,
		.has_inline_guard = false,
		.trampoline = aarch64_trampoline,
		.register_call = aarch64_register_call,
	},
	[DYNCALL_ARCH_PPC64LE] = {
		.name = "ppc64le",
		.func_align = "\t.p2align 2\n",
		.site_padding = "",
		.cond_site_padding = "",
		.has_cond = true,
		.func_from_symbol = true,
		.has_retpoline = false,
		.has_inline_guard = false,
		.trampoline = ppc64le_trampoline,
		.register_call = ppc64le_register_call,
	},
};
const struct dyncall_arch &arch = dyncall_arches[DYNCALL_ARCH];
