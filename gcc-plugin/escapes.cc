/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * escapes.cc - which key a reference reads or writes, and which uses let a key's address escape.
 */
#include "plugin.h"

/* The annotated pointer key (not an array key) a memory reference reads or
 * writes, or NULL_TREE. */
tree key_of_ref(tree ref)
{
	if (!ref)
		return NULL_TREE;
	if (TREE_CODE(ref) == VAR_DECL)
		return is_annotated(ref) && !is_array_key(ref) ? ref :
								 NULL_TREE;
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
tree array_key_of_ref(tree ref)
{
	if (!ref || TREE_CODE(ref) != ARRAY_REF ||
	    !is_function_pointer_type(TREE_TYPE(ref)))
		return NULL_TREE;
	while (TREE_CODE(ref) == ARRAY_REF)
		ref = TREE_OPERAND(ref, 0);
	if (TREE_CODE(ref) == COMPONENT_REF)
		ref = TREE_OPERAND(ref, 1);
	return (TREE_CODE(ref) == VAR_DECL || TREE_CODE(ref) == FIELD_DECL) &&
			       is_array_key(ref) ?
		       ref :
		       NULL_TREE;
}

/* Key whose address ADDR is: &key, or an SSA copy of it (the C front end
 * lowers atomic_store(&key, v) to "p = &key; __atomic_store_8(p, v, 5)"). */
tree key_of_addr(tree addr)
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
bool addr_only_feeds_atomics(gimple *stmt)
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

void mark_escaped(tree key, gimple *stmt, const char *why)
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
tree find_escapes(tree *tp, int *walk_subtrees, void *data)
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
		tree base =
			get_base_address(TREE_OPERAND(TREE_OPERAND(t, 0), 0));
		if (!(TREE_CODE(t) == MEM_REF && key_of_ref(t)) && base &&
		    TREE_CODE(base) == VAR_DECL && is_annotated(base))
			mark_escaped(base, stmt, "partial access");
		*walk_subtrees = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(t) == ADDR_EXPR) {
		for (tree r = TREE_OPERAND(t, 0); r;
		     r = (handled_component_p(r) || TREE_CODE(r) == MEM_REF) ?
				 TREE_OPERAND(r, 0) :
				 NULL_TREE) {
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
void escape_fields_of(tree type, gimple *stmt, int depth)
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

bool is_builtin(gimple *stmt, enum built_in_function fn)
{
	return gimple_call_builtin_p(stmt, BUILT_IN_NORMAL) &&
	       DECL_FUNCTION_CODE(gimple_call_fndecl(stmt)) == fn;
}

bool is_atomic_builtin(gimple *stmt)
{
	if (!gimple_call_builtin_p(stmt, BUILT_IN_NORMAL))
		return false;
	enum built_in_function fn =
		DECL_FUNCTION_CODE(gimple_call_fndecl(stmt));
	return (fn >= BUILT_IN_ATOMIC_TEST_AND_SET &&
		fn <= BUILT_IN_ATOMIC_SIGNAL_FENCE) ||
	       (fn >= BUILT_IN_SYNC_FETCH_AND_ADD_N &&
		fn <= BUILT_IN_SYNC_SYNCHRONIZE);
}
