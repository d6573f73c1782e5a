/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * whole-program.cc - whole-program mode: sites of the unit's whole-program key, and the "dyncall_direct" pass.
 */
#include "plugin.h"

/* The unit's whole-program key: a type-key descriptor
 * __dyncall_wpkey.<unit> (like a type key's: hidden, COMDAT, writable, 16
 * zero bytes) and its key entry, TYPE|ESCAPES|WHOLE_PROGRAM, named
 * "(indirect call)". */
static dyncall_key &wp_key(void)
{
	static tree descriptor;

	if (descriptor)
		return key_of(descriptor);

	tree decl =
		new_descriptor(std::string(DYNCALL_WP_KEY_PREFIX) + unit_id);
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
		"ms_abi",	   "aarch64_vector_pcs",
		"aarch64_sve_pcs", "interrupt",
		"regparm",	   "stdcall",
		"fastcall",	   "thiscall",
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
bool transform_wp_site(gcall *call, bool retpoline, function *fun)
{
	tree fn = gimple_call_fn(call);

	if (gimple_call_internal_p(call) || !fn || gimple_call_fndecl(call))
		return false;
	tree callee = TREE_CODE(fn) == OBJ_TYPE_REF ? OBJ_TYPE_REF_EXPR(fn) :
						      fn;
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
	unsigned flags = DYNCALL_SITE_TYPE_KEY | build_site_flags(retpoline);

	tree tramp = new_trampoline(call, NULL_TREE, flags, k, retpoline);
	DECL_ATTRIBUTES(tramp) = tree_cons(get_identifier(ATTR_WP_SITE),
					   NULL_TREE, DECL_ATTRIBUTES(tramp));
	call_through_trampoline(call, tramp, callee);

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
 * It also runs without whole-program mode, after GCC's "tailc": a
 * conditional site's call loses the tail flag (keep_cond_call).
 */
static unsigned int dyncall_direct_execute(function *fun)
{
	basic_block bb;
	bool changed = false;

	FOR_EACH_BB_FN(bb, fun)
	{
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi); gsi_next(&gsi)) {
			gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
			tree tramp = call ? gimple_call_fndecl(call) :
					    NULL_TREE;
			tree chain = call ? gimple_call_chain(call) : NULL_TREE;

			if (call && keep_cond_call(call))
				continue;
			if (!whole_program || !tramp || !chain ||
			    TREE_CODE(chain) != ADDR_EXPR ||
			    TREE_CODE(TREE_OPERAND(chain, 0)) !=
				    FUNCTION_DECL ||
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

static bool dyncall_direct_gate(function *)
{
	return !seen_error() && target_supported();
}

DYNCALL_PASS(dyncall_direct, gimple_opt_pass, GIMPLE_PASS, "dyncall_direct",
	     OPTGROUP_NONE, PROP_ssa | PROP_cfg)
