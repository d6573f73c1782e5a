/* A program whose output must not depend on whether it was built with the
 * dyncall plugin: keys of every kind, stores of every kind, calls from a
 * constructor, loops, tail calls, an escaped key and a key defined in
 * another module (LIB: built as a shared library). */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DYNCALL_STATS
#include <dyncall.h>
#endif

#define DC __attribute__((dynamic_call))
typedef int (*fp)(int);
typedef int (*tfp)(int) DC;

int add1(int x) { return x + 1; }
int dbl(int x) { return x * 2; }
int neg(int x) { return -x; }
int sq(int x) { return x * x; }

fp var_key DC = add1;
static fp static_key DC = dbl;
tfp typedef_key = neg;
_Atomic fp atomic_key DC = sq;
volatile fp volatile_key DC = add1;
fp escaped_key DC = dbl;
fp *escape_sink;
extern fp lib_key DC; /* defined in lib_part.c (same module or a DSO) */
int lib_call(int x);
void lib_set(fp f);

struct ops { fp f DC; tfp g; int tag; };
struct ops ops_a = { add1, dbl, 1 }, ops_b = { neg, sq, 2 };

static int ctor_result;
__attribute__((constructor(101))) static void early(void)
{
	ctor_result = var_key(20);
	var_key = dbl;
	ctor_result += var_key(20);
	var_key = add1;
}

__attribute__((noinline)) int via_var(int x) { return var_key(x) + 1; }
__attribute__((noinline)) int via_var_tail(int x) { return var_key(x); }
__attribute__((noinline)) int via_static(int x) { return static_key(x); }
__attribute__((noinline)) int via_typedef(int x) { return typedef_key(x); }
__attribute__((noinline)) int via_atomic(int x)
{
	fp f = atomic_load_explicit(&atomic_key, memory_order_relaxed);
	return f(x);
}
__attribute__((noinline)) int via_volatile(int x) { return volatile_key(x); }
__attribute__((noinline)) int via_escaped(int x) { return escaped_key(x); }
__attribute__((noinline)) int via_field(struct ops *o, int x) { return o->f(x) + o->g(x); }
__attribute__((noinline)) int via_null(int x) { return var_key ? var_key(x) : -1; }
__attribute__((noinline)) int loop(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += static_key(i) + var_key(i);
	return s;
}

static fp table[] = { add1, dbl, neg, sq };

static void round_(int r)
{
	printf("r%d: %d %d %d %d %d %d %d %d %d %d %d %d %d\n", r, via_var(r),
	       via_var_tail(r), via_static(r), via_typedef(r), via_atomic(r),
	       via_volatile(r), via_escaped(r), via_field(&ops_a, r),
	       via_field(&ops_b, r), via_null(r), loop(r + 3), lib_call(r),
	       ctor_result);
}

int main(int argc, char **argv)
{
	escape_sink = &escaped_key;
	for (int r = 0; r < 12; r++) {
		round_(r);
		fp f = table[r % 4], g = table[(r + 1) % 4];
		switch (r % 4) {
		case 0: var_key = f; static_key = g; break;
		case 1: atomic_store(&atomic_key, f); volatile_key = g; break;
		case 2: typedef_key = f; *escape_sink = g; break;
		case 3: __atomic_exchange_n(&var_key, g, __ATOMIC_SEQ_CST); break;
		}
		ops_a.f = g;
		ops_b.g = f;
		lib_set(table[(r + 2) % 4]);
	}
	round_(99);
#ifdef DYNCALL_STATS
	/* Direct calls into the runtime's API do not let keys escape. */
#define SHOW(k)                                                                \
	do {                                                                   \
		struct dyncall_key_info ki;                                    \
		if (dyncall_key_info((const void *)&k, &ki) != 0)              \
			fprintf(stderr, #k ": not registered\n");              \
		else                                                           \
			fprintf(stderr, #k ": sites=%u slow=%u escapes=%d\n",  \
				ki.nsites, ki.nslow, ki.escapes);              \
	} while (0)
	SHOW(var_key);
	SHOW(static_key);
	SHOW(typedef_key);
	SHOW(atomic_key);
	SHOW(escaped_key);
	SHOW(lib_key);
	fprintf(stderr, "status: %s\n", dyncall_status_string());
#endif
	return 0;
}
