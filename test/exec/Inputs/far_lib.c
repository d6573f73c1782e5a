/* far-target-other-dso.c's library: targets mapped far (more than 2 GiB)
 * from the executable's sites. */
#include <stdio.h>

int far_triple(int x) { printf("  far_triple(%d)\n", x); return 3 * x; }
int far_neg(int x) { printf("  far_neg(%d)\n", x); return -x; }
