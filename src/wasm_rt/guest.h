/* The guest frame: what a thread running WebAssembly needs for traps.
 *
 * Contract: a thread calls guest code only between wb_guest_begin() and
 * wb_guest_end(). Inside, every trap (out of bounds, stack exhaustion,
 * unreachable, timeout, proc_exit) siglongjmps back to the frame's jump
 * buffer with a wb_trap code. Host code called by the guest (WASI imports)
 * runs between wb_host_enter() and wb_host_leave() so the timeout signal
 * never unwinds host code: it only marks the deadline, and leave() traps.
 * A guest's own timer (signal.alarm) is delivered the same way: while guest
 * code runs, at once, through the frame's deliver(); in host code, marked,
 * and delivered by leave(). One frame per thread; frames do not nest. */
#ifndef WASMBOX_WASM_RT_GUEST_H
#define WASMBOX_WASM_RT_GUEST_H

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Trap codes: wasm-rt's (1..8) plus the host's own. */
enum {
  WB_TRAP_TIMEOUT = 100, /* wall-clock deadline passed */
  WB_TRAP_EXIT = 101,    /* guest called proc_exit */
  WB_TRAP_FUEL = 102,    /* instruction budget used up */
  WB_TRAP_PAUSE = 103,   /* a tool call waits for approval: the host stops the run */
};

typedef struct wb_guest_frame {
  sigjmp_buf jmp;
  volatile sig_atomic_t in_guest;     /* 1 while WebAssembly code runs */
  volatile sig_atomic_t deadline_hit; /* set by the timer signal */
  uint8_t *mem_base;                  /* linear memory reservation, for faults */
  size_t mem_reserved;
  uintptr_t stack_lo, stack_hi; /* this thread's stack incl. guard */
  int memory_grow_failed;       /* a memory.grow hit the limit */
  uint64_t fault_offset;        /* OOB trap: faulting offset in memory */
  uint32_t exit_code;           /* valid after WB_TRAP_EXIT */
  /* While the module's code [code_lo, code_hi) runs, its fuel counter lives
   * in r15 (x86-64; tools/w2c_split.py). A fault or the timer that interrupts
   * that code stores the interrupted r15 here before unwinding. NULL: the
   * counter is always in memory. */
  int64_t *fuel;
  uintptr_t code_lo, code_hi;
  /* The guest's alarm (wb_guest_alarm_signal): raise WB_GUEST_SIGALRM in the
   * guest, as a POSIX handler would run (NULL: the runtime has no signals). */
  void (*deliver)(void *ctx, int sig);
  void *deliver_ctx;
  volatile sig_atomic_t alarm_due; /* arrived in host code: leave() delivers */
} wb_guest_frame;

#define WB_GUEST_SIGALRM 14 /* the guest's (WASI's) number */

/* Install the timer handler (once) and claim SIGSEGV/SIGBUS/SIGILL (again, if a
 * host program replaced our handler); call before every guest call. Faults
 * that are not the guest's go to the handler we replaced. */
void wb_guest_install_handlers(void);
/* This process runs no code that installs signal handlers of its own (a
 * worker): once claimed, ours are not looked at again before each call.
 * Call before the first guest call. */
void wb_guest_handlers_settled(void);

/* Signals used for the wall-clock timer, and for the guest's own alarm. */
int wb_guest_timer_signal(void);
int wb_guest_alarm_signal(void);

/* Make `f` this thread's current frame / clear it. Call sigsetjmp(f->jmp, 1)
 * right after begin; its non-zero return is the trap code. */
void wb_guest_begin(wb_guest_frame *f);
void wb_guest_end(void);
wb_guest_frame *wb_guest_current(void);

/* Host code inside a guest call. leave() traps with WB_TRAP_TIMEOUT if the
 * deadline passed meanwhile, and delivers an alarm that came. */
void wb_host_enter(void);
void wb_host_leave(void);

/* Leave guest code with a trap (noreturn). */
_Noreturn void wb_guest_trap(int code);

#endif
