#include "shared.h"
fp dso_gcc_key __attribute__((dynamic_call));
__attribute__((noinline)) int gcc_dso_call(int x) { return shared_key(x) * dso_gcc_key(x); }
void gcc_dso_set(fp f) { dso_gcc_key = f; }
