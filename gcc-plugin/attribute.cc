/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * attribute.cc - the front end: the dynamic_call attribute, its diagnostics, annotated typedefs, key names.
 */
#include "plugin.h"

bool is_function_pointer_type(const_tree type)
{
	return type && TREE_CODE(type) == POINTER_TYPE &&
	       (TREE_CODE(TREE_TYPE(type)) == FUNCTION_TYPE ||
		TREE_CODE(TREE_TYPE(type)) == METHOD_TYPE);
}

/* What a key of TYPE is: a function pointer, or an array (of any dimension,
 * complete or not, never variable-length) of function pointers. */
enum key_shape { SHAPE_NONE, SHAPE_POINTER, SHAPE_ARRAY };

static enum key_shape key_shape_of(const_tree type)
{
	if (is_function_pointer_type(type))
		return SHAPE_POINTER;
	if (!type || TREE_CODE(type) != ARRAY_TYPE)
		return SHAPE_NONE;
	for (; TREE_CODE(type) == ARRAY_TYPE; type = TREE_TYPE(type))
		if (TYPE_DOMAIN(type) && TYPE_MAX_VALUE(TYPE_DOMAIN(type)) &&
		    TREE_CODE(TYPE_MAX_VALUE(TYPE_DOMAIN(type))) != INTEGER_CST)
			return SHAPE_NONE; /* a VLA */
	return is_function_pointer_type(type) ? SHAPE_ARRAY : SHAPE_NONE;
}

static bool has_static_storage(const_tree decl)
{
	return (TREE_STATIC(decl) || DECL_EXTERNAL(decl)) &&
	       !DECL_THREAD_LOCAL_P(decl);
}

/* The diagnostics, word for word those of llvm-pass/DynCallAttr.cpp, at the
 * declared name (Clang reports there too). */
#define ERR_ARGS "%<dynamic_call%> attribute takes no arguments"
#define ERR_TYPE                                                             \
	"%<dynamic_call%> attribute requires a pointer-to-function type or " \
	"an array of them"
#define ERR_WHERE                                                      \
	"%<dynamic_call%> attribute only applies to function-pointer " \
	"variables, fields and typedefs"
#define ERR_STORAGE                                                         \
	"%<dynamic_call%> attribute only applies to variables with static " \
	"storage duration; a local copy of a key is an ordinary pointer"
#define ERR_THREAD                                                        \
	"%<dynamic_call%> attribute cannot be applied to a thread-local " \
	"variable: its sites are shared by all threads"
#define ERR_THREAD_TYPEDEF                                                  \
	"thread-local variable of %<dynamic_call%> typedef %qs: its sites " \
	"would be shared by all threads"
#define WARN_NO_KEY                                                         \
	"%<dynamic_call%> typedef %qs declares no key in this translation " \
	"unit: its locals, parameters and casts are ordinary function "     \
	"pointers"

/* Annotated typedefs of the unit, and those that declared a key (for the
 * "declares no key" warning at the end of the unit). */
static std::vector<tree> annotated_typedefs;
static std::vector<tree> productive_typedefs;

static const char *decl_name_str(tree decl)
{
	return decl && DECL_NAME(decl) ? IDENTIFIER_POINTER(DECL_NAME(decl)) :
					 "";
}

/* Where a misplaced attribute on a type is reported: the type's name. */
static location_t type_location(tree type)
{
	tree stub = TYPE_STUB_DECL(type);
	tree name = TYPE_NAME(type);

	if (stub && DECL_SOURCE_LOCATION(stub) != UNKNOWN_LOCATION)
		return DECL_SOURCE_LOCATION(stub);
	if (name && DECL_P(name))
		return DECL_SOURCE_LOCATION(name);
	return input_location;
}

static tree handle_dynamic_call_attribute(tree *node, tree name, tree args,
					  int flags, bool *no_add_attrs)
{
	tree decl = *node;
	const char *err = NULL;

	*no_add_attrs = true;
	if (!DECL_P(decl)) {
		/* `int (*DYNCALL p)(int)`: written on the pointer declarator,
		 * meant for the declaration that follows (Clang accepts this
		 * spelling too); hand it on like GCC's own decl attributes. */
		if (flags &
		    ((int)ATTR_FLAG_DECL_NEXT | (int)ATTR_FLAG_FUNCTION_NEXT |
		     (int)ATTR_FLAG_ARRAY_NEXT))
			return tree_cons(name, args, NULL_TREE);
		/* On a struct, union or enum: an error, as with Clang (GCC
		 * would only warn that it is ignored).  In a type name (a
		 * cast), Clang's own warning. */
		if (TYPE_P(decl) && (RECORD_OR_UNION_TYPE_P(decl) ||
				     TREE_CODE(decl) == ENUMERAL_TYPE))
			error_at(type_location(decl),
				 args ? ERR_ARGS : ERR_WHERE);
		else
			warning_at(input_location, OPT_Wattributes,
				   "%<dynamic_call%> attribute ignored when "
				   "parsing type");
		return NULL_TREE;
	}
	/* The same order of checks as the Clang plugin's. */
	if (args) {
		err = ERR_ARGS;
	} else {
		switch (TREE_CODE(decl)) {
		case VAR_DECL:
			/* Automatic variables are caught again in finish_decl,
			 * when the storage class is final (C++ sets it late). */
			if (DECL_CONTEXT(decl) &&
			    TREE_CODE(DECL_CONTEXT(decl)) == FUNCTION_DECL &&
			    !TREE_STATIC(decl) && !DECL_EXTERNAL(decl))
				err = ERR_STORAGE;
			else if (DECL_THREAD_LOCAL_P(decl))
				err = ERR_THREAD;
			else if (key_shape_of(TREE_TYPE(decl)) == SHAPE_NONE)
				err = ERR_TYPE;
			break;
		case PARM_DECL:
			err = ERR_STORAGE;
			break;
		case FIELD_DECL:
			if (DECL_BIT_FIELD(decl) ||
			    key_shape_of(TREE_TYPE(decl)) == SHAPE_NONE)
				err = ERR_TYPE;
			break;
		case TYPE_DECL:
			if (key_shape_of(TREE_TYPE(decl)) == SHAPE_NONE)
				err = ERR_TYPE;
			else
				annotated_typedefs.push_back(keep(decl));
			break;
		default:
			err = ERR_WHERE;
			break;
		}
	}
	if (err) {
		error_at(DECL_SOURCE_LOCATION(decl), err);
		return NULL_TREE;
	}
	*no_add_attrs = false;
	return NULL_TREE;
}

static struct attribute_spec dynamic_call_attr = {
	.name = DYNCALL_ATTR_NAME,
	.min_length = 0,
	/* Arguments reach the handler, which refuses them with the same
	 * message and location as Clang. */
	.max_length = -1,
	/* The handler sees types too: in a declarator (`int (*DYNCALL p)
	 * (int)`, which Clang accepts) it passes the attribute on to the
	 * declaration; on a struct or another type it is an error. */
	.decl_required = false,
	.type_required = false,
	.function_type_required = false,
	.affects_type_identity = false,
	.handler = handle_dynamic_call_attribute,
	.exclude = NULL,
};

/* [[dyncall::dynamic_call]] (C++11, C2x): the same attribute in the
 * `dyncall` namespace, as with Clang.  The table ends with a null entry. */
static struct attribute_spec dyncall_ns_attrs[2];

void register_attributes(void *event_data, void *data)
{
	register_attribute(&dynamic_call_attr);
	register_patchable_attribute();
	dyncall_ns_attrs[0] = dynamic_call_attr;
	memset(&dyncall_ns_attrs[1], 0, sizeof(dyncall_ns_attrs[1]));
	register_scoped_attributes(dyncall_ns_attrs, "dyncall");
}

/* Is DECL annotated, by the attribute in either spelling? */
static tree dynamic_call_attribute(tree attrs)
{
	for (tree a = attrs; a; a = TREE_CHAIN(a))
		if (is_attribute_p(DYNCALL_ATTR_NAME, get_attribute_name(a)))
			return a;
	return NULL_TREE;
}

/* The annotated typedef (if any) a declaration's type, or its array element
 * type, is spelled with. */
static tree annotated_typedef_of(tree type)
{
	for (int depth = 0; type && depth < 64; depth++) {
		tree name = TYPE_NAME(type);

		if (name && TREE_CODE(name) == TYPE_DECL) {
			if (dynamic_call_attribute(DECL_ATTRIBUTES(name)))
				return name;
			if (DECL_ORIGINAL_TYPE(name)) {
				type = DECL_ORIGINAL_TYPE(name);
				continue;
			}
		}
		if (TREE_CODE(type) != ARRAY_TYPE)
			return NULL_TREE;
		type = TREE_TYPE(type);
	}
	return NULL_TREE;
}

static bool is_productive(tree td)
{
	for (tree p : productive_typedefs)
		if (p == td)
			return true;
	return false;
}

/* Every annotated typedef a key's type is spelled with declared a key. */
static void mark_productive(tree type)
{
	for (tree td; (td = annotated_typedef_of(type));
	     type = DECL_ORIGINAL_TYPE(td)) {
		if (!is_productive(td))
			productive_typedefs.push_back(td);
		if (!DECL_ORIGINAL_TYPE(td))
			break;
	}
}

bool is_annotated(const_tree decl)
{
	return decl &&
	       (TREE_CODE(decl) == VAR_DECL || TREE_CODE(decl) == FIELD_DECL) &&
	       dynamic_call_attribute(DECL_ATTRIBUTES(decl));
}

/* An annotated variable or field of array type: an array key. */
bool is_array_key(const_tree decl)
{
	return is_annotated(decl) && TREE_CODE(TREE_TYPE(decl)) == ARRAY_TYPE;
}

static bool lang_is_cxx(void)
{
	return strncmp(lang_hooks.name, "GNU C++", 7) == 0;
}

static std::string printable_name(tree decl)
{
	if (lang_is_cxx())
		return lang_hooks.decl_printable_name(decl, 1);
	return DECL_NAME(decl) ? IDENTIFIER_POINTER(DECL_NAME(decl)) : "";
}

/* "struct <tag>.<field>" / "union <tag>.<field>" (C++: qualified tag); an
 * anonymous record, with or without a typedef name (the C front end has not
 * seen the typedef when the record is complete), is spelled by its field
 * names, "struct {a,b,f}.f", as the Clang plugin does.  Array keys end in
 * "[]". */
std::string field_key_name(tree field)
{
	tree rec = DECL_CONTEXT(field);
	std::string s = TREE_CODE(rec) == UNION_TYPE ? "union " : "struct ";
	tree main = rec ? TYPE_MAIN_VARIANT(rec) : NULL_TREE;
	tree tn = main ? TYPE_NAME(main) : NULL_TREE;

	if (tn && TREE_CODE(tn) == IDENTIFIER_NODE) {
		s += IDENTIFIER_POINTER(tn);
	} else if (tn && TREE_CODE(tn) == TYPE_DECL && DECL_NAME(tn) &&
		   !IDENTIFIER_ANON_P(DECL_NAME(tn))) {
		s += printable_name(tn);
	} else {
		s += '{';
		bool first = true;
		for (tree f = main ? TYPE_FIELDS(main) : NULL_TREE; f;
		     f = DECL_CHAIN(f)) {
			if (TREE_CODE(f) != FIELD_DECL)
				continue;
			if (!first)
				s += ',';
			first = false;
			s += decl_name_str(f);
		}
		s += '}';
	}
	s += '.';
	s += decl_name_str(field);
	if (TREE_CODE(TREE_TYPE(field)) == ARRAY_TYPE)
		s += "[]";
	return s;
}

std::string var_key_name(tree decl)
{
	std::string s = printable_name(decl);

	if (TREE_CODE(TREE_TYPE(decl)) == ARRAY_TYPE)
		s += "[]";
	return s;
}

static void set_key_name(tree decl, const std::string &name)
{
	tree old = lookup_attribute(ATTR_KEY_NAME, DECL_ATTRIBUTES(decl));
	tree str = build_string(name.size() + 1, name.c_str());

	if (old) {
		TREE_VALUE(old) = build_tree_list(NULL_TREE, str);
		return;
	}
	DECL_ATTRIBUTES(decl) = tree_cons(get_identifier(ATTR_KEY_NAME),
					  build_tree_list(NULL_TREE, str),
					  DECL_ATTRIBUTES(decl));
}

static void annotate(tree decl)
{
	if (!dynamic_call_attribute(DECL_ATTRIBUTES(decl)))
		DECL_ATTRIBUTES(decl) =
			tree_cons(get_identifier(DYNCALL_ATTR_NAME), NULL_TREE,
				  DECL_ATTRIBUTES(decl));
}

static void remove_dynamic_call(tree decl)
{
	for (tree *p = &DECL_ATTRIBUTES(decl); *p;)
		if (is_attribute_p(DYNCALL_ATTR_NAME, get_attribute_name(*p)))
			*p = TREE_CHAIN(*p);
		else
			p = &TREE_CHAIN(*p);
}

/* PLUGIN_FINISH_DECL: storage class is final; apply annotated typedefs. */
void finish_decl(void *event_data, void *data)
{
	tree decl = (tree)event_data;

	if (!decl || TREE_CODE(decl) != VAR_DECL)
		return;
	if (dynamic_call_attribute(DECL_ATTRIBUTES(decl))) {
		if (!has_static_storage(decl)) {
			error_at(DECL_SOURCE_LOCATION(decl),
				 DECL_THREAD_LOCAL_P(decl) ? ERR_THREAD :
							     ERR_STORAGE);
			remove_dynamic_call(decl);
			return;
		}
	} else if (tree td = annotated_typedef_of(TREE_TYPE(decl))) {
		/* Objects of an annotated typedef (and arrays of them) are
		 * keys when they can be (static storage); automatic ones are
		 * plain pointers, thread-local ones an error. */
		if (key_shape_of(TREE_TYPE(decl)) == SHAPE_NONE)
			return;
		if (DECL_THREAD_LOCAL_P(decl)) {
			error_at(DECL_SOURCE_LOCATION(decl), ERR_THREAD_TYPEDEF,
				 decl_name_str(td));
			return;
		}
		if (!has_static_storage(decl))
			return;
		annotate(decl);
	} else {
		return;
	}
	mark_productive(TREE_TYPE(decl));
	set_key_name(decl, var_key_name(decl));
}

/* PLUGIN_FINISH_TYPE: fields get their "struct tag.field" key name. */
void finish_type(void *event_data, void *data)
{
	tree type = (tree)event_data;

	if (!type ||
	    (TREE_CODE(type) != RECORD_TYPE && TREE_CODE(type) != UNION_TYPE))
		return;
	for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f)) {
		if (TREE_CODE(f) != FIELD_DECL)
			continue;
		if (!dynamic_call_attribute(DECL_ATTRIBUTES(f))) {
			if (DECL_BIT_FIELD(f) ||
			    !annotated_typedef_of(TREE_TYPE(f)) ||
			    key_shape_of(TREE_TYPE(f)) == SHAPE_NONE)
				continue;
			annotate(f);
		}
		mark_productive(TREE_TYPE(f));
		set_key_name(f, field_key_name(f));
	}
}

/* PLUGIN_FINISH (also after -fsyntax-only): an annotated typedef that the
 * unit used but never for a key gets a warning, never silence. */
void finish_compilation(void *event_data, void *data)
{
	for (tree td : annotated_typedefs)
		if (TREE_USED(td) && !is_productive(td))
			warning_at(DECL_SOURCE_LOCATION(td), 0, WARN_NO_KEY,
				   decl_name_str(td));
}
