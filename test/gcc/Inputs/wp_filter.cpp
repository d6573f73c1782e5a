// Input of test/gcc/whole-program-filter.test: C++ function rules.
namespace ns {
struct S { int run(int (*f)(int), int x); };
struct T { int go(int (*f)(int), int x); };
struct U { int skip(int (*f)(int), int x); };
int S::run(int (*f)(int), int x) { return f(x) + 1; }
int T::go(int (*f)(int), int x) { return f(x) + 2; }
int U::skip(int (*f)(int), int x) { return f(x) + 3; }
} // namespace ns
