#include "shared.h"
fp shared_key __attribute__((dynamic_call));
__attribute__((noinline)) int gcc_obj_call(int x) { return shared_key(x) + dso_clang_key(x); }
__attribute__((noinline)) int gcc_field(struct ops *o, int x) { return o->f(x); }
void gcc_set(fp f) { shared_key = f; }
void gcc_field_set(struct ops *o, fp f) { o->f = f; }
