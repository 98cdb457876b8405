/* The engine (see engine.h). */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wasm_rt/guest.h"
#include "engine/host_imports.h"
#include "util/os.h"
#include "wasm_rt/wasm_rt_ext.h"

#define GUEST_STACK (32u << 20) /* native stack for generated code */
#define GUEST_GUARD (1u << 20)  /* below it: a fault there is stack exhaustion */
#define ALT_STACK (64u << 10)   /* where the fault handler runs */
/* Runtimes put their stack first in linear memory (wasm-ld --stack-first):
 * overflowing it wraps the stack pointer below 0, so the access lands at the
 * top of the 4 GiB range. That is stack exhaustion, not a wild pointer. */
#define STACK_WRAP_ZONE 0xfff00000ull

struct wb_instance {
  const wb_runtime *rt;
  void *inst;                       /* the generated instance struct */
  struct Z_wasmbox_instance_t host; /* report_error's target */
  bool started;
  /* The instance's guest thread, kept between calls (creating one per call
   * cost more than the call); it runs one task at a time. */
  pthread_t thread;
  bool has_thread, quit;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct task *pending;
};

typedef struct task {
  wb_instance *in;
  const wb_call *call;
  const wb_job *job;
  wb_outcome *out;
  char *err;
  size_t errlen;
  bool host_failed;
} task;

struct wb_cancel {
  pthread_mutex_t mu;
  bool fired, running;
  pid_t tid; /* the guest thread while it runs a call */
  int event; /* an eventfd, readable once fired */
};

wb_cancel *wb_cancel_new(void) {
  wb_cancel *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->event = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (c->event < 0) {
    free(c);
    return NULL;
  }
  pthread_mutex_init(&c->mu, NULL);
  return c;
}

void wb_cancel_free(wb_cancel *c) {
  if (!c) return;
  close(c->event);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

int wb_cancel_fd(const wb_cancel *c) { return c->event; }

void wb_cancel_reset(wb_cancel *c) {
  pthread_mutex_lock(&c->mu);
  uint64_t n;
  if (c->fired && read(c->event, &n, sizeof n) < 0) {
    /* not readable: nothing to drain */
  }
  c->fired = false;
  pthread_mutex_unlock(&c->mu);
}

bool wb_cancel_fired(wb_cancel *c) {
  pthread_mutex_lock(&c->mu);
  bool fired = c->fired;
  pthread_mutex_unlock(&c->mu);
  return fired;
}

/* The guest thread gets the timer's signal with its deadline marked as
 * passed: the same path as a timeout, from guest or host code alike. */
void wb_cancel_fire(wb_cancel *c) {
  pthread_mutex_lock(&c->mu);
  c->fired = true;
  if (c->running) syscall(SYS_tgkill, getpid(), c->tid, wb_guest_timer_signal());
  uint64_t one = 1;
  if (write(c->event, &one, sizeof one) < 0) {
    /* the counter is already non-zero: it stays readable */
  }
  pthread_mutex_unlock(&c->mu);
}

/* A guest thread's id, read once when it starts (guest_thread_enter):
 * asked at every call, by the cancel token and by the deadline's timer. */
static _Thread_local pid_t guest_tid;

static pid_t this_tid(void) { return guest_tid ? guest_tid : (pid_t)syscall(SYS_gettid); }

/* Mark the call as running on this thread; false if already cancelled. */
static bool cancel_enter(wb_cancel *c) {
  if (!c) return true;
  pthread_mutex_lock(&c->mu);
  bool go = !c->fired;
  c->running = go;
  c->tid = this_tid();
  pthread_mutex_unlock(&c->mu);
  return go;
}

static bool cancel_leave(wb_cancel *c) {
  if (!c) return false;
  pthread_mutex_lock(&c->mu);
  c->running = false;
  bool fired = c->fired;
  pthread_mutex_unlock(&c->mu);
  return fired;
}

/* A POSIX timer that signals this thread at the deadline and every 10 ms
 * after, so a deadline seen only by host code is still acted on. */
static bool start_timer(timer_t *t, uint64_t timeout_ns) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = wb_guest_timer_signal();
  ev._sigev_un._tid = this_tid();
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

/* Lower the memory's maximum to the call's limit; false if the instance
 * already holds more than that. */
static bool apply_limit(task *t, wasm_rt_memory_t *mem) {
  uint64_t limit_pages = t->call->memory_limit / WB_WASM_PAGE;
  if (mem->pages > limit_pages) {
    snprintf(t->err, t->errlen, "a memory limit of %llu MB is below the %llu MB the %s runtime needs",
             (unsigned long long)(t->call->memory_limit >> 20),
             (unsigned long long)(((uint64_t)mem->pages * WB_WASM_PAGE + (1 << 20) - 1) >> 20), t->in->rt->language);
    t->out->init_failed = true;
    return false;
  }
  mem->max_pages = limit_pages < 65536 ? (uint32_t)limit_pages : 65536;
  return true;
}

/* Instantiate: from a snapshot (map its memory, load its globals), or by
 * running the module's constructors and the interpreter's initialisation. */
static bool start(task *t, wb_guest_frame *frame) {
  wb_instance *in = t->in;
  const wb_runtime *rt = in->rt;
  const wb_snapshot *from = t->job->from;
  if (from) wb_rt_preload(&from->memory);
  rt->instantiate(in->inst, t->call->wasi, &in->host);
  in->started = true;
  wasm_rt_memory_t *mem = rt->memory(in->inst);
  if (from) {
    if (mem->pages != from->memory.pages) {
      snprintf(t->err, t->errlen, "cannot map the %s snapshot", rt->language);
      t->host_failed = true;
      return false;
    }
    rt->globals_load(in->inst, from->globals);
    return true;
  }
  frame->mem_base = mem->data;
  wb_wasi_bind_memory(t->call->wasi, mem);
  in->host.mem = mem;
  if (!apply_limit(t, mem)) return false;
  frame->in_guest = 1;
  rt->initialize(in->inst);
  bool ok = rt->init(in->inst) == 0;
  frame->in_guest = 0;
  if (!ok) t->out->init_failed = true;
  return ok;
}

/* The guest's alarm, raised in it (wasm_rt/guest.h) */
static void deliver_signal(void *ctx, int sig) {
  wb_instance *in = ctx;
  in->rt->raise(in->inst, sig);
}

static void run_task(task *t, wb_guest_frame *frame) {
  wb_instance *in = t->in;
  const wb_runtime *rt = in->rt;
  const wb_call *c = t->call;
  const wb_job *job = t->job;
  wb_outcome *out = t->out;
  in->host.error_type = &out->error_type;
  in->host.error_message = &out->error_message;
  in->host.error_traceback = &out->error_traceback;
  in->host.tools = c->tools;
  volatile bool timer_on = false, metered = false;
  int64_t budget = c->fuel && c->fuel < (uint64_t)INT64_MAX ? (int64_t)c->fuel : INT64_MAX;
  timer_t timer;
  uint64_t start_ns = wb_monotonic_ns();
  if (c->timeout_ns) wb_wasi_set_deadline(c->wasi, start_ns + c->timeout_ns);

  wb_guest_begin(frame);
  if (rt->raise) {
    frame->deliver = deliver_signal;
    frame->deliver_ctx = in;
  }
  frame->mem_reserved = WB_MEMORY_RESERVATION;
  frame->code_lo = (uintptr_t)rt->code_start;
  frame->code_hi = (uintptr_t)rt->code_end;
  int trap = sigsetjmp(frame->jmp, 1);
  if (trap == 0 && !cancel_enter(c->cancel)) {
    out->cancelled = true;
  } else if (trap == 0) {
    if (c->timeout_ns) {
      if (!start_timer(&timer, c->timeout_ns)) {
        snprintf(t->err, t->errlen, "cannot create a timer: %s", strerror(errno));
        t->host_failed = true;
      } else {
        timer_on = true;
      }
    }
    bool ok = !t->host_failed;
    if (ok && !in->started) ok = start(t, frame);
    wasm_rt_memory_t *mem = in->started ? rt->memory(in->inst) : NULL;
    if (ok) {
      rt->bind(in->inst, c->wasi, &in->host);
      in->host.mem = mem;
      frame->mem_base = mem->data;
      wb_wasi_bind_memory(c->wasi, mem);
      ok = apply_limit(t, mem);
    }
    if (ok) {
      *rt->fuel(in->inst) = INT64_MAX; /* refreshing and copying in are not the code's */
      frame->in_guest = 1;
      if (job->fresh) {
        /* set until fresh() returns: a guest that exits or traps in it
         * (memory ran out taking this call's environment) failed to start */
        out->init_failed = true;
        ok = rt->fresh(in->inst) == 0;
        out->init_failed = !ok;
      }
      if (ok && job->code) {
        uint32_t code = guest_copy(rt, in->inst, job->code, job->code_len);
        uint32_t name = guest_copy(rt, in->inst, job->name, strlen(job->name));
        *rt->fuel(in->inst) = budget;
        if (*rt->fuel_in_register) frame->fuel = rt->fuel(in->inst);
        metered = true;
        out->exit_code = rt->run(in->inst, code, (uint32_t)job->code_len, name, (uint32_t)strlen(job->name));
      }
    }
  }
  frame->in_guest = 0;
  wb_host_end_alarm(&in->host); /* the guest's timer ends with its call */
  if (timer_on) timer_delete(timer);
  wb_host_drop_reply(&in->host);
  in->host.tools = NULL;
  if (trap == WASM_RT_TRAP_OOB && frame->fault_offset >= STACK_WRAP_ZONE) trap = WASM_RT_TRAP_EXHAUSTION;
  if (metered) {
    /* the counter goes negative only in the metering's own `unreachable` */
    int64_t left = *rt->fuel(in->inst);
    if (left < 0 && trap == WASM_RT_TRAP_UNREACHABLE) trap = WB_TRAP_FUEL;
    out->fuel_used = (uint64_t)(left < 0 ? budget : budget - left);
  }
  /* stopped by its token (a call that finished first was not) */
  if (cancel_leave(c->cancel) && trap == WB_TRAP_TIMEOUT) out->cancelled = true;
  out->trap = trap == WB_TRAP_EXIT ? 0 : trap;
  if (trap == WB_TRAP_EXIT) out->exit_code = frame->exit_code;
  out->memory_grow_failed = frame->memory_grow_failed;
  if (in->started) out->memory_peak = (uint64_t)rt->memory(in->inst)->pages * WB_WASM_PAGE;
  out->duration_ns = wb_monotonic_ns() - start_ns;
  wb_guest_end();
}

/* What a thread needs to run guest code: an alternate signal stack (the
 * fault handler runs there when the stack is exhausted) and its stack's
 * bounds in the frame. False: it cannot run guest code. */
static bool guest_thread_enter(wb_guest_frame *frame, stack_t *ss) {
  guest_tid = (pid_t)syscall(SYS_gettid);
  *ss = (stack_t){.ss_sp = malloc(ALT_STACK), .ss_size = ALT_STACK, .ss_flags = 0};
  memset(frame, 0, sizeof *frame);
  pthread_attr_t attr;
  void *lo;
  size_t size, guard;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_getguardsize(&attr, &guard);
    frame->stack_lo = (uintptr_t)lo - guard;
    frame->stack_hi = (uintptr_t)lo + 4096; /* the guard and the page above it */
    pthread_attr_destroy(&attr);
  }
  return ss->ss_sp && sigaltstack(ss, NULL) == 0;
}

static void guest_thread_leave(stack_t *ss, bool usable) {
  stack_t off = {.ss_flags = SS_DISABLE};
  if (usable) sigaltstack(&off, NULL);
  free(ss->ss_sp);
}

/* An instance's own guest thread: runs the tasks its instance hands it
 * until told to quit. */
static void *guest_thread(void *arg) {
  wb_instance *in = arg;
  wb_guest_frame frame;
  stack_t ss;
  bool usable = guest_thread_enter(&frame, &ss);
  pthread_mutex_lock(&in->mu);
  for (;;) {
    while (!in->pending && !in->quit) pthread_cond_wait(&in->cv, &in->mu);
    if (in->quit) break;
    task *t = in->pending;
    pthread_mutex_unlock(&in->mu);
    if (usable) {
      run_task(t, &frame);
    } else {
      snprintf(t->err, t->errlen, "cannot set up a signal stack");
      t->host_failed = true;
    }
    pthread_mutex_lock(&in->mu);
    in->pending = NULL;
    pthread_cond_broadcast(&in->cv);
  }
  pthread_mutex_unlock(&in->mu);
  guest_thread_leave(&ss, usable);
  return NULL;
}

/* A thread with a guest's stack, guard and signal mask: it handles only its
 * own timer and faults. */
static int create_guest_thread(pthread_t *t, void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, GUEST_STACK);
  pthread_attr_setguardsize(&attr, GUEST_GUARD);
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGILL); /* out of fuel (wasm_rt/guest.c) */
  sigdelset(&all, wb_guest_timer_signal());
  sigdelset(&all, wb_guest_alarm_signal());
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int r = pthread_create(t, &attr, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  return r;
}

static bool start_thread(wb_instance *in, char *err, size_t errlen) {
  int r = create_guest_thread(&in->thread, guest_thread, in);
  if (r != 0) {
    snprintf(err, errlen, "cannot start a guest thread: %s", strerror(r));
    return false;
  }
  in->has_thread = true;
  return true;
}

/* A thread from wb_guest_thread_start runs calls itself, in this frame. */
static _Thread_local wb_guest_frame *own_frame;

typedef struct {
  void *(*fn)(void *);
  void *arg;
} thread_start;

static void *calling_thread(void *arg) {
  thread_start s = *(thread_start *)arg;
  free(arg);
  wb_guest_frame frame;
  stack_t ss;
  bool usable = guest_thread_enter(&frame, &ss);
  own_frame = usable ? &frame : NULL; /* else its calls go to a guest thread */
  void *r = s.fn(s.arg);
  own_frame = NULL;
  guest_thread_leave(&ss, usable);
  return r;
}

bool wb_guest_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, char *err, size_t errlen) {
  thread_start *s = malloc(sizeof *s);
  if (s) *s = (thread_start){fn, arg};
  int r = s ? create_guest_thread(t, calling_thread, s) : ENOMEM;
  if (r != 0) {
    free(s);
    snprintf(err, errlen, "cannot start a thread: %s", strerror(r));
    return false;
  }
  return true;
}

wb_instance *wb_instance_new(const wb_runtime *rt, char *err, size_t errlen) {
  if (!rt->prepare(err, errlen)) return NULL;
  wb_instance *in = calloc(1, sizeof *in);
  if (in) in->inst = calloc(1, rt->instance_size);
  if (!in || !in->inst) {
    free(in);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  in->rt = rt;
  pthread_mutex_init(&in->mu, NULL);
  pthread_cond_init(&in->cv, NULL);
  return in;
}

bool wb_instance_call(wb_instance *in, const wb_call *call, const wb_job *job, wb_outcome *out, char *err,
                      size_t errlen) {
  memset(out, 0, sizeof *out);
  err[0] = 0;
  wb_guest_install_handlers();
  task t = {.in = in, .call = call, .job = job, .out = out, .err = err, .errlen = errlen};
  if (own_frame && !wb_guest_current()) {
    /* no hand-over to another thread and back: two wake-ups fewer per call */
    run_task(&t, own_frame);
  } else {
    if (!in->has_thread && !start_thread(in, err, errlen)) return false;
    pthread_mutex_lock(&in->mu);
    in->pending = &t;
    pthread_cond_broadcast(&in->cv);
    while (in->pending) pthread_cond_wait(&in->cv, &in->mu);
    pthread_mutex_unlock(&in->mu);
  }
  if (t.host_failed) {
    wb_outcome_clear(out);
    return false;
  }
  return true;
}

bool wb_instance_started(const wb_instance *in) { return in->started; }

wasm_rt_memory_t *wb_instance_memory(wb_instance *in) { return in->rt->memory(in->inst); }

void wb_instance_save_globals(wb_instance *in, uint8_t *out) { in->rt->globals_save(in->inst, out); }

bool wb_instance_capture(wb_instance *in, wb_snapshot *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->memory.fd = -1;
  const wb_runtime *rt = in->rt;
  if (rt->tables_mutable()) {
    snprintf(err, errlen, "the %s module changes its tables at run time; it cannot be snapshotted", rt->language);
    return false;
  }
  wasm_rt_memory_t *mem = rt->memory(in->inst);
  size_t bytes = (size_t)mem->pages * WB_WASM_PAGE;
  int fd = memfd_create("wasmbox-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  out->globals = malloc(rt->globals_size() ? rt->globals_size() : 1);
  if (fd < 0 || !out->globals || ftruncate(fd, (off_t)bytes) != 0) goto fail;
  if (!wb_pwrite_all(fd, mem->data, bytes, 0)) goto fail;
  /* nobody may change a snapshot under its copies */
  fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  rt->globals_save(in->inst, out->globals);
  out->runtime = rt;
  out->memory = (wb_memory_image){.fd = fd, .offset = 0, .pages = mem->pages};
  out->owns_fd = true;
  return true;
fail:
  snprintf(err, errlen, "cannot capture a snapshot: %s", strerror(errno));
  if (fd >= 0) close(fd);
  free(out->globals);
  out->globals = NULL;
  return false;
}

static bool reset(wb_instance *in, const wb_snapshot *snap, bool recycle, char *err, size_t errlen) {
  const wb_runtime *rt = in->rt;
  wasm_rt_memory_t *m = in->started ? rt->memory(in->inst) : NULL;
  if (!m || !(recycle ? wb_rt_memory_recycle(m, &snap->memory) : wb_rt_memory_reset(m, &snap->memory))) {
    snprintf(err, errlen, "cannot reset the %s instance: %s", rt->language, strerror(errno));
    return false;
  }
  rt->globals_load(in->inst, snap->globals);
  return true;
}

bool wb_instance_reset(wb_instance *in, const wb_snapshot *snap, char *err, size_t errlen) {
  return reset(in, snap, false, err, errlen);
}

bool wb_instance_recycle(wb_instance *in, const wb_snapshot *snap, char *err, size_t errlen) {
  return reset(in, snap, true, err, errlen);
}

bool wb_instance_rebase(wb_instance *in, const wb_snapshot *snap, char *err, size_t errlen) {
  const wb_runtime *rt = in->rt;
  if (!in->started || !wb_rt_memory_rebase(rt->memory(in->inst), &snap->memory)) {
    snprintf(err, errlen, "cannot reset the %s instance: %s", rt->language, strerror(errno));
    return false;
  }
  rt->globals_load(in->inst, snap->globals);
  return true;
}

ssize_t wb_instance_written(wb_instance *in, uint32_t **out) {
  *out = NULL;
  return in->started ? wb_rt_memory_written(in->rt->memory(in->inst), false, out) : -1;
}

ssize_t wb_instance_take_written(wb_instance *in, uint32_t **out) {
  *out = NULL;
  return in->started ? wb_rt_memory_written(in->rt->memory(in->inst), true, out) : -1;
}

void wb_instance_free(wb_instance *in) {
  if (!in) return;
  if (in->has_thread) {
    pthread_mutex_lock(&in->mu);
    in->quit = true;
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
    pthread_join(in->thread, NULL);
  }
  pthread_mutex_destroy(&in->mu);
  pthread_cond_destroy(&in->cv);
  if (in->started) in->rt->free(in->inst);
  free(in->inst);
  free(in);
}

void wb_snapshot_release(wb_snapshot *s) {
  if (s->owns_fd && s->memory.fd >= 0) close(s->memory.fd);
  if (s->memory.under) wb_overlay_free(&s->memory);
  free(s->globals);
  memset(s, 0, sizeof *s);
  s->memory.fd = -1;
}

void wb_outcome_clear(wb_outcome *o) {
  free(o->error_type);
  free(o->error_message);
  free(o->error_traceback);
  o->error_type = o->error_message = o->error_traceback = NULL;
}
