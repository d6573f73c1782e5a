/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * keys.cc - the keys of this translation unit: their records, and the
 * decls of key cells and type-key descriptors.
 */
#include "plugin.h"

std::vector<dyncall_key> keys;
std::vector<dyncall_site_info> sites;
hash_map<tree, unsigned> *key_index;
static std::map<std::string, tree> type_keys; /* key name -> descriptor */

static std::string key_name_of(tree decl)
{
	tree a = lookup_attribute(ATTR_KEY_NAME, DECL_ATTRIBUTES(decl));

	if (a && TREE_VALUE(a))
		return TREE_STRING_POINTER(TREE_VALUE(TREE_VALUE(a)));
	/* Declared where the front-end callbacks did not see it (e.g. a C++
	 * template instantiation): best effort. */
	if (TREE_CODE(decl) == FIELD_DECL)
		return field_key_name(decl);
	return var_key_name(decl);
}

/* Mark a symbol created by the plugin as "module internal": local when the
 * unit is compiled to an object, hidden and never localized under LTO (the
 * toplevel asm that references it may land in another partition). */
void set_internal_linkage(tree decl, bool comdat)
{
	if (!comdat && !dyncall_generating_lto()) {
		TREE_PUBLIC(decl) = 0;
		return;
	}
	TREE_PUBLIC(decl) = 1;
	DECL_VISIBILITY(decl) = VISIBILITY_HIDDEN;
	DECL_VISIBILITY_SPECIFIED(decl) = 1;
	if (dyncall_generating_lto())
		DECL_ATTRIBUTES(decl) =
			tree_cons(get_identifier("externally_visible"),
				  NULL_TREE, DECL_ATTRIBUTES(decl));
}

/* A per-site trampoline: a hidden external function of the call's type,
 * defined later in assembly (rtl.cc); it takes the static chain, which
 * keeps folding from dropping the chain argument of the calls to it. */
tree new_trampoline_decl(const std::string &name, tree fntype)
{
	tree decl = build_decl(UNKNOWN_LOCATION, FUNCTION_DECL,
			       get_identifier(name.c_str()), fntype);

	SET_DECL_ASSEMBLER_NAME(decl, DECL_NAME(decl));
	TREE_PUBLIC(decl) = 1;
	DECL_EXTERNAL(decl) = 1;
	DECL_ARTIFICIAL(decl) = 1;
	DECL_VISIBILITY(decl) = VISIBILITY_HIDDEN;
	DECL_VISIBILITY_SPECIFIED(decl) = 1;
	DECL_STATIC_CHAIN(decl) = 1;
	return decl;
}

tree new_plugin_var(const std::string &name, tree type)
{
	tree decl = build_decl(UNKNOWN_LOCATION, VAR_DECL,
			       get_identifier(name.c_str()), type);

	SET_DECL_ASSEMBLER_NAME(decl, DECL_NAME(decl));
	TREE_STATIC(decl) = 1;
	DECL_ARTIFICIAL(decl) = 1;
	DECL_IGNORED_P(decl) = 1;
	TREE_USED(decl) = 1;
	DECL_PRESERVE_P(decl) = 1;
	return decl;
}

/* A type-key descriptor (struct dyncall_type_key): hidden, COMDAT,
 * writable, 16 zero bytes. */
tree new_descriptor(const std::string &symbol)
{
	tree type = build_array_type_nelts(ptr_type_node, 2);
	tree decl = new_plugin_var(symbol, type);

	TREE_ADDRESSABLE(decl) = 1;
	DECL_INITIAL(decl) = build_constructor(type, NULL);
	SET_DECL_ALIGN(decl, 64);
	DECL_USER_ALIGN(decl) = 1;
	set_internal_linkage(decl, true);
	make_decl_one_only(decl, DECL_ASSEMBLER_NAME(decl));
	varpool_node::finalize_decl(decl);
	return keep(decl);
}

/* __dyncall_tkey.<md5 of the key name>. */
static tree type_key_descriptor(const std::string &name)
{
	auto it = type_keys.find(name);
	if (it != type_keys.end())
		return it->second;

	unsigned char digest[16];
	char hex[33];
	md5_buffer(name.data(), name.size(), digest);
	for (int i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", digest[i]);

	tree decl = new_descriptor(std::string(DYNCALL_TYPE_KEY_PREFIX) + hex);
	type_keys[name] = decl;
	return decl;
}

/* The unit's record of a key, created on first use. */
dyncall_key &key_of(tree decl)
{
	bool existed;
	unsigned &idx = key_index->get_or_insert(decl, &existed);

	if (existed)
		return keys[idx];
	idx = keys.size();

	dyncall_key k;
	k.decl = keep(decl);
	k.name = key_name_of(decl);
	k.cell = std::string(DYNCALL_KEYCELL_PREFIX) + unit_id + "." +
		 std::to_string(idx);
	k.flags = 0;
	if (is_array_key(decl)) {
		/* An array key: a type-like key (a descriptor named after it)
		 * whose stores the plugin never sees (they stay plain), so
		 * its sites must never be direct: TYPE keeps them guarded in
		 * the runtime and out of dyncall-rewrite's link-time
		 * resolution, ESCAPES says why (docs/attribute.md). */
		k.flags |= DYNCALL_KEY_TYPE | DYNCALL_KEY_ESCAPES;
		k.target = type_key_descriptor(k.name);
	} else if (TREE_CODE(decl) == FIELD_DECL) {
		k.flags |= DYNCALL_KEY_TYPE;
		k.target = type_key_descriptor(k.name);
	} else {
		k.target = decl;
		if (TYPE_READONLY(TREE_TYPE(decl)) || TREE_READONLY(decl))
			k.flags |= DYNCALL_KEY_CONST;
	}
	keys.push_back(k);
	return keys.back();
}
