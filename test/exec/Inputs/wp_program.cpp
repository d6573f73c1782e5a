// wp_program.cpp - C++ indirect calls for the whole-program tests: virtual
// calls over 6 classes (a megamorphic site) and over one (monomorphic),
// pointers to member functions (virtual and not), an exception thrown
// through a converted call, std::function, std::sort with a function-pointer
// comparator (our template instance calls it: a site) and qsort (libc calls
// it: not one).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "expect.h"

#define NOINLINE __attribute__((noinline))

struct Shape {
  virtual ~Shape() = default;
  virtual long area() const = 0;
  virtual long scale(long k) const { return area() * k; }
  long twice() const { return 2 * area(); }
};
struct Square : Shape { long s; explicit Square(long s) : s(s) {} long area() const override { return s * s; } };
struct Rect : Shape { long w, h; Rect(long w, long h) : w(w), h(h) {} long area() const override { return w * h; } };
struct Tri : Shape { long b, h; Tri(long b, long h) : b(b), h(h) {} long area() const override { return b * h / 2; } };
struct Circle : Shape { long r; explicit Circle(long r) : r(r) {} long area() const override { return 3 * r * r; } long scale(long k) const override { return area() * k + 1; } };
struct Line : Shape { long area() const override { return 0; } };
struct Bad : Shape { long area() const override { throw std::runtime_error("bad shape"); } };

NOINLINE static long total(const std::vector<std::unique_ptr<Shape>> &v) {
  long t = 0;
  for (const auto &s : v)
    t += s->area() + s->scale(3);
  return t;
}

NOINLINE static long via_member(const Shape &s, long (Shape::*m)() const) { return (s.*m)(); }

static bool less_by_mod(int a, int b) { return a % 17 < b % 17 || (a % 17 == b % 17 && a < b); }
static int cmp_int(const void *a, const void *b) {
  int x = *static_cast<const int *>(a), y = *static_cast<const int *>(b);
  return (x > y) - (x < y);
}

NOINLINE static long run_functions(const std::vector<std::function<long(long)>> &fs, long x) {
  for (const auto &f : fs)
    x = f(x) % 1000003;
  return x;
}

int main() {
  std::vector<std::unique_ptr<Shape>> shapes;
  for (int i = 0; i < 600; i++) {
    switch (i % 6) {
    case 0: shapes.emplace_back(new Square(i)); break;
    case 1: shapes.emplace_back(new Rect(i, 3)); break;
    case 2: shapes.emplace_back(new Tri(i, 4)); break;
    case 3: shapes.emplace_back(new Circle(i % 10)); break;
    case 4: shapes.emplace_back(new Line); break;
    default: shapes.emplace_back(new Square(i % 7)); break;
    }
  }
  long t = 0;
  for (int r = 0; r < 200; r++)
    t += total(shapes);
  std::printf("virtual: %ld\n", t);

  long m = 0;
  for (int i = 0; i < 1000; i++)
    m += via_member(*shapes[i % 600], i & 1 ? &Shape::area : &Shape::twice);
  std::printf("member pointers: %ld\n", m);

  Bad bad;
  const Shape *bp = &bad;
  try {
    std::printf("never %ld\n", via_member(*bp, &Shape::area));
  } catch (const std::runtime_error &e) {
    std::printf("caught: %s\n", e.what());
  }

  std::vector<std::function<long(long)>> fs = {
      [](long x) { return x + 1; }, [](long x) { return x * 3; }, [](long x) { return x ^ 0x55; }};
  long f = 1;
  for (int i = 0; i < 1000; i++)
    f = run_functions(fs, f);
  std::printf("std::function: %ld\n", f);

  std::vector<int> v, w;
  for (int i = 0; i < 200; i++)
    v.push_back((i * 37 + 11) % 101);
  w = v;
  std::sort(v.begin(), v.end(), less_by_mod);
  std::qsort(w.data(), w.size(), sizeof w[0], cmp_int);
  std::printf("sorted: %d %d %d / %d %d\n", v[0], v[1], v[199], w[0], w[199]);

  EXPECT_RUNTIME_OK();
  EXPECT_STATS(4, 1);
  return 0;
}
