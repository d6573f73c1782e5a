// Checks a key defined in a shared library, called and stored from the library and from the executable (two registered modules), with and without the plugin, per arch under qemu-user.
// REQUIRES: dyncall-pass
// RUN: rm -rf %t && mkdir -p %t
// RUN: %if qemu-aarch64 && dyncall-runtime-aarch64 %{ %cc_aarch64 -O2 -fPIC -shared %arch_inputs/dso_lib.c -o %t/liba64ref.so && %cc_aarch64 -O2 %arch_inputs/dso_main.c %t/liba64ref.so -Wl,-rpath,%t -o %t/a64ref && %dyncall_cc_aarch64 -O2 -fPIC -shared %arch_inputs/dso_lib.c -o %t/liba64dc.so %rt_aarch64 && %dyncall_cc_aarch64 -O2 %arch_inputs/dso_main.c %t/liba64dc.so -Wl,-rpath,%t -o %t/a64dc %rt_aarch64 && %run_aarch64 %t/a64ref > %t/a64ref.out && %run_aarch64 %t/a64dc > %t/a64dc.out && diff %t/a64ref.out %t/a64dc.out && FileCheck %s < %t/a64dc.out %}
// RUN: %if qemu-ppc64le && dyncall-runtime-ppc64le %{ %cc_ppc64le -O2 -fPIC -shared %arch_inputs/dso_lib.c -o %t/libppcref.so && %cc_ppc64le -O2 %arch_inputs/dso_main.c %t/libppcref.so -Wl,-rpath,%t -o %t/ppcref && %dyncall_cc_ppc64le -O2 -fPIC -shared %arch_inputs/dso_lib.c -o %t/libppcdc.so %rt_ppc64le && %dyncall_cc_ppc64le -O2 %arch_inputs/dso_main.c %t/libppcdc.so -Wl,-rpath,%t -o %t/ppcdc %rt_ppc64le && %run_ppc64le %t/ppcref > %t/ppcref.out && %run_ppc64le %t/ppcdc > %t/ppcdc.out && diff %t/ppcref.out %t/ppcdc.out && FileCheck %s < %t/ppcdc.out %}
// CHECK: start: here=104 lib=206
// CHECK-NEXT: exe store: here=-2 lib=-6
// CHECK-NEXT: lib store: here=10 lib=18
// CHECK-NEXT: loop: here=-3 lib=-8
