/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * ipa.cc - the IPA pass: key cells, key entries, trampolines and the module constructor as toplevel asm.
 */
#include "plugin.h"

static void emit_key_cell(dyncall_key &k)
{
	tree decl = new_plugin_var(k.cell, ptr_type_node);

	TREE_READONLY(decl) = 1;
	SET_DECL_ALIGN(decl, 64);
	DECL_INITIAL(decl) =
		fold_convert(ptr_type_node, build_fold_addr_expr(k.target));
	set_decl_section_name(decl, DYNCALL_KEYCELL_SECTION);
	set_internal_linkage(decl, false);
	varpool_node::finalize_decl(decl);
	keep(decl);
}

static void emit_function_header(std::string &out, const char *name,
				 const char *section, const char *group)
{
	if (group)
		asm_printf(out,
			   "\t.pushsection %s,\"axG\",@progbits,%s,comdat\n",
			   section, group);
	else
		asm_printf(out, "\t.pushsection %s,\"ax\",@progbits\n",
			   section);
	asm_printf(out, "%s", arch.func_align);
	emit_symbol_header(out, name);
}

static void emit_retpoline(std::string &out)
{
	/* Once per assembler file (LTO concatenates the units' asm). */
	asm_printf(out, "\t.ifndef .Ldyncall_have_retpoline\n"
			"\t.set .Ldyncall_have_retpoline, 1\n");
	asm_printf(out,
		   "\t.pushsection .text.%s,\"axG\",@progbits,%s,comdat\n%s",
		   DYNCALL_RETPOLINE_THUNK, DYNCALL_RETPOLINE_THUNK,
		   DYNCALL_ASM_X86_64_RETPOLINE_ALIGN);
	emit_symbol_header(out, DYNCALL_RETPOLINE_THUNK);
	asm_printf(out, "%s", DYNCALL_ASM_X86_64_RETPOLINE_BODY);
	asm_printf(out, "\t.size %s, . - %s\n\t.popsection\n\t.endif\n",
		   DYNCALL_RETPOLINE_THUNK, DYNCALL_RETPOLINE_THUNK);
}

static void emit_module_function(std::string &out, const char *name,
				 const char *callee, const char *array)
{
	emit_function_header(out, name, (std::string(".text.") + name).c_str(),
			     name);
	arch.register_call(out, name, callee);
	asm_printf(out, "\t.size %s, . - %s\n", name, name);
	asm_printf(out,
		   "\t.section %s.%05d,\"awG\",@%s,%s,comdat\n"
		   "\t.p2align 3\n\t.quad %s\n\t.popsection\n",
		   array, DYNCALL_CTOR_PRIORITY,
		   strcmp(array, ".init_array") == 0 ? "init_array" :
						       "fini_array",
		   name, name);
}

static void emit_module_ctor_dtor(std::string &out)
{
	asm_printf(out, "\t.ifndef .Ldyncall_have_module_ctor\n"
			"\t.set .Ldyncall_have_module_ctor, 1\n");
	static const char *const syms[] = {
		"__start_" DYNCALL_SITES_SECTION,
		"__stop_" DYNCALL_SITES_SECTION,
		"__start_" DYNCALL_KEYS_SECTION,
		"__stop_" DYNCALL_KEYS_SECTION,
	};
	for (const char *s : syms)
		asm_printf(out, "\t.weak %s\n\t.hidden %s\n", s, s);
	emit_module_function(out, DYNCALL_MODULE_CTOR, DYNCALL_REGISTER_FN,
			     ".init_array");
	emit_module_function(out, DYNCALL_MODULE_DTOR, DYNCALL_UNREGISTER_FN,
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

static void emit_key_entry(std::string &out, const dyncall_key &k, unsigned idx)
{
	asm_printf(out,
		   "\t.pushsection " DYNCALL_KEYS_SECTION ",\"aR\",@progbits\n"
		   "\t.p2align 2\n"
		   "\t.long %s - .\n"
		   "\t.long .Ldyncall_name.%s.%u - .\n"
		   "\t.byte %d, %d\n\t.short %u\n\t.long 0\n"
		   "\t.section " DYNCALL_NAMES_SECTION ",\"a\",@progbits\n"
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
				mark_escaped(d, NULL,
					     "address in an initializer");
		}
	}
}

static unsigned int dyncall_ipa_execute(function *)
{
	scan_initializer_escapes();
	if (keys.empty() && sites.empty())
		return 0;

	std::string out = "\t/* dyncall: trampolines and key entries */\n";
	bool need_retpoline = false;

	for (const dyncall_site_info &s : sites) {
		arch.trampoline(out, s.tramp.c_str(), s.retpoline, false,
				s.cond);
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

static bool dyncall_ipa_gate(function *)
{
	return !seen_error() && !in_lto_p && target_supported();
}

DYNCALL_PASS(dyncall_ipa, simple_ipa_opt_pass, SIMPLE_IPA_PASS, "dyncall_emit",
	     OPTGROUP_NONE, 0)
