/* A DSO for xray-ppc64le.c: functions with a global entry (they read a
 * global: TOC set-up, the sled at the local entry), called from the
 * executable (through the PLT stub: the global entry) and from inside the
 * module (the local entry). */
volatile long mod_k = 100;

__attribute__((noinline)) long mod_add(long a) { return a + mod_k; }
__attribute__((noinline)) long mod_add_v2(long a) { return a + 2 * mod_k; }
/* calls mod_add from inside the module: its local entry */
long mod_twice(long a) { return mod_add(a) + mod_add(a); }
