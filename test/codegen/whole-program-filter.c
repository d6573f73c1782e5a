// Checks the whole-program filter file (-dyncall-whole-program-filter=<file>): include/exclude rules by function (mangled or demangled), by file and file:line, by struct.field (needs -g), an exclude always wins, a call the filter drops is left alone with a remark; a malformed line or an unreadable file fails the compile with `<file>:<line>: error: <what>`.
// REQUIRES: dyncall-pass
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo 'include function call_*   # by glob' > %t/fn.txt
// RUN: echo 'exclude function call_write' >> %t/fn.txt
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/fn.txt -O2 -c %s -o /dev/null -Rpass=dynamic-call -Rpass-missed=dynamic-call 2>&1 | FileCheck %s --check-prefix=FN --implicit-check-not=remark:
// Only the basename and a line: the call on that line (the line of "int other(").
// RUN: sh -c 'echo "include file whole-program-filter.c:$(grep -n "^int other(" %s | cut -d: -f1)"' > %t/line.txt
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/line.txt -O2 -c %s -o /dev/null -Rpass=dynamic-call 2>&1 | FileCheck %s --check-prefix=LINE --implicit-check-not=remark:
// A path glob; an exclude wins over the include.
// RUN: sh -c 'printf "include file */codegen/*.c\nexclude file *.c:$(grep -n "^int other(" %s | cut -d: -f1)\n"' > %t/path.txt
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/path.txt -O2 -c %s -o /dev/null -Rpass=dynamic-call 2>&1 | FileCheck %s --check-prefix=PATH --implicit-check-not=remark:
// Field rules: "struct ops.write" and "ops.write" alike, at -O2 (the TBAA
// tag gives struct and offset) and -O0 (struct GEPs); with -g.
// RUN: echo 'include field struct ops.write' > %t/field.txt
// RUN: %dyncall_clang --target=x86_64-linux-gnu -g -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/field.txt -O2 -c %s -o /dev/null -Rpass=dynamic-call 2>&1 | FileCheck %s --check-prefix=FIELD --implicit-check-not=remark:
// RUN: echo 'include field ops.w*' > %t/field2.txt
// RUN: %dyncall_clang --target=x86_64-linux-gnu -g -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/field2.txt -O0 -c %s -o /dev/null -Rpass=dynamic-call 2>&1 | FileCheck %s --check-prefix=FIELD --implicit-check-not=remark:
// Without -g a field rule matches nothing, and the compiler says why.
// RUN: %dyncall_clang --target=x86_64-linux-gnu -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/field.txt -O2 -c %s -o /dev/null -Rpass=dynamic-call 2>&1 | FileCheck %s --check-prefix=NODEBUG --implicit-check-not=remark:
// NODEBUG: warning: dyncall: the whole-program filter '{{.*}}field.txt' has field or line rules, which need debug information (-g); in this unit they match no call

struct ops {
  int (*read)(int);
  int (*write)(int);
};
int call_read(struct ops *o, int x) { return o->read(x) + 1; }
// FN: whole-program-filter.c:[[@LINE-1]]:{{.*}} remark: indirect call is now site
// PATH: whole-program-filter.c:[[@LINE-2]]:{{.*}} remark: indirect call is now site
int call_write(struct ops *o, int x) { return o->write(x) + 1; }
// FN: whole-program-filter.c:[[@LINE-1]]:{{.*}} remark: indirect call left alone (whole-program): excluded by the filter
// PATH: whole-program-filter.c:[[@LINE-2]]:{{.*}} remark: indirect call is now site
// FIELD: whole-program-filter.c:[[@LINE-3]]:{{.*}} remark: indirect call is now site
int other(int (*f)(int), int x) { return f(x) + 1; }
// FN: whole-program-filter.c:[[@LINE-1]]:{{.*}} remark: indirect call left alone (whole-program): excluded by the filter
// LINE: whole-program-filter.c:[[@LINE-2]]:{{.*}} remark: indirect call is now site
int other_write(struct ops *o, int x) { return o->write(x) + 2; }
// FN: whole-program-filter.c:[[@LINE-1]]:{{.*}} remark: indirect call left alone (whole-program): excluded by the filter
// PATH: whole-program-filter.c:[[@LINE-2]]:{{.*}} remark: indirect call is now site
// FIELD: whole-program-filter.c:[[@LINE-3]]:{{.*}} remark: indirect call is now site

// Errors: the exact line, then the compile fails.
// RUN: printf '# ok\n\ninclude function f\nincluded function g\n' > %t/e1.txt
// RUN: not %dyncall_clang -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/e1.txt -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=E1 -DF=%t/e1.txt
// E1: {{^}}[[F]]:4: error: expected 'include' or 'exclude', got 'included'{{$}}
// E1: error: dyncall: invalid whole-program filter '[[F]]'
// RUN: echo 'exclude symbol g' > %t/e2.txt
// RUN: not %dyncall_clang -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/e2.txt -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=E2 -DF=%t/e2.txt
// E2: {{^}}[[F]]:1: error: expected 'function', 'file' or 'field' after 'exclude'{{$}}
// RUN: echo 'include file' > %t/e3.txt
// RUN: not %dyncall_clang -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/e3.txt -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=E3 -DF=%t/e3.txt
// E3: {{^}}[[F]]:1: error: missing pattern after 'include file'{{$}}
// RUN: echo 'include function f g' > %t/e4.txt
// RUN: not %dyncall_clang -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/e4.txt -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=E4 -DF=%t/e4.txt
// E4: {{^}}[[F]]:1: error: unexpected text after the pattern: 'g'{{$}}
// RUN: echo 'include file a.c:x' > %t/e5.txt
// RUN: not %dyncall_clang -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/e5.txt -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=E5 -DF=%t/e5.txt
// E5: {{^}}[[F]]:1: error: bad line number 'x' in a file rule{{$}}
// RUN: echo 'exclude field read' > %t/e6.txt
// RUN: not %dyncall_clang -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/e6.txt -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=E6 -DF=%t/e6.txt
// E6: {{^}}[[F]]:1: error: a field rule is <struct>.<field>, got 'read'{{$}}
// RUN: not %dyncall_clang -fplugin=%plugin_dir/dyncall_llvm.so -mllvm -dyncall-whole-program-filter=%t/missing.txt -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=E7 -DF=%t/missing.txt
// E7: {{^}}[[F]]: error: cannot read the filter file: No such file or directory{{$}}
