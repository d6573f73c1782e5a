/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * gcc-compat.h - every difference between the GCC versions the dyncall
 * plugin supports (11 and 12) lives here, in the spirit of the Linux
 * kernel's scripts/gcc-plugins/gcc-common.h.  The plugin's files include
 * only this header and <dyncall/abi.h> (through plugin.h); they never test
 * a GCC version themselves.
 *
 * GCC 11 and 12 agree on every API the plugin uses (attribute_spec,
 * pass_data, cgraph_edge::rebuild_edges, symbol_table::finalize_toplevel_asm,
 * get_call_rtx_from, get_random_seed returning HOST_WIDE_INT, ...); what
 * differs is the set of headers that must be included and their order, and
 * that GCC 12 renamed its sources to *.cc (only visible in diagnostics).
 * The target-dependent option accessors live here too (below).
 */
#ifndef DYNCALL_GCC_COMPAT_H
#define DYNCALL_GCC_COMPAT_H

#include "bversion.h"

#define DYNCALL_GCC_VERSION BUILDING_GCC_VERSION
#if DYNCALL_GCC_VERSION < 11000 || DYNCALL_GCC_VERSION >= 13000
#error "dyncall_gcc supports GCC 11 and GCC 12 only"
#endif

#include <fnmatch.h> /* the whole-program filter's globs */

#define INCLUDE_STRING
#define INCLUDE_VECTOR
#define INCLUDE_MAP
#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "target.h"
#include "rtl.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "memmodel.h"
#include "tm_p.h"
#include "ssa.h"
#include "cgraph.h"
#include "diagnostic-core.h"
#include "fold-const.h"
#include "stor-layout.h"
#include "varasm.h"
#include "stringpool.h"
#include "attribs.h"
#include "gimple-iterator.h"
#include "gimple-walk.h"
#include "gimplify.h"
#include "gimple-pretty-print.h"
#include "tree-cfg.h"
#include "cfgloop.h"
#include "tree-into-ssa.h"
#include "tree-dfa.h"
#include "tree-eh.h"
#include "langhooks.h"
#include "toplev.h"
#include "output.h"
#include "emit-rtl.h"
#include "regs.h"
#include "function-abi.h"
#include "builtins.h"
#include "dumpfile.h"
#include "context.h"
#include "md5.h"

/* GC root table entry for one `tree` variable. */
#define DYNCALL_GGC_ROOT_TREE(var)                                             \
	{ &(var), 1, sizeof(var), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node }

/*
 * The target.  The plugin is built once per GCC it is loaded into (the host
 * gcc-12 and the Debian cross compilers aarch64-linux-gnu-gcc-12 and
 * powerpc64le-linux-gnu-gcc-12, whose cc1 runs on the x86-64 host), always
 * with the host g++, against that GCC's plugin headers.  Which target those
 * headers describe is told by the guard of the target's options header,
 * which options.h includes.  This is the only arch ladder of the plugin;
 * everything per arch that is not an option accessor is a row of the arch
 * table in arch.cc (assembly text, padding, flags).
 *
 *   dyncall_target_problem()   NULL when the compilation's ABI is the one
 *                              docs/abi.md describes, else why not (valid
 *                              after option processing)
 *   dyncall_global_retpoline() -mindirect-branch=thunk* (x86-64)
 *   dyncall_ibt_enabled()      -fcf-protection=branch|full (x86-64)
 *   dyncall_bti_enabled()      -mbranch-protection=bti|standard (aarch64)
 *   dyncall_c_abi_p(fntype)    a call of type FNTYPE uses the platform's C
 *                              calling convention (x86-64: SysV, whatever
 *                              -mabi= and ms_abi/sysv_abi say)
 *
 * The static chain register a call with gimple_call_set_chain gets is the
 * one abi.md (and LLVM's `nest`) use: the asserts keep it that way.
 */
#define DYNCALL_ARCH_X86_64 0
#define DYNCALL_ARCH_AARCH64 1
#define DYNCALL_ARCH_PPC64LE 2

#if defined(I386_OPTS_H)
#define DYNCALL_ARCH DYNCALL_ARCH_X86_64
/* i386's static chain is a hook (ix86_static_chain): r10 in 64-bit mode. */
#define dyncall_target_problem()                                               \
	(TARGET_LP64 ? NULL : "calls need the LP64 ABI (-m64)")
#define dyncall_global_retpoline()                                             \
	(ix86_indirect_branch != indirect_branch_keep &&                       \
	 ix86_indirect_branch != indirect_branch_unset)
#define dyncall_ibt_enabled() ((flag_cf_protection & CF_BRANCH) != 0)
#define dyncall_bti_enabled() false
#define dyncall_c_abi_p(fntype) (ix86_function_type_abi(fntype) == SYSV_ABI)
/* The vector registers the current function's named parameters took:
 * the target's CUMULATIVE_ARGS after assign_parms expanded them
 * (crtl->args.info; i386's sse_regno counts each SSE register
 * function_arg_advance gave out), or -1 for a convention the records do
 * not describe. */
#define dyncall_vec_args_used() ((int)crtl->args.info.sse_regno)
/* The integer registers the same way: i386's regno counts each of rdi,
 * rsi, rdx, rcx, r8, r9 function_arg_advance gave out (the hidden sret
 * pointer is the first parameter assign_parms advances over). */
#define dyncall_int_args_used() ((int)crtl->args.info.regno)

#elif defined(GCC_AARCH64_OPTS_H)
#define DYNCALL_ARCH DYNCALL_ARCH_AARCH64
static_assert(STATIC_CHAIN_REGNUM == R18_REGNUM,
	      "docs/abi.md: the aarch64 static chain is x18");
/* -ffixed-x18 (e.g. for -fsanitize=shadow-call-stack, whose pointer x18
 * is): the static chain must not be touched. */
#define dyncall_target_problem()                                               \
	(TARGET_ILP32 ? "calls need the LP64 ABI (-mabi=lp64)"                 \
	 : fixed_regs[STATIC_CHAIN_REGNUM]                                     \
		 ? "x18, the static chain, is reserved (-ffixed-x18)"          \
		 : NULL)
#define dyncall_global_retpoline() false
#define dyncall_ibt_enabled() false
/* 2 = not given; aarch64_override_options resolves it to 0 or 1. */
#define dyncall_bti_enabled() (aarch64_enable_bti == 1)
#define dyncall_c_abi_p(fntype) true
/* aarch64's aapcs_nvrn: the next SIMD/FP register (v0-v7) to give out;
 * the vector (aarch64_vector_pcs) and SVE variants are not AAPCS64's. */
#define dyncall_vec_args_used()                                                \
	(crtl->args.info.pcs_variant == ARM_PCS_AAPCS64                        \
		 ? (int)crtl->args.info.aapcs_nvrn                             \
		 : -1)
/* aapcs_ncrn: the next core register (x0-x7) to give out, an even pair
 * skipped to counted; 8 after an argument went to the stack (C.11).  The
 * indirect result register x8 is not a parameter here. */
#define dyncall_int_args_used()                                                \
	(crtl->args.info.pcs_variant == ARM_PCS_AAPCS64                        \
		 ? (int)crtl->args.info.aapcs_ncrn                             \
		 : -1)

#elif defined(RS6000_OPTS_H)
#define DYNCALL_ARCH DYNCALL_ARCH_PPC64LE
static_assert(STATIC_CHAIN_REGNUM == 11,
	      "docs/abi.md: the ppc64le static chain is r11");
#define dyncall_target_problem()                                               \
	(TARGET_64BIT && DEFAULT_ABI == ABI_ELFv2 && !BYTES_BIG_ENDIAN         \
		 ? NULL                                                        \
		 : "calls need the 64-bit little-endian ELFv2 ABI")
#define dyncall_global_retpoline() false
#define dyncall_ibt_enabled() false
#define dyncall_bti_enabled() false
#define dyncall_c_abi_p(fntype) true
/* rs6000's fregno and vregno: the next floating-point (f1-f13) and
 * AltiVec/VSX (v2-v13) argument register function_arg_advance would give
 * out (each can run past the last one: capped by the caller) */
#define dyncall_vec_args_used() ((int)(crtl->args.info.fregno - FP_ARG_MIN_REG))
#define dyncall_vec2_args_used()                                               \
	((int)(crtl->args.info.vregno - ALTIVEC_ARG_MIN_REG))
/* rs6000's words: the doublewords of the parameter save area the
 * parameters took.  ELFv2 gives r3-r10 to its first eight doublewords
 * whatever goes in them, so an argument in a GPR sits at word < 8 and the
 * count is words (capped at 8 by the caller): also the ones a double in an
 * FPR or a vector in a VR shadows (upper bound), the padding before a
 * quadword-aligned argument, the hidden sret pointer in r3 (the first
 * parameter assign_parms advances over) and every GPR an aggregate takes. */
#define dyncall_int_args_used() ((int)crtl->args.info.words)

#else
#error "dyncall_gcc: unsupported target (x86-64, aarch64, ppc64le ELFv2)"
#endif

/* The plugin is built with -fvisibility=hidden; cc1 looks up only these. */
#define DYNCALL_PLUGIN_EXPORT __attribute__((visibility("default")))

/*
 * DYNCALL_PASS(id, base, type, name, optgroup, required): the boilerplate
 * of one pass, written once (as the kernel's gcc-generate-*-pass.h headers
 * do for its plugins): its pass_data, a class derived from BASE
 * (gimple_opt_pass, simple_ipa_opt_pass or rtl_opt_pass) whose gate() and
 * execute() call the file's own
 *	static bool <id>_gate(function *fun);
 *	static unsigned int <id>_execute(function *fun);
 * and `opt_pass *make_<id>_pass(void)` for the pass registration.  NAME is
 * the pass's name in dumps (-fdump-tree-<name>, -fdump-rtl-<name>).
 */
#define DYNCALL_PASS(id, base, pass_type, pass_name, optgroup, required)      \
	static const pass_data id##_pass_data = {                              \
		.type = pass_type,                                             \
		.name = pass_name,                                             \
		.optinfo_flags = optgroup,                                     \
		.tv_id = TV_NONE,                                              \
		.properties_required = required,                               \
		.properties_provided = 0,                                      \
		.properties_destroyed = 0,                                     \
		.todo_flags_start = 0,                                         \
		.todo_flags_finish = 0,                                        \
	};                                                                     \
	namespace {                                                            \
	class id##_pass : public base {                                        \
	public:                                                                \
		id##_pass() : base(id##_pass_data, g) {}                       \
		bool gate(function *fun) final override                        \
		{                                                              \
			return id##_gate(fun);                                 \
		}                                                              \
		unsigned int execute(function *fun) final override             \
		{                                                              \
			return id##_execute(fun);                              \
		}                                                              \
	};                                                                     \
	}                                                                      \
	opt_pass *make_##id##_pass(void)                                       \
	{                                                                      \
		return new id##_pass();                                        \
	}

/* True while compiling for the LTO IR (the compile step of -flto). */
#define dyncall_generating_lto() (flag_generate_lto || flag_generate_offload)

#endif /* DYNCALL_GCC_COMPAT_H */
