/* The prologue shapes: f gets the patchable prologue of
 * --dyncall-prologues, h opts out (DYNCALL_NOT_PATCHABLE). */
#include <dyncall.h>

int g;
int f(int x) { return x + g; }
int h(int x) DYNCALL_NOT_PATCHABLE;
int h(int x) { return x * 5; }
