/* Sites of every kind of key, used by table-*.c tests.  Prints results so
 * that differential runs can compare; the stand-in runtime prints the
 * table. */
#include <stdio.h>

typedef int (*handler_t)(int) __attribute__((dynamic_call));

static int add1(int x) { return x + 1; }
static int dbl(int x) { return x * 2; }

int (*var_key)(int) __attribute__((dynamic_call)) = add1;
static int (*static_key)(int) __attribute__((dynamic_call)) = dbl;
int (*const const_key)(int) __attribute__((dynamic_call)) = add1;
handler_t typedef_key = dbl;
int (*escaped_key)(int) __attribute__((dynamic_call)) = add1;
int (**escape_sink)(int);

struct ops {
	int (*field)(int) __attribute__((dynamic_call));
	handler_t tfield;
};
union u {
	int (*ufield)(int) __attribute__((dynamic_call));
	long l;
};
struct ops gops = { add1, dbl };
union u gu = { dbl };

__attribute__((noinline)) int k_var(int x) { return var_key(x) + 1; }
__attribute__((noinline)) int k_var_tail(int x) { return var_key(x); }
__attribute__((noinline)) int k_static(int x) { return static_key(x) + 1; }
__attribute__((noinline)) int k_const(int x)
{
	int (*volatile *p)(int) = (int (*volatile *)(int)) & const_key;
	(void)p;
	return const_key(x) + 1;
}
__attribute__((noinline)) int k_typedef(int x) { return typedef_key(x) + 1; }
__attribute__((noinline)) int k_escaped(int x) { return escaped_key(x) + 1; }
__attribute__((noinline)) int k_field(struct ops *o, int x) { return o->field(x) + 1; }
__attribute__((noinline)) int k_tfield(struct ops *o, int x) { return o->tfield(x) + 1; }
__attribute__((noinline)) int k_union(union u *p, int x) { return p->ufield(x) + 1; }
__attribute__((noinline)) int k_loop(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += var_key(i);
	return s;
}

/* Never called: --gc-sections drops it, and its site entry with it. */
int k_unused(int x) { return static_key(x) + 2; }

int main(void)
{
	escape_sink = &escaped_key;
	printf("%d %d %d %d %d %d %d %d %d %d\n", k_var(1), k_var_tail(2),
	       k_static(3), k_const(4), k_typedef(5), k_escaped(6),
	       k_field(&gops, 7), k_tfield(&gops, 8), k_union(&gu, 9),
	       k_loop(10));
	var_key = dbl;
	static_key = add1;
	typedef_key = add1;
	*escape_sink = dbl;
	gops.field = dbl;
	gops.tfield = add1;
	gu.ufield = add1;
	printf("%d %d %d %d %d %d %d %d %d %d\n", k_var(1), k_var_tail(2),
	       k_static(3), k_const(4), k_typedef(5), k_escaped(6),
	       k_field(&gops, 7), k_tfield(&gops, 8), k_union(&gu, 9),
	       k_loop(10));
	return 0;
}
