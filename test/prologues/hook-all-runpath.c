// Checks that the hook-everything library (Inputs/hook-all.c, LD_PRELOAD) leaves dlopen finding what the program's own dlopen finds: glibc's dlopen takes the caller's DT_RUNPATH (and DT_RPATH, and $ORIGIN) from its return address, which the wrapper's call made hook-all.so, so a library found only through the calling module's DT_RUNPATH failed to load ("cannot open shared object file").  A program with DT_RUNPATH dlopens a library found only there, one by $ORIGIN, and a DSO with its own DT_RUNPATH (the program has none to it) dlopens one found only through the DSO's; with hook-all preloaded each loads, and each one's patchable function is hooked (or redirected) at the dlopen, the output otherwise the plain run's.  A name found nowhere still fails with glibc's own message.
// REQUIRES: x86_64, dyncall-runtime
// RUN: rm -rf %t && mkdir -p %t/rp %t/rp3 %t/sub
// RUN: %clang -O2 -shared -fPIC -I%src_root/include %S/Inputs/hook-all.c -o %t/hook-all.so %libdyncall_ldflags
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t/rp/libhookall-rp.so
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t/rp3/libhookall-c.so
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -fPIC -shared %S/Inputs/module.c -o %t/sub/libhookall-o.so
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 -fPIC -shared %S/Inputs/dlopen-caller.c -o %t/sub/libcaller.so -ldl -Wl,--enable-new-dtags,-rpath,%t/rp3
// RUN: %dyncall_cc %clang --dyncall-prologues -O2 %s -o %t/prog -ldl -L%t/sub -lcaller -Wl,--enable-new-dtags,-rpath,%t/rp:%t/sub
// RUN: llvm-readelf -d %t/prog | FileCheck --check-prefix=DYN %s
// DYN: (RUNPATH) Library runpath: [{{.*}}/rp:{{.*}}/sub{{(:.*)?}}]
// RUN: %t/prog | FileCheck --check-prefixes=OPEN,NONE %s
// RUN: env HOOKALL_MODE=hook LD_PRELOAD=%t/hook-all.so %t/prog | FileCheck --check-prefixes=OPEN,HOOK %s
// RUN: env HOOKALL_MODE=redirect LD_PRELOAD=%t/hook-all.so %t/prog | FileCheck --check-prefixes=OPEN,REDIRECT %s
// OPEN: runpath: 101
// NONE-SAME: handlers 0 redirect 0
// HOOK-SAME: handlers 1 redirect 0
// REDIRECT-SAME: handlers 0 redirect 1
// OPEN-NEXT: origin: 102
// NONE-SAME: handlers 0 redirect 0
// HOOK-SAME: handlers 1 redirect 0
// REDIRECT-SAME: handlers 0 redirect 1
// OPEN-NEXT: dso runpath: 103
// NONE-SAME: handlers 0 redirect 0
// HOOK-SAME: handlers 1 redirect 0
// REDIRECT-SAME: handlers 0 redirect 1
// OPEN-NEXT: nowhere: libhookall-none.so: cannot open shared object file: No such file or directory
#include <dlfcn.h>
#include <stdio.h>

#include <dyncall.h>

void *caller_open(const char *name);

static void show(const char *what, void *h, long arg)
{
	long (*f)(long);
	struct dyncall_fn_info info = { 0 };

	if (!h) {
		printf("%s: %s\n", what, dlerror());
		return;
	}
	f = (long (*)(long))dlsym(h, "mod_patchable");
	dyncall_fn_info((void *)f, &info);
	printf("%s: %ld handlers %u redirect %d\n", what, f(arg),
	       info.nhandlers, info.redirect != NULL);
}

int main(void)
{
	show("runpath", dlopen("libhookall-rp.so", RTLD_NOW), 1);
	show("origin", dlopen("$ORIGIN/sub/libhookall-o.so", RTLD_NOW), 2);
	show("dso runpath", caller_open("libhookall-c.so"), 3);
	show("nowhere", dlopen("libhookall-none.so", RTLD_NOW), 4);
	return 0;
}
