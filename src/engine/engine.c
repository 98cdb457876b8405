/* The engine (see engine.h). */
#include "engine/engine.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/guest.h"
#include "engine/host_imports.h"
#include "engine/wasm_rt_ext.h"
#include "wasi/wasi.h"

#define GUEST_STACK (32u << 20) /* native stack for generated code */
#define GUEST_GUARD (1u << 20)  /* below it: a fault there is stack exhaustion */
#define ALT_STACK (64u << 10)   /* where the fault handler runs */
#define WASM_PAGE 65536u
#define STACK_WRAP_ZONE 0xfff00000ull /* see run_guest */

typedef struct {
  const wb_engine_call *call;
  wb_outcome *out;
  char *err;
  size_t errlen;
  bool host_failed;
} job;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A POSIX timer that signals this thread at the deadline and every 10 ms
 * after, so a deadline seen only by host code is still acted on. */
static bool start_timer(timer_t *t, uint64_t timeout_ns) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = wb_guest_timer_signal();
  ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  if (timer_create(CLOCK_MONOTONIC, &ev, t) != 0) return false;
  struct itimerspec its = {
      .it_value = {(time_t)(timeout_ns / 1000000000ull), (long)(timeout_ns % 1000000000ull)},
      .it_interval = {0, 10 * 1000 * 1000},
  };
  if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  if (timer_settime(*t, 0, &its, NULL) != 0) {
    timer_delete(*t);
    return false;
  }
  return true;
}

/* Copy `len` bytes into fresh guest memory from wasmbox_alloc. */
static uint32_t guest_copy(const wb_runtime *rt, void *inst, const char *s, size_t len) {
  uint32_t p = rt->alloc(inst, (uint32_t)len);
  wb_host_enter();
  wasm_rt_memory_t *m = rt->memory(inst);
  if (p == 0 || (uint64_t)p + len > m->size) wb_guest_trap(WASM_RT_TRAP_OOB);
  memcpy(m->data + p, s, len);
  wb_host_leave();
  return p;
}

static void run_guest(job *j, wb_guest_frame *frame) {
  const wb_engine_call *c = j->call;
  const wb_runtime *rt = c->runtime;
  wb_outcome *out = j->out;
  struct Z_wasmbox_instance_t host = {.out = out};
  void *inst = calloc(1, rt->instance_size);
  if (!inst) {
    snprintf(j->err, j->errlen, "out of memory");
    j->host_failed = true;
    return;
  }
  volatile bool timer_on = false;
  timer_t timer;
  uint64_t start = now_ns();

  wb_guest_begin(frame);
  int trap = sigsetjmp(frame->jmp, 1);
  if (trap == 0) {
    rt->instantiate(inst, c->wasi, &host);
    wasm_rt_memory_t *mem = rt->memory(inst);
    host.mem = mem;
    frame->mem_base = mem->data;
    frame->mem_reserved = WB_MEMORY_RESERVATION;
    uint64_t limit_pages = c->memory_limit / WASM_PAGE;
    if (mem->pages > limit_pages) {
      snprintf(j->err, j->errlen, "a memory limit of %llu MB is below the %llu MB the %s runtime needs to start",
               (unsigned long long)(c->memory_limit >> 20),
               (unsigned long long)(((uint64_t)mem->pages * WASM_PAGE + (1 << 20) - 1) >> 20), rt->language);
      out->init_failed = true;
    } else {
      if (limit_pages < mem->max_pages) mem->max_pages = (uint32_t)limit_pages;
      wb_wasi_bind_memory(c->wasi, mem);
      if (c->timeout_ns) {
        wb_wasi_set_deadline(c->wasi, start + c->timeout_ns);
        if (!start_timer(&timer, c->timeout_ns)) {
          snprintf(j->err, j->errlen, "cannot create a timer: %s", strerror(errno));
          j->host_failed = true;
        } else {
          timer_on = true;
        }
      }
      if (!j->host_failed) {
        frame->in_guest = 1;
        rt->initialize(inst);
        if (rt->init(inst) != 0) {
          out->init_failed = true;
        } else {
          uint32_t code = guest_copy(rt, inst, c->code, c->code_len);
          uint32_t name = guest_copy(rt, inst, c->name, strlen(c->name));
          out->exit_code = rt->run(inst, code, (uint32_t)c->code_len, name, (uint32_t)strlen(c->name));
        }
      }
    }
  }
  frame->in_guest = 0;
  if (timer_on) timer_delete(timer);
  /* Runtimes put their stack first in linear memory (wasm-ld --stack-first):
   * overflowing it wraps the stack pointer below 0, so the access lands at
   * the top of the 4 GiB range. That is stack exhaustion, not a wild pointer. */
  if (trap == WASM_RT_TRAP_OOB && frame->fault_offset >= STACK_WRAP_ZONE)
    trap = WASM_RT_TRAP_EXHAUSTION;
  out->trap = trap == WB_TRAP_EXIT ? 0 : trap;
  if (trap == WB_TRAP_EXIT) out->exit_code = frame->exit_code;
  out->memory_grow_failed = frame->memory_grow_failed;
  wasm_rt_memory_t *mem = rt->memory(inst);
  out->memory_peak = (uint64_t)mem->pages * WASM_PAGE;
  out->duration_ns = now_ns() - start;
  wb_guest_end();
  rt->free(inst);
  free(inst);
}

static void *guest_thread(void *arg) {
  job *j = arg;
  stack_t ss = {.ss_sp = malloc(ALT_STACK), .ss_size = ALT_STACK, .ss_flags = 0};
  if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0) {
    snprintf(j->err, j->errlen, "cannot set up a signal stack");
    j->host_failed = true;
    free(ss.ss_sp);
    return NULL;
  }
  wb_guest_frame frame;
  memset(&frame, 0, sizeof frame);
  pthread_attr_t attr;
  void *lo;
  size_t size, guard;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_getguardsize(&attr, &guard);
    frame.stack_lo = (uintptr_t)lo - guard;
    frame.stack_hi = (uintptr_t)lo + 4096; /* the guard and the page above it */
    pthread_attr_destroy(&attr);
  }
  run_guest(j, &frame);
  stack_t off = {.ss_flags = SS_DISABLE};
  sigaltstack(&off, NULL);
  free(ss.ss_sp);
  return NULL;
}

bool wb_engine_run(const wb_engine_call *call, wb_outcome *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  err[0] = 0;
  if (!call->runtime->prepare(err, errlen)) return false;
  wb_guest_install_handlers();
  job j = {.call = call, .out = out, .err = err, .errlen = errlen};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, GUEST_STACK);
  pthread_attr_setguardsize(&attr, GUEST_GUARD);
  /* The guest thread handles only its own timer and faults. */
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, wb_guest_timer_signal());
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t t;
  int r = pthread_create(&t, &attr, guest_thread, &j);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  if (r != 0) {
    snprintf(err, errlen, "cannot start a guest thread: %s", strerror(r));
    return false;
  }
  pthread_join(t, NULL);
  if (j.host_failed) {
    wb_outcome_clear(out);
    return false;
  }
  return true;
}

void wb_outcome_clear(wb_outcome *o) {
  free(o->error_type);
  free(o->error_message);
  free(o->error_traceback);
  o->error_type = o->error_message = o->error_traceback = NULL;
}
