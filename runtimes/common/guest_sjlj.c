/* The runtime half of clang's setjmp/longjmp on WebAssembly exceptions
 * (-mllvm -wasm-enable-sjlj; the header is sjlj/setjmp.h). clang gives each
 * call of a function that calls setjmp an invocation id (the address of a
 * local) and each of its setjmp calls a nonzero label, and wraps the calls
 * in it that may longjmp in a handler for the tag __c_longjmp:
 *   setjmp(env)        becomes __wasm_setjmp(env, label, id), then 0;
 *   longjmp(env, v)    becomes __wasm_longjmp(env, v): throws __c_longjmp
 *                      with a pointer to {env, v};
 *   in the handler     __wasm_setjmp_test(env, id) says which of this call's
 *                      setjmps set env (its label), or 0: not this call's,
 *                      then the handler throws on to its callers.
 * Compiled with -mexception-handling. Nothing here allocates: a buffer used
 * a million times costs what it costs once. */
#include <setjmp.h>
#include <stdint.h>

void __wasm_setjmp(void *env, uint32_t label, void *invocation);
uint32_t __wasm_setjmp_test(void *env, void *invocation);
_Noreturn void __wasm_longjmp(void *env, int value);

/* The tag itself, defined once here: clang's objects refer to it weakly and
 * cannot define it from C. */
__asm__(".globl __c_longjmp\n.tagtype __c_longjmp i32\n__c_longjmp:\n");

/* the payload clang's handler reads: the buffer, then the value */
_Static_assert(__builtin_offsetof(struct __wb_jmp_buf, __thrown_value) ==
                   __builtin_offsetof(struct __wb_jmp_buf, __thrown_env) + sizeof(void *),
               "longjmp's payload is {env, value}");

void __wasm_setjmp(void *env, uint32_t label, void *invocation) {
  struct __wb_jmp_buf *buf = env;
  buf->__invocation = invocation;
  buf->__label = label;
}

uint32_t __wasm_setjmp_test(void *env, void *invocation) {
  const struct __wb_jmp_buf *buf = env;
  return buf->__invocation == invocation ? buf->__label : 0;
}

/* C's rule: longjmp(env, 0) makes setjmp return 1. */
_Noreturn void __wasm_longjmp(void *env, int value) {
  struct __wb_jmp_buf *buf = env;
  buf->__thrown_env = env;
  buf->__thrown_value = value != 0 ? value : 1;
  __builtin_wasm_throw(1, &buf->__thrown_env); /* 1: the tag __c_longjmp */
}
