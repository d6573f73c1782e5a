/* A shared library with its own sites on a key the executable defines. */
#include <dyncall.h>

extern int (*DYNCALL lib_hook)(int);

int lib_call(int x)
{
	return lib_hook(x) + 1;
}
