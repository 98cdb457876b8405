/* The "wasmbox" import module (see host_imports.h). */
#include "engine/host_imports.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wasm-rt.h>

#include "wasm_rt/guest.h"

#define TYPE_MAX 256
#define MESSAGE_MAX (16u << 10)
#define TRACEBACK_MAX (64u << 10)

static const char cut_mark[] = "\n[... cut by wasmbox]";

/* A bounded copy of guest bytes; a cut copy ends with a visible mark. */
static char *copy_guest(struct Z_wasmbox_instance_t *h, uint32_t ptr, uint32_t len, uint32_t max) {
  if ((uint64_t)ptr + len > h->mem->size) wb_guest_trap(WASM_RT_TRAP_OOB);
  uint32_t n = len > max ? max : len;
  size_t extra = len > max ? sizeof cut_mark - 1 : 0;
  char *s = malloc((size_t)n + extra + 1);
  if (!s) return NULL;
  memcpy(s, h->mem->data + ptr, n);
  memcpy(s + n, cut_mark, extra);
  s[n + extra] = 0;
  return s;
}

void Z_wasmboxZ_report_error(struct Z_wasmbox_instance_t *h, uint32_t type, uint32_t type_len, uint32_t msg,
                             uint32_t msg_len, uint32_t tb, uint32_t tb_len) {
  wb_host_enter();
  free(*h->error_type);
  free(*h->error_message);
  free(*h->error_traceback);
  *h->error_type = *h->error_message = *h->error_traceback = NULL;
  *h->error_type = copy_guest(h, type, type_len, TYPE_MAX);
  *h->error_message = copy_guest(h, msg, msg_len, MESSAGE_MAX);
  *h->error_traceback = copy_guest(h, tb, tb_len, TRACEBACK_MAX);
  wb_host_leave();
}

static const char no_tools[] =
    "{\"ok\":false,\"error\":{\"type\":\"ToolError\",\"message\":"
    "\"no tools are available to this call\"}}";
static const char no_memory[] =
    "{\"ok\":false,\"error\":{\"type\":\"ToolError\",\"message\":"
    "\"the host ran out of memory answering the request\"}}";

void wb_host_drop_reply(struct Z_wasmbox_instance_t *h) {
  free(h->reply);
  h->reply = NULL;
  h->reply_len = 0;
}

static void set_reply(struct Z_wasmbox_instance_t *h, const char *text) {
  size_t n = strlen(text);
  h->reply = malloc(n);
  if (h->reply) memcpy(h->reply, text, n);
  h->reply_len = h->reply ? n : 0;
}

uint32_t Z_wasmboxZ_tool_request(struct Z_wasmbox_instance_t *h, uint32_t req, uint32_t req_len) {
  if ((uint64_t)req + req_len > h->mem->size) wb_guest_trap(WASM_RT_TRAP_OOB);
  wb_host_enter();
  wb_host_drop_reply(h);
  if (!h->tools) {
    set_reply(h, no_tools);
  } else {
    bool pause = false;
    h->reply = h->tools->answer(h->tools->ctx, h->mem->data + req, req_len, &h->reply_len, &pause);
    if (pause) {
      wb_host_drop_reply(h);
      wb_guest_trap(WB_TRAP_PAUSE);
    }
    if (!h->reply || h->reply_len > UINT32_MAX) {
      wb_host_drop_reply(h);
      set_reply(h, no_memory);
    }
  }
  wb_host_leave();
  return (uint32_t)h->reply_len;
}

void Z_wasmboxZ_tool_reply(struct Z_wasmbox_instance_t *h, uint32_t buf, uint32_t len) {
  if ((uint64_t)buf + len > h->mem->size) wb_guest_trap(WASM_RT_TRAP_OOB);
  size_t n = len < h->reply_len ? len : h->reply_len;
  if (n) memcpy(h->mem->data + buf, h->reply, n);
  wb_host_drop_reply(h);
}

/* ---- the guest's timer ----------------------------------------------------------- */

#define ALARM_NS_MAX (365ull * 86400 * 1000000000) /* longer than any call */

static struct timespec to_timespec(uint64_t ns) {
  if (ns > ALARM_NS_MAX) ns = ALARM_NS_MAX;
  return (struct timespec){.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
}

static uint64_t to_ns(const struct timespec *t) { return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec; }

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint32_t Z_wasmboxZ_set_alarm(struct Z_wasmbox_instance_t *h, uint64_t value_ns, uint64_t interval_ns, uint32_t old) {
  wb_host_enter();
  if ((uint64_t)old + 16 > h->mem->size) wb_guest_trap(WASM_RT_TRAP_OOB);
  bool ok = true;
  struct itimerspec was = {0};
  if (h->alarm_made) timer_gettime(h->alarm, &was);
  put_u64(h->mem->data + old, to_ns(&was.it_value));
  put_u64(h->mem->data + old + 8, to_ns(&was.it_interval));
  if (value_ns != UINT64_MAX && (h->alarm_made || value_ns)) {
    if (!h->alarm_made) {
      /* to this thread, the guest's (the one running it) */
      struct sigevent ev;
      memset(&ev, 0, sizeof ev);
      ev.sigev_notify = SIGEV_THREAD_ID;
      ev.sigev_signo = wb_guest_alarm_signal();
      ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
      h->alarm_made = timer_create(CLOCK_MONOTONIC, &ev, &h->alarm) == 0;
    }
    struct itimerspec its = {.it_value = to_timespec(value_ns), .it_interval = to_timespec(interval_ns)};
    ok = h->alarm_made && timer_settime(h->alarm, 0, &its, NULL) == 0;
  }
  wb_host_leave();
  return ok ? 0 : 1;
}

void wb_host_end_alarm(struct Z_wasmbox_instance_t *h) {
  if (!h->alarm_made) return;
  timer_delete(h->alarm);
  h->alarm_made = false;
}
