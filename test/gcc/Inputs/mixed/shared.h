/* Mixed-compiler test (exec-mixed-compilers.test): what every part shares. */
typedef int (*fp)(int);
struct ops { fp f __attribute__((dynamic_call)); };
extern fp shared_key __attribute__((dynamic_call));
extern fp dso_gcc_key __attribute__((dynamic_call));
extern fp dso_clang_key __attribute__((dynamic_call));
int add1(int), dbl(int), neg(int);
int gcc_obj_call(int), clang_obj_call(int), gcc_dso_call(int), clang_dso_call(int);
int gcc_field(struct ops *, int), clang_field(struct ops *, int);
void gcc_set(fp), clang_set(fp), gcc_dso_set(fp), clang_dso_set(fp);
void gcc_field_set(struct ops *, fp), clang_field_set(struct ops *, fp);
