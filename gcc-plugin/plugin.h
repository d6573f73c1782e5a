/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * plugin.h - what the files of the GCC side of dyncall share.
 *
 * Calls through a function pointer declared __attribute__((dynamic_call))
 * become direct calls to a per-site trampoline that receives the loaded
 * pointer in the static-chain register (r10); the runtime later patches the
 * trampoline (and the call itself) to jump straight to the target.  What is
 * emitted is the ABI of docs/abi.md / include/dyncall/abi.h, byte for byte
 * the same as the Clang pass, so one runtime and one rewriter read both.
 *
 * Three stages, placed so that -flto works:
 *  1. front end (attribute.cc): the attribute (always registered), its
 *     diagnostics, and the propagation of annotated typedefs to the
 *     variables and fields declared with them; each key also gets its source
 *     name, computed while the front end's printable-name hook is still
 *     available.
 *  2. GIMPLE, right after "ssa" (gimple.cc; before any IPA pass and before
 *     LTO streaming, so the stream already carries the transformed calls):
 *     sites become calls to trampoline decls with a static chain (sites.cc,
 *     whole-program.cc), stores to keys become __dyncall_store calls, field
 *     stores get their note (stores.cc), and uses that let a key's address
 *     escape are recorded (escapes.cc).  A simple IPA pass after
 *     "build_ssa_passes" (ipa.cc) then emits, as toplevel asm (which LTO
 *     streams), the trampolines, the key entries and the COMDAT
 *     constructor/destructor/retpoline, and creates the key cells and type
 *     key descriptors as real variables (keys.cc; so LTO renames and
 *     promotes what they reference consistently).  Everything the RTL stage
 *     needs per site (key cell symbol, flags) is an internal attribute of
 *     the trampoline decl, which LTO streams with the decl.
 *  3. RTL, just before "shorten" (rtl.cc; after every pass that may move,
 *     duplicate or delete calls: bb-reorder, sched2, mach, and after the
 *     target's endbr insertion; before branch shortening so that the
 *     padding is accounted for in branch offsets): each call_insn to a
 *     trampoline gets the alignment padding, a local label and its
 *     __dyncall_sites entry.
 *
 * plugin.cc is the entry point (version check, arguments, callbacks, pass
 * registration); arch.cc and arch-<arch>.cc hold the per-arch assembly
 * table; wp-filter.cc the whole-program filter.  Every GCC-version and
 * target difference is in gcc-compat.h.
 *
 * Everything declared here has hidden visibility (-fvisibility=hidden):
 * only plugin_init and plugin_is_GPL_compatible are exported to cc1.
 */
#ifndef DYNCALL_GCC_PLUGIN_H
#define DYNCALL_GCC_PLUGIN_H

#include "gcc-compat.h"
#include "dyncall/abi-asm.h"

/* Internal attribute names (a space makes them unspellable in source). */
#define ATTR_KEY_NAME "dyncall key name" /* ("source name") on keys */
#define ATTR_SITE "dyncall site" /* ("keycell", flags) on trampolines */
#define ATTR_WP_SITE "dyncall wp site" /* on whole-program trampolines */
/* On an inline guard's hit trampoline: (owner trampoline decl, "literal",
 * flags); whole-program.cc makes them, rtl.cc emits them. */
#define ATTR_HIT_SITE "dyncall hit site"

/* Local labels of the plugin's own (never seen outside the object). */
#define SITE_LABEL_PREFIX ".Ldyncall_site"
#define FUNC_LABEL_PREFIX ".Ldyncall_func"

/* plugin.cc: the plugin's state and arguments. */
extern const char *plugin_name;
extern bool transform_enabled;
extern bool verbose;
/* -fplugin-arg-<name>-whole-program[=<filter>]: every eligible indirect
 * call becomes a site of the unit's whole-program key. */
extern bool whole_program;
/* -fplugin-arg-<name>-no-inline-guard turns it off (whole-program.cc). */
extern bool inline_guard;
extern char unit_id[17];
tree keep(tree t);
bool target_supported(void);

/* arch.cc, arch-<arch>.cc: per-arch assembly. */
void asm_printf(std::string &out, const char *fmt, ...) ATTRIBUTE_PRINTF_2;
void emit_symbol_header(std::string &out, const char *name, bool local = false);

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
	/* The same for a conditional site (DYNCALL_KIND_COND), whose whole
	 * call instruction is rewritten between a NOP and a call: x86-64
	 * puts the 5 bytes in one aligned quadword (opcode at 8k+3). */
	const char *cond_site_padding;
	/* Conditional trampolines exist and the runtime patches their sites
	 * (docs/hooks.md); else `if (k) k(...)` stays as it is, with a note. */
	bool has_cond;
	/* The function's first RTL insn is not its first byte: ppc64le's
	 * global entry point (the TOC setup from r12) is printed by the
	 * prologue hook, so `func` is taken from the function symbol. */
	bool func_from_symbol;
	/* -mindirect-branch=thunk* exists (x86-64 only): retpoline slow path. */
	bool has_retpoline;
	/* Whole-program sites get an inline guard (x86-64 only). */
	bool has_inline_guard;
	/* local: a file-local copy for a duplicated call (RTL pass); cond:
	 * a conditional site's, which returns on a null chain first. */
	void (*trampoline)(std::string &out, const char *name, bool retpoline,
			   bool local, bool cond);
	/* Body of __dyncall_module_ctor/_dtor: callee(__start_/__stop_ of
	 * __dyncall_sites, __start_/__stop_ of __dyncall_keys), return. */
	void (*register_call)(std::string &out, const char *name,
			      const char *callee);
};

/* The row of the target the plugin is built for. */
extern const struct dyncall_arch &arch;

void x86_64_trampoline(std::string &out, const char *n, bool retpoline,
		       bool local, bool cond);
void x86_64_register_call(std::string &out, const char *name,
			  const char *callee);
void aarch64_trampoline(std::string &out, const char *n, bool retpoline,
			bool local, bool cond);
void aarch64_register_call(std::string &out, const char *name,
			   const char *callee);
void ppc64le_trampoline(std::string &out, const char *n, bool retpoline,
			bool local, bool cond);
void ppc64le_register_call(std::string &out, const char *name,
			   const char *callee);

/*
 * The module constructor loads the bounds of the two sections
 * (DYNCALL_SITES_START ... in abi-asm.h), weak hidden, from the GOT (as the
 * Clang pass does): a unit with keys but no site, or a link whose
 * --gc-sections dropped every site, has no __dyncall_sites section, and an
 * undefined weak symbol is 0 only through the GOT.  Addressed PC- or
 * TOC-relative it cannot be linked into a PIE or shared object on x86-64
 * (R_X86_64_PC32 against an undefined hidden symbol) and silently becomes
 * the load base on aarch64 and ppc64le.  The linker relaxes the load back
 * to an address computation when the symbol is defined.
 */

/* prologue.cc: ppc64le's patchable entry NOP (-fplugin-arg-<name>-prologues,
 * __attribute__((dyncall_patchable))); install_entry_nop() is false after
 * an error. */
extern bool prologues_all;
void register_patchable_attribute(void);
bool install_entry_nop(void);

/* attribute.cc: the front end. */
void register_attributes(void *event_data, void *data);
void finish_decl(void *event_data, void *data);
void finish_type(void *event_data, void *data);
void finish_compilation(void *event_data, void *data);
bool is_function_pointer_type(const_tree type);
bool is_annotated(const_tree decl);
bool is_array_key(const_tree decl);
std::string field_key_name(tree field);
std::string var_key_name(tree decl);

/* keys.cc: the keys of this translation unit. */
struct dyncall_key {
	tree decl; /* annotated VAR_DECL or FIELD_DECL */
	tree target; /* what the key cell points at: the variable or the
			   * type key descriptor */
	std::string name; /* source name */
	std::string cell; /* key cell symbol */
	unsigned flags; /* enum dyncall_key_flags */
};

struct dyncall_site_info {
	std::string tramp;
	bool retpoline;
	bool cond; /* a conditional site's trampoline */
};

extern std::vector<dyncall_key> keys;
extern std::vector<dyncall_site_info> sites;
extern hash_map<tree, unsigned> *key_index; /* decl -> index in keys */
dyncall_key &key_of(tree decl);
void set_internal_linkage(tree decl, bool comdat);
tree new_plugin_var(const std::string &name, tree type);
tree new_trampoline_decl(const std::string &name, tree fntype);
tree new_descriptor(const std::string &symbol);

/* escapes.cc: which keys a statement reads or writes, and which escape. */
bool is_builtin(gimple *stmt, enum built_in_function fn);
bool is_atomic_builtin(gimple *stmt);
tree key_of_ref(tree ref);
tree array_key_of_ref(tree ref);
tree key_of_addr(tree addr);
bool addr_only_feeds_atomics(gimple *stmt);
void mark_escaped(tree key, gimple *stmt, const char *why);
tree find_escapes(tree *tp, int *walk_subtrees, void *data);
void escape_fields_of(tree type, gimple *stmt, int depth);

/* sites.cc: calls through keys. */
enum site_result {
	SITE_NONE, /* not a call through a key */
	SITE_DONE, /* a site of its key */
	SITE_MISSED, /* through a key, left as is (noted) */
	SITE_MISSED_PHI, /* a merge of key loads, left as is (noted) */
};
bool is_retpoline_function(tree fndecl);
void note_missed(gimple *stmt, const char *fmt, const char *what);
tree new_trampoline(gcall *call, tree key, unsigned flags, const dyncall_key &k,
		    bool retpoline, bool cond = false);
/* The site attribute of a trampoline decl: its key cell, flags and whether
 * it is a conditional site's (all NULL/0 when it has none). */
tree site_attribute(tree tramp);
bool is_cond_trampoline(tree tramp);
/* The site flags of how the unit is built: retpoline, IBT, BTI. */
unsigned build_site_flags(bool retpoline);
/* call now calls tramp, with chain (the loaded pointer) as static chain. */
void call_through_trampoline(gcall *call, tree tramp, tree chain);
enum site_result transform_site(gcall *call, bool retpoline);

/* cond-sites.cc: `if (k) k(...)` through a void key as one conditional
 * site (DYNCALL_KIND_COND, docs/hooks.md).  fold_cond_site() looks at a
 * call through a key whose callee is *callee: when it is guarded by a null
 * test of the same key that it can fold, the test is gone, *callee is the
 * tested value (the call now uses it) and it returns true; otherwise the
 * code is unchanged, and a guarded call it cannot fold gets a note. */
bool fold_cond_site(gcall *call, tree *callee, const char *key_name);
/* After "tailc": a conditional site's call is never a tail call (a NOP
 * cannot stand for a jump). */
bool keep_cond_call(gcall *call);

/* stores.cc: stores to keys. */
struct pending_note {
	gimple *store;
	tree field;
	tree value;
};
void replace_store(gimple_stmt_iterator *gsi, tree key, tree value);
bool insert_resync(gimple_stmt_iterator *gsi, tree key);
void insert_note(const pending_note &n);
bool runs_before_relocation(tree fndecl);
bool plain_before_relocation(tree key, gimple *stmt, bool early);
bool is_runtime_api_call(gimple *stmt);

/* wp-filter.cc, whole-program.cc: whole-program mode. */
void read_filter(const char *file);
bool wp_selected(gcall *call, function *fun, tree callee);
bool transform_wp_site(gcall *call, bool retpoline, function *fun);

/* The passes (gimple.cc, whole-program.cc, ipa.cc, rtl.cc), made with
 * DYNCALL_PASS (gcc-compat.h). */
opt_pass *make_dyncall_gimple_pass(void);
opt_pass *make_dyncall_direct_pass(void);
opt_pass *make_dyncall_ipa_pass(void);
opt_pass *make_dyncall_rtl_pass(void);

#endif /* DYNCALL_GCC_PLUGIN_H */
