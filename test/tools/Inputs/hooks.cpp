// A C++ program with an annotated hook, a typedef key and an ops struct.
#include <cstdio>
#include <dyncall.h>

typedef int (*DYNCALL transform_t)(int);

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }

transform_t transform = twice;

struct Ops {
  int (*DYNCALL apply)(int);
};
static Ops ops = {thrice};

int main() {
  long sum = 0;
  for (int i = 0; i < 1000; i++) {
    if (i == 500)
      transform = thrice;
    sum += transform(i) + ops.apply(i);
  }
  std::printf("sum %ld\n", sum);
  return 0;
}
