/* Units with keys but no call site: the executable of keys-no-sites.test.
 * It compares one key, stores another, stores an annotated field (a type
 * key, its note) and escapes a key, but never calls through any of them,
 * so no __dyncall_sites section exists in the unit; with argv[1] it
 * dlopen()s a library of the same kind (Inputs/keys_no_sites_lib.c). */
#include <dlfcn.h>
#include <stdio.h>

#include <dyncall.h>

static void f(void) {}
static void g(void) {}

void (*compared)(void) DYNCALL;
void (*stored)(void) DYNCALL;
struct ops {
	void (*cb)(void) DYNCALL;
} ops;
void *escape = &stored;

static void show(const char *what, const void *key)
{
	struct dyncall_key_info info;

	if (dyncall_key_info(key, &info) == DYNCALL_OK)
		printf("%s: key %s, %u sites\n", what, info.name, info.nsites);
	else
		printf("%s: not a key\n", what);
}

int main(int argc, char **argv)
{
	stored = g;
	ops.cb = f;
	printf("compared %d, stored %d, field %d\n", compared == f, stored == g,
	       ops.cb == f);
	show("compared", &compared);
	show("stored", escape);
	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW);
		void *(*lib_key)(void) = h ? (void *(*)(void))dlsym(h, "lib_key") : NULL;

		if (!lib_key) {
			printf("dlopen: %s\n", dlerror());
			return 1;
		}
		void *key = lib_key();

		if (key)
			show("library", key);
		else
			printf("library: type key only\n");
		dlclose(h);
	}
	return 0;
}
