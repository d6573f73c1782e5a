/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * prologue.cc - patchable prologues: the records of
 * __patchable_function_entries (one section per function), x86-64's one
 * 5-byte entry NOP (docs/prologues.md "GCC's entry NOP"), the
 * __dyncall_fn_records of x86-64 and aarch64, and ppc64le's entry NOP
 * (docs/prologues.md "What the compilers emit (ppc64le)").
 *
 * GCC 12 prints -fpatchable-function-entry's NOPs before the ELFv2 global
 * entry's TOC setup: one NOP makes the local entry offset 12, which
 * .localentry refuses; two make it 16, and every call from the same module
 * enters at the local entry, past them (and the TOC setup, now 8 bytes
 * past the entry r12 holds, computes a wrong TOC).  GCC 14 moved them
 * after .localentry.  So on ppc64le the plugin emits the one entry NOP
 * itself, where the runtime expects it: right after .localentry (the
 * target's function_prologue hook prints the global entry and .localentry,
 * the function's insns follow), recorded in __patchable_function_entries
 * like GCC's own.  Every function with -fplugin-arg-<name>-prologues
 * (except those with patchable_function_entry(0, 0):
 * DYNCALL_NOT_PATCHABLE), or those declared
 * __attribute__((dyncall_patchable)) (DYNCALL_PATCHABLE).
 */
#include "plugin.h"

#define PATCHABLE_ATTR_NAME "dyncall_patchable"
#define PFE_LABEL_PREFIX ".Ldyncall_pfe"

bool prologues_all;

static tree handle_patchable_attribute(tree *node, tree name, tree args,
				       int flags, bool *no_add_attrs)
{
	(void)args, (void)flags;
	if (TREE_CODE(*node) != FUNCTION_DECL) {
		warning(OPT_Wattributes,
			"%qE attribute applies to functions only", name);
		*no_add_attrs = true;
	}
	return NULL_TREE;
}

static struct attribute_spec patchable_attr = {
	.name = PATCHABLE_ATTR_NAME,
	.min_length = 0,
	.max_length = 0,
	.decl_required = true,
	.type_required = false,
	.function_type_required = false,
	.affects_type_identity = false,
	.handler = handle_patchable_attribute,
	.exclude = NULL,
};

void register_patchable_attribute(void)
{
	register_attribute(&patchable_attr);
}

/*
 * The record section of fn's entry: SHF_LINK_ORDER to fn's text (through
 * its symbol) and, for a COMDAT function, in fn's COMDAT group.  GCC 12
 * (and 11) print every record of a unit into ONE section linked to the
 * unit's first function and in no group: a COMDAT function whose copy the
 * linker discards (an inline or template function, a constructor emitted
 * in two units) leaves a record pointing into a discarded section, which
 * ld refuses ("defined in discarded section"; any C++ program of two
 * units with --dyncall-prologues), and --gc-sections keeps or drops every
 * record with the first function.  One section per function, in the
 * function's group, is what GCC 13 does.
 */
static void push_record_section(FILE *file, tree fn)
{
	const char *name = XSTR(XEXP(DECL_RTL(fn), 0), 0);
	tree group = DECL_COMDAT_GROUP(fn);

	fputs("\t.pushsection __patchable_function_entries,", file);
	fputs(group ? "\"awoG\",@progbits," : "\"awo\",@progbits,", file);
	assemble_name(file, name);
	if (group)
		fprintf(file, ",%s,comdat", IDENTIFIER_POINTER(group));
	fputc('\n', file);
}

#if DYNCALL_ARCH != DYNCALL_ARCH_PPC64LE
/*
 * A function the runtime must not hook or redirect, so it gets no record
 * (the runtime never registers it: DYNCALL_ERR_NOFN; its NOPs stay, never
 * patched): another calling convention (ms_abi, interrupt; aarch64
 * aarch64_vector_pcs, SVE) or no_caller_saved_registers, whose callers
 * keep values in registers the C convention lets a callee clobber, which a
 * hook's handler (an ordinary C function) does clobber, and a C redirect
 * target would too; and ms_hook_prologue, whose 32 `int3` bytes GCC puts
 * between the pre-entry NOPs and the function: not the runtime's layout,
 * a record there fails the link's check (DC063, DC066).
 */
static bool pfe_refused(tree fn)
{
	tree fntype = TREE_TYPE(fn);
	static const char *const attrs[] = {
		"ms_abi",
		"interrupt",
		"aarch64_vector_pcs",
		"aarch64_sve_pcs",
		"no_caller_saved_registers",
		"ms_hook_prologue",
	};

	if (!dyncall_c_abi_p(fntype) || fntype_abi(fntype).id() != 0)
		return true;
	for (const char *a : attrs)
		if (lookup_attribute(a, TYPE_ATTRIBUTES(fntype)) ||
		    lookup_attribute(a, DECL_ATTRIBUTES(fn)))
			return true;
	return false;
}

/*
 * -fpatchable-function-entry=N,M with M > 0 (the layouts of
 * --dyncall-prologues): GCC calls this target hook before the function's
 * label for the M pre-entry NOPs with record_p, then after the label for
 * the N - M entry NOPs without.  The plugin prints the record itself
 * (push_record_section), aligns the NOPs to 8 and lets the target print
 * them alone.  A
 * record at the entry (M = 0: the target may print it later, after
 * endbr64) stays GCC's.
 */
static void (*target_print_pfe)(FILE *, unsigned HOST_WIDE_INT, bool);

static void print_pfe(FILE *file, unsigned HOST_WIDE_INT size, bool record_p)
{
	static unsigned n;
	tree fn = current_function_decl;

	if (!record_p || !fn || !crtl->patch_area_entry) {
		target_print_pfe(file, size, record_p);
		return;
	}
	if (pfe_refused(fn)) { /* the NOPs alone: never registered */
		target_print_pfe(file, size, false);
		return;
	}
	push_record_section(file, fn);
	/* .p2align 3 before the NOPs: GCC leaves -falign-functions out for
	 * a function it optimizes for size (cold: the cold attribute, or
	 * only called from cold code, e.g. a .part clone in .text.unlikely),
	 * and the runtime's slot needs an 8-aligned record */
	fprintf(file,
		"\t.p2align 3\n\t.8byte .Ldyncall_pfe_rec%u\n"
		"\t.popsection\n\t.p2align 3\n.Ldyncall_pfe_rec%u:\n",
		n, n);
	n++;
	target_print_pfe(file, size, false);
}
#endif

#if DYNCALL_ARCH == DYNCALL_ARCH_X86_64
/*
 * x86-64: the entry NOPs as ONE 5-byte NOP, the shape Clang emits.  The
 * i386 back end does not print the entry part of the patchable area
 * through print_patchable_function_entry (that hook does nothing once
 * the function's label is out): its pass "endbr_and_patchable_area"
 * inserts a patchable_area insn (UNSPECV_PATCHABLE_AREA: the size, and
 * whether to print the record there) at the entry, after the endbr64 it
 * inserts, and the insn prints `size` one-byte `nop`s.  Five one-byte
 * NOPs are five instructions: a thread may be preempted between two of
 * them, so the runtime can only patch their first two bytes (`jmp f-5`,
 * two jumps per hooked or redirected call), and they cost about 0.2 ns
 * per call more than one NOP (docs/prologues.md "Measured numbers").
 * This pass, after that one, turns the insn of a 5-byte entry area with
 * no record at the entry (-fpatchable-function-entry=N,M with N - M = 5
 * and M > 0: dyncall's 29,24) into `nopl 8(%rax,%rax)` (0f 1f 44 00 08,
 * Clang's bytes), at the same place: after endbr64, the record before
 * the entry as before (print_pfe).  Other layouts stay GCC's, and so
 * does the area -pg -mfentry prints from the profiler.
 */
static bool dyncall_pfe_nop_gate(function *)
{
	return !seen_error() && crtl->patch_area_entry > 0 &&
	       crtl->patch_area_size == crtl->patch_area_entry + 5u;
}

static unsigned int dyncall_pfe_nop_execute(function *)
{
	for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn)) {
		rtx pat, asm_nop;

		if (!NONJUMP_INSN_P(insn))
			continue;
		pat = PATTERN(insn);
		if (GET_CODE(pat) != UNSPEC_VOLATILE ||
		    XINT(pat, 1) != UNSPECV_PATCHABLE_AREA ||
		    XVECLEN(pat, 0) != 2)
			continue;
		if (!CONST_INT_P(XVECEXP(pat, 0, 0)) ||
		    INTVAL(XVECEXP(pat, 0, 0)) != 5 ||
		    !CONST_INT_P(XVECEXP(pat, 0, 1)) ||
		    INTVAL(XVECEXP(pat, 0, 1)) != 0)
			return 0;
		/* BUILTINS_LOCATION: no "# line" comment (rtl.cc asm_input) */
		asm_nop = gen_rtx_ASM_INPUT_loc(VOIDmode, "nopl 8(%rax,%rax)",
						BUILTINS_LOCATION);
		MEM_VOLATILE_P(asm_nop) = 1;
		PATTERN(insn) = asm_nop;
		INSN_CODE(insn) = -1;
		return 0;
	}
	return 0;
}

DYNCALL_PASS(dyncall_pfe_nop, rtl_opt_pass, RTL_PASS, "dyncall_pfe_nop",
	     OPTGROUP_NONE, 0)
#endif

#if DYNCALL_ARCH == DYNCALL_ARCH_X86_64 || DYNCALL_ARCH == DYNCALL_ARCH_AARCH64
/*
 * What callers may assume of a patchable function.  GCC compiles a unit's
 * callees before their callers and, for a callee that binds locally,
 * publishes what its final code needs: the registers it clobbers
 * (-fipa-ra: callers keep values in the caller-saved registers it leaves
 * alone, x86-64 and aarch64) and the stack alignment it needs
 * (-fipa-stack-alignment: callers call it with %rsp 8-aligned).  A hooked
 * function runs handlers, a redirected one another function: neither
 * holds.  GCC gives both up when -fpatchable-function-entry is on the
 * command line (--dyncall-prologues), but not for a function that has
 * the area by its attribute (DYNCALL_PATCHABLE): a caller in the same
 * unit then lost its values (and called the redirect target with a
 * misaligned stack) once the function was redirected
 * (test/prologues/selective-callers.c).  So for every function with a
 * patchable area the plugin forgets what final published, after "final"
 * (the registers) and after "*clean_state" (the alignment): what callers
 * assume of any function they know nothing about.
 */
static tree pfe_unknown_decl;

static bool dyncall_pfe_regs_gate(function *)
{
	return crtl->patch_area_size > 0;
}

static unsigned int dyncall_pfe_regs_execute(function *)
{
	cgraph_rtl_info *info = cgraph_node::rtl_info(current_function_decl);

	if (info)
		SET_HARD_REG_SET(info->function_used_regs);
	pfe_unknown_decl = current_function_decl;
	return 0;
}

DYNCALL_PASS(dyncall_pfe_regs, rtl_opt_pass, RTL_PASS, "dyncall_pfe_regs",
	     OPTGROUP_NONE, 0)

static bool dyncall_pfe_align_gate(function *)
{
	return pfe_unknown_decl && pfe_unknown_decl == current_function_decl;
}

static unsigned int dyncall_pfe_align_execute(function *)
{
	cgraph_rtl_info *info = cgraph_node::rtl_info(current_function_decl);

	if (info) /* 0: unknown, the ABI's boundary (calls.cc expand_call) */
		info->preferred_incoming_stack_boundary = 0;
	pfe_unknown_decl = NULL_TREE;
	return 0;
}

DYNCALL_PASS(dyncall_pfe_align, rtl_opt_pass, RTL_PASS, "dyncall_pfe_align",
	     OPTGROUP_NONE, 0)
#endif

#if DYNCALL_ARCH == DYNCALL_ARCH_PPC64LE
static void (*target_function_prologue)(FILE *);
static void print_fn_record(FILE *file, tree fn, unsigned flags);
static bool vec_record_flags(tree fn, unsigned *flags);

static bool entry_patchable(tree fn)
{
	tree a;

	if (lookup_attribute(PATCHABLE_ATTR_NAME, DECL_ATTRIBUTES(fn)))
		return true;
	if (!prologues_all)
		return false;
	/* patchable_function_entry(0, 0): opted out */
	a = lookup_attribute("patchable_function_entry", DECL_ATTRIBUTES(fn));
	return !a || !TREE_VALUE(a) ||
	       !integer_zerop(TREE_VALUE(TREE_VALUE(a)));
}

static void ppc64le_function_prologue(FILE *file)
{
	static unsigned n;
	unsigned flags;

	target_function_prologue(file);
	if (!current_function_decl || !entry_patchable(current_function_decl))
		return;
	fprintf(file, PFE_LABEL_PREFIX "%u:\n\tnop\n", n);
	push_record_section(file, current_function_decl);
	fprintf(file,
		"\t.p2align 3\n\t.8byte " PFE_LABEL_PREFIX
		"%u\n\t.popsection\n",
		n);
	n++;
	/* its function record, also with -fplugin-arg-<name>-disable */
	if (vec_record_flags(current_function_decl, &flags))
		print_fn_record(file, current_function_decl, flags);
}
#endif

/*
 * One struct dyncall_fn_record (abi.h, docs/abi.md "Function records") per
 * patchable function saying which vector argument registers its prototype
 * uses: DYNCALL_FN_REC_NO_VEC (none: the runtime's jump function leaves
 * the vector saves out), else DYNCALL_FN_REC_VEC_COUNT with n (it saves
 * xmm0..n-1, q0..n-1 only; ppc64le: f1..fn, and with
 * DYNCALL_FN_REC_VEC2_COUNT's m, v2..v(m+1)), DYNCALL_FN_REC_VARIADIC
 * (n = 8; ppc64le 13 and 12), and (x86-64) DYNCALL_FN_REC_VEC_YMM/ZMM
 * when a vector wider than 16 bytes may be in one, and
 * DYNCALL_FN_REC_INT_COUNT with the integer argument registers it
 * receives (int_record_flags).  Decided at final, on
 * the function being output (an IPA clone has its own, final parameters),
 * from GCC's own classification of them (dyncall_vec_args_used: a struct
 * of doubles in xmm, _Complex double in two, an HFA in one v register per
 * member, long double in memory on x86-64, exactly as the caller passes
 * them).  Another calling convention (ms_abi, interrupt,
 * no_caller_saved_registers; aarch64_vector_pcs, SVE) or a thunk: no
 * record, the safe default.  A COMDAT function's record joins its group.
 * ppc64le (rs6000's fregno, vregno): a double one FPR, an IBM long double
 * two, each member of a homogeneous float aggregate one; a vector,
 * __float128 or each member of a homogeneous vector aggregate one VR.
 */
#if DYNCALL_ARCH == DYNCALL_ARCH_X86_64
#define VEC_ARG_REGS DYNCALL_X86_64_VEC_ARG_REGS
#define INT_ARG_REGS DYNCALL_X86_64_INT_ARG_REGS
#define VEC2_ARG_REGS 0
#define dyncall_vec2_args_used() 0
#elif DYNCALL_ARCH == DYNCALL_ARCH_AARCH64
#define VEC_ARG_REGS DYNCALL_AARCH64_VEC_ARG_REGS
#define INT_ARG_REGS DYNCALL_AARCH64_INT_ARG_REGS
#define VEC2_ARG_REGS 0
#define dyncall_vec2_args_used() 0
#else
#define VEC_ARG_REGS DYNCALL_PPC64LE_FPR_ARG_REGS
#define INT_ARG_REGS DYNCALL_PPC64LE_INT_ARG_REGS
#define VEC2_ARG_REGS DYNCALL_PPC64LE_VR_ARG_REGS
#endif

#if DYNCALL_ARCH != DYNCALL_ARCH_PPC64LE
static void (*target_function_prologue)(FILE *);
#endif

/* The widest vector type in a parameter (bytes; 0: none). */
static unsigned widest_vector(tree t, int depth)
{
	unsigned w = 0;

	if (!t || depth > 32)
		return 64;
	switch (TREE_CODE(t)) {
	case VECTOR_TYPE:
		if (!TYPE_SIZE_UNIT(t) || !tree_fits_uhwi_p(TYPE_SIZE_UNIT(t)))
			return 64;
		return (unsigned)MIN(tree_to_uhwi(TYPE_SIZE_UNIT(t)), 64);
	case COMPLEX_TYPE:
	case ARRAY_TYPE:
		return widest_vector(TREE_TYPE(t), depth + 1);
	case RECORD_TYPE:
	case UNION_TYPE:
	case QUAL_UNION_TYPE:
		for (tree f = TYPE_FIELDS(t); f; f = DECL_CHAIN(f))
			if (TREE_CODE(f) == FIELD_DECL)
				w = MAX(w,
					widest_vector(TREE_TYPE(f), depth + 1));
		return w;
	default:
		return 0;
	}
}

/* DYNCALL_FN_REC_INT_COUNT and the integer argument registers the
 * function's parameters took, from GCC's own classification after they
 * were expanded (dyncall_int_args_used: x86-64 the hidden sret pointer,
 * `this`, __int128 and INTEGER eightbytes of aggregates counted as the
 * caller passes them; aarch64 an even pair's skipped register too, and
 * DYNCALL_FN_REC_INT_X8 when the result is returned in memory, its
 * address in x8; ppc64le r3.. by the doublewords of the parameter save
 * area, gcc-compat.h); 0 (every register saved) for a variadic function,
 * one with a static chain (r10, x18, r11) or a count out of range. */
static unsigned int_record_flags(tree fn)
{
	tree fntype = TREE_TYPE(fn);
	int used = dyncall_int_args_used();
	unsigned flags;

	/* ppc64le: the parameter save area's doublewords, which run past r10
	 * for the arguments that go to the stack */
	if (DYNCALL_ARCH == DYNCALL_ARCH_PPC64LE)
		used = MIN(used, INT_ARG_REGS);
	if (stdarg_p(fntype) || DECL_STATIC_CHAIN(fn) ||
	    cfun->static_chain_decl || used < 0 || used > INT_ARG_REGS)
		return 0;
	flags = DYNCALL_FN_REC_INT_COUNT | (unsigned)used
						   << DYNCALL_FN_REC_INT_SHIFT;
	if (DYNCALL_ARCH == DYNCALL_ARCH_AARCH64 && cfun->returns_struct)
		flags |= DYNCALL_FN_REC_INT_X8;
	return flags;
}

/* The record's flags (abi.h enum dyncall_fn_record_flags); false: no
 * record (a convention the flags do not describe). */
static bool vec_record_flags(tree fn, unsigned *flags)
{
	tree fntype = TREE_TYPE(fn);
	static const char *const attrs[] = { "ms_abi", "interrupt",
					     "no_caller_saved_registers" };
	int used = dyncall_vec_args_used(), used2 = dyncall_vec2_args_used();
	unsigned n, m, w = 0;

	if (!dyncall_c_abi_p(fntype) || cfun->is_thunk || used < 0 || used2 < 0)
		return false;
	for (const char *a : attrs)
		if (lookup_attribute(a, TYPE_ATTRIBUTES(fntype)) ||
		    lookup_attribute(a, DECL_ATTRIBUTES(fn)))
			return false;
	n = stdarg_p(fntype) ? VEC_ARG_REGS : (unsigned)used;
	m = stdarg_p(fntype) ? VEC2_ARG_REGS : (unsigned)used2;
	if (DYNCALL_ARCH == DYNCALL_ARCH_PPC64LE) {
		/* ppc64le: the counters run past the last register for the
		 * arguments that go to the stack */
		n = MIN(n, (unsigned)VEC_ARG_REGS);
		m = MIN(m, (unsigned)VEC2_ARG_REGS);
	}
	if (n > VEC_ARG_REGS || m > VEC2_ARG_REGS)
		return false;
	*flags = int_record_flags(fn);
	if (!n && !m) {
		*flags |= DYNCALL_FN_REC_NO_VEC;
		return true;
	}
	*flags |= DYNCALL_FN_REC_VEC_COUNT | n << DYNCALL_FN_REC_VEC_SHIFT;
	if (DYNCALL_ARCH == DYNCALL_ARCH_PPC64LE)
		*flags |= DYNCALL_FN_REC_VEC2_COUNT |
			  m << DYNCALL_FN_REC_VEC2_SHIFT;
	if (stdarg_p(fntype))
		*flags |= DYNCALL_FN_REC_VARIADIC;
	/* aarch64 passes a vector wider than 16 bytes by reference */
	for (tree p = DECL_ARGUMENTS(fn);
	     DYNCALL_ARCH == DYNCALL_ARCH_X86_64 && p; p = DECL_CHAIN(p))
		w = MAX(w, MAX(widest_vector(TREE_TYPE(p), 0),
			       widest_vector(DECL_ARG_TYPE(p), 0)));
	if (w > 32)
		*flags |= DYNCALL_FN_REC_VEC_ZMM;
	else if (w > 16)
		*flags |= DYNCALL_FN_REC_VEC_YMM;
	return true;
}

#if DYNCALL_ARCH != DYNCALL_ARCH_PPC64LE
/* The function has patchable entry NOPs (the attribute, else the
 * option's N of N,M). */
static bool has_patchable_entry(tree fn)
{
	tree a = lookup_attribute("patchable_function_entry",
				  DECL_ATTRIBUTES(fn));

	if (a)
		return TREE_VALUE(a) &&
		       tree_fits_uhwi_p(TREE_VALUE(TREE_VALUE(a))) &&
		       tree_to_uhwi(TREE_VALUE(TREE_VALUE(a))) > 0;
	return flag_patchable_function_entry &&
	       strtoul(flag_patchable_function_entry, NULL, 10) > 0;
}
#endif

/* fn's record, in a section SHF_LINK_ORDER to it (its group's, COMDAT). */
static void print_fn_record(FILE *file, tree fn, unsigned flags)
{
	const char *name = XSTR(XEXP(DECL_RTL(fn), 0), 0);

	fputs("\t.pushsection " DYNCALL_FN_RECORDS_SECTION, file);
	if (DECL_COMDAT_GROUP(fn)) { /* dropped with the group's other copies */
		fputs(",\"awoG\",@progbits,", file);
		assemble_name(file, name);
		fprintf(file, ",%s,comdat",
			IDENTIFIER_POINTER(decl_comdat_group_id(fn)));
	} else {
		fputs(",\"awo\",@progbits,", file);
		assemble_name(file, name);
	}
	fputs("\n\t.p2align 3\n\t.8byte ", file);
	assemble_name(file, name);
	fprintf(file, "\n\t.4byte %u\n\t.4byte 0\n\t.popsection\n", flags);
}

#if DYNCALL_ARCH != DYNCALL_ARCH_PPC64LE
static void records_function_prologue(FILE *file)
{
	tree fn = current_function_decl;
	unsigned flags;

	target_function_prologue(file);
	if (fn && has_patchable_entry(fn) && !pfe_refused(fn) &&
	    vec_record_flags(fn, &flags))
		print_fn_record(file, fn, flags);
}
#endif

bool install_entry_nop(void)
{
#if DYNCALL_ARCH != DYNCALL_ARCH_PPC64LE
	/* the records of -fpatchable-function-entry, always */
	target_print_pfe = targetm.asm_out.print_patchable_function_entry;
	targetm.asm_out.print_patchable_function_entry = print_pfe;
#endif
#if DYNCALL_ARCH == DYNCALL_ARCH_X86_64
	/* the one 5-byte entry NOP, also with -fplugin-arg-<name>-disable:
	 * after the i386 pass that inserts the area (before "shorten") */
	static struct register_pass_info pfe_nop_info = {
		.pass = make_dyncall_pfe_nop_pass(),
		.reference_pass_name = "shorten",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_BEFORE,
	};
	register_callback(plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL,
			  &pfe_nop_info);
#endif
#if DYNCALL_ARCH == DYNCALL_ARCH_X86_64 || DYNCALL_ARCH == DYNCALL_ARCH_AARCH64
	/* callers assume nothing of a patchable function, also with
	 * -fplugin-arg-<name>-disable */
	static struct register_pass_info pfe_regs_info = {
		.pass = make_dyncall_pfe_regs_pass(),
		.reference_pass_name = "final",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_AFTER,
	};
	static struct register_pass_info pfe_align_info = {
		.pass = make_dyncall_pfe_align_pass(),
		.reference_pass_name = "*clean_state",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_AFTER,
	};
	register_callback(plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL,
			  &pfe_regs_info);
	register_callback(plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL,
			  &pfe_align_info);
#endif
#if DYNCALL_ARCH == DYNCALL_ARCH_X86_64 || DYNCALL_ARCH == DYNCALL_ARCH_AARCH64
	/* the records, also with -fplugin-arg-<name>-disable */
	target_function_prologue = targetm.asm_out.function_prologue;
	targetm.asm_out.function_prologue = records_function_prologue;
#endif
#if DYNCALL_ARCH == DYNCALL_ARCH_PPC64LE
	/* also with -fplugin-arg-<name>-disable */
	target_function_prologue = targetm.asm_out.function_prologue;
	targetm.asm_out.function_prologue = ppc64le_function_prologue;
	return true;
#else
	if (prologues_all) {
		error("%s: %<-fplugin-arg-%s-prologues%> is for ppc64le "
		      "(elsewhere: %<-fpatchable-function-entry%>)",
		      plugin_name, plugin_name);
		return false;
	}
	return true;
#endif
}
