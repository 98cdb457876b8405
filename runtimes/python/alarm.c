/* The timers of alarm.h, on the host's (import wasmbox.set_alarm); and the
 * sleep they interrupt. */
#include "alarm.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <wasi/api.h>

/* Arm (value_ns 0: disarm) the call's timer, first writing what it had left
 * and its interval, in ns, to old[0] and old[1]. value_ns UINT64_MAX: only
 * read them. Non-zero: the host could not make a timer. */
__attribute__((import_module("wasmbox"), import_name("set_alarm")))
uint32_t wb_set_alarm(uint64_t value_ns, uint64_t interval_ns, uint64_t *old);

#define NS_MAX (UINT64_MAX / 2) /* longer than any call */

static int to_ns(const struct timeval *t, uint64_t *ns) {
  if (t->tv_sec < 0 || t->tv_usec < 0 || t->tv_usec >= 1000000) return -1;
  uint64_t s = (uint64_t)t->tv_sec;
  *ns = s >= NS_MAX / 1000000000u ? NS_MAX : s * 1000000000u + (uint64_t)t->tv_usec * 1000u;
  return 0;
}

static void from_ns(uint64_t ns, struct timeval *t) {
  t->tv_sec = (time_t)(ns / 1000000000u);
  t->tv_usec = (suseconds_t)((ns % 1000000000u + 999) / 1000); /* never 0 while time is left */
  if (t->tv_usec == 1000000) t->tv_sec++, t->tv_usec = 0;
}

int setitimer(int which, const struct itimerval *value, struct itimerval *old) {
  uint64_t v, i, was[2];
  if (which != ITIMER_REAL || !value || to_ns(&value->it_value, &v) || to_ns(&value->it_interval, &i)) {
    errno = EINVAL;
    return -1;
  }
  if (wb_set_alarm(v, v ? i : 0, was) != 0) {
    errno = EAGAIN;
    return -1;
  }
  if (old) {
    from_ns(was[0], &old->it_value);
    from_ns(was[1], &old->it_interval);
  }
  return 0;
}

int getitimer(int which, struct itimerval *current) {
  uint64_t was[2];
  if (which != ITIMER_REAL || !current) {
    errno = EINVAL;
    return -1;
  }
  wb_set_alarm(UINT64_MAX, 0, was);
  from_ns(was[0], &current->it_value);
  from_ns(was[1], &current->it_interval);
  return 0;
}

unsigned alarm(unsigned seconds) {
  struct itimerval value = {.it_value = {.tv_sec = seconds}}, old;
  setitimer(ITIMER_REAL, &value, &old);
  /* what was left, in whole seconds, rounded up as alarm(2) does */
  return (unsigned)old.it_value.tv_sec + (old.it_value.tv_usec > 0);
}

/* wasi-libc's clock_nanosleep turns every error of its poll_oneoff into
 * ENOTSUP; the host's poll_oneoff ends a sleep that the alarm interrupts
 * with EINTR, which time.sleep must see (it then runs the handler and, if
 * that returns, sleeps on for the rest, PEP 475). This one keeps EINTR; it
 * replaces libc's (nanosleep calls it). */
struct __clockid {
  __wasi_clockid_t id; /* wasi-libc's definition (a clockid_t points to one) */
};

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request, struct timespec *remain) {
  (void)remain; /* an interrupted sleep's remainder: the caller recomputes it */
  if (request->tv_sec < 0 || request->tv_nsec < 0 || request->tv_nsec >= 1000000000) return EINVAL;
  uint64_t ns = (uint64_t)request->tv_sec >= UINT64_MAX / 1000000000u
                    ? UINT64_MAX
                    : (uint64_t)request->tv_sec * 1000000000u + (uint64_t)request->tv_nsec;
  __wasi_subscription_t sub = {
      .u = {.tag = __WASI_EVENTTYPE_CLOCK,
            .u.clock = {.id = clock->id,
                        .timeout = ns,
                        .precision = 0,
                        .flags = (flags & TIMER_ABSTIME) ? __WASI_SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME : 0}}};
  __wasi_event_t ev;
  __wasi_size_t n;
  __wasi_errno_t e = __wasi_poll_oneoff(&sub, &ev, 1, &n);
  if (e == __WASI_ERRNO_INTR) return EINTR;
  return e == 0 && n == 1 && ev.error == 0 ? 0 : ENOTSUP;
}
