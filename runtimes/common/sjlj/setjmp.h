/* <setjmp.h> for wasm32 guest code (wasi-libc has none), on WebAssembly
 * exceptions: code that calls setjmp or longjmp is compiled with
 *   -mllvm -wasm-enable-sjlj -mexception-handling -isystem runtimes/common/sjlj
 * and clang turns those calls into calls to __wasm_setjmp, __wasm_setjmp_test
 * and __wasm_longjmp (runtimes/common/guest_sjlj.c, linked into the module);
 * a longjmp is a throw of the tag __c_longjmp that the function which called
 * setjmp catches. Code compiled without the flags that calls setjmp or
 * longjmp leaves them undefined, which runtimes/python/build.sh refuses
 * (an import of "env"): it never misbehaves at run time.
 *
 * There are no signal masks in wasm32-wasi: the sig and underscore variants
 * are the same calls. setjmp must be called directly (not through a
 * pointer), as the C standard allows. */
#ifndef WASMBOX_SJLJ_SETJMP_H
#define WASMBOX_SJLJ_SETJMP_H

#ifdef __cplusplus
extern "C" {
#endif

/* What guest_sjlj.c keeps in a buffer: which call of which function set it
 * (the function's invocation id and its label for that setjmp), and the
 * buffer and value a longjmp throws, read by the catching function. */
struct __wb_jmp_buf {
  void *__invocation;
  unsigned int __label;
  void *__thrown_env;
  int __thrown_value;
};

typedef struct __wb_jmp_buf jmp_buf[1];
typedef struct __wb_jmp_buf sigjmp_buf[1];

int setjmp(jmp_buf env) __attribute__((__returns_twice__));
_Noreturn void longjmp(jmp_buf env, int value);

#define setjmp setjmp
#define _setjmp(env) setjmp(env)
#define _longjmp(env, value) longjmp(env, value)
#define sigsetjmp(env, savemask) setjmp(env)
#define siglongjmp(env, value) longjmp(env, value)

#ifdef __cplusplus
}
#endif

#endif
