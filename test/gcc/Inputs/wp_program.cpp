// A C++ program with no annotation whose output must not depend on whether
// it was built in the plugin's whole-program mode: virtual calls (6 derived
// classes through one site, a virtual tail call, a virtual destructor),
// pointers to member functions (virtual and not), std::function, an
// exception thrown through an indirect call.  With -DDYNCALL_STATS it also
// prints whether the runtime registered and learned sites.
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#ifdef DYNCALL_STATS
#include <dyncall.h>
#endif

namespace shapes {
struct Shape {
	virtual ~Shape() {}
	virtual long area(long s) const = 0;
	virtual long scaled(long s) const { return area(s) * 2; }
	long plain(long x) const { return x + 11; }
};
#define SHAPE(N, E)                                                          \
	struct N : Shape {                                                   \
		long area(long s) const override { return E; }               \
	};
SHAPE(Square, s * s)
SHAPE(Tri, s * s / 2)
SHAPE(Line, s)
SHAPE(Dot, 1)
SHAPE(Hex, 3 * s * s)
struct Thrower : Shape {
	long area(long s) const override
	{
		if (s == 13)
			throw std::runtime_error("thirteen");
		return s + 100;
	}
};
} // namespace shapes

using namespace shapes;

__attribute__((noinline)) static long vcall(const Shape *s, long x)
{
	return s->area(x) + 1;
}

__attribute__((noinline)) static long vtail(const Shape *s, long x)
{
	return s->scaled(x);
}

__attribute__((noinline)) static long pmf_call(const Shape *s,
					       long (Shape::*m)(long) const,
					       long x)
{
	return (s->*m)(x);
}

int main()
{
	std::vector<std::unique_ptr<Shape>> v;
	v.emplace_back(new Square);
	v.emplace_back(new Tri);
	v.emplace_back(new Line);
	v.emplace_back(new Dot);
	v.emplace_back(new Hex);
	v.emplace_back(new Thrower);
	long (Shape::*pmfs[])(long) const = { &Shape::area, &Shape::scaled,
					      &Shape::plain };
	std::function<long(long)> fns[] = { [](long x) { return x * 5; },
					    [&v](long x) { return vcall(v[1].get(), x); } };
	long sum = 0, thrown = 0;

	for (long i = 0; i < 60000; i++) {
		const Shape *s = v[i % 6].get();
		try {
			sum += vcall(s, i % 17);
			sum += vtail(s, i % 5);
			sum += pmf_call(s, pmfs[i % 3], i % 7);
		} catch (const std::runtime_error &e) {
			thrown++;
		}
		sum += fns[i & 1](i % 9);
	}
	std::printf("sum=%ld thrown=%ld\n", sum, thrown);
#ifdef DYNCALL_STATS
	dyncall_stats st;
	dyncall_get_stats(&st);
	std::fprintf(stderr, "wp: sites=%d learned=%d refused=%d\n",
		     st.sites >= 4, st.learned > 0, (int)st.refused);
	std::fprintf(stderr, "status: %s\n", dyncall_status_string());
#endif
	return 0;
}
