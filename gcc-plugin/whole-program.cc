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
/*
 * The inline guard of a whole-program site (docs/abi.md "Inline guards",
 * x86-64), made here, after "optimized" (so after inlining, unrolling and
 * "tailc", on the calls that reach code generation):
 *
 *	lit.N = lit;			// __dyncall_lit.<unit>.<n>: its own address
 *	if (lit.N == (void *) fp)	// hit very likely
 *	  r1 = __dyncall_hit.<unit>.<n> (fp chain, args);   // patched `call T`
 *	else
 *	  r2 = __dyncall_tramp.<unit>.<n> (fp chain, args); // the site
 *	r = PHI <r1, r2>
 *
 * The hit trampoline is an ordinary trampoline that rtl.cc emits with the
 * function (and the entry of kind DYNCALL_KIND_INLINE right after its
 * owner's); the literal is a static variable that holds its own address.
 * A tail call keeps its flag on both calls: each ends its block and its
 * result flows through the phi to the return, the shape "tailc" itself
 * accepts, so both stay sibcalls.  Not for calls that may throw (their EH
 * edge): such a site stays as before.
 */
static unsigned long hit_counter;

static tree new_literal(const std::string &name)
{
	/* Static, artificial, used, preserved: the table names it from asm. */
	tree lit = new_plugin_var(name, ptr_type_node);
	TREE_PUBLIC(lit) = 0;
	TREE_ADDRESSABLE(lit) = 1;
	SET_DECL_ALIGN(lit, 64);
	DECL_USER_ALIGN(lit) = 1;
	DECL_INITIAL(lit) = build_fold_addr_expr(lit);
	varpool_node::finalize_decl(keep(lit));
	return lit;
}

static tree new_hit_trampoline(const std::string &name, tree owner, tree lit,
			       unsigned flags)
{
	tree decl = new_trampoline_decl(name, TREE_TYPE(owner));
	tree lname = DECL_ASSEMBLER_NAME(lit);
	tree args = tree_cons(
		NULL_TREE, owner,
		tree_cons(NULL_TREE,
			  build_string(IDENTIFIER_LENGTH(lname) + 1,
				       IDENTIFIER_POINTER(lname)),
			  tree_cons(NULL_TREE,
				    build_int_cst(unsigned_type_node, flags),
				    NULL_TREE)));
	DECL_ATTRIBUTES(decl) =
		tree_cons(get_identifier(ATTR_HIT_SITE), args, NULL_TREE);
	cgraph_node::get_create(decl);
	return keep(decl);
}

static void add_inline_guard(function *fun, gcall *call, tree owner)
{
	tree fp = gimple_call_chain(call);
	tree attr = site_attribute(owner);
	unsigned flags = tree_to_uhwi(TREE_VALUE(TREE_CHAIN(TREE_VALUE(attr))));
	std::string n =
		std::string(unit_id) + "." + std::to_string(hit_counter++);
	tree lit = new_literal(DYNCALL_LIT_PREFIX + n);
	tree hit =
		new_hit_trampoline(DYNCALL_HIT_PREFIX + n, owner, lit, flags);
	basic_block bb = gimple_bb(call);
	gimple_stmt_iterator gsi = gsi_for_stmt(call);

	tree v = make_ssa_name(ptr_type_node);
	tree p = make_ssa_name(ptr_type_node);
	gsi_insert_before(&gsi, gimple_build_assign(v, lit), GSI_SAME_STMT);
	gsi_insert_before(&gsi, gimple_build_assign(p, NOP_EXPR, fp),
			  GSI_SAME_STMT);
	gcond *cond = gimple_build_cond(EQ_EXPR, v, p, NULL_TREE, NULL_TREE);
	gsi_insert_before(&gsi, cond, GSI_SAME_STMT);

	edge to_miss = split_block(bb, cond);
	basic_block miss = to_miss->dest;
	edge miss_out = split_block(miss, call);
	basic_block cont = miss_out->dest;
	basic_block hitbb = create_empty_bb(bb);
	if (current_loops)
		add_bb_to_loop(hitbb, bb->loop_father);

	gcall *hc = as_a<gcall *>(gimple_copy(call));
	gimple_call_set_fndecl(hc, hit);
	if (gimple_vdef(call)) {
		gimple_set_vdef(hc, gimple_vop(fun));
		gimple_set_vuse(hc, gimple_vop(fun));
	}
	gimple_stmt_iterator hg = gsi_start_bb(hitbb);
	gsi_insert_after(&hg, hc, GSI_NEW_STMT);

	to_miss->flags &= ~EDGE_FALLTHRU;
	to_miss->flags |= EDGE_FALSE_VALUE;
	edge to_hit = make_edge(bb, hitbb, EDGE_TRUE_VALUE);
	edge hit_out = make_edge(hitbb, cont, EDGE_FALLTHRU);
	to_hit->probability = profile_probability::very_likely();
	to_miss->probability = to_hit->probability.invert();
	hit_out->probability = profile_probability::always();
	hitbb->count = bb->count.apply_probability(to_hit->probability);
	miss->count = bb->count.apply_probability(to_miss->probability);

	tree lhs = gimple_call_lhs(call);
	if (lhs && TREE_CODE(lhs) == SSA_NAME) {
		tree r1 = copy_ssa_name(lhs, hc), r2 = copy_ssa_name(lhs, call);
		gimple_call_set_lhs(hc, r1);
		gimple_call_set_lhs(call, r2);
		gphi *phi = create_phi_node(lhs, cont);
		add_phi_arg(phi, r1, hit_out, gimple_location(call));
		add_phi_arg(phi, r2, miss_out, gimple_location(call));
	}
	update_stmt(hc);
	update_stmt(call);
	if (verbose)
		inform(gimple_location(call),
		       "dyncall: whole-program site %qs gets the inline guard "
		       "%qs",
		       IDENTIFIER_POINTER(DECL_NAME(owner)),
		       IDENTIFIER_POINTER(DECL_NAME(hit)));
}

static bool wants_inline_guard(function *fun)
{
	return whole_program && inline_guard && arch.has_inline_guard &&
	       optimize && optimize_function_for_speed_p(fun);
}

static unsigned int dyncall_direct_execute(function *fun)
{
	basic_block bb;
	bool changed = false;
	auto_vec<gcall *> guard;

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
			if (whole_program && tramp && chain &&
			    TREE_CODE(chain) == SSA_NAME &&
			    lookup_attribute(ATTR_WP_SITE,
					     DECL_ATTRIBUTES(tramp)) &&
			    wants_inline_guard(fun) &&
			    !stmt_can_throw_internal(fun, call))
				guard.safe_push(call);
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
	for (gcall *call : guard)
		add_inline_guard(fun, call, gimple_call_fndecl(call));
	if (!guard.is_empty()) {
		free_dominance_info(CDI_DOMINATORS);
		if (current_loops)
			loops_state_set(LOOPS_NEED_FIXUP);
		mark_virtual_operands_for_renaming(fun);
		changed = true;
	}
	if (changed)
		cgraph_edge::rebuild_edges();
	return guard.is_empty() ? 0 : TODO_update_ssa_only_virtuals;
}

static bool dyncall_direct_gate(function *)
{
	return !seen_error() && target_supported();
}

DYNCALL_PASS(dyncall_direct, gimple_opt_pass, GIMPLE_PASS, "dyncall_direct",
	     OPTGROUP_NONE, PROP_ssa | PROP_cfg)
