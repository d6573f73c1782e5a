#include <stdio.h>
#include "shared.h"
#ifdef STATS
#include <dyncall.h>
#endif
int add1(int x) { return x + 1; } int dbl(int x) { return x * 2; } int neg(int x) { return -x; }
static fp t[] = { add1, dbl, neg };
int main(void) {
  struct ops o = { add1 };
  gcc_set(add1); gcc_dso_set(dbl); clang_dso_set(neg);
  for (int r = 0; r < 9; r++) {
    printf("%d %d %d %d %d %d\n", gcc_obj_call(r), clang_obj_call(r), gcc_dso_call(r), clang_dso_call(r), gcc_field(&o, r), clang_field(&o, r));
    if (r & 1) gcc_set(t[r % 3]); else clang_set(t[(r + 1) % 3]);
    gcc_dso_set(t[(r + 2) % 3]); clang_dso_set(t[r % 3]);
    if (r & 1) gcc_field_set(&o, t[r % 3]); else clang_field_set(&o, t[(r+2) % 3]);
  }
#ifdef STATS
  struct dyncall_key_info ki;
#define SHOW(k) if (!dyncall_key_info(&k, &ki)) fprintf(stderr, "%s: sites=%u slow=%u guarded=%u direct=%u\n", ki.name, ki.nsites, ki.nslow, ki.nguarded, ki.ndirect); else fprintf(stderr, #k " unregistered\n")
  SHOW(shared_key); SHOW(dso_gcc_key); SHOW(dso_clang_key);
  struct dyncall_stats st; dyncall_get_stats(&st);
  fprintf(stderr, "modules=%llu sites=%llu keys=%llu status=%s\n", (unsigned long long)st.modules, (unsigned long long)st.sites, (unsigned long long)st.keys, dyncall_status_string());
#endif
  return 0;
}
