/* The library of multi-dso-keys.test: defines lib_key (called and stored
 * here and in the executable) and uses exe_key, which the executable
 * defines. */
#include <stdio.h>

#include "expect.h"

typedef int (*fp_t)(int);

extern fp_t DYNCALL exe_key;

int lib_twice(int x) { printf("  lib_twice(%d)\n", x); return 2 * x; }
int lib_minus(int x) { printf("  lib_minus(%d)\n", x); return -x; }

fp_t DYNCALL lib_key = lib_twice;

int lib_call_lib_key(int x) { return lib_key(x) + 1000; }
int lib_call_exe_key(int x) { return exe_key(x) + 2000; }
void lib_set_lib_key(fp_t f) { lib_key = f; }
void lib_set_exe_key(fp_t f) { exe_key = f; }

void lib_expect(void)
{
	/* Sites in both modules, seen from the library. */
	EXPECT_KEY(lib_key, 2, DYNCALL_STATE_DIRECT, 2);
	EXPECT_KEY(exe_key, 2, DYNCALL_STATE_DIRECT, 2);
}
