/* Calls through a variable key (stored to) and a const key (never stored:
 * relax resolves its sites), as a call and as a tail call.  Prints every
 * result and, with -DSTATS, what the runtime did for the const key. */
#include <stdio.h>
#include <dyncall.h>
#include <dyncall/abi.h>

extern int (*op)(int) DYNCALL;
extern int (*const cop)(int) DYNCALL;
extern int neg(int);

__attribute__((noinline)) int use(int x) { return op(x) * 100 + cop(x); }
__attribute__((noinline)) int tail(int x) { return cop(x); }

#ifdef STATS
static int show(const struct dyncall_site_info *s, void *arg)
{
	(void)arg;
	printf("site kind=%d state=%d resolved=%d\n", s->kind, s->state,
	       (s->flags & DYNCALL_SITE_RESOLVED) != 0);
	return 0;
}
#endif

int main(void)
{
	printf("use(3) = %d\n", use(3));
	printf("tail(4) = %d\n", tail(4));
	op = neg;
	printf("use(5) = %d\n", use(5));
#ifdef STATS
	dyncall_foreach_site((const void *)&cop, show, NULL);
#endif
	return 0;
}
