// Checks stores to keys (plain, volatile, atomic, call result -> __dyncall_store; atomic exchange/compare-exchange kept + __dyncall_resync + ESCAPES; field store -> inline tkey.last compare + __dyncall_note) and the FRESH flag of sites (relaxed atomic, volatile and null-tested loads fresh; acquire loads, intervening stores and other uses not).
// REQUIRES: gcc-plugin, x86_64
// (gcc-plugin: needs dyncall_gcc.so; x86_64: checks x86-64 assembly and bytes)
// RUN: %dyncall_gcc -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 -S %s -o - | FileCheck %s --check-prefix=ASM %}
// RUN: %dyncall_gcc -O2 -fPIC -shared %s %gcc_inputs/check_runtime.c -o %t.so
// RUN: %gcc -DMAIN %s %t.so -Wl,-rpath,%T -o %t
// RUN: %t | FileCheck %s --check-prefix=TABLE
// RUN: %if gcc11-plugin %{ %dyncall_gcc11 -O2 -fPIC -shared %s %gcc_inputs/check_runtime.c -o %t.11.so %}
// RUN: %if gcc11-plugin %{ %gcc -DMAIN %s %t.11.so -o %t.11 %}
// RUN: %if gcc11-plugin %{ env LD_LIBRARY_PATH=%T %t.11 | FileCheck %s --check-prefix=TABLE %}
#include <stdatomic.h>

typedef int (*fp)(int);
#ifdef MAIN
fp make(void) { return 0; }
void s_plain(fp);
int main(void)
{
	s_plain(0);
	return 0;
}
#else
fp plain __attribute__((dynamic_call));
volatile fp vol __attribute__((dynamic_call));
_Atomic fp atom __attribute__((dynamic_call));
fp xchg __attribute__((dynamic_call));
struct ops { fp f __attribute__((dynamic_call)); };
fp make(void);

// TABLE-DAG: key plain flags=-
// TABLE-DAG: key vol flags=-
// TABLE-DAG: key atom flags=-
// TABLE-DAG: key xchg flags=ESCAPES
// TABLE-DAG: key struct ops.f flags=TYPE

void s_plain(fp f) { plain = f; }
// ASM-LABEL: s_plain:
// ASM:      movq %rdi, %rsi
// ASM-NEXT: leaq plain(%rip), %rdi
// ASM-NEXT: jmp __dyncall_store@PLT
/* Back-to-back stores: each one is rewritten (the rewrite resumes right
 * after the store it replaced). */
void s_two(fp f, fp g) { plain = f; vol = g; }
// ASM-LABEL: s_two:
// ASM:      leaq plain(%rip), %rdi
// ASM-NEXT: call __dyncall_store@PLT
// ASM:      leaq vol(%rip), %rdi
// ASM:      jmp __dyncall_store@PLT
void s_vol(fp f) { vol = f; }
// ASM-LABEL: s_vol:
// ASM:      leaq vol(%rip), %rdi
// ASM-NEXT: jmp __dyncall_store@PLT
void s_atomic(fp f) { atomic_store(&atom, f); }
// ASM-LABEL: s_atomic:
// ASM:      leaq atom(%rip), %rdi
// ASM-NEXT: jmp __dyncall_store@PLT
void s_atomic_release(fp f) { __atomic_store_n(&plain, f, __ATOMIC_RELEASE); }
// ASM-LABEL: s_atomic_release:
// ASM:      leaq plain(%rip), %rdi
// ASM-NEXT: jmp __dyncall_store@PLT
void s_call_result(void) { plain = make(); }
// ASM-LABEL: s_call_result:
// ASM:      call make@PLT
// ASM:      leaq plain(%rip), %rdi
// ASM:      jmp __dyncall_store@PLT
fp s_exchange(fp f) { return __atomic_exchange_n(&xchg, f, __ATOMIC_SEQ_CST); }
// ASM-LABEL: s_exchange:
// ASM:      xchgq xchg(%rip), %{{r[a-z0-9]+}}
// ASM-NEXT: leaq xchg(%rip), %rdi
// ASM-NEXT: call __dyncall_resync@PLT
int s_cas(fp o, fp n)
{
	return __atomic_compare_exchange_n(&xchg, &o, n, 0, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}
// ASM-LABEL: s_cas:
// ASM:      lock cmpxchgq %rsi, xchg(%rip)
// ASM:      call __dyncall_resync@PLT
void s_field(struct ops *o, fp f) { o->f = f; }
// ASM-LABEL: s_field:
// ASM:      movq %rsi, (%rdi)
// ASM-NEXT: cmpq [[TKEY:__dyncall_tkey\.[0-9a-f]{32}]](%rip), %rsi
// ASM-NEXT: jne [[NOTE:\.L[0-9]+]]
// ASM-NEXT: ret
// ASM:      [[NOTE]]:
// ASM-NEXT: leaq [[TKEY]](%rip), %rdi
// ASM-NEXT: jmp __dyncall_note@PLT

int c_relaxed(int x)
{
	fp f = atomic_load_explicit(&atom, memory_order_relaxed);
	return f(x);
}
// TABLE-DAG: site key=atom kind=tail flags=FRESH
int c_acquire(int x)
{
	fp f = atomic_load_explicit(&atom, memory_order_acquire);
	return f(x);
}
// TABLE-DAG: site key=atom kind=tail flags=-
int c_volatile(int x) { return vol(x); }
// TABLE-DAG: site key=vol kind=tail flags=FRESH
int c_null_tested(int x)
{
	fp f = plain;
	if (f)
		return f(x);
	return 0;
}
// TABLE-DAG: site key=plain kind=tail flags=FRESH
int c_store_between(int x, int *p)
{
	fp f = plain;
	*p = 1;
	return f(x);
}
int c_other_use(int x, fp *out)
{
	fp f = plain;
	*out = f;
	return f(x);
}
// TABLE-DAG: site key=plain kind=tail flags=-
// TABLE-DAG: site key=plain kind=tail flags=-
// TABLE: registered 6 sites 5 keys, 0 errors

// The type key descriptor: hidden, COMDAT, writable, 16 zero bytes.
// ASM:      .hidden [[TKEY]]
// ASM:      .section .bss.[[TKEY]],"awG",@nobits,[[TKEY]],comdat
// ASM:      .size [[TKEY]], 16
// ASM-NEXT: [[TKEY]]:
// ASM-NEXT: .zero 16
#endif
