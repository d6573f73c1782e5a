// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// COMDAT functions emitted in both units of comdat-cxx.test: a template's
// constructor (GCC: C2 in the C5 group, C1 an alias), destructor and
// member function, out of line.
template <class T> struct Box {
	__attribute__((noinline)) Box(T v) : v(v) {}
	__attribute__((noinline)) ~Box() { v = T(); }
	__attribute__((noinline)) T get(T k) const { return v * k + 1; }
	T v;
};
long in_a(long x);
long in_b(long x);
double in_b_double(double x);
