// Checks whole-program mode on C++ in the IR (x86_64, aarch64, ppc64le): a virtual call, a call through a pointer to member function (virtual or not: one call through the resolved pointer) and an indirect call that may throw (an `invoke`, keeping its unwind edge) each become a guarded whole-program site with `this` after the `nest` callee.
// REQUIRES: dyncall-pass
// RUN: %dyncall_clangxx --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -mllvm -dyncall-inline-guard=0 -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,X86_64
// RUN: %dyncall_clangxx --target=aarch64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,AARCH64
// RUN: %dyncall_clangxx --target=powerpc64le-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,PPC64LE
// RUN: %dyncall_clangxx --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0

struct Shape {
  virtual ~Shape();
  virtual int area(int) const = 0;
  int twice(int) const;
};
void may_throw();
void cleanup();

// CHECK-LABEL: define {{.*}} @_Z7virtualRK5Shapei(
// CHECK: [[VT:%[0-9]+]] = load ptr, ptr %0
// CHECK-NEXT: [[SLOT:%[0-9]+]] = getelementptr inbounds i8, ptr [[VT]], i64 16
// CHECK-NEXT: [[FP:%[0-9]+]] = load ptr, ptr [[SLOT]]
// CHECK-NEXT: call noundef {{(signext )?}}i32 @__dyncall_tramp.[[UNIT:[0-9a-f]+]].0(ptr nest [[FP]], ptr noundef nonnull align 8 dereferenceable(8) %0, i32 noundef {{(signext )?}}%1)
// O0-LABEL: define {{.*}} @_Z7virtualRK5Shapei(
// O0: call noundef i32 @__dyncall_tramp.{{[0-9a-f]+}}.{{[0-9]+}}(ptr nest %{{[0-9a-z]+}}, ptr noundef nonnull align 8 dereferenceable(8) %{{[0-9a-z]+}}, i32 noundef %{{[0-9a-z]+}})
int virtual_(const Shape &s, int x) asm("_Z7virtualRK5Shapei");
int virtual_(const Shape &s, int x) { return s.area(x) + 1; }

// A pointer to member function: the virtual and the non-virtual paths meet
// in a phi of the callee, called once.
// CHECK-LABEL: define {{.*}} @_Z6memberRK5ShapeMS_KFiiEi(
// CHECK: [[THIS:%[0-9]+]] = getelementptr inbounds i8, ptr %0, i64 %{{[0-9]+}}
// CHECK: [[FP:%[0-9]+]] = phi ptr [ %{{[0-9]+}}, %{{[0-9]+}} ], [ %{{[0-9]+}}, %{{[0-9]+}} ]
// CHECK-NEXT: call noundef {{(signext )?}}i32 @__dyncall_tramp.[[UNIT]].1(ptr nest [[FP]], ptr noundef nonnull align 8 dereferenceable(8) [[THIS]], i32 noundef {{(signext )?}}%{{[0-9]+}})
int member(const Shape &s, int (Shape::*m)(int) const, int x) { return (s.*m)(x) + 1; }

// An indirect call that may throw: an invoke to the trampoline with the
// same normal and unwind destinations.
// CHECK-LABEL: define {{.*}} @_Z6invokePFviE(
// CHECK: invoke void @__dyncall_tramp.[[UNIT]].2(ptr nest %0, i32 noundef {{(signext )?}}1)
// CHECK-NEXT: to label %{{[0-9]+}} unwind label %[[LPAD:[0-9]+]]
// CHECK: [[LPAD]]:
// CHECK-NEXT: landingpad { ptr, i32 }
// CHECK-NEXT: cleanup
void invoke(void (*f)(int)) {
  struct Guard { ~Guard() { cleanup(); } } g;
  f(1);
}

// The trampolines: hidden and dso_local, except on ppc64le.
// X86_64: declare hidden i32 @__dyncall_tramp.[[UNIT]].0(ptr nest, ptr, i32)
// AARCH64: declare hidden i32 @__dyncall_tramp.[[UNIT]].0(ptr nest, ptr, i32)
// PPC64LE: declare i32 @__dyncall_tramp.[[UNIT]].0(ptr nest, ptr, i32)
