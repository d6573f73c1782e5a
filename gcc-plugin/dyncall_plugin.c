/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * dyncall_plugin.c - the GCC side of dyncall.
 *
 * Calls through a function pointer declared __attribute__((dynamic_call))
 * become direct calls to a per-site trampoline that receives the loaded
 * pointer in the static-chain register (r10); the runtime later patches the
 * trampoline (and the call itself) to jump straight to the target.  What is
 * emitted is the ABI of docs/abi.md / include/dyncall/abi.h, byte for byte
 * the same as the Clang pass, so one runtime and one rewriter read both.
 *
 * Three stages, placed so that -flto works:
 *  1. front end: the attribute (always registered), its diagnostics, and the
 *     propagation of annotated typedefs to the variables and fields declared
 *     with them; each key also gets its source name, computed while the
 *     front end's printable-name hook is still available.
 *  2. GIMPLE, right after "ssa" (before any IPA pass and before LTO
 *     streaming, so the stream already carries the transformed calls):
 *     sites become calls to trampoline decls with a static chain, stores to
 *     keys become __dyncall_store calls, field stores get their note, and
 *     uses that let a key's address escape are recorded.  A simple IPA pass
 *     after "build_ssa_passes" then emits, as toplevel asm (which LTO
 *     streams), the trampolines, the key entries and the COMDAT
 *     constructor/destructor/retpoline, and creates the key cells and type
 *     key descriptors as real variables (so LTO renames and promotes what
 *     they reference consistently).  Everything the RTL stage needs per site
 *     (key cell symbol, flags) is an internal attribute of the trampoline
 *     decl, which LTO streams with the decl.
 *  3. RTL, just before "shorten" (after every pass that may move, duplicate
 *     or delete calls: bb-reorder, sched2, mach, and after the target's
 *     endbr insertion; before branch shortening so that the padding is
 *     accounted for in branch offsets): each call_insn to a trampoline gets
 *     the alignment padding, a local label and its __dyncall_sites entry.
 */
#include "gcc-compat.h"
#include "dyncall/abi.h"

int plugin_is_GPL_compatible;

static struct plugin_info dyncall_plugin_info = {
	.version = "0.1.0",
	.help = "dynamic_call attribute and call-site transformation\n"
		"  -fplugin-arg-<name>-disable  accept the attribute, do not transform\n"
		"  -fplugin-arg-<name>-verbose  note every transformed and missed site\n"
		"  -fplugin-arg-<name>-whole-program[=<filter file>]  every indirect\n"
		"      call becomes a guarded site (docs/whole-program.md)\n"
		"  -fplugin-arg-<name>-prologues  ppc64le: a patchable entry NOP in\n"
		"      every function (docs/prologues.md)\n",
};

/* Internal attribute names (a space makes them unspellable in source). */
#define ATTR_KEY_NAME "dyncall key name" /* ("source name") on keys */
#define ATTR_SITE "dyncall site" /* ("keycell", flags) on trampolines */
#define ATTR_WP_SITE "dyncall wp site" /* on whole-program trampolines */

#define KEYCELL_SECTION ".data.rel.ro"
#define TRAMP_SECTION ".text.__dyncall_tramp"
#define SITE_LABEL_PREFIX ".Ldyncall_site"
#define FUNC_LABEL_PREFIX ".Ldyncall_func"
#define RUNTIME_API_PREFIX "dyncall_" /* include/dyncall.h */
#define MODULE_CTOR "__dyncall_module_ctor"
#define MODULE_DTOR "__dyncall_module_dtor"

static const char *plugin_name = "dyncall_gcc";
static bool transform_enabled = true;
static bool verbose;
/* -fplugin-arg-<name>-whole-program[=<filter>]: every eligible indirect
 * call becomes a site of the unit's whole-program key. */
static bool whole_program;
static char unit_id[17];

/* Trees created by the plugin and otherwise referenced only from plugin
 * memory are chained here so the garbage collector keeps them. */
static tree gc_roots;
static const struct ggc_root_tab dyncall_ggc_roots[] = {
	DYNCALL_GGC_ROOT_TREE(gc_roots),
	LAST_GGC_ROOT_TAB,
};

static tree keep(tree t)
{
	gc_roots = tree_cons(NULL_TREE, t, gc_roots);
	return t;
}

/* ---------------------------------------------------------------------- */
/* Per-arch assembly: the one table (docs/abi.md, include/dyncall/abi.h)   */
/* ---------------------------------------------------------------------- */

static void asm_printf(std::string &out, const char *fmt, ...)
	ATTRIBUTE_PRINTF_2;
static void asm_printf(std::string &out, const char *fmt, ...)
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

/*
 * What differs between the arches besides option accessors (gcc-compat.h).
 * The plugin is built for one target, which selects one row; the text of
 * every row is plain GNU as syntax (`@` type prefixes are accepted by the
 * aarch64 and ppc64 assemblers too) and each trampoline assembles to the
 * bytes the Clang pass (llvm-pass/Trampolines.cpp) emits.
 */
struct dyncall_arch {
	const char *name;
	/* Before a function symbol's label (fixed-width ISAs: aligned). */
	const char *func_align;
	/* Before a site's label: x86-64 pads so that the call/jmp opcode sits
	 * at 4k+3 and its rel32 is 4-byte aligned (one aligned store retargets
	 * it).  aarch64 and ppc64le instructions are 4 bytes and aligned. */
	const char *site_padding;
	/* The function's first RTL insn is not its first byte: ppc64le's
	 * global entry point (the TOC setup from r12) is printed by the
	 * prologue hook, so `func` is taken from the function symbol. */
	bool func_from_symbol;
	/* -mindirect-branch=thunk* exists (x86-64 only): retpoline slow path. */
	bool has_retpoline;
	/* local: a file-local copy for a duplicated call (RTL pass). */
	void (*trampoline)(std::string &out, const char *name, bool retpoline,
			   bool local);
	/* Body of __dyncall_module_ctor/_dtor: callee(__start_/__stop_ of
	 * __dyncall_sites, __start_/__stop_ of __dyncall_keys), return. */
	void (*register_call)(std::string &out, const char *name,
			      const char *callee);
};

static void emit_symbol_header(std::string &out, const char *name,
			       bool local = false)
{
	if (!local)
		asm_printf(out, "\t.globl %s\n\t.hidden %s\n", name, name);
	asm_printf(out, "\t.type %s, @function\n%s:\n", name, name);
}

/*
 * The bounds of the two sections, weak hidden, always loaded from the GOT
 * (as the Clang pass does): a unit with keys but no site, or a link whose
 * --gc-sections dropped every site, has no __dyncall_sites section, and an
 * undefined weak symbol is 0 only through the GOT.  Addressed PC- or
 * TOC-relative it cannot be linked into a PIE or shared object on x86-64
 * (R_X86_64_PC32 against an undefined hidden symbol) and silently becomes
 * the load base on aarch64 and ppc64le.  The linker relaxes the load back
 * to an address computation when the symbol is defined.
 */
#define SITES_START "__start_" DYNCALL_SITES_SECTION
#define SITES_STOP "__stop_" DYNCALL_SITES_SECTION
#define KEYS_START "__start_" DYNCALL_KEYS_SECTION
#define KEYS_STOP "__stop_" DYNCALL_KEYS_SECTION

/*
 * x86-64, static chain r10; entry at 8k+3 behind three int3:
 *	cc cc cc	int3 x3
 * tramp:
 *	e9 <rel32>	jmp slow	(spelled as bytes: never relaxed to jmp8)
 * slow:
 *	41 ff e2	jmp *%r10
 *	e9 <rel32>	jmp __dyncall_retpoline_r10	(-mindirect-branch=thunk*)
 */
static void x86_64_trampoline(std::string &out, const char *n, bool retpoline, bool local)
{
	asm_printf(out, "\t.pushsection " TRAMP_SECTION ",\"ax\",@progbits\n");
	asm_printf(out, "\t.p2align 3\n\t.byte 0xcc,0xcc,0xcc\n");
	emit_symbol_header(out, n, local);
	asm_printf(out, "\t.byte 0xe9\n\t.long 1f - . - 4\n1:\n");
	if (retpoline)
		asm_printf(out, "\t.byte 0xe9\n\t.long " DYNCALL_RETPOLINE_THUNK
				" - . - 4\n");
	else
		asm_printf(out, "\tjmp *%%r10\n");
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

#define X86_64_ENDBR64 ".byte 0xf3,0x0f,0x1e,0xfa" /* endbr64 */

static void x86_64_register_call(std::string &out, const char *,
				 const char *callee)
{
	if (dyncall_ibt_enabled())
		asm_printf(out, "\t" X86_64_ENDBR64 "\n");
	asm_printf(out,
		   "\tsubq $8, %%rsp\n"
		   "\tmovq " SITES_START "@GOTPCREL(%%rip), %%rdi\n"
		   "\tmovq " SITES_STOP "@GOTPCREL(%%rip), %%rsi\n"
		   "\tmovq " KEYS_START "@GOTPCREL(%%rip), %%rdx\n"
		   "\tmovq " KEYS_STOP "@GOTPCREL(%%rip), %%rcx\n"
		   "\tcall %s@PLT\n"
		   "\taddq $8, %%rsp\n\tret\n",
		   callee);
}

/*
 * aarch64, static chain x18 (GCC's STATIC_CHAIN_REGNUM, LLVM's `nest`):
 * tramp:
 *	14000001	b slow		<- one aligned 32-bit store retargets it
 * slow:
 *	aa1203f0	mov x16, x18	(a `bti c` pad accepts br x16, not br x18)
 *	d61f0200	br x16
 * Only direct branches reach a trampoline: no landing pad of its own.
 */
static void aarch64_trampoline(std::string &out, const char *n, bool, bool local)
{
	asm_printf(out, "\t.pushsection " TRAMP_SECTION ",\"ax\",@progbits\n");
	asm_printf(out, "\t.p2align 2\n");
	emit_symbol_header(out, n, local);
	asm_printf(out, "\tb 1f\n1:\n\tmov x16, x18\n\tbr x16\n");
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

/* Reached from .init_array/.fini_array by an indirect call: `bti c` (a
 * hint, a NOP on cores and in objects without BTI; always emitted, so the
 * COMDAT copy the linker keeps is right whatever unit it comes from). */
static void aarch64_register_call(std::string &out, const char *,
				  const char *callee)
{
	asm_printf(out,
		   "\thint #34\n" /* bti c */
		   "\tstp x29, x30, [sp, #-16]!\n"
		   "\tmov x29, sp\n"
		   "\tadrp x0, :got:" SITES_START "\n"
		   "\tldr x0, [x0, :got_lo12:" SITES_START "]\n"
		   "\tadrp x1, :got:" SITES_STOP "\n"
		   "\tldr x1, [x1, :got_lo12:" SITES_STOP "]\n"
		   "\tadrp x2, :got:" KEYS_START "\n"
		   "\tldr x2, [x2, :got_lo12:" KEYS_START "]\n"
		   "\tadrp x3, :got:" KEYS_STOP "\n"
		   "\tldr x3, [x3, :got_lo12:" KEYS_STOP "]\n"
		   "\tbl %s\n"
		   "\tldp x29, x30, [sp], #16\n"
		   "\tret\n",
		   callee);
}

/*
 * ppc64le ELFv2, static chain r11:
 * tramp:			.localentry tramp, 1
 *	48000004	b slow		<- one aligned 32-bit store retargets it
 * slow:
 *	7d6903a6	mtctr r11
 *	7d6c5b78	mr r12, r11	(a global entry point wants r12)
 *	4e800420	bctr
 * `.localentry tramp, 1` says "r2 is not preserved": the target may use
 * another TOC, so the linker routes every `bl tramp; nop` of a TOC-using
 * caller through a stub that saves r2 (std r2,24(r1)) and turns the nop
 * into `ld r2,24(r1)`.  The site is a non-local call (the trampoline decl
 * is external), so GCC emits that nop and never makes it a sibcall.
 */
static void ppc64le_trampoline(std::string &out, const char *n, bool, bool local)
{
	asm_printf(out, "\t.pushsection " TRAMP_SECTION ",\"ax\",@progbits\n");
	asm_printf(out, "\t.p2align 2\n");
	emit_symbol_header(out, n, local);
	asm_printf(out, "\t.localentry %s, 1\n", n);
	asm_printf(out, "\tb 1f\n1:\n\tmtctr 11\n\tmr 12, 11\n\tbctr\n");
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n", n, n);
}

/* Reached by an indirect call, r12 = its address: the global entry point
 * sets up r2 (the TOC pointer the address computations and the call's
 * linker stub use).  A minimal ELFv2 frame: 32 bytes, LR saved in the
 * caller's frame, the TOC save slot at 24(r1) for the linker stub. */
static void ppc64le_register_call(std::string &out, const char *name,
				  const char *callee)
{
	asm_printf(out,
		   "\taddis 2, 12, .TOC.-%s@ha\n"
		   "\taddi 2, 2, .TOC.-%s@l\n"
		   "\t.localentry %s, .-%s\n",
		   name, name, name, name);
	asm_printf(out,
		   "\tmflr 0\n"
		   "\tstd 0, 16(1)\n"
		   "\tstdu 1, -32(1)\n"
		   "\taddis 3, 2, " SITES_START "@got@ha\n"
		   "\tld 3, " SITES_START "@got@l(3)\n"
		   "\taddis 4, 2, " SITES_STOP "@got@ha\n"
		   "\tld 4, " SITES_STOP "@got@l(4)\n"
		   "\taddis 5, 2, " KEYS_START "@got@ha\n"
		   "\tld 5, " KEYS_START "@got@l(5)\n"
		   "\taddis 6, 2, " KEYS_STOP "@got@ha\n"
		   "\tld 6, " KEYS_STOP "@got@l(6)\n"
		   "\tbl %s\n"
		   "\tnop\n"
		   "\taddi 1, 1, 32\n"
		   "\tld 0, 16(1)\n"
		   "\tmtlr 0\n"
		   "\tblr\n",
		   callee);
}

static const struct dyncall_arch dyncall_arches[] = {
	[DYNCALL_ARCH_X86_64] = {
		.name = "x86-64",
		.func_align = "",
		.site_padding = ".p2align 2\n\t.byte 0x0f,0x1f,0x00\n",
		.func_from_symbol = false,
		.has_retpoline = true,
		.trampoline = x86_64_trampoline,
		.register_call = x86_64_register_call,
	},
	[DYNCALL_ARCH_AARCH64] = {
		.name = "aarch64",
		.func_align = "\t.p2align 2\n",
		.site_padding = "",
		.func_from_symbol = false,
		.has_retpoline = false,
		.trampoline = aarch64_trampoline,
		.register_call = aarch64_register_call,
	},
	[DYNCALL_ARCH_PPC64LE] = {
		.name = "ppc64le",
		.func_align = "\t.p2align 2\n",
		.site_padding = "",
		.func_from_symbol = true,
		.has_retpoline = false,
		.trampoline = ppc64le_trampoline,
		.register_call = ppc64le_register_call,
	},
};
static const struct dyncall_arch &arch = dyncall_arches[DYNCALL_ARCH];

/* ---------------------------------------------------------------------- */
/* Front end: the attribute                                                */
/* ---------------------------------------------------------------------- */

static bool is_function_pointer_type(const_tree type)
{
	return type && TREE_CODE(type) == POINTER_TYPE &&
	       (TREE_CODE(TREE_TYPE(type)) == FUNCTION_TYPE ||
		TREE_CODE(TREE_TYPE(type)) == METHOD_TYPE);
}

/* What a key of TYPE is: a function pointer, or an array (of any dimension,
 * complete or not, never variable-length) of function pointers. */
enum key_shape { SHAPE_NONE, SHAPE_POINTER, SHAPE_ARRAY };

static enum key_shape key_shape_of(const_tree type)
{
	if (is_function_pointer_type(type))
		return SHAPE_POINTER;
	if (!type || TREE_CODE(type) != ARRAY_TYPE)
		return SHAPE_NONE;
	for (; TREE_CODE(type) == ARRAY_TYPE; type = TREE_TYPE(type))
		if (TYPE_DOMAIN(type) && TYPE_MAX_VALUE(TYPE_DOMAIN(type)) &&
		    TREE_CODE(TYPE_MAX_VALUE(TYPE_DOMAIN(type))) != INTEGER_CST)
			return SHAPE_NONE; /* a VLA */
	return is_function_pointer_type(type) ? SHAPE_ARRAY : SHAPE_NONE;
}

static bool has_static_storage(const_tree decl)
{
	return (TREE_STATIC(decl) || DECL_EXTERNAL(decl)) &&
	       !DECL_THREAD_LOCAL_P(decl);
}

/* The diagnostics, word for word those of llvm-pass/DynCallAttr.cpp, at the
 * declared name (Clang reports there too). */
#define ERR_ARGS "%<dynamic_call%> attribute takes no arguments"
#define ERR_TYPE                                                           \
	"%<dynamic_call%> attribute requires a pointer-to-function type or " \
	"an array of them"
#define ERR_WHERE                                                          \
	"%<dynamic_call%> attribute only applies to function-pointer "      \
	"variables, fields and typedefs"
#define ERR_STORAGE                                                        \
	"%<dynamic_call%> attribute only applies to variables with static " \
	"storage duration; a local copy of a key is an ordinary pointer"
#define ERR_THREAD                                                         \
	"%<dynamic_call%> attribute cannot be applied to a thread-local "   \
	"variable: its sites are shared by all threads"
#define ERR_THREAD_TYPEDEF                                                 \
	"thread-local variable of %<dynamic_call%> typedef %qs: its sites " \
	"would be shared by all threads"
#define WARN_NO_KEY                                                        \
	"%<dynamic_call%> typedef %qs declares no key in this translation " \
	"unit: its locals, parameters and casts are ordinary function "     \
	"pointers"

/* Annotated typedefs of the unit, and those that declared a key (for the
 * "declares no key" warning at the end of the unit). */
static std::vector<tree> annotated_typedefs;
static std::vector<tree> productive_typedefs;

static const char *decl_name_str(tree decl)
{
	return decl && DECL_NAME(decl) ? IDENTIFIER_POINTER(DECL_NAME(decl))
				       : "";
}

/* Where a misplaced attribute on a type is reported: the type's name. */
static location_t type_location(tree type)
{
	tree stub = TYPE_STUB_DECL(type);
	tree name = TYPE_NAME(type);

	if (stub && DECL_SOURCE_LOCATION(stub) != UNKNOWN_LOCATION)
		return DECL_SOURCE_LOCATION(stub);
	if (name && DECL_P(name))
		return DECL_SOURCE_LOCATION(name);
	return input_location;
}

static tree handle_dynamic_call_attribute(tree *node, tree name, tree args,
					  int flags, bool *no_add_attrs)
{
	tree decl = *node;
	const char *err = NULL;

	*no_add_attrs = true;
	if (!DECL_P(decl)) {
		/* `int (*DYNCALL p)(int)`: written on the pointer declarator,
		 * meant for the declaration that follows (Clang accepts this
		 * spelling too); hand it on like GCC's own decl attributes. */
		if (flags & ((int)ATTR_FLAG_DECL_NEXT |
			     (int)ATTR_FLAG_FUNCTION_NEXT |
			     (int)ATTR_FLAG_ARRAY_NEXT))
			return tree_cons(name, args, NULL_TREE);
		/* On a struct, union or enum: an error, as with Clang (GCC
		 * would only warn that it is ignored).  In a type name (a
		 * cast), Clang's own warning. */
		if (TYPE_P(decl) && (RECORD_OR_UNION_TYPE_P(decl) ||
				     TREE_CODE(decl) == ENUMERAL_TYPE))
			error_at(type_location(decl),
				 args ? ERR_ARGS : ERR_WHERE);
		else
			warning_at(input_location, OPT_Wattributes,
				   "%<dynamic_call%> attribute ignored when "
				   "parsing type");
		return NULL_TREE;
	}
	/* The same order of checks as the Clang plugin's. */
	if (args) {
		err = ERR_ARGS;
	} else {
		switch (TREE_CODE(decl)) {
		case VAR_DECL:
			/* Automatic variables are caught again in finish_decl,
			 * when the storage class is final (C++ sets it late). */
			if (DECL_CONTEXT(decl) &&
			    TREE_CODE(DECL_CONTEXT(decl)) == FUNCTION_DECL &&
			    !TREE_STATIC(decl) && !DECL_EXTERNAL(decl))
				err = ERR_STORAGE;
			else if (DECL_THREAD_LOCAL_P(decl))
				err = ERR_THREAD;
			else if (key_shape_of(TREE_TYPE(decl)) == SHAPE_NONE)
				err = ERR_TYPE;
			break;
		case PARM_DECL:
			err = ERR_STORAGE;
			break;
		case FIELD_DECL:
			if (DECL_BIT_FIELD(decl) ||
			    key_shape_of(TREE_TYPE(decl)) == SHAPE_NONE)
				err = ERR_TYPE;
			break;
		case TYPE_DECL:
			if (key_shape_of(TREE_TYPE(decl)) == SHAPE_NONE)
				err = ERR_TYPE;
			else
				annotated_typedefs.push_back(keep(decl));
			break;
		default:
			err = ERR_WHERE;
			break;
		}
	}
	if (err) {
		error_at(DECL_SOURCE_LOCATION(decl), err);
		return NULL_TREE;
	}
	*no_add_attrs = false;
	return NULL_TREE;
}

static struct attribute_spec dynamic_call_attr = {
	.name = DYNCALL_ATTR_NAME,
	.min_length = 0,
	/* Arguments reach the handler, which refuses them with the same
	 * message and location as Clang. */
	.max_length = -1,
	/* The handler sees types too: in a declarator (`int (*DYNCALL p)
	 * (int)`, which Clang accepts) it passes the attribute on to the
	 * declaration; on a struct or another type it is an error. */
	.decl_required = false,
	.type_required = false,
	.function_type_required = false,
	.affects_type_identity = false,
	.handler = handle_dynamic_call_attribute,
	.exclude = NULL,
};

/* ---------------------------------------------------------------------- */
/* ppc64le: the patchable entry NOP (docs/prologues.md "ppc64le")          */
/* ---------------------------------------------------------------------- */

/*
 * GCC 12 prints -fpatchable-function-entry's NOPs before the ELFv2 global
 * entry's TOC setup: one NOP makes the local entry offset 12, which
 * .localentry refuses; two make it 16, and every call from the same module
 * enters at the local entry, past them.  (GCC 14 moved them after
 * .localentry.)  So on ppc64le the plugin emits the one entry NOP itself,
 * where the runtime expects it: right after .localentry (the target's
 * function_prologue hook prints the global entry and .localentry, the
 * function's insns follow), recorded in __patchable_function_entries like
 * GCC's own.  Every function with -fplugin-arg-<name>-prologues (except
 * those with patchable_function_entry(0, 0): DYNCALL_NOT_PATCHABLE), or
 * those declared __attribute__((dyncall_patchable)) (DYNCALL_PATCHABLE).
 */
#define PATCHABLE_ATTR_NAME "dyncall_patchable"
#define PFE_LABEL_PREFIX ".Ldyncall_pfe"
static bool prologues_all;

static tree handle_patchable_attribute(tree *node, tree name, tree args,
				       int flags, bool *no_add_attrs)
{
	(void)args, (void)flags;
	if (TREE_CODE(*node) != FUNCTION_DECL) {
		warning(OPT_Wattributes, "%qE attribute applies to functions only",
			name);
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
	const char *name;

	target_function_prologue(file);
	if (!current_function_decl || !entry_patchable(current_function_decl))
		return;
	name = XSTR(XEXP(DECL_RTL(current_function_decl), 0), 0);
	fprintf(file, PFE_LABEL_PREFIX "%u:\n\tnop\n", n);
	fputs("\t.pushsection __patchable_function_entries,\"awo\",@progbits,",
	      file);
	assemble_name(file, name);
	fprintf(file, "\n\t.p2align 3\n\t.8byte " PFE_LABEL_PREFIX
		      "%u\n\t.popsection\n", n);
	n++;
}
#endif

/* [[dyncall::dynamic_call]] (C++11, C2x): the same attribute in the
 * `dyncall` namespace, as with Clang.  The table ends with a null entry. */
static struct attribute_spec dyncall_ns_attrs[2];

static void register_attributes(void *event_data, void *data)
{
	register_attribute(&dynamic_call_attr);
	register_attribute(&patchable_attr);
	dyncall_ns_attrs[0] = dynamic_call_attr;
	memset(&dyncall_ns_attrs[1], 0, sizeof(dyncall_ns_attrs[1]));
	register_scoped_attributes(dyncall_ns_attrs, "dyncall");
}

/* Is DECL annotated, by the attribute in either spelling? */
static tree dynamic_call_attribute(tree attrs)
{
	for (tree a = attrs; a; a = TREE_CHAIN(a))
		if (is_attribute_p(DYNCALL_ATTR_NAME, get_attribute_name(a)))
			return a;
	return NULL_TREE;
}

/* The annotated typedef (if any) a declaration's type, or its array element
 * type, is spelled with. */
static tree annotated_typedef_of(tree type)
{
	for (int depth = 0; type && depth < 64; depth++) {
		tree name = TYPE_NAME(type);

		if (name && TREE_CODE(name) == TYPE_DECL) {
			if (dynamic_call_attribute(DECL_ATTRIBUTES(name)))
				return name;
			if (DECL_ORIGINAL_TYPE(name)) {
				type = DECL_ORIGINAL_TYPE(name);
				continue;
			}
		}
		if (TREE_CODE(type) != ARRAY_TYPE)
			return NULL_TREE;
		type = TREE_TYPE(type);
	}
	return NULL_TREE;
}

static bool is_productive(tree td)
{
	for (tree p : productive_typedefs)
		if (p == td)
			return true;
	return false;
}

/* Every annotated typedef a key's type is spelled with declared a key. */
static void mark_productive(tree type)
{
	for (tree td; (td = annotated_typedef_of(type));
	     type = DECL_ORIGINAL_TYPE(td)) {
		if (!is_productive(td))
			productive_typedefs.push_back(td);
		if (!DECL_ORIGINAL_TYPE(td))
			break;
	}
}

static bool is_annotated(const_tree decl)
{
	return decl && (TREE_CODE(decl) == VAR_DECL ||
			TREE_CODE(decl) == FIELD_DECL) &&
	       dynamic_call_attribute(DECL_ATTRIBUTES(decl));
}

/* An annotated variable or field of array type: an array key. */
static bool is_array_key(const_tree decl)
{
	return is_annotated(decl) && TREE_CODE(TREE_TYPE(decl)) == ARRAY_TYPE;
}

static bool lang_is_cxx(void)
{
	return strncmp(lang_hooks.name, "GNU C++", 7) == 0;
}

static std::string printable_name(tree decl)
{
	if (lang_is_cxx())
		return lang_hooks.decl_printable_name(decl, 1);
	return DECL_NAME(decl) ? IDENTIFIER_POINTER(DECL_NAME(decl)) : "";
}

/* "struct <tag>.<field>" / "union <tag>.<field>" (C++: qualified tag); an
 * anonymous record, with or without a typedef name (the C front end has not
 * seen the typedef when the record is complete), is spelled by its field
 * names, "struct {a,b,f}.f", as the Clang plugin does.  Array keys end in
 * "[]". */
static std::string field_key_name(tree field)
{
	tree rec = DECL_CONTEXT(field);
	std::string s = TREE_CODE(rec) == UNION_TYPE ? "union " : "struct ";
	tree main = rec ? TYPE_MAIN_VARIANT(rec) : NULL_TREE;
	tree tn = main ? TYPE_NAME(main) : NULL_TREE;

	if (tn && TREE_CODE(tn) == IDENTIFIER_NODE) {
		s += IDENTIFIER_POINTER(tn);
	} else if (tn && TREE_CODE(tn) == TYPE_DECL && DECL_NAME(tn) &&
		   !IDENTIFIER_ANON_P(DECL_NAME(tn))) {
		s += printable_name(tn);
	} else {
		s += '{';
		bool first = true;
		for (tree f = main ? TYPE_FIELDS(main) : NULL_TREE; f;
		     f = DECL_CHAIN(f)) {
			if (TREE_CODE(f) != FIELD_DECL)
				continue;
			if (!first)
				s += ',';
			first = false;
			s += decl_name_str(f);
		}
		s += '}';
	}
	s += '.';
	s += decl_name_str(field);
	if (TREE_CODE(TREE_TYPE(field)) == ARRAY_TYPE)
		s += "[]";
	return s;
}

static std::string var_key_name(tree decl)
{
	std::string s = printable_name(decl);

	if (TREE_CODE(TREE_TYPE(decl)) == ARRAY_TYPE)
		s += "[]";
	return s;
}

static void set_key_name(tree decl, const std::string &name)
{
	tree old = lookup_attribute(ATTR_KEY_NAME, DECL_ATTRIBUTES(decl));
	tree str = build_string(name.size() + 1, name.c_str());

	if (old) {
		TREE_VALUE(old) = build_tree_list(NULL_TREE, str);
		return;
	}
	DECL_ATTRIBUTES(decl) =
		tree_cons(get_identifier(ATTR_KEY_NAME),
			  build_tree_list(NULL_TREE, str), DECL_ATTRIBUTES(decl));
}

static void annotate(tree decl)
{
	if (!dynamic_call_attribute(DECL_ATTRIBUTES(decl)))
		DECL_ATTRIBUTES(decl) =
			tree_cons(get_identifier(DYNCALL_ATTR_NAME), NULL_TREE,
				  DECL_ATTRIBUTES(decl));
}

static void remove_dynamic_call(tree decl)
{
	for (tree *p = &DECL_ATTRIBUTES(decl); *p;)
		if (is_attribute_p(DYNCALL_ATTR_NAME, get_attribute_name(*p)))
			*p = TREE_CHAIN(*p);
		else
			p = &TREE_CHAIN(*p);
}

/* PLUGIN_FINISH_DECL: storage class is final; apply annotated typedefs. */
static void finish_decl(void *event_data, void *data)
{
	tree decl = (tree)event_data;

	if (!decl || TREE_CODE(decl) != VAR_DECL)
		return;
	if (dynamic_call_attribute(DECL_ATTRIBUTES(decl))) {
		if (!has_static_storage(decl)) {
			error_at(DECL_SOURCE_LOCATION(decl),
				 DECL_THREAD_LOCAL_P(decl) ? ERR_THREAD
							   : ERR_STORAGE);
			remove_dynamic_call(decl);
			return;
		}
	} else if (tree td = annotated_typedef_of(TREE_TYPE(decl))) {
		/* Objects of an annotated typedef (and arrays of them) are
		 * keys when they can be (static storage); automatic ones are
		 * plain pointers, thread-local ones an error. */
		if (key_shape_of(TREE_TYPE(decl)) == SHAPE_NONE)
			return;
		if (DECL_THREAD_LOCAL_P(decl)) {
			error_at(DECL_SOURCE_LOCATION(decl), ERR_THREAD_TYPEDEF,
				 decl_name_str(td));
			return;
		}
		if (!has_static_storage(decl))
			return;
		annotate(decl);
	} else {
		return;
	}
	mark_productive(TREE_TYPE(decl));
	set_key_name(decl, var_key_name(decl));
}

/* PLUGIN_FINISH_TYPE: fields get their "struct tag.field" key name. */
static void finish_type(void *event_data, void *data)
{
	tree type = (tree)event_data;

	if (!type || (TREE_CODE(type) != RECORD_TYPE &&
		      TREE_CODE(type) != UNION_TYPE))
		return;
	for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f)) {
		if (TREE_CODE(f) != FIELD_DECL)
			continue;
		if (!dynamic_call_attribute(DECL_ATTRIBUTES(f))) {
			if (DECL_BIT_FIELD(f) ||
			    !annotated_typedef_of(TREE_TYPE(f)) ||
			    key_shape_of(TREE_TYPE(f)) == SHAPE_NONE)
				continue;
			annotate(f);
		}
		mark_productive(TREE_TYPE(f));
		set_key_name(f, field_key_name(f));
	}
}

/* PLUGIN_FINISH (also after -fsyntax-only): an annotated typedef that the
 * unit used but never for a key gets a warning, never silence. */
static void finish_compilation(void *event_data, void *data)
{
	for (tree td : annotated_typedefs)
		if (TREE_USED(td) && !is_productive(td))
			warning_at(DECL_SOURCE_LOCATION(td), 0, WARN_NO_KEY,
				   decl_name_str(td));
}

/* ---------------------------------------------------------------------- */
/* Keys of this translation unit                                           */
/* ---------------------------------------------------------------------- */

struct dyncall_key {
	tree decl;        /* annotated VAR_DECL or FIELD_DECL */
	tree target;      /* what the key cell points at: the variable or the
			   * type key descriptor */
	std::string name; /* source name */
	std::string cell; /* key cell symbol */
	unsigned flags;   /* enum dyncall_key_flags */
};

struct dyncall_site_info {
	std::string tramp;
	bool retpoline;
};

static std::vector<dyncall_key> keys;
static std::vector<dyncall_site_info> sites;
static hash_map<tree, unsigned> *key_index; /* decl -> index in keys */
static std::map<std::string, tree> type_keys; /* key name -> descriptor */

static std::string key_name_of(tree decl)
{
	tree a = lookup_attribute(ATTR_KEY_NAME, DECL_ATTRIBUTES(decl));

	if (a && TREE_VALUE(a))
		return TREE_STRING_POINTER(TREE_VALUE(TREE_VALUE(a)));
	/* Declared where the front-end callbacks did not see it (e.g. a C++
	 * template instantiation): best effort. */
	if (TREE_CODE(decl) == FIELD_DECL)
		return field_key_name(decl);
	return var_key_name(decl);
}

/* Mark a symbol created by the plugin as "module internal": local when the
 * unit is compiled to an object, hidden and never localized under LTO (the
 * toplevel asm that references it may land in another partition). */
static void set_internal_linkage(tree decl, bool comdat)
{
	if (!comdat && !dyncall_generating_lto()) {
		TREE_PUBLIC(decl) = 0;
		return;
	}
	TREE_PUBLIC(decl) = 1;
	DECL_VISIBILITY(decl) = VISIBILITY_HIDDEN;
	DECL_VISIBILITY_SPECIFIED(decl) = 1;
	if (dyncall_generating_lto())
		DECL_ATTRIBUTES(decl) =
			tree_cons(get_identifier("externally_visible"),
				  NULL_TREE, DECL_ATTRIBUTES(decl));
}

static tree new_plugin_var(const std::string &name, tree type)
{
	tree decl = build_decl(UNKNOWN_LOCATION, VAR_DECL,
			       get_identifier(name.c_str()), type);

	SET_DECL_ASSEMBLER_NAME(decl, DECL_NAME(decl));
	TREE_STATIC(decl) = 1;
	DECL_ARTIFICIAL(decl) = 1;
	DECL_IGNORED_P(decl) = 1;
	TREE_USED(decl) = 1;
	DECL_PRESERVE_P(decl) = 1;
	return decl;
}

/* A type-key descriptor (struct dyncall_type_key): hidden, COMDAT,
 * writable, 16 zero bytes. */
static tree new_descriptor(const std::string &symbol)
{
	tree type = build_array_type_nelts(ptr_type_node, 2);
	tree decl = new_plugin_var(symbol, type);

	TREE_ADDRESSABLE(decl) = 1;
	DECL_INITIAL(decl) = build_constructor(type, NULL);
	SET_DECL_ALIGN(decl, 64);
	DECL_USER_ALIGN(decl) = 1;
	set_internal_linkage(decl, true);
	make_decl_one_only(decl, DECL_ASSEMBLER_NAME(decl));
	varpool_node::finalize_decl(decl);
	return keep(decl);
}

/* __dyncall_tkey.<md5 of the key name>. */
static tree type_key_descriptor(const std::string &name)
{
	auto it = type_keys.find(name);
	if (it != type_keys.end())
		return it->second;

	unsigned char digest[16];
	char hex[33];
	md5_buffer(name.data(), name.size(), digest);
	for (int i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", digest[i]);

	tree decl = new_descriptor(std::string(DYNCALL_TYPE_KEY_PREFIX) + hex);
	type_keys[name] = decl;
	return decl;
}

/* The unit's record of a key, created on first use. */
static dyncall_key &key_of(tree decl)
{
	bool existed;
	unsigned &idx = key_index->get_or_insert(decl, &existed);

	if (existed)
		return keys[idx];
	idx = keys.size();

	dyncall_key k;
	k.decl = keep(decl);
	k.name = key_name_of(decl);
	k.cell = std::string(DYNCALL_KEYCELL_PREFIX) + unit_id + "." +
		 std::to_string(idx);
	k.flags = 0;
	if (is_array_key(decl)) {
		/* An array key: a type-like key (a descriptor named after it)
		 * whose stores the plugin never sees (they stay plain), so
		 * its sites must never be direct: TYPE keeps them guarded in
		 * the runtime and out of dyncall-rewrite's link-time
		 * resolution, ESCAPES says why (docs/attribute.md). */
		k.flags |= DYNCALL_KEY_TYPE | DYNCALL_KEY_ESCAPES;
		k.target = type_key_descriptor(k.name);
	} else if (TREE_CODE(decl) == FIELD_DECL) {
		k.flags |= DYNCALL_KEY_TYPE;
		k.target = type_key_descriptor(k.name);
	} else {
		k.target = decl;
		if (TYPE_READONLY(TREE_TYPE(decl)) || TREE_READONLY(decl))
			k.flags |= DYNCALL_KEY_CONST;
	}
	keys.push_back(k);
	return keys.back();
}

static bool is_atomic_builtin(gimple *stmt);

/* The annotated pointer key (not an array key) a memory reference reads or
 * writes, or NULL_TREE. */
static tree key_of_ref(tree ref)
{
	if (!ref)
		return NULL_TREE;
	if (TREE_CODE(ref) == VAR_DECL)
		return is_annotated(ref) && !is_array_key(ref) ? ref
							       : NULL_TREE;
	if (TREE_CODE(ref) == COMPONENT_REF) {
		tree f = TREE_OPERAND(ref, 1);
		return is_annotated(f) && !is_array_key(f) ? f : NULL_TREE;
	}
	if (TREE_CODE(ref) == MEM_REF &&
	    TREE_CODE(TREE_OPERAND(ref, 0)) == ADDR_EXPR &&
	    integer_zerop(TREE_OPERAND(ref, 1))) {
		tree base = TREE_OPERAND(TREE_OPERAND(ref, 0), 0);
		if (TREE_CODE(base) == VAR_DECL && is_annotated(base) &&
		    !is_array_key(base) &&
		    tree_int_cst_equal(TYPE_SIZE(TREE_TYPE(ref)),
				       TYPE_SIZE(TREE_TYPE(base))))
			return base;
	}
	return NULL_TREE;
}

/* The array key whose element REF reads, or NULL_TREE: arr[i], arr[i][j],
 * p->arr[i] (the ARRAY_REFs of the front end; an element reached through a
 * pointer into the array is not provably one and stays an ordinary call). */
static tree array_key_of_ref(tree ref)
{
	if (!ref || TREE_CODE(ref) != ARRAY_REF ||
	    !is_function_pointer_type(TREE_TYPE(ref)))
		return NULL_TREE;
	while (TREE_CODE(ref) == ARRAY_REF)
		ref = TREE_OPERAND(ref, 0);
	if (TREE_CODE(ref) == COMPONENT_REF)
		ref = TREE_OPERAND(ref, 1);
	return (TREE_CODE(ref) == VAR_DECL || TREE_CODE(ref) == FIELD_DECL) &&
			       is_array_key(ref)
		       ? ref
		       : NULL_TREE;
}

/* Key whose address ADDR is: &key, or an SSA copy of it (the C front end
 * lowers atomic_store(&key, v) to "p = &key; __atomic_store_8(p, v, 5)"). */
static tree key_of_addr(tree addr)
{
	for (int depth = 0; addr && depth < 4; depth++) {
		if (TREE_CODE(addr) == ADDR_EXPR)
			return key_of_ref(TREE_OPERAND(addr, 0));
		if (TREE_CODE(addr) != SSA_NAME)
			return NULL_TREE;
		gimple *def = SSA_NAME_DEF_STMT(addr);
		if (!is_gimple_assign(def) ||
		    (!gimple_assign_single_p(def) &&
		     !CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(def))))
			return NULL_TREE;
		addr = gimple_assign_rhs1(def);
	}
	return NULL_TREE;
}

/* "p = &key" whose every use is the address operand of an atomic builtin:
 * the builtins are handled (and judged) where they are. */
static bool addr_only_feeds_atomics(gimple *stmt)
{
	tree lhs = gimple_get_lhs(stmt);
	imm_use_iterator it;
	gimple *use;

	bool any = false;

	if (!lhs || TREE_CODE(lhs) != SSA_NAME)
		return false;
	FOR_EACH_IMM_USE_STMT(use, it, lhs)
	{
		if (is_gimple_debug(use))
			continue;
		any = true;
		if (is_gimple_assign(use) &&
		    (gimple_assign_rhs_code(use) == SSA_NAME ||
		     CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(use))) &&
		    addr_only_feeds_atomics(use))
			continue;
		if (!is_atomic_builtin(use) || gimple_call_num_args(use) < 1 ||
		    gimple_call_arg(use, 0) != lhs)
			return false;
		for (unsigned i = 1; i < gimple_call_num_args(use); i++)
			if (gimple_call_arg(use, i) == lhs)
				return false;
	}
	return any; /* an address nobody uses counts as taken */
}

static void mark_escaped(tree key, gimple *stmt, const char *why)
{
	dyncall_key &k = key_of(key);

	if (verbose && !(k.flags & DYNCALL_KEY_ESCAPES))
		inform(stmt ? gimple_location(stmt) : UNKNOWN_LOCATION,
		       "dyncall: address of key %qs escapes (%s): its sites "
		       "stay guarded",
		       k.name.c_str(), why);
	k.flags |= DYNCALL_KEY_ESCAPES;
}

/* walk_tree callback: any address of a key, or of a part of one, that is
 * not the base of a direct access lets the key escape. */
static tree find_escapes(tree *tp, int *walk_subtrees, void *data)
{
	gimple *stmt = (gimple *)data;
	tree t = *tp;

	if (TYPE_P(t)) {
		*walk_subtrees = 0;
		return NULL_TREE;
	}
	if ((TREE_CODE(t) == MEM_REF || TREE_CODE(t) == TARGET_MEM_REF) &&
	    TREE_CODE(TREE_OPERAND(t, 0)) == ADDR_EXPR) {
		/* MEM[&x]: a direct access to x.  Only an access to part of
		 * a key (or at another size) lets it escape. */
		tree base = get_base_address(TREE_OPERAND(TREE_OPERAND(t, 0), 0));
		if (!(TREE_CODE(t) == MEM_REF && key_of_ref(t)) && base &&
		    TREE_CODE(base) == VAR_DECL && is_annotated(base))
			mark_escaped(base, stmt, "partial access");
		*walk_subtrees = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(t) == ADDR_EXPR) {
		for (tree r = TREE_OPERAND(t, 0); r;
		     r = (handled_component_p(r) || TREE_CODE(r) == MEM_REF)
				 ? TREE_OPERAND(r, 0)
				 : NULL_TREE) {
			if (TREE_CODE(r) == COMPONENT_REF &&
			    is_annotated(TREE_OPERAND(r, 1)))
				mark_escaped(TREE_OPERAND(r, 1), stmt,
					     "address taken");
			else if (TREE_CODE(r) == VAR_DECL && is_annotated(r))
				mark_escaped(r, stmt, "address taken");
		}
		*walk_subtrees = 0;
	}
	return NULL_TREE;
}

/* Aggregate copies of a record that holds an annotated field bypass the
 * field-store note: such type keys escape. */
static void escape_fields_of(tree type, gimple *stmt, int depth)
{
	if (!type || depth > 8)
		return;
	if (TREE_CODE(type) == ARRAY_TYPE) {
		escape_fields_of(TREE_TYPE(type), stmt, depth + 1);
		return;
	}
	if (!RECORD_OR_UNION_TYPE_P(type))
		return;
	for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f)) {
		if (TREE_CODE(f) != FIELD_DECL)
			continue;
		if (is_annotated(f))
			mark_escaped(f, stmt, "aggregate copy");
		else
			escape_fields_of(TREE_TYPE(f), stmt, depth + 1);
	}
}

/*
 * Is the compilation's ABI the one docs/abi.md describes for the target
 * (x86-64 LP64, aarch64 LP64 with x18 free, ppc64le ELFv2)?  Asked by the
 * pass gates, i.e. once the target's options are final; one warning, and
 * then nothing is transformed (the attribute stays accepted and checked).
 */
static bool target_supported(void)
{
	static int ok = -1;

	if (ok < 0) {
		const char *problem = dyncall_target_problem();

		ok = problem == NULL;
		if (problem)
			warning_at(UNKNOWN_LOCATION, 0,
				   "%s: %s on %s; calls through %<dynamic_call%> "
				   "pointers stay indirect",
				   plugin_name, problem, arch.name);
	}
	return ok;
}

/* ---------------------------------------------------------------------- */
/* GIMPLE: sites, stores, escapes                                          */
/* ---------------------------------------------------------------------- */

static tree store_fndecl, resync_fndecl, note_fndecl;

static tree runtime_fndecl(tree *cache, const char *name, int nargs)
{
	if (*cache)
		return *cache;
	tree type = nargs == 2 ? build_function_type_list(void_type_node,
							  ptr_type_node,
							  ptr_type_node,
							  NULL_TREE)
			       : build_function_type_list(void_type_node,
							  ptr_type_node,
							  NULL_TREE);
	tree decl = build_fn_decl(name, type);
	SET_DECL_ASSEMBLER_NAME(decl, DECL_NAME(decl));
	TREE_NOTHROW(decl) = 1;
	*cache = keep(decl);
	return decl;
}

static bool is_retpoline_function(tree fndecl)
{
	if (!arch.has_retpoline)
		return false;
	tree a = lookup_attribute("indirect_branch", DECL_ATTRIBUTES(fndecl));

	if (a && TREE_VALUE(a) &&
	    TREE_CODE(TREE_VALUE(TREE_VALUE(a))) == STRING_CST)
		return strncmp(TREE_STRING_POINTER(TREE_VALUE(TREE_VALUE(a))),
			       "thunk", 5) == 0;
	return dyncall_global_retpoline();
}

static bool is_builtin(gimple *stmt, enum built_in_function fn)
{
	return gimple_call_builtin_p(stmt, BUILT_IN_NORMAL) &&
	       DECL_FUNCTION_CODE(gimple_call_fndecl(stmt)) == fn;
}

static bool is_atomic_builtin(gimple *stmt)
{
	if (!gimple_call_builtin_p(stmt, BUILT_IN_NORMAL))
		return false;
	enum built_in_function fn = DECL_FUNCTION_CODE(gimple_call_fndecl(stmt));
	return (fn >= BUILT_IN_ATOMIC_TEST_AND_SET &&
		fn <= BUILT_IN_ATOMIC_SIGNAL_FENCE) ||
	       (fn >= BUILT_IN_SYNC_FETCH_AND_ADD_N &&
		fn <= BUILT_IN_SYNC_SYNCHRONIZE);
}

/* A site's callee: follow copies and conversions back to the load. */
struct site_source {
	gimple *load;   /* the loading statement */
	tree key;       /* annotated decl */
	bool atomic;    /* __atomic_load */
	bool relaxed;   /* its memory order is relaxed */
	bool volatile_; /* volatile load */
	auto_vec<tree, 4> values; /* SSA names between load and call */
};

static bool find_site_source(tree callee, site_source *src)
{
	tree v = callee;

	for (int depth = 0; depth < 8; depth++) {
		if (TREE_CODE(v) != SSA_NAME)
			return false;
		src->values.safe_push(v);
		gimple *def = SSA_NAME_DEF_STMT(v);
		if (is_gimple_assign(def)) {
			enum tree_code code = gimple_assign_rhs_code(def);
			tree rhs = gimple_assign_rhs1(def);
			if (gimple_assign_single_p(def) &&
			    TREE_CODE(rhs) != SSA_NAME) {
				src->key = key_of_ref(rhs);
				if (!src->key)
					src->key = array_key_of_ref(rhs);
				if (!src->key)
					return false;
				src->load = def;
				src->volatile_ = gimple_has_volatile_ops(def);
				return true;
			}
			if (code == SSA_NAME || CONVERT_EXPR_CODE_P(code)) {
				if (!tree_int_cst_equal(
					    TYPE_SIZE(TREE_TYPE(rhs)),
					    TYPE_SIZE(TREE_TYPE(v))))
					return false;
				v = rhs;
				continue;
			}
			return false;
		}
		if (is_gimple_call(def) &&
		    (is_builtin(def, BUILT_IN_ATOMIC_LOAD_8) ||
		     is_builtin(def, BUILT_IN_ATOMIC_LOAD_N)) &&
		    gimple_call_num_args(def) == 2) {
			src->key = key_of_addr(gimple_call_arg(def, 0));
			if (!src->key)
				return false;
			tree mo = gimple_call_arg(def, 1);
			src->load = def;
			src->atomic = true;
			src->relaxed = TREE_CODE(mo) == INTEGER_CST &&
				       (tree_to_uhwi(mo) & MEMMODEL_BASE_MASK) ==
					       MEMMODEL_RELAXED;
			return true;
		}
		return false;
	}
	return false;
}

/* A use that freshness allows besides the call: a comparison with null. */
static bool is_null_compare(gimple *use, tree v)
{
	if (gimple_code(use) == GIMPLE_COND) {
		enum tree_code c = gimple_cond_code(use);
		tree other = gimple_cond_lhs(use) == v ? gimple_cond_rhs(use)
						       : gimple_cond_lhs(use);
		return (c == EQ_EXPR || c == NE_EXPR) && integer_zerop(other);
	}
	if (is_gimple_assign(use)) {
		enum tree_code c = gimple_assign_rhs_code(use);
		if (c != EQ_EXPR && c != NE_EXPR)
			return false;
		tree other = gimple_assign_rhs1(use) == v
				     ? gimple_assign_rhs2(use)
				     : gimple_assign_rhs1(use);
		return integer_zerop(other);
	}
	return false;
}

static bool blocks_freshness(gimple *s)
{
	if (is_gimple_debug(s) || gimple_code(s) == GIMPLE_LABEL ||
	    gimple_code(s) == GIMPLE_NOP || gimple_code(s) == GIMPLE_PREDICT)
		return false;
	return gimple_vdef(s) || is_gimple_call(s) ||
	       gimple_code(s) == GIMPLE_ASM || gimple_has_volatile_ops(s);
}

/*
 * Freshness (DYNCALL_SITE_FRESH): no store, call, fence, atomic or volatile
 * access on any path from the load to the call, and the loaded value is
 * used only by the call and by comparisons with null.  Paths are followed
 * backwards from the call through blocks with a single predecessor, which
 * makes the load's block dominate the call's and every path between them a
 * straight line.
 */
static bool site_is_fresh(gcall *call, site_source *src)
{
	if (src->atomic && !src->relaxed)
		return false;

	/* Uses. */
	for (unsigned i = 0; i < src->values.length(); i++) {
		tree v = src->values[i];
		imm_use_iterator it;
		gimple *use;
		FOR_EACH_IMM_USE_STMT(use, it, v)
		{
			if (use == call || is_gimple_debug(use))
				continue;
			if (i > 0 && use == SSA_NAME_DEF_STMT(src->values[i - 1]))
				continue; /* the copy towards the call */
			if (is_null_compare(use, v))
				continue;
			return false;
		}
	}

	/* Path. */
	basic_block bb = gimple_bb(call);
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	gsi_prev(&gsi);
	for (int blocks = 0; blocks < 64; blocks++) {
		for (; !gsi_end_p(gsi); gsi_prev(&gsi)) {
			gimple *s = gsi_stmt(gsi);
			if (s == src->load)
				return true;
			if (blocks_freshness(s))
				return false;
		}
		if (!single_pred_p(bb))
			return false;
		bb = single_pred(bb);
		if (bb == ENTRY_BLOCK_PTR_FOR_FN(cfun) || bb == gimple_bb(call))
			return false;
		gsi = gsi_last_bb(bb);
	}
	return false;
}

static void note_missed(gimple *stmt, const char *fmt, const char *what)
{
	if (dump_enabled_p())
		dump_printf_loc(MSG_MISSED_OPTIMIZATION, stmt,
				"dyncall: call not transformed: %s\n", what);
	if (verbose)
		inform(gimple_location(stmt), fmt, what);
}

/* Does some operand of a PHI chain come from a key?  (For the note only.) */
static bool phi_reads_key(tree v, int depth)
{
	if (TREE_CODE(v) != SSA_NAME || depth > 4)
		return false;
	gimple *def = SSA_NAME_DEF_STMT(v);
	if (gimple_code(def) == GIMPLE_PHI) {
		for (unsigned i = 0; i < gimple_phi_num_args(def); i++)
			if (phi_reads_key(gimple_phi_arg_def(def, i), depth + 1))
				return true;
		return false;
	}
	if (!is_gimple_assign(def))
		return false;
	if (gimple_assign_rhs_code(def) == SSA_NAME ||
	    CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(def)))
		return phi_reads_key(gimple_assign_rhs1(def), depth + 1);
	if (gimple_assign_single_p(def))
		return key_of_ref(gimple_assign_rhs1(def)) ||
		       array_key_of_ref(gimple_assign_rhs1(def));
	return false;
}

static tree new_trampoline(gcall *call, tree key, unsigned flags,
			   const dyncall_key &k, bool retpoline)
{
	std::string name = std::string(DYNCALL_TRAMP_PREFIX) + unit_id + "." +
			   std::to_string(sites.size());
	tree fntype = gimple_call_fntype(call);
	tree decl = build_decl(UNKNOWN_LOCATION, FUNCTION_DECL,
			       get_identifier(name.c_str()), fntype);

	SET_DECL_ASSEMBLER_NAME(decl, DECL_NAME(decl));
	TREE_PUBLIC(decl) = 1;
	DECL_EXTERNAL(decl) = 1;
	DECL_ARTIFICIAL(decl) = 1;
	DECL_VISIBILITY(decl) = VISIBILITY_HIDDEN;
	DECL_VISIBILITY_SPECIFIED(decl) = 1;
	/* It takes the static chain: keeps folding from dropping it. */
	DECL_STATIC_CHAIN(decl) = 1;
	tree args = tree_cons(NULL_TREE,
			      build_string(k.cell.size() + 1, k.cell.c_str()),
			      tree_cons(NULL_TREE,
					build_int_cst(unsigned_type_node, flags),
					NULL_TREE));
	DECL_ATTRIBUTES(decl) = tree_cons(get_identifier(ATTR_SITE), args,
					  NULL_TREE);
	sites.push_back({ name, retpoline });
	return keep(decl);
}

/* What transform_site did with a call. */
enum site_result {
	SITE_NONE,	  /* not a call through a key */
	SITE_DONE,	  /* a site of its key */
	SITE_MISSED,	  /* through a key, left as is (noted) */
	SITE_MISSED_PHI, /* a merge of key loads, left as is (noted) */
};

static enum site_result transform_site(gcall *call, bool retpoline)
{
	tree callee = gimple_call_fn(call);
	site_source src = {};

	if (gimple_call_internal_p(call) || !callee ||
	    TREE_CODE(callee) != SSA_NAME)
		return SITE_NONE;
	if (!find_site_source(callee, &src)) {
		if (!phi_reads_key(callee, 0))
			return SITE_NONE;
		/* Whole-program mode makes it a site of the unit's key. */
		if (!whole_program)
			note_missed(call, "dyncall: call not transformed: %s",
				    "the callee is a merge (phi) of loads; "
				    "load the key right before the call");
		return SITE_MISSED_PHI;
	}
	if (gimple_call_chain(call)) {
		note_missed(call, "dyncall: call not transformed: %s",
			    "the call already has a static chain");
		return SITE_MISSED;
	}

	dyncall_key &k = key_of(src.key);
	unsigned flags = 0;
	/* An array element may change without the runtime knowing. */
	if (!is_array_key(src.key) && site_is_fresh(call, &src))
		flags |= DYNCALL_SITE_FRESH;
	if (k.flags & DYNCALL_KEY_TYPE)
		flags |= DYNCALL_SITE_TYPE_KEY;
	if (retpoline)
		flags |= DYNCALL_SITE_RETPOLINE;
	if (dyncall_ibt_enabled())
		flags |= DYNCALL_SITE_IBT;
	if (dyncall_bti_enabled())
		flags |= DYNCALL_SITE_BTI;

	tree tramp = new_trampoline(call, src.key, flags, k, retpoline);
	cgraph_node::get_create(tramp);
	gimple_call_set_fndecl(call, tramp);
	gimple_call_set_chain(call, callee);
	update_stmt(call);

	if (verbose)
		inform(gimple_location(call),
		       "dyncall: call through %qs becomes a call to %qs%s",
		       k.name.c_str(), IDENTIFIER_POINTER(DECL_NAME(tramp)),
		       (flags & DYNCALL_SITE_FRESH) ? " (fresh)" : "");
	if (dump_enabled_p())
		dump_printf_loc(MSG_OPTIMIZED_LOCATIONS, call,
				"dyncall: call through %s transformed\n",
				k.name.c_str());
	return SITE_DONE;
}

/* ---------------------------------------------------------------------- */
/* Whole-program mode (docs/whole-program.md)                          */
/* ---------------------------------------------------------------------- */

/* libiberty's demangler, linked into every cc1 (its header is not among
 * the plugin headers).  DMGL_PARAMS | DMGL_ANSI: "ns::f(int) const". */
extern "C" char *cplus_demangle(const char *mangled, int options);
#define DYNCALL_DMGL_PARAMS (1 << 0)
#define DYNCALL_DMGL_ANSI (1 << 1)

enum wp_rule_kind { WP_FUNCTION, WP_FILE, WP_FIELD };

struct wp_rule {
	bool include;
	enum wp_rule_kind kind;
	std::string glob;	/* function/file glob, or the struct glob */
	std::string field_glob; /* field rules: the field glob */
	int line;		/* file rules: 0 = any line */
};

static std::vector<wp_rule> wp_rules;
static bool wp_has_include;

/* "<filter>[:<line>]: error: <what>", the line the LLVM pass prints
 * (llvm-pass/WholeProgramFilter.cpp): GCC prints a diagnostic without a
 * location as "<progname>: error: <what>". */
static void filter_error(const char *file, unsigned line,
			 const std::string &what)
{
	std::string where = file;
	const char *saved = progname;

	if (line)
		where += ":" + std::to_string(line);
	progname = where.c_str();
	error_at(UNKNOWN_LOCATION, "%s", what.c_str());
	progname = saved;
}

/* The next blank-separated word of S, removed from it. */
static std::string next_word(std::string &s)
{
	size_t b = s.find_first_not_of(" \t\r\v\f");

	if (b == std::string::npos) {
		s.clear();
		return "";
	}
	size_t e = s.find_first_of(" \t\r\v\f", b);
	std::string w = s.substr(b, e == std::string::npos ? e : e - b);

	s = e == std::string::npos ? "" : s.substr(e);
	return w;
}

/* One line of the filter (the grammar and the messages of the LLVM
 * pass's parser, word for word).  Returns the error, or "". */
static std::string parse_filter_line(std::string text)
{
	wp_rule r;

	text = text.substr(0, text.find('#'));
	std::string verb = next_word(text);
	if (verb.empty())
		return "";
	if (verb != "include" && verb != "exclude")
		return "expected 'include' or 'exclude', got '" + verb + "'";
	std::string kind = next_word(text);
	r.include = verb == "include";
	r.line = 0;
	if (kind == "function")
		r.kind = WP_FUNCTION;
	else if (kind == "file")
		r.kind = WP_FILE;
	else if (kind == "field")
		r.kind = WP_FIELD;
	else
		return "expected 'function', 'file' or 'field' after '" + verb +
		       "'";
	std::string pattern = next_word(text);
	if (r.kind == WP_FIELD &&
	    (pattern == "struct" || pattern == "union" || pattern == "class"))
		pattern = next_word(text);
	if (pattern.empty())
		return "missing pattern after '" + verb + " " + kind + "'";
	std::string rest = text;
	if (!next_word(rest).empty()) {
		size_t b = text.find_first_not_of(" \t\r\v\f");
		size_t e = text.find_last_not_of(" \t\r\v\f");
		return "unexpected text after the pattern: '" +
		       text.substr(b, e - b + 1) + "'";
	}
	size_t sep;
	switch (r.kind) {
	case WP_FUNCTION:
		r.glob = pattern;
		break;
	case WP_FILE:
		/* <glob>:<line>: a ':' always introduces a line (> 0). */
		sep = pattern.rfind(':');
		r.glob = pattern.substr(0, sep);
		if (sep != std::string::npos) {
			std::string num = pattern.substr(sep + 1);
			if (num.empty() || num.size() > 9 ||
			    num.find_first_not_of("0123456789") !=
				    std::string::npos ||
			    (r.line = atoi(num.c_str())) == 0)
				return "bad line number '" + num +
				       "' in a file rule";
		}
		break;
	case WP_FIELD:
		/* "<struct glob>.<field glob>" ("struct ops.read" too). */
		sep = pattern.rfind('.');
		if (sep == std::string::npos || sep == 0 ||
		    sep + 1 == pattern.size())
			return "a field rule is <struct>.<field>, got '" +
			       pattern + "'";
		r.glob = pattern.substr(0, sep);
		r.field_glob = pattern.substr(sep + 1);
		break;
	}
	wp_has_include |= r.include;
	wp_rules.push_back(r);
	return "";
}

/* Read the filter once, at plugin initialization.  The first malformed
 * line is an error, which fails the compilation. */
static void read_filter(const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	ssize_t n;

	if (!f) {
		filter_error(file, 0,
			     std::string("cannot read the filter file: ") +
				     xstrerror(errno));
		return;
	}
	while ((n = getline(&buf, &cap, f)) >= 0) {
		lineno++;
		std::string err = parse_filter_line(
			std::string(buf, n && buf[n - 1] == '\n' ? n - 1 : n));
		if (!err.empty()) {
			filter_error(file, lineno, err);
			break;
		}
	}
	if (ferror(f))
		filter_error(file, 0,
			     std::string("cannot read the filter file: ") +
				     xstrerror(errno));
	free(buf);
	fclose(f);
}

/* What a candidate call is matched against. */
struct wp_candidate {
	std::vector<std::string> functions; /* C name, mangled, demangled */
	std::string file;
	int line;
	std::string field; /* "<tag>.<field>" or empty */
};

static bool glob_match(const std::string &glob, const std::string &s)
{
	return fnmatch(glob.c_str(), s.c_str(), 0) == 0;
}

static bool rule_matches(const wp_rule &r, const wp_candidate &c)
{
	switch (r.kind) {
	case WP_FUNCTION:
		for (const std::string &n : c.functions)
			if (glob_match(r.glob, n))
				return true;
		return false;
	case WP_FILE: {
		if (c.file.empty() || (r.line && r.line != c.line))
			return false;
		size_t slash = c.file.rfind('/');
		return glob_match(r.glob, c.file) ||
		       (slash != std::string::npos &&
			glob_match(r.glob, c.file.substr(slash + 1)));
	}
	case WP_FIELD: {
		size_t dot = c.field.rfind('.');
		return dot != std::string::npos &&
		       glob_match(r.glob, c.field.substr(0, dot)) &&
		       glob_match(r.field_glob, c.field.substr(dot + 1));
	}
	}
	return false;
}

/* The field a callee was loaded from ("<tag>.<field>", the key-name
 * spelling without "struct "/"union " and "[]"), through copies and
 * conversions; empty when it was not loaded from a field. */
static std::string callee_field(tree v)
{
	for (int depth = 0; depth < 8 && v && TREE_CODE(v) == SSA_NAME;
	     depth++) {
		gimple *def = SSA_NAME_DEF_STMT(v);
		if (!is_gimple_assign(def))
			return "";
		tree rhs = gimple_assign_rhs1(def);
		enum tree_code code = gimple_assign_rhs_code(def);
		if (code == SSA_NAME || CONVERT_EXPR_CODE_P(code)) {
			v = rhs;
			continue;
		}
		if (!gimple_assign_single_p(def))
			return "";
		while (TREE_CODE(rhs) == ARRAY_REF)
			rhs = TREE_OPERAND(rhs, 0);
		if (TREE_CODE(rhs) != COMPONENT_REF)
			return "";
		tree f = TREE_OPERAND(rhs, 1);
		std::string name = field_key_name(f);
		size_t sp = name.find(' ');
		if (sp != std::string::npos)
			name = name.substr(sp + 1);
		if (name.size() > 2 &&
		    name.compare(name.size() - 2, 2, "[]") == 0)
			name.resize(name.size() - 2);
		return name;
	}
	return "";
}

/* Does the filter (if any) select CALL, in FUN? */
static bool wp_selected(gcall *call, function *fun, tree callee)
{
	if (wp_rules.empty())
		return true;

	wp_candidate c;
	tree fn = fun->decl;
	location_t loc = gimple_location(call);
	if (loc == UNKNOWN_LOCATION)
		loc = DECL_SOURCE_LOCATION(fn);
	expanded_location xl = expand_location(loc);

	c.file = xl.file ? xl.file : "";
	c.line = xl.line;
	/* The symbol (the C name, or the C++ mangled name) and, mangled, its
	 * demangled form, as the LLVM pass matches. */
	const char *symbol = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fn));
	c.functions.push_back(symbol);
	if (strncmp(symbol, "_Z", 2) == 0)
		if (char *d = cplus_demangle(symbol, DYNCALL_DMGL_PARAMS |
							     DYNCALL_DMGL_ANSI)) {
			c.functions.push_back(d);
			free(d);
		}
	c.field = callee_field(callee);

	/* Any matching exclude rule removes the call; else it needs a
	 * matching include rule, if there is any. */
	bool in = !wp_has_include;
	for (const wp_rule &r : wp_rules) {
		if (!rule_matches(r, c))
			continue;
		if (!r.include)
			return false;
		in = true;
	}
	return in;
}

/* The unit's whole-program key: a type-key descriptor
 * __dyncall_wpkey.<unit> (like a type key's: hidden, COMDAT, writable, 16
 * zero bytes) and its key entry, TYPE|ESCAPES|WHOLE_PROGRAM, named
 * "(indirect call)". */
static dyncall_key &wp_key(void)
{
	static tree descriptor;

	if (descriptor)
		return key_of(descriptor);

	tree decl = new_descriptor(std::string(DYNCALL_WP_KEY_PREFIX) + unit_id);
	descriptor = decl;

	bool existed;
	unsigned &idx = key_index->get_or_insert(decl, &existed);
	idx = keys.size();
	dyncall_key k;
	k.decl = decl;
	k.target = decl;
	k.name = DYNCALL_WP_KEY_NAME;
	k.cell = std::string(DYNCALL_KEYCELL_PREFIX) + unit_id + "." +
		 std::to_string(idx);
	k.flags = DYNCALL_KEY_TYPE | DYNCALL_KEY_ESCAPES |
		  DYNCALL_KEY_WHOLE_PROGRAM;
	keys.push_back(k);
	return keys.back();
}

/* Calling conventions other than the platform's C one (and what GCC
 * calls variants of it with other call-clobbered registers): x86-64
 * ms_abi (also every function under -mabi=ms), aarch64 aarch64_vector_pcs
 * / aarch64_sve_pcs.  The runtime's guard stubs and miss path assume the C
 * convention's callee-saved registers. */
static bool default_calling_convention(tree fntype)
{
	if (!dyncall_c_abi_p(fntype))
		return false;
	static const char *const attrs[] = {
		"ms_abi", "aarch64_vector_pcs", "aarch64_sve_pcs",
		"interrupt", "regparm", "stdcall", "fastcall", "thiscall",
	};

	for (const char *a : attrs)
		if (lookup_attribute(a, TYPE_ATTRIBUTES(fntype)))
			return false;
	return fntype_abi(fntype).id() == 0;
}

/* Follow copies and conversions: is V the address of a function?  (When
 * optimizing, early constant propagation makes the call direct: not a
 * site.  At -O0 nothing does, and the call stays indirect.) */
static bool is_known_function(tree v)
{
	for (int depth = 0; depth < 8 && v; depth++) {
		if (TREE_CODE(v) == ADDR_EXPR)
			return TREE_CODE(TREE_OPERAND(v, 0)) == FUNCTION_DECL;
		if (TREE_CODE(v) != SSA_NAME)
			return false;
		gimple *def = SSA_NAME_DEF_STMT(v);
		if (!is_gimple_assign(def) ||
		    (!gimple_assign_single_p(def) &&
		     !CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(def))))
			return false;
		v = gimple_assign_rhs1(def);
	}
	return false;
}

/*
 * Whole-program mode: an indirect call (a function pointer, a C++ virtual
 * call (OBJ_TYPE_REF) or a pointer to member function) becomes a guarded
 * site of the unit's whole-program key, exactly like a type-key site: a
 * trampoline with the pointer in the static chain, TYPE_KEY, never FRESH.
 * What cannot keep the exact ABI stays as it is, with a missed-site note.
 */
static bool transform_wp_site(gcall *call, bool retpoline, function *fun)
{
	tree fn = gimple_call_fn(call);

	if (gimple_call_internal_p(call) || !fn || gimple_call_fndecl(call))
		return false;
	tree callee = TREE_CODE(fn) == OBJ_TYPE_REF ? OBJ_TYPE_REF_EXPR(fn)
						    : fn;
	const char *why = NULL;
	tree fntype = gimple_call_fntype(call);

	if (optimize && is_known_function(callee))
		return false; /* constant propagation makes it direct */
	if (TREE_CODE(callee) != SSA_NAME)
		why = "the callee is not a pointer value";
	else if (gimple_call_chain(call))
		why = "the call already has a static chain";
	else if (gimple_call_must_tail_p(call))
		why = "a musttail call (its prototype may not change)";
	else if (!fntype || !default_calling_convention(fntype))
		why = "the callee's calling convention is not the platform's "
		      "C one";
	if (why) {
		note_missed(call, "dyncall: indirect call not transformed: %s",
			    why);
		return false;
	}
	if (!wp_selected(call, fun, callee)) {
		note_missed(call, "dyncall: indirect call not transformed: %s",
			    "not selected by the whole-program filter");
		return false;
	}

	dyncall_key &k = wp_key();
	unsigned flags = DYNCALL_SITE_TYPE_KEY;
	if (retpoline)
		flags |= DYNCALL_SITE_RETPOLINE;
	if (dyncall_ibt_enabled())
		flags |= DYNCALL_SITE_IBT;
	if (dyncall_bti_enabled())
		flags |= DYNCALL_SITE_BTI;

	tree tramp = new_trampoline(call, NULL_TREE, flags, k, retpoline);
	DECL_ATTRIBUTES(tramp) = tree_cons(get_identifier(ATTR_WP_SITE),
					   NULL_TREE, DECL_ATTRIBUTES(tramp));
	cgraph_node::get_create(tramp);
	gimple_call_set_fndecl(call, tramp);
	gimple_call_set_chain(call, callee);
	update_stmt(call);

	if (verbose)
		inform(gimple_location(call),
		       "dyncall: indirect call becomes a call to %qs "
		       "(whole program)",
		       IDENTIFIER_POINTER(DECL_NAME(tramp)));
	if (dump_enabled_p())
		dump_printf_loc(MSG_OPTIMIZED_LOCATIONS, call,
				"dyncall: indirect call transformed "
				"(whole program)\n");
	return true;
}

/* key = v  ->  __dyncall_store(&key, v) */
static void replace_store(gimple_stmt_iterator *gsi, tree key, tree value)
{
	gimple *old = gsi_stmt(*gsi);
	gimple_seq seq = NULL;

	if (!POINTER_TYPE_P(TREE_TYPE(value))) {
		tree tmp = make_ssa_name(ptr_type_node);
		gimple_seq_add_stmt(&seq, gimple_build_assign(tmp, NOP_EXPR,
							      value));
		value = tmp;
	}
	gcall *call = gimple_build_call(
		runtime_fndecl(&store_fndecl, DYNCALL_STORE_FN, 2), 2,
		build_fold_addr_expr(key), unshare_expr(value));
	gimple_set_location(call, gimple_location(old));
	if (seq)
		gsi_insert_seq_before(gsi, seq, GSI_SAME_STMT);
	/* The call takes over the store's virtual operands (and with them its
	 * place in the memory SSA chain) and its place in the sequence.  Not
	 * unlink_stmt_vdef: that would reroute the users of the moved vdef. */
	gimple_move_vops(call, old);
	gsi_replace(gsi, call, true);
	update_stmt(call);
	/* Callers go on with the statement after the store (&key in the call
	 * is no escape): exactly one step. */
	gsi_next(gsi);
	if (verbose)
		inform(gimple_location(call),
		       "dyncall: store to %qs goes through %qs",
		       key_of(key).name.c_str(), DYNCALL_STORE_FN);
}

struct pending_note {
	gimple *store;
	tree field;
	tree value;
};

/* After an atomic read-modify-write of a key: __dyncall_resync(&key). */
static bool insert_resync(gimple_stmt_iterator *gsi, tree key)
{
	gimple *stmt = gsi_stmt(*gsi);

	if (stmt_ends_bb_p(stmt))
		return false;
	gcall *call = gimple_build_call(
		runtime_fndecl(&resync_fndecl, DYNCALL_RESYNC_FN, 1), 1,
		build_fold_addr_expr(key));
	gimple_set_location(call, gimple_location(stmt));
	gsi_insert_after(gsi, call, GSI_NEW_STMT);
	return true;
}

/*
 * p->field = v;  ->  p->field = v;
 *                    t = tkey.last;
 *                    if (t != v) __dyncall_note(&tkey, v);
 */
static void insert_note(const pending_note &n)
{
	basic_block bb = gimple_bb(n.store);
	tree tkey = key_of(n.field).target;
	tree last = build2(MEM_REF, ptr_type_node, build_fold_addr_expr(tkey),
			   build_int_cst(build_pointer_type(ptr_type_node), 0));
	tree t = make_ssa_name(ptr_type_node);
	gimple *load = gimple_build_assign(t, last);
	tree value = n.value;
	gimple_seq seq = NULL;

	gimple_set_location(load, gimple_location(n.store));
	gimple_seq_add_stmt(&seq, load);
	if (!POINTER_TYPE_P(TREE_TYPE(value))) {
		tree tmp = make_ssa_name(ptr_type_node);
		gimple_seq_add_stmt(&seq, gimple_build_assign(tmp, NOP_EXPR,
							      value));
		value = tmp;
	}
	gcond *cond = gimple_build_cond(NE_EXPR, t, unshare_expr(value),
					NULL_TREE, NULL_TREE);
	gimple_seq_add_stmt(&seq, cond);
	gimple_stmt_iterator gsi = gsi_for_stmt(n.store);
	gsi_insert_seq_after(&gsi, seq, GSI_SAME_STMT);

	edge fall = split_block(bb, cond);
	basic_block join = fall->dest;
	basic_block note_bb = create_empty_bb(bb);
	if (current_loops)
		add_bb_to_loop(note_bb, bb->loop_father);

	gcall *call = gimple_build_call(
		runtime_fndecl(&note_fndecl, DYNCALL_NOTE_FN, 2), 2,
		build_fold_addr_expr(tkey), unshare_expr(value));
	gimple_set_location(call, gimple_location(n.store));
	gimple_stmt_iterator ngsi = gsi_start_bb(note_bb);
	gsi_insert_after(&ngsi, call, GSI_NEW_STMT);

	fall->flags &= ~EDGE_FALLTHRU;
	fall->flags |= EDGE_FALSE_VALUE;
	fall->probability = profile_probability::likely();
	edge e = make_edge(bb, note_bb, EDGE_TRUE_VALUE);
	e->probability = profile_probability::unlikely();
	note_bb->count = bb->count.apply_probability(e->probability);
	edge back = make_edge(note_bb, join, EDGE_FALLTHRU);
	back->probability = profile_probability::always();
}

/*
 * Functions that may run while the dynamic loader is still relocating the
 * module: IFUNC resolvers and the functions of this unit they call
 * directly.  A call to the runtime from there goes through a PLT or GOT slot
 * that may not be relocated yet (lld puts IRELATIVE relocations at the end
 * of .rela.dyn, before the JUMP_SLOTs of .rela.plt; with -z now the slot is
 * not even bound), so it would crash.  Their stores to a key stay plain
 * stores and the key is marked ESCAPES: its sites are guarded, correct
 * whatever a store behind the runtime's back did, and the module's
 * registration (from its constructor, after every relocation) patches them
 * for the value stored.  Field stores there get no note (type-key sites are
 * guarded anyway).  The same rule as the Clang pass
 * (collectBeforeRelocation); computed once per unit, when the call graph
 * edges of every function exist.
 */
static bool runs_before_relocation(tree fndecl)
{
	static hash_set<tree> *early;

	if (!early) {
		auto_vec<cgraph_node *> work;
		cgraph_node *node;

		early = new hash_set<tree>;
		FOR_EACH_FUNCTION(node)
		{
			if (!node->alias || !node->ifunc_resolver)
				continue;
			cgraph_node *r = node->get_alias_target();
			if (r)
				work.safe_push(r->ultimate_alias_target());
		}
		while (!work.is_empty()) {
			node = work.pop();
			if (early->add(node->decl))
				continue;
			for (cgraph_edge *e = node->callees; e;
			     e = e->next_callee)
				work.safe_push(
					e->callee->ultimate_alias_target());
		}
	}
	return early->contains(fndecl);
}

/* A store or read-modify-write the runtime will not see (see above). */
static bool plain_before_relocation(tree key, gimple *stmt, bool early)
{
	if (early)
		mark_escaped(key, stmt, "stored in an IFUNC resolver, which "
					"runs before relocation");
	return early;
}

static bool is_runtime_api_call(gimple *stmt)
{
	tree fn = is_gimple_call(stmt) ? gimple_call_fndecl(stmt) : NULL_TREE;

	return fn && DECL_NAME(fn) && TREE_PUBLIC(fn) &&
	       strncmp(IDENTIFIER_POINTER(DECL_NAME(fn)), RUNTIME_API_PREFIX,
		       strlen(RUNTIME_API_PREFIX)) == 0;
}

static unsigned int dyncall_gimple_execute(function *fun)
{
	bool retpoline = is_retpoline_function(fun->decl);
	bool early = runs_before_relocation(fun->decl);
	bool changed = false;
	auto_vec<pending_note> notes;
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun)
	{
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi);) {
			gimple *stmt = gsi_stmt(gsi);

			if (is_gimple_debug(stmt)) {
				gsi_next(&gsi);
				continue;
			}

			/* Atomic builtins on a key. */
			if (is_atomic_builtin(stmt) &&
			    gimple_call_num_args(stmt) >= 1 &&
			    key_of_addr(gimple_call_arg(stmt, 0))) {
				tree key = key_of_addr(gimple_call_arg(stmt, 0));
				enum built_in_function fn = DECL_FUNCTION_CODE(
					gimple_call_fndecl(stmt));
				/* Other operands (e.g. &expected) may still
				 * let keys escape. */
				for (unsigned i = 1;
				     i < gimple_call_num_args(stmt); i++)
					walk_tree(gimple_call_arg_ptr(stmt, i),
						  find_escapes, stmt, NULL);
				if (fn == BUILT_IN_ATOMIC_LOAD_8 ||
				    fn == BUILT_IN_ATOMIC_LOAD_N) {
					key_of(key); /* a use */
					gsi_next(&gsi);
					continue;
				}
				if ((fn == BUILT_IN_ATOMIC_STORE_8 ||
				     fn == BUILT_IN_ATOMIC_STORE_N) &&
				    TREE_CODE(key) == VAR_DECL &&
				    gimple_call_num_args(stmt) == 3 &&
				    !plain_before_relocation(key, stmt,
							     early)) {
					replace_store(&gsi, key,
						      gimple_call_arg(stmt, 1));
					changed = true;
					continue;
				}
				mark_escaped(key, stmt,
					     "atomic read-modify-write");
				if (TREE_CODE(key) == VAR_DECL && !early &&
				    insert_resync(&gsi, key))
					changed = true;
				gsi_next(&gsi);
				continue;
			}

			/* Sites: of their key, else (whole-program mode) of
			 * the unit's whole-program key. */
			if (is_gimple_call(stmt) && transform_enabled) {
				gcall *call = as_a<gcall *>(stmt);
				enum site_result r =
					transform_site(call, retpoline);
				if (r == SITE_DONE ||
				    ((r == SITE_NONE || r == SITE_MISSED_PHI) &&
				     whole_program &&
				     transform_wp_site(call, retpoline, fun)))
					changed = true;
			}

			/* key = f (...): store the result separately; the
			 * store is then handled like any other. */
			if (is_gimple_call(stmt) && gimple_call_lhs(stmt) &&
			    key_of_ref(gimple_call_lhs(stmt))) {
				tree lhs = gimple_call_lhs(stmt);
				if (stmt_ends_bb_p(stmt)) {
					mark_escaped(key_of_ref(lhs), stmt,
						     "store of a call result "
						     "that may throw");
				} else {
					tree tmp = make_ssa_name(
						TREE_TYPE(lhs));
					gimple_call_set_lhs(stmt, tmp);
					update_stmt(stmt);
					gimple *st = gimple_build_assign(lhs,
									 tmp);
					gimple_set_location(
						st, gimple_location(stmt));
					gsi_insert_after(&gsi, st,
							 GSI_SAME_STMT);
					changed = true;
				}
			}

			/* Stores to keys. */
			if (gimple_assign_single_p(stmt) &&
			    gimple_store_p(stmt)) {
				tree lhs = gimple_assign_lhs(stmt);
				tree rhs = gimple_assign_rhs1(stmt);
				tree key = key_of_ref(lhs);
				walk_tree(gimple_assign_rhs1_ptr(stmt),
					  find_escapes, stmt, NULL);
				if (key && TREE_CODE(key) == VAR_DECL &&
				    !plain_before_relocation(key, stmt, early)) {
					replace_store(&gsi, key, rhs);
					changed = true;
					continue;
				}
				if (key && TREE_CODE(key) != VAR_DECL) {
					key_of(key);
					/* No note before relocation (above). */
					if (!early && stmt_ends_bb_p(stmt))
						mark_escaped(key, stmt,
							     "store may throw");
					else if (!early)
						notes.safe_push(
							{ stmt, key, rhs });
				} else if (!key) {
					walk_tree(gimple_assign_lhs_ptr(stmt),
						  find_escapes, stmt, NULL);
					/* A clobber or "= {}" writes no target. */
					if (AGGREGATE_TYPE_P(TREE_TYPE(lhs)) &&
					    !gimple_clobber_p(stmt) &&
					    !(TREE_CODE(rhs) == CONSTRUCTOR &&
					      CONSTRUCTOR_NELTS(rhs) == 0))
						escape_fields_of(
							TREE_TYPE(lhs), stmt,
							0);
				}
				gsi_next(&gsi);
				continue;
			}

			/* p = &key feeding only atomic builtins. */
			if (gimple_assign_single_p(stmt) &&
			    key_of_addr(gimple_assign_rhs1(stmt)) &&
			    TREE_CODE(gimple_assign_rhs1(stmt)) == ADDR_EXPR &&
			    addr_only_feeds_atomics(stmt)) {
				gsi_next(&gsi);
				continue;
			}

			/* Loads are uses; anything else may let a key's
			 * address escape. */
			if (gimple_assign_single_p(stmt)) {
				tree key = key_of_ref(gimple_assign_rhs1(stmt));
				if (key)
					key_of(key);
			}
			if (gimple_code(stmt) == GIMPLE_ASM) {
				for (unsigned i = 0; i < gimple_num_ops(stmt);
				     i++) {
					tree op = gimple_op(stmt, i);
					for (; op && TREE_CODE(op) == TREE_LIST;
					     op = TREE_CHAIN(op)) {
						tree v = TREE_VALUE(op);
						tree base = get_base_address(v);
						tree key = key_of_ref(v);
						if (!key && base &&
						    TREE_CODE(base) == VAR_DECL &&
						    is_annotated(base))
							key = base;
						if (key)
							mark_escaped(
								key, stmt,
								"asm operand");
					}
				}
			}
			/* The runtime's public API (dyncall_set, _update,
			 * _key_info, ...) takes keys by address without
			 * storing behind the plugin's back. */
			if (is_runtime_api_call(stmt)) {
				gsi_next(&gsi);
				continue;
			}
			for (unsigned i = 0; i < gimple_num_ops(stmt); i++)
				if (gimple_op(stmt, i))
					walk_tree(gimple_op_ptr(stmt, i),
						  find_escapes, stmt, NULL);
			gsi_next(&gsi);
		}
	}

	for (unsigned i = 0; i < notes.length(); i++)
		insert_note(notes[i]);
	if (!changed && notes.is_empty())
		return 0;

	if (!notes.is_empty()) {
		free_dominance_info(CDI_DOMINATORS);
		free_dominance_info(CDI_POST_DOMINATORS);
		if (current_loops)
			loops_state_set(LOOPS_NEED_FIXUP);
	}
	cgraph_edge::rebuild_edges();
	mark_virtual_operands_for_renaming(fun);
	return TODO_update_ssa_only_virtuals;
}

static const pass_data dyncall_gimple_pass_data = {
	.type = GIMPLE_PASS,
	.name = "dyncall",
	.optinfo_flags = OPTGROUP_OTHER,
	.tv_id = TV_NONE,
	.properties_required = PROP_ssa | PROP_cfg,
	.properties_provided = 0,
	.properties_destroyed = 0,
	.todo_flags_start = 0,
	.todo_flags_finish = 0,
};

class dyncall_gimple_pass : public gimple_opt_pass {
public:
	dyncall_gimple_pass()
		: gimple_opt_pass(dyncall_gimple_pass_data, g)
	{
	}
	bool gate(function *) final override
	{
		return !seen_error() && !in_lto_p && target_supported();
	}
	unsigned int execute(function *fun) final override
	{
		return dyncall_gimple_execute(fun);
	}
};

/*
 * Whole-program sites are made early (before inlining, IPA and constant
 * propagation: the trampolines must exist before LTO streaming), so some
 * calls GCC would have made direct (a callback inlined with its argument,
 * a devirtualized virtual call, a pointer that constant propagation
 * resolved) reach the end of the GIMPLE pipeline as a trampoline call
 * whose static chain is the address of a function.  This pass, after
 * "optimized" (also in the LTO back end), makes them the direct call the
 * plain build has; the RTL pass then sees no site there (the trampoline
 * stays, unreferenced).  Calls through annotated keys are left as they are.
 */
static unsigned int dyncall_direct_execute(function *fun)
{
	basic_block bb;
	bool changed = false;

	FOR_EACH_BB_FN(bb, fun)
	{
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
		     gsi_next(&gsi)) {
			gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
			tree tramp = call ? gimple_call_fndecl(call) : NULL_TREE;
			tree chain = call ? gimple_call_chain(call) : NULL_TREE;

			if (!tramp || !chain || TREE_CODE(chain) != ADDR_EXPR ||
			    TREE_CODE(TREE_OPERAND(chain, 0)) != FUNCTION_DECL ||
			    !lookup_attribute(ATTR_WP_SITE,
					      DECL_ATTRIBUTES(tramp)))
				continue;
			tree target = TREE_OPERAND(chain, 0);
			gimple_call_set_fndecl(call, target);
			gimple_call_set_chain(call, NULL_TREE);
			update_stmt(call);
			changed = true;
			if (verbose)
				inform(gimple_location(call),
				       "dyncall: the callee of %qs is %qD: a "
				       "direct call, not a site",
				       IDENTIFIER_POINTER(DECL_NAME(tramp)),
				       target);
		}
	}
	if (changed)
		cgraph_edge::rebuild_edges();
	return 0;
}

static const pass_data dyncall_direct_pass_data = {
	.type = GIMPLE_PASS,
	.name = "dyncall_direct",
	.optinfo_flags = OPTGROUP_NONE,
	.tv_id = TV_NONE,
	.properties_required = PROP_ssa | PROP_cfg,
	.properties_provided = 0,
	.properties_destroyed = 0,
	.todo_flags_start = 0,
	.todo_flags_finish = 0,
};

class dyncall_direct_pass : public gimple_opt_pass {
public:
	dyncall_direct_pass() : gimple_opt_pass(dyncall_direct_pass_data, g) {}
	bool gate(function *) final override
	{
		return whole_program && !seen_error() && target_supported();
	}
	unsigned int execute(function *fun) final override
	{
		return dyncall_direct_execute(fun);
	}
};

/* ---------------------------------------------------------------------- */
/* IPA: key cells, type keys, toplevel asm                                 */
/* ---------------------------------------------------------------------- */

static void emit_key_cell(dyncall_key &k)
{
	tree decl = new_plugin_var(k.cell, ptr_type_node);

	TREE_READONLY(decl) = 1;
	SET_DECL_ALIGN(decl, 64);
	DECL_INITIAL(decl) =
		fold_convert(ptr_type_node, build_fold_addr_expr(k.target));
	set_decl_section_name(decl, KEYCELL_SECTION);
	set_internal_linkage(decl, false);
	varpool_node::finalize_decl(decl);
	keep(decl);
}

static void emit_function_header(std::string &out, const char *name,
				 const char *section, const char *group)
{
	if (group)
		asm_printf(out, "\t.pushsection %s,\"axG\",@progbits,%s,comdat\n",
			   section, group);
	else
		asm_printf(out, "\t.pushsection %s,\"ax\",@progbits\n", section);
	asm_printf(out, "%s", arch.func_align);
	emit_symbol_header(out, name);
}

static void emit_retpoline(std::string &out)
{
	/* Once per assembler file (LTO concatenates the units' asm). */
	asm_printf(out, "\t.ifndef .Ldyncall_have_retpoline\n"
			"\t.set .Ldyncall_have_retpoline, 1\n");
	emit_function_header(out, DYNCALL_RETPOLINE_THUNK,
			     ".text." DYNCALL_RETPOLINE_THUNK,
			     DYNCALL_RETPOLINE_THUNK);
	asm_printf(out, "\tcall 1f\n"
			"2:\n\tpause\n\tlfence\n\tjmp 2b\n"
			"1:\n\tmov %%r10, (%%rsp)\n\tret\n"
			"\t.size " DYNCALL_RETPOLINE_THUNK
			", . - " DYNCALL_RETPOLINE_THUNK "\n"
			"\t.popsection\n\t.endif\n");
}

static void emit_module_function(std::string &out, const char *name,
				 const char *callee, const char *array)
{
	emit_function_header(out, name,
			     (std::string(".text.") + name).c_str(), name);
	arch.register_call(out, name, callee);
	asm_printf(out, "\t.size %s, . - %s\n", name, name);
	asm_printf(out,
		   "\t.section %s.%05d,\"awG\",@%s,%s,comdat\n"
		   "\t.p2align 3\n\t.quad %s\n\t.popsection\n",
		   array, DYNCALL_CTOR_PRIORITY,
		   strcmp(array, ".init_array") == 0 ? "init_array"
						     : "fini_array",
		   name, name);
}

static void emit_module_ctor_dtor(std::string &out)
{
	asm_printf(out, "\t.ifndef .Ldyncall_have_module_ctor\n"
			"\t.set .Ldyncall_have_module_ctor, 1\n");
	static const char *const syms[] = {
		"__start_" DYNCALL_SITES_SECTION, "__stop_" DYNCALL_SITES_SECTION,
		"__start_" DYNCALL_KEYS_SECTION, "__stop_" DYNCALL_KEYS_SECTION,
	};
	for (const char *s : syms)
		asm_printf(out, "\t.weak %s\n\t.hidden %s\n", s, s);
	emit_module_function(out, MODULE_CTOR, DYNCALL_REGISTER_FN,
			     ".init_array");
	emit_module_function(out, MODULE_DTOR, DYNCALL_UNREGISTER_FN,
			     ".fini_array");
	asm_printf(out, "\t.endif\n");
}

static std::string asm_string_literal(const std::string &s)
{
	std::string r = "\"";
	for (unsigned char c : s) {
		if (c == '"' || c == '\\') {
			r += '\\';
			r += c;
		} else if (c < 0x20 || c >= 0x7f) {
			char b[8];
			snprintf(b, sizeof(b), "\\%03o", c);
			r += b;
		} else {
			r += c;
		}
	}
	return r + "\"";
}

static void emit_key_entry(std::string &out, const dyncall_key &k,
			   unsigned idx)
{
	asm_printf(out,
		   "\t.pushsection " DYNCALL_KEYS_SECTION ",\"aR\",@progbits\n"
		   "\t.p2align 2\n"
		   "\t.long %s - .\n"
		   "\t.long .Ldyncall_name.%s.%u - .\n"
		   "\t.byte %d, %d\n\t.short %u\n\t.long 0\n"
		   "\t.section .rodata.__dyncall_names,\"a\",@progbits\n"
		   ".Ldyncall_name.%s.%u:\n\t.string %s\n"
		   "\t.popsection\n",
		   k.cell.c_str(), unit_id, idx, DYNCALL_ABI_VERSION,
		   DYNCALL_KIND_KEY, k.flags, unit_id, idx,
		   asm_string_literal(k.name).c_str());
}

/* Static initializers that take a key's address (void *p = &key). */
static void scan_initializer_escapes(void)
{
	varpool_node *vnode;

	FOR_EACH_VARIABLE(vnode)
	{
		ipa_ref *ref;
		for (unsigned i = 0; vnode->iterate_reference(i, ref); i++) {
			tree d = ref->referred->decl;
			if (ref->use == IPA_REF_ADDR &&
			    TREE_CODE(d) == VAR_DECL && is_annotated(d))
				mark_escaped(d, NULL, "address in an initializer");
		}
	}
}

static unsigned int dyncall_ipa_execute(void)
{
	scan_initializer_escapes();
	if (keys.empty() && sites.empty())
		return 0;

	std::string out = "\t/* dyncall: trampolines and key entries */\n";
	bool need_retpoline = false;

	for (const dyncall_site_info &s : sites) {
		arch.trampoline(out, s.tramp.c_str(), s.retpoline, false);
		need_retpoline |= s.retpoline;
	}
	if (need_retpoline)
		emit_retpoline(out);
	for (unsigned i = 0; i < keys.size(); i++) {
		emit_key_cell(keys[i]);
		emit_key_entry(out, keys[i], i);
	}
	emit_module_ctor_dtor(out);
	symtab->finalize_toplevel_asm(
		keep(build_string(out.size(), out.c_str())));
	return 0;
}

static const pass_data dyncall_ipa_pass_data = {
	.type = SIMPLE_IPA_PASS,
	.name = "dyncall_emit",
	.optinfo_flags = OPTGROUP_NONE,
	.tv_id = TV_NONE,
	.properties_required = 0,
	.properties_provided = 0,
	.properties_destroyed = 0,
	.todo_flags_start = 0,
	.todo_flags_finish = 0,
};

class dyncall_ipa_pass : public simple_ipa_opt_pass {
public:
	dyncall_ipa_pass() : simple_ipa_opt_pass(dyncall_ipa_pass_data, g) {}
	bool gate(function *) final override
	{
		return !seen_error() && !in_lto_p && target_supported();
	}
	unsigned int execute(function *) final override
	{
		return dyncall_ipa_execute();
	}
};

/* ---------------------------------------------------------------------- */
/* RTL: label the call instructions, emit __dyncall_sites entries          */
/* ---------------------------------------------------------------------- */

static unsigned long label_counter;
/* Trampolines that already have a labelled call in this assembler file. */
static std::map<std::string, bool> labelled_tramps;

/*
 * GCC may have duplicated a site after the GIMPLE pass (inlining, loop
 * versioning, unrolling, tail duplication): several call insns reach one
 * trampoline.  abi.md wants one trampoline per site entry, so every copy
 * after the first gets its own: a file-local copy of the trampoline, emitted
 * with the function, and the call insn retargeted to it.  Returns the name
 * the call now uses.
 */
static std::string clone_trampoline(rtx_insn *insn, tree tramp,
				    unsigned flags, std::string &out)
{
	rtx call = get_call_rtx_from(insn);
	rtx mem = XEXP(call, 0);
	rtx sym = XEXP(mem, 0);
	std::string name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(tramp));

	if (labelled_tramps.emplace(name, true).second)
		return name;
	name += "." + std::to_string(label_counter++);
	arch.trampoline(out, name.c_str(), flags & DYNCALL_SITE_RETPOLINE,
			true);
	/* A new SYMBOL_REF (they are shared) with the same flags and decl,
	 * so the call is printed exactly as before (ppc64le: still the
	 * non-local `bl; nop`), in a copy of the MEM. */
	rtx nsym = gen_rtx_SYMBOL_REF(GET_MODE(sym), ggc_strdup(name.c_str()));
	SYMBOL_REF_FLAGS(nsym) = SYMBOL_REF_FLAGS(sym);
	SET_SYMBOL_REF_DECL(nsym, SYMBOL_REF_DECL(sym));
	rtx nmem = shallow_copy_rtx(mem);
	XEXP(nmem, 0) = nsym;
	XEXP(call, 0) = nmem;
	return name;
}

/* The trampoline a call_insn calls, with its site attribute. */
static tree site_attribute_of(rtx_insn *insn, tree *tramp)
{
	rtx call = get_call_rtx_from(insn);

	if (!call || !MEM_P(XEXP(call, 0)))
		return NULL_TREE;
	rtx addr = XEXP(XEXP(call, 0), 0);
	if (GET_CODE(addr) != SYMBOL_REF || !SYMBOL_REF_DECL(addr))
		return NULL_TREE;
	*tramp = SYMBOL_REF_DECL(addr);
	if (TREE_CODE(*tramp) != FUNCTION_DECL)
		return NULL_TREE;
	return lookup_attribute(ATTR_SITE, DECL_ATTRIBUTES(*tramp));
}

/* A basic asm insn.  Its location must name a file (final prints it), but
 * BUILTINS_LOCATION has line 0, which keeps the "# line" comment out. */
static rtx asm_input(const char *text)
{
	return gen_rtx_ASM_INPUT_loc(VOIDmode, ggc_strdup(text),
				     BUILTINS_LOCATION);
}

static rtx_insn *emit_asm_before(const std::string &text, rtx_insn *insn)
{
	return emit_insn_before(asm_input(text.c_str()), insn);
}

/* The assembler name of a function's symbol, as final prints it. */
static std::string function_symbol(tree fndecl)
{
	rtx mem = DECL_RTL(fndecl);
	const char *name = XSTR(XEXP(mem, 0), 0);

	return std::string(user_label_prefix) +
	       targetm.strip_name_encoding(name);
}

static unsigned int dyncall_rtl_execute(function *fun)
{
	std::string func_label, func_expr, entries;
	const char *group = NULL;

	if (DECL_COMDAT_GROUP(fun->decl))
		group = IDENTIFIER_POINTER(decl_comdat_group_id(fun->decl));

	/* Hot/cold partitioning (-freorder-blocks-and-partition): the insns
	 * after NOTE_INSN_SWITCH_TEXT_SECTIONS are printed in another section
	 * (fn.cold in .text.unlikely), which the linker places anywhere: their
	 * entries name a label at the start of that part as their function and
	 * are linked to its section. */
	rtx_insn *switch_note = NULL;

	for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn)) {
		tree tramp = NULL_TREE;
		tree attr;

		if (NOTE_P(insn) &&
		    NOTE_KIND(insn) == NOTE_INSN_SWITCH_TEXT_SECTIONS) {
			switch_note = insn;
			func_label.clear();
			continue;
		}
		if (!CALL_P(insn) || !(attr = site_attribute_of(insn, &tramp)))
			continue;
		tree args = TREE_VALUE(attr);
		const char *cell = TREE_STRING_POINTER(TREE_VALUE(args));
		unsigned flags = tree_to_uhwi(TREE_VALUE(TREE_CHAIN(args)));
		int kind = SIBLING_CALL_P(insn) ? DYNCALL_KIND_TAIL
						: DYNCALL_KIND_CALL;
		std::string tramp_name =
			clone_trampoline(insn, tramp, flags, entries);

		if (func_label.empty() && switch_note) {
			/* The first byte of the cold part, right after its
			 * section switch and symbol (no prologue, no global
			 * entry point there). */
			func_label = FUNC_LABEL_PREFIX +
				     std::to_string(label_counter++);
			emit_insn_after(asm_input((func_label + ":").c_str()),
					switch_note);
			func_expr = func_label;
		} else if (func_label.empty()) {
			/* The function's first byte: before any endbr64 or
			 * prologue instruction. */
			func_label = FUNC_LABEL_PREFIX +
				     std::to_string(label_counter++);
			emit_asm_before(func_label + ":", get_insns());
			func_expr = func_label;
			if (arch.func_from_symbol)
				/* label - (label - symbol): the symbol's
				 * address, relocated against the section,
				 * never against a preemptible symbol. */
				func_expr += " - (" + func_label + " - " +
					     function_symbol(fun->decl) + ")";
		}

		/* The arch's padding (x86-64: the opcode at 4k+3, so the
		 * rel32 is 4-byte aligned), then the label.  Only notes (zero
		 * bytes) can come between this and the call from here to
		 * final. */
		std::string label = SITE_LABEL_PREFIX +
				    std::to_string(label_counter++);
		emit_asm_before(arch.site_padding + label + ":", insn);

		if (group)
			asm_printf(entries,
				   "\t.pushsection " DYNCALL_SITES_SECTION
				   ",\"aoG\",@progbits,%s,%s,comdat\n",
				   func_label.c_str(), group);
		else
			asm_printf(entries,
				   "\t.pushsection " DYNCALL_SITES_SECTION
				   ",\"ao\",@progbits,%s\n",
				   func_label.c_str());
		asm_printf(entries,
			   "\t.p2align 2\n"
			   "\t.long %s - .\n"
			   "\t.long %s - .\n"
			   "\t.long %s - .\n"
			   "\t.long %s - .\n"
			   "\t.byte %d, %d\n\t.short %u\n"
			   "\t.popsection\n",
			   label.c_str(), tramp_name.c_str(), cell,
			   func_expr.c_str(), DYNCALL_ABI_VERSION, kind, flags);
	}
	/* The entries go after the function's last instruction, where no
	 * branch has to jump over them (asm length is overestimated). */
	if (!entries.empty()) {
		entries.pop_back();
		emit_insn_after(asm_input(entries.c_str() + 1), get_last_insn());
	}
	return 0;
}

static const pass_data dyncall_rtl_pass_data = {
	.type = RTL_PASS,
	.name = "dyncall_sites",
	.optinfo_flags = OPTGROUP_NONE,
	.tv_id = TV_NONE,
	.properties_required = 0,
	.properties_provided = 0,
	.properties_destroyed = 0,
	.todo_flags_start = 0,
	.todo_flags_finish = 0,
};

class dyncall_rtl_pass : public rtl_opt_pass {
public:
	dyncall_rtl_pass() : rtl_opt_pass(dyncall_rtl_pass_data, g) {}
	bool gate(function *) final override
	{
		return !seen_error() && target_supported();
	}
	unsigned int execute(function *fun) final override
	{
		return dyncall_rtl_execute(fun);
	}
};

/* ---------------------------------------------------------------------- */
/* Plugin entry                                                            */
/* ---------------------------------------------------------------------- */

/* Unique per translation unit, stable under -frandom-seed. */
static void compute_unit_id(void)
{
	std::string seed = main_input_filename ? main_input_filename : "";
	unsigned char digest[16];

	seed += '\0';
	seed += dump_base_name ? dump_base_name : "";
	seed += '\0';
	seed += std::to_string((long long)get_random_seed(false));
	md5_buffer(seed.data(), seed.size(), digest);
	for (int i = 0; i < 8; i++)
		sprintf(unit_id + 2 * i, "%02x", digest[i]);
}

static void start_unit(void *event_data, void *data)
{
	compute_unit_id();
}

static void register_passes(const char *name)
{
	struct register_pass_info gimple_info = {
		.pass = new dyncall_gimple_pass(),
		.reference_pass_name = "ssa",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_AFTER,
	};
	struct register_pass_info ipa_info = {
		.pass = new dyncall_ipa_pass(),
		.reference_pass_name = "build_ssa_passes",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_AFTER,
	};
	struct register_pass_info rtl_info = {
		.pass = new dyncall_rtl_pass(),
		.reference_pass_name = "shorten",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_BEFORE,
	};

	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &gimple_info);
	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &ipa_info);
	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &rtl_info);
	if (whole_program) {
		struct register_pass_info direct_info = {
			.pass = new dyncall_direct_pass(),
			.reference_pass_name = "optimized",
			.ref_pass_instance_number = 1,
			.pos_op = PASS_POS_INSERT_AFTER,
		};
		register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL,
				  &direct_info);
	}
}

int plugin_init(struct plugin_name_args *info,
		struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("%s: built for GCC %s, loaded into GCC %s",
		      info->base_name, gcc_version.basever, version->basever);
		return 1;
	}
	plugin_name = info->base_name;

	const char *filter = NULL;
	for (int i = 0; i < info->argc; i++) {
		const char *key = info->argv[i].key;
		if (strcmp(key, "disable") == 0 && !info->argv[i].value) {
			transform_enabled = false;
		} else if (strcmp(key, "verbose") == 0 && !info->argv[i].value) {
			verbose = true;
		} else if (strcmp(key, "prologues") == 0 &&
			   !info->argv[i].value) {
			prologues_all = true;
		} else if (strcmp(key, "whole-program") == 0 &&
			   (!info->argv[i].value || *info->argv[i].value)) {
			whole_program = true;
			filter = info->argv[i].value;
		} else {
			error("%s: unknown plugin argument %<-fplugin-arg-%s-%s%s%s%>"
			      " (expected %<disable%>, %<verbose%>, "
			      "%<prologues%> or "
			      "%<whole-program[=<filter file>]%>)",
			      plugin_name, plugin_name, key,
			      info->argv[i].value ? "=" : "",
			      info->argv[i].value ? info->argv[i].value : "");
			return 1;
		}
	}

	register_callback(plugin_name, PLUGIN_INFO, NULL, &dyncall_plugin_info);
	/* The attribute, always (also with -fplugin-arg-...-disable). */
	register_callback(plugin_name, PLUGIN_ATTRIBUTES, register_attributes,
			  NULL);
	register_callback(plugin_name, PLUGIN_FINISH_DECL, finish_decl, NULL);
	register_callback(plugin_name, PLUGIN_FINISH_TYPE, finish_type, NULL);
	register_callback(plugin_name, PLUGIN_FINISH, finish_compilation, NULL);
	register_callback(plugin_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)dyncall_ggc_roots);
#if DYNCALL_ARCH == DYNCALL_ARCH_PPC64LE
	/* the entry NOP (above), also with -fplugin-arg-<name>-disable */
	target_function_prologue = targetm.asm_out.function_prologue;
	targetm.asm_out.function_prologue = ppc64le_function_prologue;
#else
	if (prologues_all) {
		error("%s: %<-fplugin-arg-%s-prologues%> is for ppc64le "
		      "(elsewhere: %<-fpatchable-function-entry%>)",
		      plugin_name, plugin_name);
		return 1;
	}
#endif
	if (!transform_enabled)
		return 0;
	/* Parsed once per compiler process; an error fails the compilation
	 * (the passes are gated on seen_error()).  Not in the LTO back end
	 * (lto1, "GNU GIMPLE"): the sites were chosen at compile time, and
	 * the link may run where the file is not. */
	if (filter && strcmp(lang_hooks.name, "GNU GIMPLE") != 0)
		read_filter(filter);

	key_index = new hash_map<tree, unsigned>;
	register_callback(plugin_name, PLUGIN_START_UNIT, start_unit, NULL);
	register_passes(plugin_name);
	return 0;
}
