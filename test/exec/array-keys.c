// Checks arrays of function pointers run exactly like the plain build with both compilers: Expat's shapes (a static const SCANNER scanners[] and a SCANNER scanners[] field of static const ENCODING initialisers) and a writable global table whose elements are stored to (plain stores); every element call is a site of the array's key, whose sites are never direct, even when the runtime is given a value for the key and an element changes behind it.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: runs x86-64 code; dyncall-pass, dyncall-runtime: the plugin builds need the pass plugin and libdyncall.)
// RUN: %clang -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: FileCheck %s < %t.ref.out
// RUN: %dyncall_clang -O2 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/array_tkeys.c -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: %dyncall_clang -O0 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/array_tkeys.c -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
// RUN: %if gcc-plugin %{ %dyncall_gcc -O2 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/array_tkeys.c -o %t.gcc %libdyncall_ldflags %}
// RUN: %if gcc-plugin %{ %t.gcc > %t.gcc.out %}
// RUN: %if gcc-plugin %{ diff %t.ref.out %t.gcc.out %}
// RUN: %if gcc-plugin %{ %dyncall_gcc -O0 -DWITH_DYNCALL -I%exec_inputs %s %exec_inputs/array_tkeys.c -o %t.gcc0 %libdyncall_ldflags %}
// RUN: %if gcc-plugin %{ %t.gcc0 > %t.gcc0.out %}
// RUN: %if gcc-plugin %{ diff %t.ref.out %t.gcc0.out %}
#include "expect.h"

/* Expat's xmltok.h/xmltok.c shapes. */
typedef struct encoding ENCODING;
typedef int (*SCANNER)(const ENCODING *, const char *, const char *,
		       const char **) DYNCALL;
struct encoding {
	SCANNER scanners[3];
	int minBytesPerChar;
};

static int prologTok(const ENCODING *enc, const char *p, const char *end,
		     const char **next)
{
	*next = end;
	return 100 + enc->minBytesPerChar + (int)(end - p);
}
static int contentTok(const ENCODING *enc, const char *p, const char *end,
		      const char **next)
{
	*next = p;
	return 200 + enc->minBytesPerChar + (int)(end - p);
}
static int cdataTok(const ENCODING *enc, const char *p, const char *end,
		    const char **next)
{
	*next = end - 1;
	return 300 + enc->minBytesPerChar + (int)(end - p);
}

static const SCANNER scanners[] = { prologTok, contentTok, cdataTok };
static const struct encoding latin1 = { { prologTok, contentTok, cdataTok }, 1 };
static const struct encoding utf16 = { { cdataTok, prologTok, contentTok }, 2 };

typedef int (*handler_t)(int);
static int h0(int v) { return v; }
static int h1(int v) { return v * 10; }
static int h2(int v) { return v * 100; }
handler_t handlers[3] DYNCALL = { h0, h1, h2 };

__attribute__((noinline)) static int xml_tok(const ENCODING *enc, int state,
					     const char *p, const char *end)
{
	const char *next;
	return enc->scanners[state](enc, p, end, &next) * 10 + (int)(next - p);
}

__attribute__((noinline)) static int tok(int state, const char *p,
					 const char *end)
{
	const char *next;
	return (*scanners[state])(&latin1, p, end, &next);
}

__attribute__((noinline)) static int dispatch(int i, int v)
{
	return handlers[i](v);
}

static void run(const char *what)
{
	static const char doc[] = "<doc/>";
	const char *end = doc + sizeof doc - 1;

	for (int s = 0; s < 3; s++)
		printf("%s state %d: latin1 %d utf16 %d tok %d dispatch %d\n",
		       what, s, xml_tok(&latin1, s, doc, end),
		       xml_tok(&utf16, s, doc, end), tok(s, doc, end),
		       dispatch(s, 7));
}

#ifdef WITH_DYNCALL
void **tkey_handlers(void);
void **tkey_encoding_scanners(void);
void **tkey_scanners(void);

/* An array key: a type key that escapes, with sites, none of them direct. */
static void expect_array_key(const char *name, void **desc, unsigned min_sites)
{
	struct dyncall_key_info ki;
	int r = dyncall_key_info(desc, &ki);

	if (r != DYNCALL_OK || !ki.name || strcmp(ki.name, name) != 0 ||
	    !ki.type_key || !ki.escapes || ki.nsites < min_sites ||
	    ki.ndirect != 0)
		EXPECT_FAIL(__FILE__, __LINE__,
			    "%s: r=%d name=%s type=%d escapes=%d sites=%u "
			    "direct=%u", name, r, ki.name ? ki.name : "-",
			    ki.type_key, ki.escapes, ki.nsites, ki.ndirect);
}
#endif

int main(void)
{
	// CHECK:      plain state 0: latin1 1076 utf16 3085 tok 107 dispatch 7
	// CHECK-NEXT: plain state 1: latin1 2070 utf16 1086 tok 207 dispatch 70
	// CHECK-NEXT: plain state 2: latin1 3075 utf16 2080 tok 307 dispatch 700
	run("plain");
#ifdef WITH_DYNCALL
	expect_array_key("scanners[]", tkey_scanners(), 1);
	expect_array_key("struct encoding.scanners[]", tkey_encoding_scanners(), 1);
	expect_array_key("handlers[]", tkey_handlers(), 1);
	/* Give the runtime a value for the key: its sites become guarded for
	 * h0 (never direct), and stay right for every other element. */
	if (dyncall_set(tkey_handlers(), (void *)h0) != DYNCALL_OK)
		EXPECT_FAIL(__FILE__, __LINE__, "dyncall_set(handlers[])");
	expect_array_key("handlers[]", tkey_handlers(), 1);
#endif
	// CHECK: guarded state 0: latin1 1076 utf16 3085 tok 107 dispatch 7
	run("guarded");
	/* Plain stores to the elements; the sites call what they load. */
	handlers[0] = h2;
	handlers[2] = h0;
	// CHECK: stored state 0: latin1 1076 utf16 3085 tok 107 dispatch 700
	// CHECK-NEXT: stored state 1: latin1 2070 utf16 1086 tok 207 dispatch 70
	// CHECK-NEXT: stored state 2: latin1 3075 utf16 2080 tok 307 dispatch 7
	run("stored");
#ifdef WITH_DYNCALL
	expect_array_key("handlers[]", tkey_handlers(), 1);
#endif
	return 0;
}
