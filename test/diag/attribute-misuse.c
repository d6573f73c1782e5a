// Checks every misuse of the dynamic_call attribute is an error at the
// attribute's location, and every valid use is accepted without the pass.
// REQUIRES: dyncall-clang-plugin
// RUN: %dyncall_clang_attr -fsyntax-only -Xclang -verify %s
// RUN: %dyncall_clang_attr -fsyntax-only -Xclang -verify -std=c23 -DC23 %s

typedef int (*handler_t)(int);
int target(int);

// Accepted.
handler_t global_key __attribute__((dynamic_call)) = target;
static handler_t static_key __attribute__((dynamic_call));
extern handler_t extern_key __attribute__((dynamic_call));
handler_t const const_key __attribute__((dynamic_call)) = target;
_Atomic handler_t atomic_key __attribute__((dynamic_call));
typedef int (*hook_t)(int) __attribute__((dynamic_call));
struct ops { handler_t on_read __attribute__((dynamic_call)); hook_t on_write; };
union either { handler_t f __attribute__((dynamic_call)); void *p; };
void f_static_local(void) { static handler_t h __attribute__((dynamic_call)); (void)h; }
#ifdef C23
[[dyncall::dynamic_call]] handler_t c23_key;
#endif

// Rejected.
int not_a_pointer __attribute__((dynamic_call)); // expected-error {{'dynamic_call' attribute requires a pointer-to-function type}}
void *data_pointer __attribute__((dynamic_call)); // expected-error {{'dynamic_call' attribute requires a pointer-to-function type}}
handler_t array_of_keys[4] __attribute__((dynamic_call)); // expected-error {{'dynamic_call' attribute requires a pointer-to-function type}}
int a_function(int) __attribute__((dynamic_call)); // expected-error {{'dynamic_call' attribute only applies to function-pointer variables, fields and typedefs}}
typedef int not_fp_t __attribute__((dynamic_call)); // expected-error {{'dynamic_call' attribute requires a pointer-to-function type}}
struct bad { int n __attribute__((dynamic_call)); }; // expected-error {{'dynamic_call' attribute requires a pointer-to-function type}}
_Thread_local handler_t tls_key __attribute__((dynamic_call)); // expected-error {{'dynamic_call' attribute cannot be applied to a thread-local variable: its sites are shared by all threads}}
handler_t with_args __attribute__((dynamic_call(1))); // expected-error {{'dynamic_call' attribute takes no arguments}}
void locals(handler_t param __attribute__((dynamic_call))) { // expected-error {{'dynamic_call' attribute only applies to variables with static storage duration; a local copy of a key is an ordinary pointer}}
  handler_t local __attribute__((dynamic_call)) = target; // expected-error {{'dynamic_call' attribute only applies to variables with static storage duration; a local copy of a key is an ordinary pointer}}
  (void)local;
}
