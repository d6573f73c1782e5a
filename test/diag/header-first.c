// Checks <dyncall.h> can be the first line of a C file that defines _GNU_SOURCE after it: the header includes no system header, so GNU-only declarations stay visible (-Werror), with and without the plugins, C and C++.
// REQUIRES: dyncall-clang-plugin, gcc-plugin
// (dyncall-clang-plugin, gcc-plugin: the plugin builds are checked as well as the plain ones.)
// RUN: %clang -fsyntax-only -Wall -Wextra -Werror -std=c11 %libdyncall_cflags %s
// RUN: %dyncall_clang_attr -fsyntax-only -Wall -Wextra -Werror -std=c11 %s
// RUN: %gcc -fsyntax-only -Wall -Wextra -Werror -std=c11 %libdyncall_cflags %s
// RUN: %dyncall_gcc -fsyntax-only -Wall -Wextra -Werror -std=c11 %s
// RUN: %clangxx -x c++ -fsyntax-only -Wall -Wextra -Werror %libdyncall_cflags %s
// RUN: %dyncall_gxx -x c++ -fsyntax-only -Wall -Wextra -Werror %s
#include <dyncall.h>
#define _GNU_SOURCE 1
#include <string.h>
#include <unistd.h>

static int (*on_event)(int) DYNCALL;

/* memrchr and pipe2 are declared only under _GNU_SOURCE. */
int main(void)
{
	static const char text[] = "a,b,c";
	int fds[2];
	struct dyncall_stats st;

	dyncall_get_stats(&st);
	if (!memrchr(text, ',', sizeof text) || pipe2(fds, 0) != 0)
		return 1;
	return on_event ? on_event((int)st.sites) : (int)sizeof(st.modules);
}
