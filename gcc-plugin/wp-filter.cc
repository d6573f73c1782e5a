/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * wp-filter.cc - the whole-program filter file: its grammar and matching (docs/whole-program.md).
 */
#include "plugin.h"

/* libiberty's demangler, linked into every cc1 (its header is not among
 * the plugin headers).  DMGL_PARAMS | DMGL_ANSI: "ns::f(int) const". */
extern "C" char *cplus_demangle(const char *mangled, int options);
#define DYNCALL_DMGL_PARAMS (1 << 0)
#define DYNCALL_DMGL_ANSI (1 << 1)

enum wp_rule_kind { WP_FUNCTION, WP_FILE, WP_FIELD };

struct wp_rule {
	bool include;
	enum wp_rule_kind kind;
	std::string glob; /* function/file glob, or the struct glob */
	std::string field_glob; /* field rules: the field glob */
	int line; /* file rules: 0 = any line */
};

static std::vector<wp_rule> wp_rules;
static bool wp_has_include;

/* "<filter>[:<line>]: error: <what>", the line the LLVM pass prints
 * (llvm-pass/WholeProgramFilter.cpp): GCC prints a diagnostic without a
 * location as "<progname>: error: <what>". */
static void filter_error(const char *file, unsigned line,
			 const std::string &what)
{
	std::string where = file;
	const char *saved = progname;

	if (line)
		where += ":" + std::to_string(line);
	progname = where.c_str();
	error_at(UNKNOWN_LOCATION, "%s", what.c_str());
	progname = saved;
}

/* The next blank-separated word of S, removed from it. */
static std::string next_word(std::string &s)
{
	size_t b = s.find_first_not_of(" \t\r\v\f");

	if (b == std::string::npos) {
		s.clear();
		return "";
	}
	size_t e = s.find_first_of(" \t\r\v\f", b);
	std::string w = s.substr(b, e == std::string::npos ? e : e - b);

	s = e == std::string::npos ? "" : s.substr(e);
	return w;
}

/* One line of the filter (the grammar and the messages of the LLVM
 * pass's parser, word for word).  Returns the error, or "". */
static std::string parse_filter_line(std::string text)
{
	wp_rule r;

	text = text.substr(0, text.find('#'));
	std::string verb = next_word(text);
	if (verb.empty())
		return "";
	if (verb != "include" && verb != "exclude")
		return "expected 'include' or 'exclude', got '" + verb + "'";
	std::string kind = next_word(text);
	r.include = verb == "include";
	r.line = 0;
	if (kind == "function")
		r.kind = WP_FUNCTION;
	else if (kind == "file")
		r.kind = WP_FILE;
	else if (kind == "field")
		r.kind = WP_FIELD;
	else
		return "expected 'function', 'file' or 'field' after '" + verb +
		       "'";
	std::string pattern = next_word(text);
	if (r.kind == WP_FIELD &&
	    (pattern == "struct" || pattern == "union" || pattern == "class"))
		pattern = next_word(text);
	if (pattern.empty())
		return "missing pattern after '" + verb + " " + kind + "'";
	std::string rest = text;
	if (!next_word(rest).empty()) {
		size_t b = text.find_first_not_of(" \t\r\v\f");
		size_t e = text.find_last_not_of(" \t\r\v\f");
		return "unexpected text after the pattern: '" +
		       text.substr(b, e - b + 1) + "'";
	}
	size_t sep;
	switch (r.kind) {
	case WP_FUNCTION:
		r.glob = pattern;
		break;
	case WP_FILE:
		/* <glob>:<line>: a ':' always introduces a line (> 0). */
		sep = pattern.rfind(':');
		r.glob = pattern.substr(0, sep);
		if (sep != std::string::npos) {
			std::string num = pattern.substr(sep + 1);
			if (num.empty() || num.size() > 9 ||
			    num.find_first_not_of("0123456789") !=
				    std::string::npos ||
			    (r.line = atoi(num.c_str())) == 0)
				return "bad line number '" + num +
				       "' in a file rule";
		}
		break;
	case WP_FIELD:
		/* "<struct glob>.<field glob>" ("struct ops.read" too). */
		sep = pattern.rfind('.');
		if (sep == std::string::npos || sep == 0 ||
		    sep + 1 == pattern.size())
			return "a field rule is <struct>.<field>, got '" +
			       pattern + "'";
		r.glob = pattern.substr(0, sep);
		r.field_glob = pattern.substr(sep + 1);
		break;
	}
	wp_has_include |= r.include;
	wp_rules.push_back(r);
	return "";
}

/* Read the filter once, at plugin initialization.  The first malformed
 * line is an error, which fails the compilation. */
void read_filter(const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	ssize_t n;

	if (!f) {
		filter_error(file, 0,
			     std::string("cannot read the filter file: ") +
				     xstrerror(errno));
		return;
	}
	while ((n = getline(&buf, &cap, f)) >= 0) {
		lineno++;
		std::string err = parse_filter_line(
			std::string(buf, n && buf[n - 1] == '\n' ? n - 1 : n));
		if (!err.empty()) {
			filter_error(file, lineno, err);
			break;
		}
	}
	if (ferror(f))
		filter_error(file, 0,
			     std::string("cannot read the filter file: ") +
				     xstrerror(errno));
	free(buf);
	fclose(f);
}

/* What a candidate call is matched against. */
struct wp_candidate {
	std::vector<std::string> functions; /* C name, mangled, demangled */
	std::string file;
	int line;
	std::string field; /* "<tag>.<field>" or empty */
};

static bool glob_match(const std::string &glob, const std::string &s)
{
	return fnmatch(glob.c_str(), s.c_str(), 0) == 0;
}

static bool rule_matches(const wp_rule &r, const wp_candidate &c)
{
	switch (r.kind) {
	case WP_FUNCTION:
		for (const std::string &n : c.functions)
			if (glob_match(r.glob, n))
				return true;
		return false;
	case WP_FILE: {
		if (c.file.empty() || (r.line && r.line != c.line))
			return false;
		size_t slash = c.file.rfind('/');
		return glob_match(r.glob, c.file) ||
		       (slash != std::string::npos &&
			glob_match(r.glob, c.file.substr(slash + 1)));
	}
	case WP_FIELD: {
		size_t dot = c.field.rfind('.');
		return dot != std::string::npos &&
		       glob_match(r.glob, c.field.substr(0, dot)) &&
		       glob_match(r.field_glob, c.field.substr(dot + 1));
	}
	}
	return false;
}

/* The field a callee was loaded from ("<tag>.<field>", the key-name
 * spelling without "struct "/"union " and "[]"), through copies and
 * conversions; empty when it was not loaded from a field. */
static std::string callee_field(tree v)
{
	for (int depth = 0; depth < 8 && v && TREE_CODE(v) == SSA_NAME;
	     depth++) {
		gimple *def = SSA_NAME_DEF_STMT(v);
		if (!is_gimple_assign(def))
			return "";
		tree rhs = gimple_assign_rhs1(def);
		enum tree_code code = gimple_assign_rhs_code(def);
		if (code == SSA_NAME || CONVERT_EXPR_CODE_P(code)) {
			v = rhs;
			continue;
		}
		if (!gimple_assign_single_p(def))
			return "";
		while (TREE_CODE(rhs) == ARRAY_REF)
			rhs = TREE_OPERAND(rhs, 0);
		if (TREE_CODE(rhs) != COMPONENT_REF)
			return "";
		tree f = TREE_OPERAND(rhs, 1);
		std::string name = field_key_name(f);
		size_t sp = name.find(' ');
		if (sp != std::string::npos)
			name = name.substr(sp + 1);
		if (name.size() > 2 &&
		    name.compare(name.size() - 2, 2, "[]") == 0)
			name.resize(name.size() - 2);
		return name;
	}
	return "";
}

/* Does the filter (if any) select CALL, in FUN? */
bool wp_selected(gcall *call, function *fun, tree callee)
{
	if (wp_rules.empty())
		return true;

	wp_candidate c;
	tree fn = fun->decl;
	location_t loc = gimple_location(call);
	if (loc == UNKNOWN_LOCATION)
		loc = DECL_SOURCE_LOCATION(fn);
	expanded_location xl = expand_location(loc);

	c.file = xl.file ? xl.file : "";
	c.line = xl.line;
	/* The symbol (the C name, or the C++ mangled name) and, mangled, its
	 * demangled form, as the LLVM pass matches. */
	const char *symbol = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fn));
	c.functions.push_back(symbol);
	if (strncmp(symbol, "_Z", 2) == 0)
		if (char *d = cplus_demangle(
			    symbol, DYNCALL_DMGL_PARAMS | DYNCALL_DMGL_ANSI)) {
			c.functions.push_back(d);
			free(d);
		}
	c.field = callee_field(callee);

	/* Any matching exclude rule removes the call; else it needs a
	 * matching include rule, if there is any. */
	bool in = !wp_has_include;
	for (const wp_rule &r : wp_rules) {
		if (!rule_matches(r, c))
			continue;
		if (!r.include)
			return false;
		in = true;
	}
	return in;
}
