/* The C half of tests/cxx.sh's guest: setjmp and longjmp, built with
 * -mllvm -wasm-enable-sjlj against runtimes/common/sjlj/setjmp.h and linked
 * with runtimes/common/guest_sjlj.c into the module that throws C++
 * exceptions (guest.cpp). Each scenario returns a number that says what ran. */
#include <setjmp.h>
#include <stdint.h>

int sjlj_scenario(int which, int *entered);

static jmp_buf outer, inner, never_set;
static volatile int seen;

/* longjmps from depth frames down, counting them in seen */
static __attribute__((noinline)) void jump(jmp_buf env, int value, int depth) {
  seen++;
  if (depth > 0) jump(env, value, depth - 1);
  longjmp(env, value);
}

/* sets inner, is longjmped to through it, then longjmps to outer through
 * its own handler (not its buffer: the handler passes the jump on) */
static __attribute__((noinline)) int nested(void) {
  volatile int got = setjmp(inner);
  if (got == 0) jump(inner, 3, 10);
  jump(outer, 4, 10);
  return -1;
}

/* locals changed after setjmp, read after the longjmp */
static __attribute__((noinline)) int keeps_locals(int base) {
  volatile int changed = base;
  volatile double half = 0.5;
  int before = base * 2; /* set before setjmp, never changed */
  if (setjmp(inner) == 0) {
    changed = base + 11;
    half = 2.25;
    jump(inner, 1, 5);
  }
  return changed == base + 11 && half == 2.25 && before == base * 2 ? 1400 + changed : -3;
}

/* where a callee's locals are: the stack's depth */
static volatile uintptr_t stack_at;
static __attribute__((noinline)) uintptr_t stack_here(void) {
  volatile char here = 0;
  stack_at = (uintptr_t)&here;
  return stack_at;
}

int sjlj_scenario(int which, int *entered) {
  volatile int first = -1;
  switch (which) {
    case 10: { /* setjmp returns 0, then the value */
      int r = setjmp(outer);
      if (first < 0) {
        first = r;
        jump(outer, 7, 0);
      }
      return 1000 + first * 100 + r;
    }
    case 11: { /* longjmp(env, 0) makes setjmp return 1 (not 0 again: one jump) */
      volatile int jumps = 0;
      int r = setjmp(outer);
      if (jumps++ == 0) jump(outer, 0, 0);
      return 1100 + r;
    }
    case 12: { /* from fifty frames down */
      seen = 0;
      int r = setjmp(outer);
      if (r == 0) jump(outer, 42, 50);
      return 1200 + r + (seen == 51 ? 0 : 1000);
    }
    case 13: { /* inner and outer buffers */
      int r = setjmp(outer);
      if (r == 0) return nested();
      return 1330 + r;
    }
    case 14: return keeps_locals(9);
    case 15: { /* a hundred thousand rounds: nothing grows */
      uint32_t pages = (uint32_t)__builtin_wasm_memory_size(0);
      uintptr_t stack = stack_here();
      volatile int rounds = 0;
      volatile int sum = 0;
      int r = setjmp(outer);
      sum += r;
      if (rounds++ < 100000) jump(outer, 2, rounds % 4);
      int same = pages == (uint32_t)__builtin_wasm_memory_size(0) && stack == stack_here();
      return same && sum == 200000 ? 1500 : -5;
    }
    case 16: /* the budget runs out between setjmp and longjmp */
      if (setjmp(outer) == 0) {
        *entered = 1;
        for (volatile unsigned spin = 0;; spin++) {}
      }
      return -2;
    case 17:
      /* a longjmp to a buffer no live call set: nothing catches it */
      jump(never_set, 5, 3);
      break;
  }
  return -1;
}
