// Checks the C++11 spelling, namespaces, class members and templates.
// REQUIRES: dyncall-clang-plugin
// RUN: %dyncall_clang_attr -x c++ -std=c++17 -fsyntax-only -Xclang -verify %s
// expected-no-diagnostics
typedef int (*handler_t)(int);
int target(int);
namespace app {
[[dyncall::dynamic_call]] handler_t cxx_key = target;
handler_t gnu_key __attribute__((dynamic_call)) = target;
struct widget {
  [[dyncall::dynamic_call]] handler_t on_click;
  static handler_t shared __attribute__((dynamic_call));
};
handler_t widget::shared = target;
template <typename T> struct holder { [[dyncall::dynamic_call]] int (*fn)(T); };
holder<int> h;
} // namespace app
