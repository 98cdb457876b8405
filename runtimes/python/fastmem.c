/* memcpy, memmove and memset as WebAssembly bulk-memory instructions.
 * Debian's wasi-libc (2022) implements them as byte/word loops in wasm;
 * memory.copy and memory.fill become the host's memmove/memset after wasm2c,
 * which are several times faster on anything longer than a few bytes. Built
 * with -mbulk-memory, and linked before libc so these definitions win. */
#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  __builtin_memcpy(dst, src, n);
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  __builtin_memmove(dst, src, n);
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  __builtin_memset(dst, c, n);
  return dst;
}
