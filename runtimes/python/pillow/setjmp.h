/* <setjmp.h> for Pillow's JPEG codec on wasm32-wasi (pillow.sh).
 *
 * wasi-libc has setjmp/longjmp only with WebAssembly's exception handling,
 * which the module's translation (wasm2c) does not take. Pillow calls
 * setjmp before entering libjpeg and longjmps from libjpeg's fatal-error
 * hook; here setjmp returns 0 and that longjmp ends the call with a trap,
 * the host's structured error, rather than return into libjpeg's broken
 * state. libjpeg's recoverable problems (truncated or corrupt scan data)
 * are warnings and never get here. */
#ifndef WASMBOX_PILLOW_SETJMP_H
#define WASMBOX_PILLOW_SETJMP_H

#include <stdio.h>

typedef int jmp_buf[1];

#define setjmp(env) ((void)(env), 0)

static inline _Noreturn void longjmp(jmp_buf env, int value) {
  (void)env;
  (void)value;
  fputs("libjpeg: fatal error in the JPEG data (the call is stopped)\n", stderr);
  fflush(stderr);
  __builtin_trap();
}

#endif
