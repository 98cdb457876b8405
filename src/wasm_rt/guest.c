/* Guest frames, traps and the signals that produce them (see guest.h). */
#include "wasm_rt/guest.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <wasm-rt.h>

static _Thread_local wb_guest_frame *current;

wb_guest_frame *wb_guest_current(void) { return current; }

int wb_guest_timer_signal(void) { return SIGRTMIN + 3; }
int wb_guest_alarm_signal(void) { return SIGRTMIN + 4; }

_Noreturn void wb_guest_trap(int code) {
  wb_guest_frame *f = current;
  if (!f) abort(); /* a trap outside any guest call is a host bug */
  siglongjmp(f->jmp, code);
}

void wb_guest_begin(wb_guest_frame *f) {
  f->in_guest = 0;
  f->fuel = NULL;
  f->deadline_hit = 0;
  f->memory_grow_failed = 0;
  f->fault_offset = 0;
  f->exit_code = 0;
  f->deliver = NULL;
  f->deliver_ctx = NULL;
  f->alarm_due = 0;
  current = f;
}

void wb_guest_end(void) { current = NULL; }

void wb_host_enter(void) {
  wb_guest_frame *f = current;
  if (f) f->in_guest = 0;
}

void wb_host_leave(void) {
  wb_guest_frame *f = current;
  if (!f) return;
  /* Set in_guest before testing the flag: a signal arriving between the two
   * then unwinds by itself, and one arriving before is seen by the test. */
  f->in_guest = 1;
  if (f->deadline_hit) wb_guest_trap(WB_TRAP_TIMEOUT);
  if (f->alarm_due && f->deliver) {
    f->alarm_due = 0;
    f->deliver(f->deliver_ctx, WB_GUEST_SIGALRM);
  }
}

/* Handlers that were installed before ours: faults that are not the guest's
 * go to them, so a host program's own crash handling keeps working. */
static struct sigaction prev_segv, prev_bus, prev_ill;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static void pass_on(int sig, siginfo_t *si, void *ctx) {
  struct sigaction *prev = sig == SIGSEGV ? &prev_segv : sig == SIGBUS ? &prev_bus : &prev_ill;
  if ((prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction) {
    prev->sa_sigaction(sig, si, ctx);
  } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN && prev->sa_handler) {
    prev->sa_handler(sig);
  } else {
    /* default action: return, the fault repeats and the process dies honestly */
    signal(sig, SIG_DFL);
  }
}

/* The fuel counter as of the interrupted instruction, if that is the
 * module's code (elsewhere, in host code the guest called, the counter in
 * memory is current). */
static void save_fuel(wb_guest_frame *f, void *ctx) {
#if defined(__x86_64__) && defined(__linux__)
  const ucontext_t *uc = ctx;
  uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  if (f->fuel && pc >= f->code_lo && pc < f->code_hi) *f->fuel = (int64_t)uc->uc_mcontext.gregs[REG_R15];
#else
  (void)f;
  (void)ctx;
#endif
}

/* Out of fuel: the check after a charge in the module's code (register
 * builds, tools/w2c_split.py) puts the counter, below zero, in r15 and
 * stops at a ud2. */
static bool fuel_ran_out(wb_guest_frame *f, void *ctx) {
#if defined(__x86_64__) && defined(__linux__)
  const ucontext_t *uc = ctx;
  uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  if (!f->fuel || pc < f->code_lo || pc + 2 > f->code_hi) return false;
  const uint8_t *op = (const uint8_t *)pc;
  if (op[0] != 0x0f || op[1] != 0x0b) return false;
  save_fuel(f, ctx);
  return true;
#else
  (void)f;
  (void)ctx;
  return false;
#endif
}

/* A fault is a guest trap only while guest code runs and only at an address
 * the guest can reach: its linear memory reservation (out of bounds) or the
 * guard below its stack (exhaustion); or a charge that ran out of fuel.
 * Anything else is not ours. */
static void on_fault(int sig, siginfo_t *si, void *ctx) {
  wb_guest_frame *f = current;
  if (f && f->in_guest && sig == SIGILL) {
    if (fuel_ran_out(f, ctx)) siglongjmp(f->jmp, WASM_RT_TRAP_UNREACHABLE);
  } else if (f && f->in_guest) {
    uintptr_t a = (uintptr_t)si->si_addr;
    uintptr_t m = (uintptr_t)f->mem_base;
    if (m && a >= m && a - m < f->mem_reserved) {
      f->fault_offset = a - m;
      save_fuel(f, ctx);
      siglongjmp(f->jmp, WASM_RT_TRAP_OOB);
    }
    if (a >= f->stack_lo && a < f->stack_hi) {
      save_fuel(f, ctx);
      siglongjmp(f->jmp, WASM_RT_TRAP_EXHAUSTION);
    }
  }
  pass_on(sig, si, ctx);
}

static void on_timer(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)si;
  wb_guest_frame *f = current;
  if (!f) return;
  f->deadline_hit = 1;
  if (f->in_guest) {
    save_fuel(f, ctx);
    siglongjmp(f->jmp, WB_TRAP_TIMEOUT);
  }
}

/* The guest's alarm: into the guest now if its code runs (the current fuel
 * first, for the code the delivery runs), else at the next leave(). */
static void on_alarm(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)si;
  wb_guest_frame *f = current;
  if (!f || !f->deliver) return;
  if (!f->in_guest) {
    f->alarm_due = 1;
    return;
  }
  save_fuel(f, ctx);
  f->deliver(f->deliver_ctx, WB_GUEST_SIGALRM);
}

/* (Re)claim SIGSEGV/SIGBUS/SIGILL: a host program may have installed its own
 * handler since the last guest call (test frameworks do, per test). */
static void claim(int sig, struct sigaction *prev) {
  struct sigaction cur;
  sigaction(sig, NULL, &cur);
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fault) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, wb_guest_timer_signal());
  sa.sa_sigaction = on_fault;
  sigaction(sig, &sa, prev);
}

static void install_timer_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGSEGV);
  sigaddset(&sa.sa_mask, SIGBUS);
  sigaddset(&sa.sa_mask, SIGILL);
  sa.sa_sigaction = on_timer;
  sigaction(wb_guest_timer_signal(), &sa, NULL);
  /* no SA_RESTART: a sleep it interrupts returns, so that the guest's
   * handler runs now (the timer's own signal stays blocked meanwhile) */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaddset(&sa.sa_mask, wb_guest_timer_signal());
  sa.sa_sigaction = on_alarm;
  sigaction(wb_guest_alarm_signal(), &sa, NULL);
}

static bool settled;              /* wb_guest_handlers_settled() */
static _Atomic bool claimed_once; /* and since then, claimed */

void wb_guest_install_handlers(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, install_timer_handler);
  if (claimed_once) return; /* three rt_sigaction calls fewer a call */
  pthread_mutex_lock(&install_lock);
  claim(SIGSEGV, &prev_segv);
  claim(SIGBUS, &prev_bus);
  claim(SIGILL, &prev_ill);
  if (settled) claimed_once = true;
  pthread_mutex_unlock(&install_lock);
}

void wb_guest_handlers_settled(void) { settled = true; }
