/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * gimple.cc - the GIMPLE pass: one handler per statement kind.
 */
#include "plugin.h"

/* The state of the pass over one function. */
struct gimple_walk {
	function *fun;
	bool retpoline; /* the function is built with retpolines */
	bool early; /* it may run before relocation (stores.cc) */
	bool changed;
	auto_vec<pending_note> notes; /* field stores, noted at the end */
};

/*
 * Each handler looks at the statement at *GSI.  One that returns true has
 * dealt with it and moved *GSI past it (and past what it inserted); one that
 * returns false leaves *GSI where it was, for the handlers after it.
 */

/* Atomic builtins on a key: __atomic_store becomes __dyncall_store, a
 * read-modify-write lets the key escape and is followed by a resync. */
static bool handle_atomic(gimple_walk &w, gimple_stmt_iterator *gsi)
{
	gimple *stmt = gsi_stmt(*gsi);

	if (!is_atomic_builtin(stmt) || gimple_call_num_args(stmt) < 1 ||
	    !key_of_addr(gimple_call_arg(stmt, 0)))
		return false;
	tree key = key_of_addr(gimple_call_arg(stmt, 0));
	enum built_in_function fn =
		DECL_FUNCTION_CODE(gimple_call_fndecl(stmt));
	/* Other operands (e.g. &expected) may still let keys escape. */
	for (unsigned i = 1; i < gimple_call_num_args(stmt); i++)
		walk_tree(gimple_call_arg_ptr(stmt, i), find_escapes, stmt,
			  NULL);
	if (fn == BUILT_IN_ATOMIC_LOAD_8 || fn == BUILT_IN_ATOMIC_LOAD_N) {
		key_of(key); /* a use */
		gsi_next(gsi);
		return true;
	}
	if ((fn == BUILT_IN_ATOMIC_STORE_8 || fn == BUILT_IN_ATOMIC_STORE_N) &&
	    TREE_CODE(key) == VAR_DECL && gimple_call_num_args(stmt) == 3 &&
	    !plain_before_relocation(key, stmt, w.early)) {
		replace_store(gsi, key, gimple_call_arg(stmt, 1));
		w.changed = true;
		return true;
	}
	mark_escaped(key, stmt, "atomic read-modify-write");
	if (TREE_CODE(key) == VAR_DECL && !w.early && insert_resync(gsi, key))
		w.changed = true;
	gsi_next(gsi);
	return true;
}

/* A call: a site of its key, else (whole-program mode) of the unit's
 * whole-program key; key = f (...) stores the result separately, and the
 * store is then handled like any other (the next statement).  Never the
 * last handler: the call's operands are looked at by handle_other. */
static void handle_call(gimple_walk &w, gimple_stmt_iterator *gsi)
{
	gimple *stmt = gsi_stmt(*gsi);

	if (!is_gimple_call(stmt))
		return;
	if (transform_enabled) {
		gcall *call = as_a<gcall *>(stmt);
		enum site_result r = transform_site(call, w.retpoline);
		if (r == SITE_DONE ||
		    ((r == SITE_NONE || r == SITE_MISSED_PHI) &&
		     whole_program &&
		     transform_wp_site(call, w.retpoline, w.fun)))
			w.changed = true;
	}

	tree lhs = gimple_call_lhs(stmt);
	if (!lhs || !key_of_ref(lhs))
		return;
	if (stmt_ends_bb_p(stmt)) {
		mark_escaped(key_of_ref(lhs), stmt,
			     "store of a call result that may throw");
		return;
	}
	tree tmp = make_ssa_name(TREE_TYPE(lhs));
	gimple_call_set_lhs(stmt, tmp);
	update_stmt(stmt);
	gimple *st = gimple_build_assign(lhs, tmp);
	gimple_set_location(st, gimple_location(stmt));
	gsi_insert_after(gsi, st, GSI_SAME_STMT);
	w.changed = true;
}

/* A store: to a variable key, __dyncall_store; to a field key, a note;
 * anything else may let a key's address escape. */
static bool handle_store(gimple_walk &w, gimple_stmt_iterator *gsi)
{
	gimple *stmt = gsi_stmt(*gsi);

	if (!gimple_assign_single_p(stmt) || !gimple_store_p(stmt))
		return false;
	tree lhs = gimple_assign_lhs(stmt);
	tree rhs = gimple_assign_rhs1(stmt);
	tree key = key_of_ref(lhs);
	walk_tree(gimple_assign_rhs1_ptr(stmt), find_escapes, stmt, NULL);
	if (key && TREE_CODE(key) == VAR_DECL &&
	    !plain_before_relocation(key, stmt, w.early)) {
		replace_store(gsi, key, rhs);
		w.changed = true;
		return true;
	}
	if (key && TREE_CODE(key) != VAR_DECL) {
		key_of(key);
		/* No note before relocation (stores.cc). */
		if (!w.early && stmt_ends_bb_p(stmt))
			mark_escaped(key, stmt, "store may throw");
		else if (!w.early)
			w.notes.safe_push({ stmt, key, rhs });
	} else if (!key) {
		walk_tree(gimple_assign_lhs_ptr(stmt), find_escapes, stmt,
			  NULL);
		/* A clobber or "= {}" writes no target. */
		if (AGGREGATE_TYPE_P(TREE_TYPE(lhs)) &&
		    !gimple_clobber_p(stmt) &&
		    !(TREE_CODE(rhs) == CONSTRUCTOR &&
		      CONSTRUCTOR_NELTS(rhs) == 0))
			escape_fields_of(TREE_TYPE(lhs), stmt, 0);
	}
	gsi_next(gsi);
	return true;
}

/* Keys in the operands of an asm statement escape. */
static void handle_asm(gimple *stmt)
{
	for (unsigned i = 0; i < gimple_num_ops(stmt); i++) {
		tree op = gimple_op(stmt, i);
		for (; op && TREE_CODE(op) == TREE_LIST; op = TREE_CHAIN(op)) {
			tree v = TREE_VALUE(op);
			tree base = get_base_address(v);
			tree key = key_of_ref(v);
			if (!key && base && TREE_CODE(base) == VAR_DECL &&
			    is_annotated(base))
				key = base;
			if (key)
				mark_escaped(key, stmt, "asm operand");
		}
	}
}

/* Everything else, last: loads are uses; any other address of a key lets
 * it escape.  Always moves on. */
static void handle_other(gimple_stmt_iterator *gsi)
{
	gimple *stmt = gsi_stmt(*gsi);

	gsi_next(gsi);
	/* p = &key feeding only atomic builtins. */
	if (gimple_assign_single_p(stmt) &&
	    key_of_addr(gimple_assign_rhs1(stmt)) &&
	    TREE_CODE(gimple_assign_rhs1(stmt)) == ADDR_EXPR &&
	    addr_only_feeds_atomics(stmt))
		return;
	if (gimple_assign_single_p(stmt)) {
		tree key = key_of_ref(gimple_assign_rhs1(stmt));
		if (key)
			key_of(key);
	}
	if (gimple_code(stmt) == GIMPLE_ASM)
		handle_asm(stmt);
	/* The runtime's public API (dyncall_set, _update, _key_info, ...)
	 * takes keys by address without storing behind the plugin's back. */
	if (is_runtime_api_call(stmt))
		return;
	for (unsigned i = 0; i < gimple_num_ops(stmt); i++)
		if (gimple_op(stmt, i))
			walk_tree(gimple_op_ptr(stmt, i), find_escapes, stmt,
				  NULL);
}

/* The notes are inserted after the walk: they split blocks. */
static unsigned int finish_function(gimple_walk &w)
{
	for (unsigned i = 0; i < w.notes.length(); i++)
		insert_note(w.notes[i]);
	if (!w.changed && w.notes.is_empty())
		return 0;

	if (!w.notes.is_empty()) {
		free_dominance_info(CDI_DOMINATORS);
		free_dominance_info(CDI_POST_DOMINATORS);
		if (current_loops)
			loops_state_set(LOOPS_NEED_FIXUP);
	}
	cgraph_edge::rebuild_edges();
	mark_virtual_operands_for_renaming(w.fun);
	return TODO_update_ssa_only_virtuals;
}

static unsigned int dyncall_gimple_execute(function *fun)
{
	gimple_walk w;
	basic_block bb;

	w.fun = fun;
	w.retpoline = is_retpoline_function(fun->decl);
	w.early = runs_before_relocation(fun->decl);
	w.changed = false;
	FOR_EACH_BB_FN(bb, fun)
	{
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi);) {
			if (is_gimple_debug(gsi_stmt(gsi))) {
				gsi_next(&gsi);
				continue;
			}
			if (handle_atomic(w, &gsi))
				continue;
			handle_call(w, &gsi);
			if (handle_store(w, &gsi))
				continue;
			handle_other(&gsi);
		}
	}
	return finish_function(w);
}

static bool dyncall_gimple_gate(function *)
{
	return !seen_error() && !in_lto_p && target_supported();
}

DYNCALL_PASS(dyncall_gimple, gimple_opt_pass, GIMPLE_PASS, "dyncall",
	     OPTGROUP_OTHER, PROP_ssa | PROP_cfg)
