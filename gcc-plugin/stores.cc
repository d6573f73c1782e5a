/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * stores.cc - stores to keys: __dyncall_store, __dyncall_resync, the field-store note, stores before relocation.
 */
#include "plugin.h"

static tree store_fndecl, resync_fndecl, note_fndecl;

static tree runtime_fndecl(tree *cache, const char *name, int nargs)
{
	if (*cache)
		return *cache;
	tree type = nargs == 2 ?
			    build_function_type_list(void_type_node,
						     ptr_type_node,
						     ptr_type_node, NULL_TREE) :
			    build_function_type_list(void_type_node,
						     ptr_type_node, NULL_TREE);
	tree decl = build_fn_decl(name, type);
	SET_DECL_ASSEMBLER_NAME(decl, DECL_NAME(decl));
	TREE_NOTHROW(decl) = 1;
	*cache = keep(decl);
	return decl;
}

/* key = v  ->  __dyncall_store(&key, v) */
void replace_store(gimple_stmt_iterator *gsi, tree key, tree value)
{
	gimple *old = gsi_stmt(*gsi);
	gimple_seq seq = NULL;

	if (!POINTER_TYPE_P(TREE_TYPE(value))) {
		tree tmp = make_ssa_name(ptr_type_node);
		gimple_seq_add_stmt(&seq,
				    gimple_build_assign(tmp, NOP_EXPR, value));
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

/* After an atomic read-modify-write of a key: __dyncall_resync(&key). */
bool insert_resync(gimple_stmt_iterator *gsi, tree key)
{
	gimple *stmt = gsi_stmt(*gsi);

	if (stmt_ends_bb_p(stmt))
		return false;
	gcall *call = gimple_build_call(runtime_fndecl(&resync_fndecl,
						       DYNCALL_RESYNC_FN, 1),
					1, build_fold_addr_expr(key));
	gimple_set_location(call, gimple_location(stmt));
	gsi_insert_after(gsi, call, GSI_NEW_STMT);
	return true;
}

/*
 * p->field = v;  ->  p->field = v;
 *                    t = tkey.last;
 *                    if (t != v) __dyncall_note(&tkey, v);
 */
void insert_note(const pending_note &n)
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
		gimple_seq_add_stmt(&seq,
				    gimple_build_assign(tmp, NOP_EXPR, value));
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
bool runs_before_relocation(tree fndecl)
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
bool plain_before_relocation(tree key, gimple *stmt, bool early)
{
	if (early)
		mark_escaped(key, stmt,
			     "stored in an IFUNC resolver, which "
			     "runs before relocation");
	return early;
}

bool is_runtime_api_call(gimple *stmt)
{
	tree fn = is_gimple_call(stmt) ? gimple_call_fndecl(stmt) : NULL_TREE;

	return fn && DECL_NAME(fn) && TREE_PUBLIC(fn) &&
	       strncmp(IDENTIFIER_POINTER(DECL_NAME(fn)),
		       DYNCALL_RUNTIME_API_PREFIX,
		       strlen(DYNCALL_RUNTIME_API_PREFIX)) == 0;
}
