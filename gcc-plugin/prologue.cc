/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * prologue.cc - ppc64le: the patchable entry NOP (docs/prologues.md
 * "What the compilers emit (ppc64le)").
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
 * -fpatchable-function-entry=N,M with M > 0 (the layouts of
 * --dyncall-prologues): GCC calls this target hook before the function's
 * label for the M pre-entry NOPs with record_p, then after the label for
 * the N - M entry NOPs without.  The plugin prints the record itself
 * (push_record_section) and lets the target print the NOPs alone.  A
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
	push_record_section(file, fn);
	fprintf(file,
		"\t.p2align 3\n\t.8byte .Ldyncall_pfe_rec%u\n"
		"\t.popsection\n.Ldyncall_pfe_rec%u:\n",
		n, n);
	n++;
	target_print_pfe(file, size, false);
}
#endif

#if DYNCALL_ARCH == DYNCALL_ARCH_PPC64LE
static void (*target_function_prologue)(FILE *);

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
}
#endif

#if DYNCALL_ARCH == DYNCALL_ARCH_X86_64
/*
 * x86-64: one struct dyncall_fn_record (abi.h, docs/abi.md "Function
 * records") per patchable function whose parameters pass nothing in
 * vector registers: DYNCALL_FN_REC_NO_VEC, and the runtime's jump function
 * for it leaves the xmm0-7 saves out.  Decided at final, on the function
 * being output (an IPA clone has its own, final parameters).
 * Conservative: a floating-point, complex-float or vector type anywhere in
 * a parameter (a struct passed in memory included), varargs, a calling
 * convention other than SysV's (ms_abi, interrupt,
 * no_caller_saved_registers) or a COMDAT function (no group handling
 * here): no record, the safe default.
 */
static void (*target_function_prologue)(FILE *);

static bool has_vec_part(tree t, int depth)
{
	if (!t || depth > 32)
		return true;
	switch (TREE_CODE(t)) {
	case REAL_TYPE:
	case VECTOR_TYPE:
		return true;
	case COMPLEX_TYPE:
	case ARRAY_TYPE:
		return has_vec_part(TREE_TYPE(t), depth + 1);
	case RECORD_TYPE:
	case UNION_TYPE:
	case QUAL_UNION_TYPE:
		for (tree f = TYPE_FIELDS(t); f; f = DECL_CHAIN(f))
			if (TREE_CODE(f) == FIELD_DECL &&
			    has_vec_part(TREE_TYPE(f), depth + 1))
				return true;
		return false;
	default:
		return SCALAR_FLOAT_TYPE_P(t);
	}
}

static bool takes_no_vec(tree fn)
{
	tree fntype = TREE_TYPE(fn);
	static const char *const attrs[] = { "ms_abi", "interrupt",
					     "no_caller_saved_registers" };

	if (stdarg_p(fntype) || !dyncall_c_abi_p(fntype))
		return false;
	for (const char *a : attrs)
		if (lookup_attribute(a, TYPE_ATTRIBUTES(fntype)) ||
		    lookup_attribute(a, DECL_ATTRIBUTES(fn)))
			return false;
	for (tree p = DECL_ARGUMENTS(fn); p; p = DECL_CHAIN(p))
		if (has_vec_part(TREE_TYPE(p), 0) ||
		    has_vec_part(DECL_ARG_TYPE(p), 0))
			return false;
	return true;
}

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

static void x86_64_function_prologue(FILE *file)
{
	tree fn = current_function_decl;
	const char *name;

	target_function_prologue(file);
	if (!fn || DECL_COMDAT_GROUP(fn) || !has_patchable_entry(fn) ||
	    !takes_no_vec(fn))
		return;
	name = XSTR(XEXP(DECL_RTL(fn), 0), 0);
	fputs("\t.pushsection " DYNCALL_FN_RECORDS_SECTION
	      ",\"awo\",@progbits,",
	      file);
	assemble_name(file, name);
	fputs("\n\t.p2align 3\n\t.8byte ", file);
	assemble_name(file, name);
	fprintf(file, "\n\t.4byte %u\n\t.4byte 0\n\t.popsection\n",
		(unsigned)DYNCALL_FN_REC_NO_VEC);
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
	/* the records, also with -fplugin-arg-<name>-disable */
	target_function_prologue = targetm.asm_out.function_prologue;
	targetm.asm_out.function_prologue = x86_64_function_prologue;
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
