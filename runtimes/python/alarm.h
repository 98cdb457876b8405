/* signal.alarm, signal.setitimer and signal.getitimer for CPython on WASI,
 * which has neither (build.sh includes this in every CPython file and tells
 * configure they exist). ITIMER_REAL only: the host arms a timer of its own
 * (import wasmbox.set_alarm) and, when it expires, raises SIGALRM in the
 * guest (export wasmbox_raise, wasmbox_main.c) wherever its code is, as a
 * POSIX signal would; CPython's Python-level handler then runs at its next
 * check. The timer belongs to the call: it ends with it. ITIMER_VIRTUAL and
 * ITIMER_PROF fail with EINVAL. (alarm.c also has a clock_nanosleep that
 * reports the interruption: time.sleep must see EINTR.) */
#ifndef WASMBOX_PYTHON_ALARM_H
#define WASMBOX_PYTHON_ALARM_H

#include <sys/time.h>

#define ITIMER_REAL 0
#define ITIMER_VIRTUAL 1
#define ITIMER_PROF 2

struct itimerval {
  struct timeval it_interval;
  struct timeval it_value;
};

int getitimer(int which, struct itimerval *current);
int setitimer(int which, const struct itimerval *value, struct itimerval *old);
unsigned alarm(unsigned seconds);

#endif
