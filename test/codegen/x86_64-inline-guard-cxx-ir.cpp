// Checks the inline guard of a C++ virtual call that is an invoke (x86-64, whole-program): the loaded vtable slot compared with the site's literal (an unordered atomic load), a likely branch, two invokes (the hit trampoline, the site's trampoline) with the same normal destination, where a phi merges the results, and the same unwind edge (the landing pad has both as predecessors).
// REQUIRES: dyncall-pass
// RUN: %dyncall_clangxx --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -S -emit-llvm %s -o - | FileCheck %s

struct Base {
  virtual int get(int) = 0;
};
void sink(int);

// CHECK-LABEL: define {{.*}} @_Z7guardedP4Basei(
// CHECK: %[[VT:[0-9]+]] = load ptr, ptr %0
// CHECK-NEXT: %[[FP:[0-9]+]] = load ptr, ptr %[[VT]]
// CHECK-NEXT: %[[LIT:[0-9]+]] = load atomic ptr, ptr @__dyncall_lit.[[UNIT:[0-9a-f]+]].0 unordered, align 8
// CHECK-NEXT: %[[HIT:[0-9]+]] = icmp eq ptr %[[LIT]], %[[FP]]
// CHECK-NEXT: br i1 %[[HIT]], label %[[HITBB:[0-9]+]], label %[[MISSBB:[0-9]+]], !prof ![[W:[0-9]+]]
// CHECK: [[LPAD:[0-9]+]]:
// CHECK-SAME: preds = %[[HITBB]], %[[MISSBB]]
// CHECK-NEXT: landingpad
// CHECK: [[HITBB]]:
// CHECK-NEXT: %[[R1:[0-9]+]] = invoke noundef i32 @__dyncall_hit.[[UNIT]].0(ptr nest %[[FP]], ptr noundef {{.*}}%0, i32 noundef %1)
// CHECK-NEXT: to label %[[CONT:[0-9]+]] unwind label %[[LPAD]]
// CHECK: [[MISSBB]]:
// CHECK-NEXT: %[[R2:[0-9]+]] = invoke noundef i32 @__dyncall_tramp.[[UNIT]].0(ptr nest %[[FP]], ptr noundef {{.*}}%0, i32 noundef %1)
// CHECK-NEXT: to label %[[CONT]] unwind label %[[LPAD]]
// CHECK: [[CONT]]:
// CHECK-NEXT: phi i32 [ %[[R1]], %[[HITBB]] ], [ %[[R2]], %[[MISSBB]] ]
// CHECK: ![[W]] = !{!"branch_weights", i32 {{[1-9][0-9][0-9][0-9]+}}, i32 1}
int guarded(Base *b, int x) {
  try {
    return b->get(x);
  } catch (...) {
    sink(x);
    return -1;
  }
}
