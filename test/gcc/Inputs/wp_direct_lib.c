/* Input of test/gcc/whole-program-direct.c (a function that calls its
 * callback, inlined into the caller of another unit under -flto) and of
 * whole-program-exec.test (the same function in a shared library). */
typedef int (*fn_t)(int);
int apply_cb(fn_t f, int x) { return f(x) + 21; }
