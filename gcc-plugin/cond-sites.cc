/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * cond-sites.cc - `if (k) k(...)` through a void key as one conditional site
 * (DYNCALL_KIND_COND, docs/hooks.md): the GCC side of llvm-pass/CondSites.cpp.
 *
 * The GIMPLE pass runs right after "ssa", before any optimization, so
 * `if (k) k(x)`, `if (k != NULL) k(x)`, `k ? k(x) : (void)0` and
 * `if (!k) return; k(x);` all reach it as
 *
 *   P:  _1 = k;
 *       if (_1 != 0B) goto C; else goto J;    (or == with the edges swapped)
 *   C:  (P its only predecessor)
 *       <statements safe to run when the pointer is null: the arguments>
 *       _2 = k;                              (the source's second read)
 *       _2 (x);                              (void)
 *   J:  (C's successor; its PHIs take the same value from P and from C)
 *
 * or, when the source read the key once into a local, with the call
 * through _1 itself.  The two reads of k become one (no store, call, asm,
 * volatile or atomic access may come between them: then a thread could
 * not tell them apart, as an optimizing compiler merges them too), the test
 * goes, and the call runs unconditionally with the tested value as its
 * chain; its conditional trampoline (and every state the runtime gives the
 * site) does nothing when that value is null.  Exactly C's semantics: the
 * block of the call computes nothing that differs from skipping it but
 * the call itself.  Anything else stays as it is, an ordinary site behind
 * its test, and a guarded call gets a note saying why (the Clang pass's
 * wording).
 */
#include "plugin.h"

/* The values a callee is a copy or conversion of, back to its load. */
static void callee_values(tree v, auto_vec<tree, 4> &out)
{
	for (int depth = 0; depth < 8 && TREE_CODE(v) == SSA_NAME; depth++) {
		out.safe_push(v);
		gimple *def = SSA_NAME_DEF_STMT(v);
		if (!is_gimple_assign(def))
			return;
		enum tree_code code = gimple_assign_rhs_code(def);
		if (code != SSA_NAME && !CONVERT_EXPR_CODE_P(code))
			return;
		v = gimple_assign_rhs1(def);
	}
}

/* The plain (not volatile, not atomic) read of a key that defines v. */
static gimple *plain_key_read(tree v)
{
	if (TREE_CODE(v) != SSA_NAME)
		return NULL;
	gimple *def = SSA_NAME_DEF_STMT(v);
	if (!gimple_assign_single_p(def) || gimple_has_volatile_ops(def))
		return NULL;
	tree rhs = gimple_assign_rhs1(def);
	if (TREE_CODE(rhs) == SSA_NAME ||
	    !(key_of_ref(rhs) || array_key_of_ref(rhs)))
		return NULL;
	return def;
}

/* Is `c` a test of v against null?  *ne: the test is `!=`. */
static bool null_test_of(gcond *c, tree v, bool *ne)
{
	enum tree_code code = gimple_cond_code(c);
	tree l = gimple_cond_lhs(c), r = gimple_cond_rhs(c);

	if (code != EQ_EXPR && code != NE_EXPR)
		return false;
	if (r == v)
		std::swap(l, r);
	if (l != v || !integer_zerop(r))
		return false;
	*ne = code == NE_EXPR;
	return true;
}

/* Does anything between `from` (excluded) and the end of its block, or in
 * `bb` before `to`, write memory or synchronize?  (Then two reads of a key
 * around it may differ.) */
static bool store_between(gimple *from, basic_block bb, gimple *to)
{
	gimple_stmt_iterator gsi = gsi_for_stmt(from);

	for (gsi_next(&gsi); !gsi_end_p(gsi); gsi_next(&gsi))
		if (gimple_vdef(gsi_stmt(gsi)) ||
		    is_gimple_call(gsi_stmt(gsi)) ||
		    gimple_code(gsi_stmt(gsi)) == GIMPLE_ASM ||
		    gimple_has_volatile_ops(gsi_stmt(gsi)))
			return true;
	for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi) && gsi_stmt(gsi) != to;
	     gsi_next(&gsi))
		if (gimple_vdef(gsi_stmt(gsi)) || is_gimple_call(gsi_stmt(gsi)))
			return true;
	return false;
}

/* A recognised guarded call. */
struct cond_match {
	edge call_edge, skip_edge; /* from the test's block */
	edge call_in, skip_in; /* into the block where the paths join */
	tree tested; /* the value the test compares */
	const char *why_not; /* set: guarded, but not folded */
};

static const char *const TWO_READS =
	"the call loads the key again after the test, and the two reads "
	"cannot be one (a volatile or atomic read, or something in between "
	"may store): the pointer called may not be the one tested";

/* Do a and b read the same reference (volatile ones too)? */
static bool same_read(gimple *a, gimple *b)
{
	return a && b && gimple_assign_single_p(a) &&
	       gimple_assign_single_p(b) &&
	       TREE_CODE(gimple_assign_rhs1(a)) != SSA_NAME &&
	       operand_equal_p(gimple_assign_rhs1(a), gimple_assign_rhs1(b),
			       OEP_MATCH_SIDE_EFFECTS);
}

/* Which value does the test before the call's block compare, if any, and
 * is it the callee (or a read of the same key as the callee's)? */
static bool find_test(gcall *call, auto_vec<tree, 4> &values, cond_match &m)
{
	basic_block c = gimple_bb(call);
	if (!single_pred_p(c))
		return false;
	basic_block p = single_pred(c);
	gcond *test = safe_dyn_cast<gcond *>(last_stmt(p));
	if (!test)
		return false;
	edge te, fe;
	extract_true_false_edges_from_block(p, &te, &fe);
	tree v = TREE_CODE(gimple_cond_lhs(test)) == SSA_NAME ?
			 gimple_cond_lhs(test) :
			 gimple_cond_rhs(test);
	bool ne;
	if (TREE_CODE(v) != SSA_NAME || !null_test_of(test, v, &ne))
		return false;
	m.tested = v;
	m.call_edge = ne ? te : fe;
	m.skip_edge = ne ? fe : te;
	if (values.contains(v))
		return true;
	/* Two reads: the tested value's and the callee's. */
	gimple *tested_read = SSA_NAME_DEF_STMT(v);
	gimple *callee_read = SSA_NAME_DEF_STMT(values.last());
	if (!same_read(tested_read, callee_read))
		return false;
	if (!plain_key_read(v) || !plain_key_read(values.last()) ||
	    gimple_bb(tested_read) != p || gimple_bb(callee_read) != c ||
	    store_between(tested_read, c, callee_read))
		m.why_not = TWO_READS;
	return true;
}

/* A block with nothing but labels, debug statements and predictions
 * between one predecessor and one successor (GCC's lowering makes one for
 * the early return). */
static bool is_forwarder(basic_block bb)
{
	if (!single_pred_p(bb) || !single_succ_p(bb) ||
	    bb == EXIT_BLOCK_PTR_FOR_FN(cfun) ||
	    !gimple_seq_empty_p(phi_nodes(bb)))
		return false;
	for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
	     gsi_next(&gsi)) {
		enum gimple_code code = gimple_code(gsi_stmt(gsi));
		if (code != GIMPLE_LABEL && code != GIMPLE_DEBUG &&
		    code != GIMPLE_PREDICT && code != GIMPLE_NOP)
			return false;
	}
	return true;
}

/* The edge into the first block past e's forwarders. */
static edge through_forwarders(edge e)
{
	for (int n = 0; n < 8 && is_forwarder(e->dest); n++)
		e = single_succ_edge(e->dest);
	return e;
}

/* The shape after the test: the call's block and where it rejoins. */
static const char *check_block(gcall *call, cond_match &m, gimple *callee_read)
{
	basic_block c = gimple_bb(call);

	if (m.call_edge->dest != c || m.skip_edge->dest == c)
		return "the null test of the loaded pointer does not branch "
		       "straight to a block of its own holding the call";
	tree fntype = gimple_call_fntype(call);
	if (gimple_call_lhs(call) || !fntype || !VOID_TYPE_P(TREE_TYPE(fntype)))
		return "the call returns a value";
	if (stmt_can_throw_internal(cfun, call))
		return "the call may throw to a handler in this function";
	if (gimple_call_must_tail_p(call))
		return "the call is musttail";
	/* An aggregate passed by value stays a memory reference in the call
	 * (`k(*p)`): the call reads it, and once the test is gone it reads
	 * it while the key is null too, so it must not be able to fault. */
	for (unsigned i = 0; i < gimple_call_num_args(call); i++) {
		tree arg = gimple_call_arg(call, i);
		if (!is_gimple_val(arg) &&
		    (tree_could_trap_p(arg) || TREE_THIS_VOLATILE(arg)))
			return "the call copies an argument from memory that "
			       "may not be readable when the pointer is null "
			       "(a by-value aggregate)";
	}
	for (gimple_stmt_iterator gsi = gsi_start_bb(c);
	     !gsi_end_p(gsi) && gsi_stmt(gsi) != call; gsi_next(&gsi)) {
		gimple *s = gsi_stmt(gsi);
		if (is_gimple_debug(s) || gimple_code(s) == GIMPLE_LABEL ||
		    gimple_code(s) == GIMPLE_NOP || s == callee_read)
			continue;
		if (!is_gimple_assign(s) || gimple_vdef(s) ||
		    gimple_has_side_effects(s) || gimple_could_trap_p(s))
			return "the guarded block computes something that is "
			       "not safe to compute when the pointer is null";
	}
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	for (gsi_next(&gsi); !gsi_end_p(gsi); gsi_next(&gsi))
		if (!is_gimple_debug(gsi_stmt(gsi)) &&
		    gimple_code(gsi_stmt(gsi)) != GIMPLE_NOP)
			return "the guarded block does more than the call";
	m.skip_in = through_forwarders(m.skip_edge);
	m.call_in = single_succ_p(c) ? through_forwarders(single_succ_edge(c)) :
				       NULL;
	if (!m.call_in || m.call_in->dest != m.skip_in->dest ||
	    m.call_in == m.skip_in)
		return "the guarded block does not rejoin the path that "
		       "skips it";
	for (gphi_iterator pi = gsi_start_phis(m.skip_in->dest); !gsi_end_p(pi);
	     gsi_next(&pi)) {
		gphi *phi = pi.phi();
		if (virtual_operand_p(gimple_phi_result(phi)))
			continue;
		if (!operand_equal_p(PHI_ARG_DEF_FROM_EDGE(phi, m.skip_in),
				     PHI_ARG_DEF_FROM_EDGE(phi, m.call_in), 0))
			return "the paths with and without the call merge "
			       "different values";
	}
	return NULL;
}

/* The test goes: the call's block runs unconditionally; the forwarders of
 * the skipped path go with it. */
static void fold(const cond_match &m)
{
	basic_block p = m.call_edge->src;
	basic_block join = m.skip_in->dest, b = m.skip_edge->dest;
	gimple_stmt_iterator gsi = gsi_last_bb(p);

	gsi_remove(&gsi, true);
	remove_edge(m.skip_edge);
	while (b != join && EDGE_COUNT(b->preds) == 0) {
		basic_block next = single_succ(b);
		delete_basic_block(b);
		b = next;
	}
	m.call_edge->flags &= ~(EDGE_TRUE_VALUE | EDGE_FALSE_VALUE);
	m.call_edge->flags |= EDGE_FALLTHRU;
	m.call_edge->probability = profile_probability::always();
	m.call_edge->dest->count = p->count;
	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);
	if (current_loops)
		loops_state_set(LOOPS_NEED_FIXUP);
}

static void note_cond_missed(gcall *call, const char *key_name, const char *why)
{
	if (dump_enabled_p())
		dump_printf_loc(MSG_MISSED_OPTIMIZATION, call,
				"dyncall: null-tested call through %s stays "
				"behind its test: %s\n",
				key_name, why);
	if (verbose)
		inform(gimple_location(call),
		       "dyncall: null-tested call through %qs stays behind "
		       "its test: %s",
		       key_name, why);
}

/* The reads and conversions the call no longer uses (the callee of a
 * folded two-read site), unused from the call back. */
static void drop_unused(tree v)
{
	while (v && TREE_CODE(v) == SSA_NAME && has_zero_uses(v) &&
	       !SSA_NAME_IS_DEFAULT_DEF(v)) {
		gimple *def = SSA_NAME_DEF_STMT(v);
		tree next = NULL_TREE;
		if (!is_gimple_assign(def) || gimple_vdef(def) ||
		    gimple_has_volatile_ops(def))
			return;
		if (TREE_CODE(gimple_assign_rhs1(def)) == SSA_NAME)
			next = gimple_assign_rhs1(def);
		gimple_stmt_iterator gsi = gsi_for_stmt(def);
		unlink_stmt_vdef(def);
		gsi_remove(&gsi, true);
		release_defs(def);
		v = next;
	}
}

bool fold_cond_site(gcall *call, tree *callee, const char *key_name)
{
	auto_vec<tree, 4> values;
	cond_match m = {};

	callee_values(*callee, values);
	if (values.is_empty() || !find_test(call, values, m))
		return false;
	gimple *callee_read = SSA_NAME_DEF_STMT(values.last());
	const char *why = m.why_not;
	if (!why)
		why = check_block(call, m,
				  values.contains(m.tested) ? NULL :
							      callee_read);
	if (!why && !arch.has_cond)
		why = "conditional sites are not implemented for this target "
		      "yet";
	if (why) {
		note_cond_missed(call, key_name, why);
		return false;
	}
	fold(m);
	tree old = *callee;
	*callee = m.tested;
	if (old != m.tested) {
		/* The call is rebuilt by the caller: the old callee's reads go
		 * once nothing uses them. */
		gimple_call_set_fn(call, m.tested);
		update_stmt(call);
		drop_unused(old);
	}
	return true;
}

/* GCC's tailc marks a call in tail position; a NOP cannot stand for a
 * jump, so a conditional site's call stays a call. */
bool keep_cond_call(gcall *call)
{
	tree fn = gimple_call_fndecl(call);

	if (!fn || !gimple_call_tail_p(call) || !is_cond_trampoline(fn))
		return false;
	gimple_call_set_tail(call, false);
	return true;
}
