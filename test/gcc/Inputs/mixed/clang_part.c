#include "shared.h"
__attribute__((noinline)) int clang_obj_call(int x) { return shared_key(x) + dso_gcc_key(x); }
__attribute__((noinline)) int clang_field(struct ops *o, int x) { return o->f(x); }
void clang_set(fp f) { shared_key = f; }
void clang_field_set(struct ops *o, fp f) { o->f = f; }
