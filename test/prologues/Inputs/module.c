/* A DSO built selectively: only mod_patchable has a patchable prologue
 * (DYNCALL_PATCHABLE, no --dyncall-prologues). */
#include <dyncall.h>

long mod_patchable(long a) DYNCALL_PATCHABLE;
long mod_patchable(long a) { return a + 100; }
long mod_plain(long a) { return a + 200; }
