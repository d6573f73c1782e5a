/* The ppc64le Clang shapes (XRay entry sleds): f reads a global (a global
 * entry sets its TOC, the sled is at the local entry), leaf sets no TOC
 * (the sled is its one entry), calls makes a call (TOC and frame after
 * the sled), h opts out (DYNCALL_NOT_PATCHABLE), sel opts in
 * (DYNCALL_PATCHABLE: the only sled of a build without
 * --dyncall-prologues). */
#include <dyncall.h>

int g;
extern int ext(int);
int f(int x) { return x + g; }
int leaf(int x) { return x * 3; }
int calls(int x) { return ext(x) + 1; }
int h(int x) DYNCALL_NOT_PATCHABLE;
int h(int x) { return x * 5; }
int sel(int x) DYNCALL_PATCHABLE;
int sel(int x) { return x - g; }
