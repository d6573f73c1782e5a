#include "shared.h"
fp dso_clang_key __attribute__((dynamic_call));
__attribute__((noinline)) int clang_dso_call(int x) { return shared_key(x) * dso_clang_key(x); }
void clang_dso_set(fp f) { dso_clang_key = f; }
