// Checks C++ virtual calls through whole-program sites with the inline guard (x86-64) against the plain build (clang++-19, g++-12): an invoke whose target throws every 1000th call, before and after the guard was set (the exception leaves through the hit call `call T` and through the site's stub path, destructors run, the handler catches it), and a virtual call whose receiver's class changes phase; normally and with DYNCALL_CHECK=1; DYNCALL_STATS=1 shows guards set.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime, gcc-plugin
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clangxx -O2 -mretpoline %s -o %t/ref
// RUN: %t/ref > %t/ref.out
// RUN: FileCheck --input-file=%t/ref.out %s
// RUN: %dyncall_cc %clangxx --dyncall-whole-program -O2 -mretpoline %s -o %t/wp
// RUN: env DYNCALL_STATS=1 %t/wp > %t/wp.out 2> %t/wp.err
// RUN: diff %t/ref.out %t/wp.out
// RUN: FileCheck --check-prefix=STATS --input-file=%t/wp.err %s
// RUN: env DYNCALL_CHECK=1 %t/wp > %t/wp.check.out && diff %t/ref.out %t/wp.check.out
// g++-12 (-mindirect-branch=thunk; its calls that may throw keep the plain site):
// RUN: %dyncall_cc %gxx --dyncall-whole-program -O2 -mindirect-branch=thunk %s -o %t/gwp
// RUN: env DYNCALL_STATS=1 %t/gwp > %t/gwp.out 2> %t/gwp.err
// RUN: diff %t/ref.out %t/gwp.out
// RUN: FileCheck --check-prefix=STATS --input-file=%t/gwp.err %s
// RUN: env DYNCALL_CHECK=1 %t/gwp > %t/gwp.check.out && diff %t/ref.out %t/gwp.check.out

// CHECK: caught 100, destroyed 100000, sum 4989850200
// CHECK-NEXT: shapes 3002998

// STATS: dyncall: {{[1-9][0-9]*}} of {{[0-9]+}} inline guards set

#include <cstdio>

static long destroyed;
struct Guard {
  ~Guard() { destroyed++; }
};

struct Op {
  virtual long apply(long x) = 0;
};
struct Thrower : Op {
  long apply(long x) override {
    if (x % 1000 == 999)
      throw x;
    return x;
  }
};
struct Square : Op {
  long apply(long x) override { return x * x % 7; }
};
struct Cube : Op {
  long apply(long x) override { return x * x * x % 11; }
};

__attribute__((noinline)) long call_guarded(Op *op, long x, long *caught) {
  Guard g;
  try {
    return op->apply(x);
  } catch (long v) {
    (*caught)++;
    return -v;
  }
}

__attribute__((noinline)) long shape(Op *op, long x) { return op->apply(x) + 1; }

int main() {
  Thrower t;
  Square sq;
  Cube cu;
  long caught = 0, sum = 0, s2 = 0;
  for (long i = 0; i < 100000; i++)
    sum += call_guarded(&t, i, &caught);
  for (long i = 0; i < 1000; i++)
    s2 += shape(&sq, i);
  for (long i = 0; i < 500000; i++)
    s2 += shape(&cu, i);
  std::printf("caught %ld, destroyed %ld, sum %ld\n", caught, destroyed, sum);
  std::printf("shapes %ld\n", s2);
  return 0;
}
