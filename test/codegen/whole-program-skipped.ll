; Checks the calls whole-program mode leaves alone, each with its remark (opt, IR that C cannot spell): a call that already passes a static chain (`nest`), an `inalloca` argument, a call inside dyncall's own functions (__dyncall_*), and operand bundles (callbr is only asm goto, which is inline asm); the plain indirect call next to them becomes a site.
; REQUIRES: dyncall-pass
; RUN: opt -load-pass-plugin=%plugin_dir/dyncall_llvm.so -passes=dynamic-call -dyncall-whole-program -pass-remarks-missed=dynamic-call -S %s -o %t.ll 2> %t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REMARK --implicit-check-not=remark: < %t.remarks
; Without the option, opt leaves the module unchanged.
; RUN: opt -load-pass-plugin=%plugin_dir/dyncall_llvm.so -passes=dynamic-call -S %s | FileCheck %s --check-prefix=OFF
; OFF-NOT: __dyncall_tramp

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; CHECK-LABEL: define i32 @plain(
; CHECK: call i32 @__dyncall_tramp.{{[0-9a-f]+}}.0(ptr nest %f, i32 1)
define i32 @plain(ptr %f) {
  %r = call i32 %f(i32 1)
  ret i32 %r
}

; REMARK: remark: <unknown>:0:0: indirect call left alone (whole-program): the call already uses the static chain
; CHECK-LABEL: define i32 @nested(
; CHECK: call i32 %f(ptr nest %chain, i32 1)
define i32 @nested(ptr %f, ptr %chain) {
  %r = call i32 %f(ptr nest %chain, i32 1)
  ret i32 %r
}

; REMARK: remark: <unknown>:0:0: indirect call left alone (whole-program): the call passes an argument inalloca or preallocated
; CHECK-LABEL: define void @with_inalloca(
; CHECK: call void %f(ptr inalloca(i32) %a)
define void @with_inalloca(ptr %f) {
  %a = alloca inalloca i32
  call void %f(ptr inalloca(i32) %a)
  ret void
}

; REMARK: remark: <unknown>:0:0: indirect call left alone (whole-program): the call is in dyncall's own code
; CHECK-LABEL: define void @__dyncall_helper(
; CHECK: call void %f()
define void @__dyncall_helper(ptr %f) {
  call void %f()
  ret void
}

; REMARK: remark: <unknown>:0:0: indirect call left alone (whole-program): the call carries operand bundles (e.g. kcfi)
; CHECK-LABEL: define void @with_kcfi(
; CHECK: call void %f() [ "kcfi"(i32 1) ]
define void @with_kcfi(ptr %f) {
  call void %f() [ "kcfi"(i32 1) ]
  ret void
}
