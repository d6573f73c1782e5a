// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A C++ unit with a static initializer (clang: _GLOBAL__sub_I_static-init.cc,
// a function clang makes itself): test/prologues/static-init.test.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <dyncall.h>

static int inits;
static int bump() { return ++inits; }
int first = bump(); /* dynamic initialization, no destructor: calling the
		     * initializer again is harmless */
volatile int seed = 3;
long second = seed * 7L + first;

static long hooked;
static void count(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	++*(long *)data;
	(void)fn, (void)ret, (void)r;
}

int main()
{
	std::printf("plain: %ld %d %d\n", second, first, inits);
	size_t n = dyncall_fn_list(nullptr, 0);
	std::vector<void *> all(n);
	n = dyncall_fn_list(all.data(), n);
	for (size_t i = 0; i < n; i++) {
		struct dyncall_fn_info info;

		if (dyncall_fn_info(all[i], &info) || !info.name ||
		    std::strncmp(info.name, "_GLOBAL__sub_I_", 15))
			continue;
		/* hooked, then called again through a pointer: the handler
		 * runs, then the initializer (inits: 2) */
		int s = dyncall_fn_hook(all[i], count, &hooked);
		if (!s)
			((void (*)())all[i])();
		std::printf("%s: status %d aligned %d hook %d handler %ld "
			    "inits %d\n",
			    info.name, info.status,
			    (int)((uintptr_t)all[i] % 8 == 0), s, hooked,
			    inits);
		return 0;
	}
	std::printf("no static initializer registered\n");
	return 0;
}
