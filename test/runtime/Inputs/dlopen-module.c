/* A dlopen'ed module for dlopen.c: its own key with a fresh site, and a
 * key entry marking the main program's `shared_key` ESCAPES. */
#include "dyncall_test.h"

static long dso_a(long a, long b) { return a - b; }
__attribute__((visibility("hidden"))) long (*dso_key)(long, long) = dso_a;
extern long (*shared_key)(long, long);

__asm__(".include \"dyncall_asm.inc\"\n"
	"DC_KEYCELL dso_cell, dso_key\n"
	"DC_KEY_ENTRY dso_cell, dso_key, 0\n"
	"DC_KEYCELL shared_cell, shared_key\n"
	"DC_KEY_ENTRY shared_cell, shared_key, DC_ESCAPES\n"
	"DC_SITE dso_site, dso_key, dso_cell, 3, DC_FRESH\n");
long dso_site(long, long);
extern char dso_site_call[];

long dso_call(long a, long b)
{
	return dso_site(a, b);
}

int dso_site_state(void)
{
	struct dyncall_key_info ki;

	dyncall_key_info(&dso_key, &ki);
	return ki.ndirect;
}
