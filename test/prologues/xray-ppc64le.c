// Checks the Clang route on ppc64le (XRay entry sleds, docs/prologues.md) under qemu, against the plain build: functions with a global entry (TOC set-up, the sled at the local entry) hooked and redirected while called directly (the local entry) and through a pointer (the global entry, where r2 is computed from r12), several handlers in order, arguments read and written, a redirect to a function of the same module that calls dyncall_fn_original, restore (the sled's `b .+28` back), and a DSO linked to the program (called from the program through its PLT stub and from inside the DSO); the same program linked with LTO, with --gc-sections, and against a GCC-built DSO; a bad sled failing dyncall-cc's link-time check.
// REQUIRES: qemu-ppc64le, dyncall-runtime-ppc64le
// RUN: rm -rf %t && mkdir -p %t/plain
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -fPIC -shared %S/Inputs/xray-mod.c -o %t/libxmod.so
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %s -L%t -lxmod -Wl,-rpath,%t -o %t/xray
// RUN: %qemu_ppc64le %t/xray | FileCheck %s --check-prefixes=PLAIN,CHECK
// the same program linked with LTO (lld and GNU ld: the LTO code generator makes the sleds), with --gc-sections, and against the DSO built by GCC with the dyncall plugin (both routes in one process)
// RUN: %if lld %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -flto -fuse-ld=lld %s -L%t -lxmod -Wl,-rpath,%t -o %t/xray-lto-lld %}
// RUN: %if lld %{ %qemu_ppc64le %t/xray-lto-lld | FileCheck %s --check-prefixes=PLAIN,CHECK %}
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -flto %s -L%t -lxmod -Wl,-rpath,%t -o %t/xray-lto-bfd
// RUN: %qemu_ppc64le %t/xray-lto-bfd | FileCheck %s --check-prefixes=PLAIN,CHECK
// RUN: %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 -ffunction-sections -Wl,--gc-sections %s -L%t -lxmod -Wl,-rpath,%t -o %t/xray-gc
// RUN: %qemu_ppc64le %t/xray-gc | FileCheck %s --check-prefixes=PLAIN,CHECK
// RUN: %if gcc-plugin-ppc64le %{ mkdir -p %t/gcc %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc powerpc64le-linux-gnu-gcc-12 --dyncall-prologues -O2 -fPIC -shared %S/Inputs/xray-mod.c -o %t/gcc/libxmod.so %}
// RUN: %if gcc-plugin-ppc64le %{ %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %s -L%t/gcc -lxmod -Wl,-rpath,%t/gcc -o %t/xray-mixed %}
// RUN: %if gcc-plugin-ppc64le %{ %qemu_ppc64le %t/xray-mixed | FileCheck %s --check-prefixes=PLAIN,CHECK %}
// a sled of another shape fails dyncall-cc's link-time check (refused.c)
// RUN: %if dyncall-rewrite %{ not %dyncall_cc %clang --target=powerpc64le-linux-gnu --dyncall-prologues -O2 %S/refused.c -o %t/refused 2>&1 | FileCheck %s --check-prefix=LINKCHECK %}
// LINKCHECK: <five>: error DC063: entry sled #{{[0-9]+}} ({{.*}}) is not the XRay entry sled the runtime patches: word 2 at {{.*}} is `std r0, -0x10(r1)`, not `std 0, -8(1)`
// LINKCHECK: <bad_entry>: error DC063: entry sled #{{[0-9]+}} ({{.*}}) is not the XRay entry sled the runtime patches: word 0 at {{.*}}, not `b .+28`
// dyncall-rewrite check and list --prologues see the entry sleds (dyncall-cc ran check at link: a bad sled fails the link); callers=N: the caller table, exact in list-callers.c
// RUN: %if dyncall-rewrite %{ %dyncall_rewrite check %t/xray %t/libxmod.so | FileCheck %s --check-prefix=RWCHECK %}
// RUN: %if dyncall-rewrite %{ %dyncall_rewrite list --prologues %t/xray | FileCheck %s --check-prefix=LIST %}
// RUN: %if dyncall-rewrite %{ %dyncall_rewrite list --prologues --json %t/libxmod.so | FileCheck %s --check-prefix=JSON %}
// RWCHECK: xray: 7 patchable function entries
// RWCHECK: libxmod.so: 3 patchable function entries
// RWCHECK-NOT: DC06
// LIST-DAG: function=0x[[TOC:[0-9a-f]+]]<tocfn> nops=0+28 pad=- hookable=yes state=ok callers={{[0-9]+}} novec=yes sled=xray vecregs=0 intregs=2{{$}}
// LIST-DAG: function=0x{{[0-9a-f]+}}<leaf> nops=0+28 pad=- hookable=yes state=ok callers={{[0-9]+}} novec=yes sled=xray vecregs=0 intregs=1{{$}}
// LIST-NOT: problems
// JSON: "arch": "ppc64le",
// JSON: "function_symbol": "mod_add",
// JSON-NEXT: "pre_entry_bytes": 0,
// JSON-NEXT: "landing_pad": null,
// JSON-NEXT: "entry_nop_bytes": 28,
// JSON-NEXT: "hookable": true,
// JSON-NEXT: "state": "ok",
// JSON-NEXT: "no_vec": true,
// JSON-NEXT: "sled": "xray"
// the plain build: no dyncall-cc, no sleds (hooking: DYNCALL_ERR_NOFN)
// RUN: %clang --target=powerpc64le-linux-gnu -O2 -fPIC -shared %S/Inputs/xray-mod.c -o %t/plain/libxmod.so
// RUN: %clang --target=powerpc64le-linux-gnu -O2 %libdyncall_cflags %s -L%t/plain -lxmod -Wl,-rpath,%t/plain -L%build_dir/lib/powerpc64le-linux-gnu -ldyncall -Wl,-rpath,%build_dir/lib/powerpc64le-linux-gnu -o %t/plain/xray
// RUN: %qemu_ppc64le %t/plain/xray | FileCheck %s --check-prefixes=PLAIN,NOFN
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dyncall.h>

#define NOINLINE __attribute__((noinline))

long mod_add(long a);
long mod_add_v2(long a);
long mod_twice(long a);

volatile long k = 7;
NOINLINE long tocfn(long a, long b) { return a * 10 + b + k; }
NOINLINE long tocfn_v2(long a, long b)
{
	long (*orig)(long, long) =
		(long (*)(long, long))dyncall_fn_original(tocfn);

	return 1000 + k + orig(a, b);
}
NOINLINE long leaf(long a) { return a + 1; }

static long order[8], seen[2];
static int norder;

static void first(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	seen[0] = (long)r->arg[0];
	seen[1] = (long)r->arg[1];
	order[norder++] = 1;
	++*(long *)data;
	(void)fn, (void)ret;
}

static void second(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	order[norder++] = 2;
	r->arg[1] = 5; /* the function sees b = 5 */
	(void)fn, (void)ret, (void)data;
}

static void plus(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	r->arg[0] += 1000;
	++*(long *)data;
	(void)fn, (void)ret;
}

/* The first word of the sled: the local entry (global entry + 8 when the
 * function sets its TOC). */
static uint32_t entry_word(void *fn, int gep)
{
	uint32_t w;

	memcpy(&w, (char *)fn + (gep ? 8 : 0), 4);
	return w;
}

int main(void)
{
	long (*volatile p)(long, long) = tocfn;
	long (*volatile pm)(long) = mod_add;
	long (*volatile pl)(long) = leaf; /* leaf is pure: called directly, its result is folded */
	long count = 0, mcount = 0;
	struct dyncall_fn_info info;
	int s, s2;

	// PLAIN: plain: 27 27 2 103 206
	printf("plain: %ld %ld %ld %ld %ld\n", tocfn(2, 0), p(2, 0), pl(1),
	       pm(3), mod_twice(3));
	s = dyncall_fn_info(tocfn, &info);
	// CHECK-NEXT: info: 0 tocfn 4800001c 4800001c
	// NOFN-NEXT: info: -13
	if (s) {
		printf("info: %d\n", s);
		return 0;
	}
	printf("info: %d %s %x %x\n", s, info.name, entry_word(tocfn, 1),
	       entry_word(leaf, 0));

	// CHECK-NEXT: hook: 0 0 -> 42 42 count 2 saw 3 4 order 1 2 1 2
	s = dyncall_fn_hook(tocfn, first, &count);
	s2 = dyncall_fn_hook(tocfn, second, NULL);
	long v1 = tocfn(3, 4), v2 = p(3, 4);
	printf("hook: %d %d -> %ld %ld count %ld saw %ld %ld order %ld %ld %ld %ld\n",
	       s, s2, v1, v2, count, seen[0], seen[1], order[0], order[1],
	       order[2], order[3]);
	// CHECK-NEXT: patched: 1 2 branch 1
	dyncall_fn_info(tocfn, &info);
	printf("patched: %d %u branch %d\n", info.patched, info.nhandlers,
	       (entry_word(tocfn, 1) >> 26) == 18 &&
		       entry_word(tocfn, 1) != 0x4800001c);

	// CHECK-NEXT: redirect: 0 -> 1049 1049 order 2 2
	norder = 0;
	dyncall_fn_unhook(tocfn, first);
	s = dyncall_fn_redirect(tocfn, tocfn_v2);
	v1 = tocfn(3, 4);
	v2 = p(3, 4);
	printf("redirect: %d -> %ld %ld order %ld %ld\n", s, v1, v2, order[0],
	       order[1]);
	// CHECK-NEXT: restore: 0 -> 41 41 4800001c
	s = dyncall_fn_restore(tocfn);
	printf("restore: %d -> %ld %ld %x\n", s, tocfn(3, 4), p(3, 4),
	       entry_word(tocfn, 1));

	// leaf: no TOC, the sled is its one entry
	// CHECK-NEXT: leaf: 0 -> 1002 count 1; 0 -> 2 4800001c
	s = dyncall_fn_hook(leaf, plus, &count);
	count = 0;
	v1 = pl(1);
	printf("leaf: %d -> %ld count %ld; ", s, v1, count);
	s = dyncall_fn_restore(leaf);
	printf("%d -> %ld %x\n", s, pl(1), entry_word(leaf, 0));

	// the DSO: from here through its PLT stub, from inside at the local
	// entry; a redirect inside the module
	// CHECK-NEXT: dso: 0 -> 1103 2206 count 3
	s = dyncall_fn_hook(mod_add, plus, &mcount);
	v1 = pm(3);
	v2 = mod_twice(3);
	printf("dso: %d -> %ld %ld count %ld\n", s, v1, v2, mcount);
	// CHECK-NEXT: dso redirect: 0 -> 1203 2406
	dyncall_fn_unhook(mod_add, plus);
	s = dyncall_fn_redirect(mod_add, mod_add_v2);
	printf("dso redirect: %d -> %ld %ld\n", s, pm(1003), mod_twice(1003));
	// a target in another module would return with its own TOC
	// CHECK-NEXT: cross-module: -1
	printf("cross-module: %d\n", dyncall_fn_redirect(tocfn, mod_add_v2));
	// CHECK-NEXT: dso restore: 0 -> 103 206 name mod_add
	s = dyncall_fn_restore(mod_add);
	dyncall_fn_info(mod_add, &info);
	printf("dso restore: %d -> %ld %ld name %s\n", s, pm(3), mod_twice(3),
	       info.name);
	return 0;
}
