/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * rtl.cc - the RTL pass: site labels and __dyncall_sites entries.
 */
#include "plugin.h"
#include "rtl-iter.h"

static unsigned long label_counter;
/* Trampolines that already have a labelled call in this assembler file. */
static std::map<std::string, bool> labelled_tramps;

/*
 * GCC may have duplicated a site after the GIMPLE pass (inlining, loop
 * versioning, unrolling, tail duplication): several call insns reach one
 * trampoline.  abi.md wants one trampoline per site entry, so every copy
 * after the first gets its own: a file-local copy of the trampoline, emitted
 * with the function, and the call insn retargeted to it.  Returns the name
 * the call now uses.  In the LTO back end every copy gets its own: copies
 * of one site can land in several partitions, each its own assembler file
 * whose "first" copy would keep the original trampoline, so two entries
 * shared it (DC031; dyncall-cc's check failed the link: found with
 * GCC -flto on the held-out program jansson).  The original trampoline
 * then stays, unreferenced, with no entry.
 */
static std::string clone_trampoline(rtx_insn *insn, tree tramp, unsigned flags,
				    bool cond, std::string &out)
{
	rtx call = get_call_rtx_from(insn);
	rtx mem = XEXP(call, 0);
	rtx sym = XEXP(mem, 0);
	std::string name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(tramp));

	if (labelled_tramps.emplace(name, true).second && !in_lto_p)
		return name;
	name += "." + std::to_string(label_counter++);
	arch.trampoline(out, name.c_str(), flags & DYNCALL_SITE_RETPOLINE, true,
			cond);
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

/* Hit trampolines defined in this assembler file (hit_entry and
 * define_unlabelled_hits). */
static std::map<std::string, bool> emitted_hits;

/* The decl a call_insn calls directly, or NULL_TREE. */
static tree callee_decl(rtx_insn *insn)
{
	rtx call = get_call_rtx_from(insn);

	if (!call || !MEM_P(XEXP(call, 0)))
		return NULL_TREE;
	rtx addr = XEXP(XEXP(call, 0), 0);
	if (GET_CODE(addr) != SYMBOL_REF || !SYMBOL_REF_DECL(addr) ||
	    TREE_CODE(SYMBOL_REF_DECL(addr)) != FUNCTION_DECL)
		return NULL_TREE;
	return SYMBOL_REF_DECL(addr);
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
	return site_attribute(*tramp);
}

/* The entry's kind.  A conditional site's call is never a sibcall (the
 * "dyncall_direct" pass clears the tail flag GCC's tailc set); were one
 * a jump all the same, it would be entered as an ordinary tail site, which
 * the runtime refuses for a conditional trampoline (DYNCALL_ERR_BYTES):
 * never patched, still correct through the trampoline's null test. */
static int site_kind(rtx_insn *insn, bool cond)
{
	if (SIBLING_CALL_P(insn))
		return DYNCALL_KIND_TAIL;
	return cond ? DYNCALL_KIND_COND : DYNCALL_KIND_CALL;
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

/* The label the entries of fun's sites name as their function, emitted
 * on first need (*func_expr: the expression for the entry's `func`):
 * after the section switch of a cold part (switch_note: the first byte of
 * that part, right after its section switch and symbol; no prologue, no
 * global entry point there), else the function's first byte, before any
 * endbr64 or prologue instruction. */
static std::string function_label(function *fun, rtx_insn *switch_note,
				  std::string &func_expr)
{
	std::string label = FUNC_LABEL_PREFIX + std::to_string(label_counter++);

	func_expr = label;
	if (switch_note) {
		emit_insn_after(asm_input((label + ":").c_str()), switch_note);
		return label;
	}
	emit_asm_before(label + ":", get_insns());
	if (arch.func_from_symbol)
		/* label - (label - symbol): the symbol's address, relocated
		 * against the section, never against a preemptible symbol. */
		func_expr += " - (" + label + " - " +
			     function_symbol(fun->decl) + ")";
	return label;
}

/* One __dyncall_sites entry (abi.h), SHF_LINK_ORDER to the function's
 * label (and in its COMDAT group). */
static void print_site_entry(std::string &entries, const char *group,
			     const std::string &func_label,
			     const std::string &func_expr,
			     const std::string &label,
			     const std::string &tramp_name, const char *cell,
			     int kind, unsigned flags)
{
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
		   label.c_str(), tramp_name.c_str(), cell, func_expr.c_str(),
		   DYNCALL_ABI_VERSION, kind, flags);
}

/* A site entry of this function, printed once all are known (an inline
 * guard's entry goes right after its owner's). */
struct pending_entry {
	std::string func_label, func_expr, label, tramp, cell;
	int kind;
	unsigned flags;
	tree owner; /* the whole-program trampoline (decl) it is or guards */
	bool hit; /* an inline guard's hit call (DYNCALL_KIND_INLINE) */
	bool paired;
	int op; /* a hit call's instruction: DYNCALL_KIND_CALL or _TAIL */
};

/* An inline guard's hit call (whole-program.cc): its label, its
 * trampoline (emitted here with the function; a local copy for a
 * duplicate, as for any site) and its pending entry. */
static pending_entry hit_entry(rtx_insn *insn, tree hit, tree hattr,
			       const std::string &func_label,
			       const std::string &func_expr,
			       std::string &entries)
{
	tree hargs = TREE_VALUE(hattr);
	tree owner = TREE_VALUE(hargs);
	const char *lit = TREE_STRING_POINTER(TREE_VALUE(TREE_CHAIN(hargs)));
	unsigned flags =
		tree_to_uhwi(TREE_VALUE(TREE_CHAIN(TREE_CHAIN(hargs))));
	std::string name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(hit));
	bool first = !labelled_tramps.count(name) && !in_lto_p;
	std::string tname = clone_trampoline(insn, hit, flags, false, entries);

	if (first) {
		arch.trampoline(entries, name.c_str(),
				flags & DYNCALL_SITE_RETPOLINE, true, false);
		emitted_hits.emplace(name, true);
	}
	std::string label = SITE_LABEL_PREFIX + std::to_string(label_counter++);
	emit_asm_before(std::string(arch.site_padding) + label + ":", insn);
	pending_entry e = {
		func_label,	     func_expr, label, tname, lit,
		DYNCALL_KIND_INLINE, flags,	owner, true,  false
	};

	e.op = site_kind(insn, false);
	return e;
}

/*
 * A hit trampoline referenced by no direct call insn (hit_entry never saw
 * it) but by other code: -mcmodel=large loads its address (movabs, or a
 * GOTOFF64 offset) and calls through a register.  It is defined here all
 * the same, with no entry (nothing to patch: the guard's literal keeps its
 * sentinel, and a call that compares equal still reaches the pointer
 * through the trampoline's slow path); undefined, the link failed.
 */
static void define_unlabelled_hits(std::string &entries)
{
	for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn)) {
		if (!INSN_P(insn))
			continue;
		subrtx_iterator::array_type array;
		FOR_EACH_SUBRTX(iter, array, PATTERN(insn), ALL)
		{
			const_rtx x = *iter;
			if (GET_CODE(x) != SYMBOL_REF || !SYMBOL_REF_DECL(x))
				continue;
			tree d = SYMBOL_REF_DECL(x);
			tree a = TREE_CODE(d) == FUNCTION_DECL ?
					 lookup_attribute(ATTR_HIT_SITE,
							  DECL_ATTRIBUTES(d)) :
					 NULL_TREE;
			if (!a)
				continue;
			std::string name =
				IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(d));
			if (!emitted_hits.emplace(name, true).second)
				continue;
			unsigned flags = tree_to_uhwi(TREE_VALUE(
				TREE_CHAIN(TREE_CHAIN(TREE_VALUE(a)))));
			arch.trampoline(entries, name.c_str(),
					flags & DYNCALL_SITE_RETPOLINE, true,
					false);
		}
	}
}

/* Each site's entry, and right after it the entry of the first hit call
 * of its inline guard not paired yet, the same instruction (call or jmp)
 * as the site's (abi.h: an INLINE entry follows its owner's, in the same
 * section).  A hit call left without an owner (its
 * miss call deleted, or duplicated less often) gets no entry: it keeps
 * calling its trampoline, whose slow path is always right. */
static void print_entries(std::string &entries, const char *group,
			  std::vector<pending_entry> &pend)
{
	for (pending_entry &p : pend) {
		if (p.hit)
			continue;
		print_site_entry(entries, group, p.func_label, p.func_expr,
				 p.label, p.tramp, p.cell.c_str(), p.kind,
				 p.flags);
		if (p.kind != DYNCALL_KIND_CALL && p.kind != DYNCALL_KIND_TAIL)
			continue;
		for (pending_entry &h : pend) {
			/* (GCC may make one path a sibcall and not the
			 * other: the runtime patches a hit call as the
			 * instruction its site's kind says) */
			if (!h.hit || h.paired || h.owner != p.owner ||
			    h.func_label != p.func_label || h.op != p.kind)
				continue;
			h.paired = true;
			print_site_entry(entries, group, h.func_label,
					 h.func_expr, h.label, h.tramp,
					 h.cell.c_str(), h.kind, h.flags);
			break;
		}
	}
}

static unsigned int dyncall_rtl_execute(function *fun)
{
	std::string func_label, func_expr, entries;
	const char *group = NULL;
	std::vector<pending_entry> pend;

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
		if (!CALL_P(insn))
			continue;
		tree hit = callee_decl(insn);
		tree hattr = hit ? lookup_attribute(ATTR_HIT_SITE,
						    DECL_ATTRIBUTES(hit)) :
				   NULL_TREE;
		if (hattr) {
			if (func_label.empty())
				func_label = function_label(fun, switch_note,
							    func_expr);
			pend.push_back(hit_entry(insn, hit, hattr, func_label,
						 func_expr, entries));
			continue;
		}
		if (!(attr = site_attribute_of(insn, &tramp)))
			continue;
		tree args = TREE_VALUE(attr);
		const char *cell = TREE_STRING_POINTER(TREE_VALUE(args));
		unsigned flags = tree_to_uhwi(TREE_VALUE(TREE_CHAIN(args)));
		bool cond = is_cond_trampoline(tramp);
		int kind = site_kind(insn, cond);
		std::string tramp_name =
			clone_trampoline(insn, tramp, flags, cond, entries);

		if (func_label.empty())
			func_label =
				function_label(fun, switch_note, func_expr);

		/* The arch's padding (x86-64: the opcode at 4k+3, so the
		 * rel32 is 4-byte aligned; at 8k+3 for a conditional site, so
		 * the whole call is in one quadword), then the label.  Only
		 * notes (zero bytes) can come between this and the call from
		 * here to final. */
		std::string label =
			SITE_LABEL_PREFIX + std::to_string(label_counter++);
		emit_asm_before(std::string(kind == DYNCALL_KIND_COND ?
						    arch.cond_site_padding :
						    arch.site_padding) +
					label + ":",
				insn);

		pend.push_back({ func_label, func_expr, label, tramp_name, cell,
				 kind, flags, tramp, false, false });
	}
	print_entries(entries, group, pend);
	define_unlabelled_hits(entries);
	/* The entries go after the function's last instruction, where no
	 * branch has to jump over them (asm length is overestimated). */
	if (!entries.empty()) {
		entries.pop_back();
		emit_insn_after(asm_input(entries.c_str() + 1),
				get_last_insn());
	}
	return 0;
}

static bool dyncall_rtl_gate(function *)
{
	return !seen_error() && target_supported();
}

DYNCALL_PASS(dyncall_rtl, rtl_opt_pass, RTL_PASS, "dyncall_sites",
	     OPTGROUP_NONE, 0)
