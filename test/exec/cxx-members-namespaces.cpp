// Checks C++ keys: a key in a namespace, a static data member, an annotated field of a struct nested in a class (type key, several objects), called from member functions, templates and lambdas, exactly as in the unannotated program.
// REQUIRES: x86_64, dyncall-pass, dyncall-runtime
// (REQUIRES x86_64: built for and run on the host, which is x86-64 in this suite (the aarch64 and ppc64le runtimes run under qemu in test/arch/); dyncall-pass, dyncall-runtime: the plugin build needs the pass plugin and libdyncall.)
// RUN: %clangxx -O2 %libdyncall_cflags -I%exec_inputs %s -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: %dyncall_clangxx -O2 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc %libdyncall_ldflags
// RUN: %t.dc > %t.dc.out
// RUN: diff %t.ref.out %t.dc.out
// RUN: FileCheck %s < %t.dc.out
// RUN: %dyncall_clangxx -O0 -DWITH_DYNCALL -I%exec_inputs %s -o %t.dc0 %libdyncall_ldflags
// RUN: %t.dc0 > %t.dc0.out
// RUN: diff %t.ref.out %t.dc0.out
#include <cstdio>

#include "expect.h"

static int one(int x) { printf("  one(%d)\n", x); return x + 1; }
static int two(int x) { printf("  two(%d)\n", x); return x + 2; }
static int three(int x) { printf("  three(%d)\n", x); return x + 3; }

namespace app {
namespace detail {
int (*DYNCALL on_tick)(int) = one;
}
} // namespace app

class Widget {
public:
	static int (*DYNCALL s_hook)(int);
	struct Ops {
		int (*DYNCALL read)(int);
		int (*write)(int); // not annotated
	};
	explicit Widget(int (*r)(int)) : ops_{r, three} {}
	__attribute__((noinline)) int read(int x) { return ops_.read(x); }
	__attribute__((noinline)) int write(int x) { return ops_.write(x); }
	__attribute__((noinline)) int hooked(int x) const { return s_hook(x) * 10; }
	void set_read(int (*r)(int)) { ops_.read = r; }

private:
	Ops ops_;
};

int (*Widget::s_hook)(int) = two;

template <typename T> __attribute__((noinline)) T tick(T x)
{
	return static_cast<T>(app::detail::on_tick(static_cast<int>(x)));
}

int main()
{
	Widget a(one), b(two), c(three);
	Widget *ws[] = {&a, &b, &c};

	// CHECK:        one(1)
	// CHECK-NEXT: tick 2
	// CHECK-NEXT:   one(2)
	// CHECK-NEXT: tick 3
	std::printf("tick %d\n", tick(1));
	std::printf("tick %ld\n", tick(2L));
	app::detail::on_tick = three;
	// CHECK-NEXT:   three(3)
	// CHECK-NEXT: tick 6
	std::printf("tick %d\n", tick(3));
	EXPECT_KEY_NAMED(app::detail::on_tick, "app::detail::on_tick", 2,
			 DYNCALL_STATE_DIRECT, 2);

	// CHECK-NEXT:   two(4)
	// CHECK-NEXT: hooked 60
	std::printf("hooked %d\n", a.hooked(4));
	Widget::s_hook = one;
	// CHECK-NEXT:   one(5)
	// CHECK-NEXT: hooked 60
	std::printf("hooked %d\n", c.hooked(5));
	EXPECT_KEY_NAMED(Widget::s_hook, "Widget::s_hook", 1,
			 DYNCALL_STATE_DIRECT, 1);

	for (int r = 0; r < 2; r++)
		for (Widget *w : ws)
			std::printf("read %d write %d\n", w->read(10), w->write(20));
	// CHECK-NEXT:   one(10)
	// CHECK-NEXT:   three(20)
	// CHECK-NEXT: read 11 write 23
	// CHECK-NEXT:   two(10)
	// CHECK-NEXT:   three(20)
	// CHECK-NEXT: read 12 write 23
	// CHECK-NEXT:   three(10)
	// CHECK-NEXT:   three(20)
	// CHECK-NEXT: read 13 write 23
	b.set_read(one);
	auto via_lambda = [&](int x) { return b.read(x) + c.read(x); };
	// CHECK:        one(30)
	// CHECK-NEXT:   three(30)
	// CHECK-NEXT: lambda 64
	std::printf("lambda %d\n", via_lambda(30));
	return 0;
}
