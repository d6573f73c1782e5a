/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * sites.cc - calls through keys: the site's source, freshness, the trampoline decl.
 */
#include "plugin.h"

bool is_retpoline_function(tree fndecl)
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

/* A site's callee: follow copies and conversions back to the load. */
struct site_source {
	gimple *load; /* the loading statement */
	tree key; /* annotated decl */
	bool atomic; /* __atomic_load */
	bool relaxed; /* its memory order is relaxed */
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
				       (tree_to_uhwi(mo) &
					MEMMODEL_BASE_MASK) == MEMMODEL_RELAXED;
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
		tree other = gimple_cond_lhs(use) == v ? gimple_cond_rhs(use) :
							 gimple_cond_lhs(use);
		return (c == EQ_EXPR || c == NE_EXPR) && integer_zerop(other);
	}
	if (is_gimple_assign(use)) {
		enum tree_code c = gimple_assign_rhs_code(use);
		if (c != EQ_EXPR && c != NE_EXPR)
			return false;
		tree other = gimple_assign_rhs1(use) == v ?
				     gimple_assign_rhs2(use) :
				     gimple_assign_rhs1(use);
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
			if (i > 0 &&
			    use == SSA_NAME_DEF_STMT(src->values[i - 1]))
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

void note_missed(gimple *stmt, const char *fmt, const char *what)
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
			if (phi_reads_key(gimple_phi_arg_def(def, i),
					  depth + 1))
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

unsigned build_site_flags(bool retpoline)
{
	unsigned flags = retpoline ? DYNCALL_SITE_RETPOLINE : 0;

	if (dyncall_ibt_enabled())
		flags |= DYNCALL_SITE_IBT;
	if (dyncall_bti_enabled())
		flags |= DYNCALL_SITE_BTI;
	return flags;
}

void call_through_trampoline(gcall *call, tree tramp, tree chain)
{
	cgraph_node::get_create(tramp);
	gimple_call_set_fndecl(call, tramp);
	gimple_call_set_chain(call, chain);
	update_stmt(call);
}

tree site_attribute(tree tramp)
{
	return lookup_attribute(ATTR_SITE, DECL_ATTRIBUTES(tramp));
}

/* ATTR_SITE's arguments: ("keycell", flags[, 1 for a conditional site]). */
bool is_cond_trampoline(tree tramp)
{
	tree a = site_attribute(tramp);

	if (!a || !TREE_VALUE(a) || !TREE_CHAIN(TREE_VALUE(a)))
		return false;
	tree third = TREE_CHAIN(TREE_CHAIN(TREE_VALUE(a)));
	return third && integer_onep(TREE_VALUE(third));
}

tree new_trampoline(gcall *call, tree key, unsigned flags, const dyncall_key &k,
		    bool retpoline, bool cond)
{
	std::string name = std::string(DYNCALL_TRAMP_PREFIX) + unit_id + "." +
			   std::to_string(sites.size());
	tree fntype = gimple_call_fntype(call);
	tree decl = new_trampoline_decl(name, fntype);
	tree args = tree_cons(
		NULL_TREE, build_string(k.cell.size() + 1, k.cell.c_str()),
		tree_cons(NULL_TREE, build_int_cst(unsigned_type_node, flags),
			  cond ? tree_cons(NULL_TREE, integer_one_node,
					   NULL_TREE) :
				 NULL_TREE));
	DECL_ATTRIBUTES(decl) =
		tree_cons(get_identifier(ATTR_SITE), args, NULL_TREE);
	sites.push_back({ name, retpoline, cond });
	return keep(decl);
}

enum site_result transform_site(gcall *call, bool retpoline)
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
	/* `if (k) k(...)`: the test folded, the callee the tested value,
	 * whose read is the site's load now. */
	bool cond = fold_cond_site(call, &callee, k.name.c_str());
	site_source tested = {};
	site_source &load = cond && find_site_source(callee, &tested) ? tested :
									src;
	/* An array element may change without the runtime knowing. */
	if (!is_array_key(src.key) && site_is_fresh(call, &load))
		flags |= DYNCALL_SITE_FRESH;
	if (k.flags & DYNCALL_KEY_TYPE)
		flags |= DYNCALL_SITE_TYPE_KEY;
	flags |= build_site_flags(retpoline);

	tree tramp = new_trampoline(call, src.key, flags, k, retpoline, cond);
	call_through_trampoline(call, tramp, callee);

	if (verbose)
		inform(gimple_location(call),
		       "dyncall: call through %qs becomes a %scall to %qs%s",
		       k.name.c_str(), cond ? "conditional " : "",
		       IDENTIFIER_POINTER(DECL_NAME(tramp)),
		       (flags & DYNCALL_SITE_FRESH) ? " (fresh)" : "");
	if (dump_enabled_p())
		dump_printf_loc(MSG_OPTIMIZED_LOCATIONS, call,
				"dyncall: call through %s transformed%s\n",
				k.name.c_str(),
				cond ? " (conditional site)" : "");
	return SITE_DONE;
}
