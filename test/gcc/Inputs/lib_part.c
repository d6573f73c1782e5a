/* The other module of Inputs/differential.c: defines lib_key. */
typedef int (*fp)(int);
int add1(int x);
fp lib_key __attribute__((dynamic_call)) = add1;
__attribute__((noinline)) int lib_call(int x) { return lib_key(x) * 3; }
void lib_set(fp f) { lib_key = f; }
