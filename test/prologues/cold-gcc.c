// Cold functions (the cold attribute; GCC also makes .part clones only called from cold code cold, e.g. in muParser, scripts/heldout/run.sh): GCC optimizes them for size and leaves -falign-functions out, so their patchable records were not 8-aligned and dyncall-cc's link-time check refused the program (DC062). The GCC plugin now aligns the pre-entry NOPs itself: the program links, every function is hooked and redirected (Inputs/hook-all.c) with the plain build's output. Built without the plugin (plain GCC, -fpatchable-function-entry, -falign-functions=8), a misaligned function is refused with DYNCALL_ERR_ALIGN (by its entry address; it was DYNCALL_ERR_NOFN) and keeps running its own code, an aligned one is hooked. x86-64 GCC 12 and GCC 11; aarch64 GCC 12 under qemu.
// REQUIRES: x86_64, dyncall-runtime, gcc-plugin
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 -shared -fPIC -I%src_root/include %S/Inputs/hook-all.c -o %t/hook-all.so %libdyncall_ldflags
// RUN: gcc-12 -O2 -I%src_root/include %s -o %t/plain %libdyncall_ldflags
// RUN: %t/plain | grep results > %t/plain.out
// RUN: %dyncall_cc gcc-12 --dyncall-prologues -fcf-protection=full -O2 %s -o %t/gcc
// RUN: %t/gcc | FileCheck --check-prefix=PLUGIN %s
// RUN: env HOOKALL_MODE=both HOOKALL_REPORT=%t/gcc.rep LD_PRELOAD=%t/hook-all.so %t/gcc | grep results > %t/gcc.out
// RUN: diff %t/plain.out %t/gcc.out
// RUN: FileCheck --check-prefix=BOTH --input-file=%t/gcc.rep %s
// RUN: %if gcc11-plugin %{ %dyncall_cc gcc-11 --dyncall-prologues -O2 %s -o %t/gcc11 %}
// RUN: %if gcc11-plugin %{ %t/gcc11 | FileCheck --check-prefix=PLUGIN %s %}
// RUN: gcc-12 -O2 -fpatchable-function-entry=29,24 -falign-functions=8 -I%src_root/include %s -o %t/noplugin %libdyncall_ldflags
// RUN: %t/noplugin | FileCheck --check-prefix=NOPLUGIN %s
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %dyncall_cc aarch64-linux-gnu-gcc-12 --dyncall-prologues -mbranch-protection=standard -O2 %s -o %t/a64 %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t/a64 | FileCheck --check-prefix=PLUGIN %s %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ aarch64-linux-gnu-gcc-12 -O2 -fpatchable-function-entry=4,2 -falign-functions=8 -I%src_root/include %s -o %t/a64-noplugin -L%build_dir/lib/aarch64-linux-gnu -ldyncall -Wl,-rpath,%build_dir/lib/aarch64-linux-gnu %}
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 && gcc-plugin-aarch64 %{ %qemu_aarch64 %t/a64-noplugin | FileCheck --check-prefix=NOPLUGIN %s %}
//
// PLUGIN: results 4 8 6 22 10
// PLUGIN-NEXT: misaligned 0 consistent 5 hooked 5 hits 5
// PLUGIN-NEXT: results 4 8 6 22 10
// NOPLUGIN: results 4 8 6 22 10
// NOPLUGIN-NEXT: misaligned {{[1-9]}} consistent 5 hooked {{[0-4]}} hits {{[0-4]}}
// NOPLUGIN-NEXT: results 4 8 6 22 10
// BOTH: hookall: mode=both fns={{[1-9][0-9]*}} patched={{[1-9][0-9]*}} refused=0 failed=0 calls={{[1-9][0-9]*}}
#include <stdint.h>
#include <stdio.h>

#include <dyncall.h>

#define COLD __attribute__((cold, noinline))

__attribute__((noinline)) int hot1(int x) { return x * 3 + 1; }
COLD int rare1(int x) { return x + 7; }
COLD int rare2(int x) { return x * 5 + 1; }
COLD int rare3(int x) { return x * x * 7 + 3 * x + 12; }
COLD int rare4(int x) { return (x ^ 0x55) >> 3 | (x << 3); }

static int hits;

static void count(void *fn, void *ret, void *data, struct dyncall_regs *r)
{
	hits++;
	(void)fn, (void)ret, (void)data, (void)r;
}

int main(int argc, char **argv)
{
	int (*const fns[])(int) = { hot1, rare1, rare2, rare3, rare4 };
	int misaligned = 0, consistent = 0, hooked = 0;

	(void)argv;
	printf("results %d %d %d %d %d\n", hot1(argc), rare1(argc),
	       rare2(argc), rare3(argc), rare4(argc));
	for (int i = 0; i < 5; i++) {
		int s = dyncall_fn_hook((void *)fns[i], count, NULL);
		/* the record: 24 bytes before the entry on x86-64, 8 on aarch64 */
		uintptr_t rec = (uintptr_t)fns[i] - DYNCALL_PATCHABLE_M *
#if defined(__aarch64__)
							    4;
#else
							    1;
#endif
		int bad = (rec & 7) != 0;

		misaligned += bad;
		hooked += s == DYNCALL_OK;
		consistent += bad ? s == DYNCALL_ERR_ALIGN : s == DYNCALL_OK;
	}
	printf("misaligned %d consistent %d hooked %d", misaligned, consistent,
	       hooked);
	{
		int v[5];

		for (int i = 0; i < 5; i++)
			v[i] = fns[i](argc);
		printf(" hits %d\nresults %d %d %d %d %d\n", hits, v[0], v[1],
		       v[2], v[3], v[4]);
	}
	return 0;
}
