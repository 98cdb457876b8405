/* WASI host: lifecycle, descriptor table, stdio capture, and the calls that
 * are not about files (args, env, clocks, random, poll, exit). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "wasm_rt/guest.h"
#include "wasi/calls.h"
#include "wasi/internal.h"

/* ---- lifecycle ---------------------------------------------------------- */

static char **copy_strings(const char *const *src, size_t n) {
  char **dst = calloc(n ? n : 1, sizeof *dst);
  if (!dst) return NULL;
  for (size_t i = 0; i < n; i++) {
    dst[i] = strdup(src[i]);
    if (!dst[i]) return NULL;
  }
  return dst;
}

static void free_strings(char **s, size_t n) {
  if (!s) return;
  for (size_t i = 0; i < n; i++) free(s[i]);
  free(s);
}

wb_wasi *wb_wasi_new(const wb_wasi_config *cfg, char *err, size_t errlen) {
  wb_wasi *w = calloc(1, sizeof *w);
  if (!w) goto oom;
  w->max_fds = cfg->max_fds ? cfg->max_fds : 64;
  if (w->max_fds < 3 + cfg->nmounts) w->max_fds = (uint32_t)(3 + cfg->nmounts);
  w->fds = calloc(w->max_fds, sizeof *w->fds);
  w->args = copy_strings(cfg->args, cfg->nargs);
  w->env = copy_strings(cfg->env, cfg->nenv);
  w->mounts = calloc(cfg->nmounts ? cfg->nmounts : 1, sizeof *w->mounts);
  w->mount_roots = calloc(cfg->nmounts ? cfg->nmounts : 1, sizeof *w->mount_roots);
  if (!w->fds || !w->args || !w->env || !w->mounts || !w->mount_roots) goto oom;
  w->nargs = cfg->nargs;
  w->nenv = cfg->nenv;
  if (cfg->stdin_len) {
    w->stdin_data = malloc(cfg->stdin_len);
    if (!w->stdin_data) goto oom;
    memcpy(w->stdin_data, cfg->stdin_data, cfg->stdin_len);
    w->stdin_len = cfg->stdin_len;
  }
  for (int i = 0; i < 2; i++) w->out[i].max = cfg->max_output;
  w->fds[0] = (wb_fd){.kind = FD_STDIN, .readable = true, .host_fd = -1};
  w->fds[1] = (wb_fd){.kind = FD_STDOUT, .writable = true, .host_fd = -1};
  w->fds[2] = (wb_fd){.kind = FD_STDERR, .writable = true, .host_fd = -1};
  w->nfds = 3;

  for (size_t i = 0; i < cfg->nmounts; i++) {
    wb_mount *m = &w->mounts[i];
    *m = cfg->mounts[i];
    m->guest_path = strdup(cfg->mounts[i].guest_path);
    m->host_dir = cfg->mounts[i].host_dir ? strdup(cfg->mounts[i].host_dir) : NULL;
    if (!m->guest_path || (cfg->mounts[i].host_dir && !m->host_dir)) goto oom;
    w->nmounts = i + 1;
    wb_fd *f = &w->fds[w->nfds];
    *f = (wb_fd){.kind = m->image ? FD_IMAGE : FD_HOST,
                 .is_dir = true,
                 .preopen = true,
                 .readable = true,
                 .writable = m->writable && !m->image,
                 .mount = m,
                 .host_fd = -1,
                 .node = 0};
    f->guest_path = strdup(m->guest_path);
    if (!f->guest_path) goto oom;
    if (!m->image) {
      f->host_fd = open(m->host_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (f->host_fd < 0 || fstat(f->host_fd, &w->mount_roots[i]) != 0) {
        snprintf(err, errlen, "cannot open %s for %s: %s", m->host_dir, m->guest_path, strerror(errno));
        if (f->host_fd >= 0) close(f->host_fd);
        f->kind = FD_FREE;
        wb_wasi_free(w);
        return NULL;
      }
    }
    w->nfds++;
  }
  w->nfixed = w->nfds;
  w->fd_base = cfg->fd_base;
  w->quota = cfg->quota;
  w->journal = cfg->journal;
  return w;
oom:
  snprintf(err, errlen, "out of memory");
  wb_wasi_free(w);
  return NULL;
}

void wb_wasi_free(wb_wasi *w) {
  if (!w) return;
  for (uint32_t i = 0; i < w->nfds; i++) wb_fd_close(&w->fds[i]);
  free(w->fds);
  free_strings(w->args, w->nargs);
  free_strings(w->env, w->nenv);
  for (size_t i = 0; i < w->nmounts; i++) {
    free((char *)w->mounts[i].guest_path);
    free((char *)w->mounts[i].host_dir);
  }
  free(w->mounts);
  free(w->mount_roots);
  free(w->stdin_data);
  for (int i = 0; i < 2; i++) free(w->out[i].data);
  free_strings(w->changed, w->nchanged);
  free(w);
}

void wb_wasi_bind_memory(wb_wasi *w, wasm_rt_memory_t *mem) { w->mem = mem; }

void wb_wasi_set_deadline(wb_wasi *w, uint64_t deadline_ns) { w->deadline_ns = deadline_ns; }

static wb_output output_of(const out_buf *b) {
  return (wb_output){.data = b->data ? b->data : "", .len = b->len, .total = b->total, .truncated = b->total > b->len};
}

wb_output wb_wasi_stdout(const wb_wasi *w) { return output_of(&w->out[0]); }
wb_output wb_wasi_stderr(const wb_wasi *w) { return output_of(&w->out[1]); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

const char *const *wb_wasi_changed_files(wb_wasi *w, size_t *n) {
  if (w->nchanged) qsort(w->changed, w->nchanged, sizeof *w->changed, cmp_str);
  size_t k = 0;
  for (size_t i = 0; i < w->nchanged; i++) {
    if (k && !strcmp(w->changed[k - 1], w->changed[i])) {
      free(w->changed[i]);
      continue;
    }
    w->changed[k++] = w->changed[i];
  }
  w->nchanged = k;
  *n = k;
  return (const char *const *)w->changed;
}

/* Bounded so that a guest renaming files in a loop cannot grow host memory
 * without end; past the bound the list stops growing (and says so). */
#define CHANGED_MAX 10000

void wb_note_changed(wb_wasi *w, const wb_fd *dir, const char *rel) {
  if (!dir->mount || !dir->mount->writable) return;
  if (w->nchanged >= CHANGED_MAX) return;
  char *p = wb_join_guest_path(dir->guest_path, rel);
  if (!p) return;
  if (w->nchanged == w->changed_cap) {
    size_t cap = w->changed_cap ? w->changed_cap * 2 : 16;
    char **c = realloc(w->changed, cap * sizeof *c);
    if (!c) {
      free(p);
      return;
    }
    w->changed = c;
    w->changed_cap = cap;
  }
  w->changed[w->nchanged++] = p;
}

/* ---- descriptor table ---------------------------------------------------- */

static uint32_t slot_index(const wb_wasi *w, uint32_t fd) {
  if (fd < w->nfixed) return fd;
  if (fd < w->fd_base + w->nfixed) return UINT32_MAX;
  uint64_t slot = (uint64_t)fd - w->fd_base;
  return slot < w->nfds ? (uint32_t)slot : UINT32_MAX;
}

wb_fd *wb_fd_get(wb_wasi *w, uint32_t fd) {
  uint32_t i = slot_index(w, fd);
  if (i == UINT32_MAX || w->fds[i].kind == FD_FREE) return NULL;
  return &w->fds[i];
}

int wb_fd_alloc(wb_wasi *w, uint32_t *fd, wb_fd **entry) {
  uint32_t slot = UINT32_MAX;
  for (uint32_t i = w->nfixed; i < w->nfds && slot == UINT32_MAX; i++)
    if (w->fds[i].kind == FD_FREE) slot = i;
  if (slot == UINT32_MAX) {
    if (w->nfds >= w->max_fds) return WASI_EMFILE;
    slot = w->nfds++;
    memset(&w->fds[slot], 0, sizeof(wb_fd));
  }
  *fd = slot + w->fd_base;
  *entry = &w->fds[slot];
  return 0;
}

static void free_listing(wb_fd *f) {
  for (uint32_t i = 0; i < f->nlisting; i++) free(f->listing[i].name);
  free(f->listing);
  f->listing = NULL;
  f->nlisting = 0;
}

void wb_fd_close(wb_fd *f) {
  if (f->kind == FD_HOST && f->host_fd >= 0) close(f->host_fd);
  free(f->guest_path);
  free_listing(f);
  memset(f, 0, sizeof *f);
  f->host_fd = -1;
}

void wb_fd_set_listing(wb_fd *f, dir_entry *entries, uint32_t n) {
  free_listing(f);
  f->listing = entries;
  f->nlisting = n;
}

/* ---- helpers ------------------------------------------------------------- */

int wb_errno_to_wasi(int e) {
  switch (e) {
    case 0: return WASI_ESUCCESS;
    case E2BIG: return WASI_E2BIG;
    case EACCES: return WASI_EACCES;
    case EAGAIN: return WASI_EAGAIN;
    case EBADF: return WASI_EBADF;
    case EBUSY: return WASI_EBUSY;
    case EDQUOT: return WASI_EDQUOT;
    case EEXIST: return WASI_EEXIST;
    case EFAULT: return WASI_EFAULT;
    case EFBIG: return WASI_EFBIG;
    case EILSEQ: return WASI_EILSEQ;
    case EINTR: return WASI_EINTR;
    case EINVAL: return WASI_EINVAL;
    case EIO: return WASI_EIO;
    case EISDIR: return WASI_EISDIR;
    case ELOOP: return WASI_ELOOP;
    case EMFILE: return WASI_EMFILE;
    case EMLINK: return WASI_EMLINK;
    case ENAMETOOLONG: return WASI_ENAMETOOLONG;
    case ENFILE: return WASI_ENFILE;
    case ENOBUFS: return WASI_ENOBUFS;
    case ENODEV: return WASI_ENODEV;
    case ENOENT: return WASI_ENOENT;
    case ENOMEM: return WASI_ENOMEM;
    case ENOSPC: return WASI_ENOSPC;
    case ENOSYS: return WASI_ENOSYS;
    case ENOTDIR: return WASI_ENOTDIR;
    case ENOTEMPTY: return WASI_ENOTEMPTY;
    case ENOTSOCK: return WASI_ENOTSOCK;
    case EOPNOTSUPP: return WASI_ENOTSUP;
    case ENOTTY: return WASI_ENOTTY;
    case ENXIO: return WASI_ENXIO;
    case EOVERFLOW: return WASI_EOVERFLOW;
    case EPERM: return WASI_EPERM;
    case EPIPE: return WASI_EPIPE;
    case ERANGE: return WASI_ERANGE;
    case EROFS: return WASI_EROFS;
    case ESPIPE: return WASI_ESPIPE;
    case ETIMEDOUT: return WASI_ETIMEDOUT;
    case ETXTBSY: return WASI_ETXTBSY;
    /* openat2 refusing to leave the directory (RESOLVE_BENEATH): the guest
     * asked for something outside its sandbox. */
    case EXDEV: return WASI_EACCES;
  }
  return WASI_EIO;
}

uint64_t wb_now_ns(int clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int wb_guest_path(wb_wasi *w, uint32_t ptr, uint32_t len, char *buf) {
  if (len >= WB_PATH_MAX) return WASI_ENAMETOOLONG;
  const uint8_t *p = gmem(w, ptr, len);
  if (!p) return WASI_EFAULT;
  if (memchr(p, 0, len)) return WASI_EINVAL;
  memcpy(buf, p, len);
  buf[len] = 0;
  return 0;
}

char *wb_join_guest_path(const char *base, const char *rel) {
  size_t cap = strlen(base) + strlen(rel) + 2;
  char *out = malloc(cap);
  if (!out) return NULL;
  size_t n = strlen(base);
  memcpy(out, base, n + 1);
  while (n > 1 && out[n - 1] == '/') out[--n] = 0;
  const char *s = rel;
  while (*s) {
    while (*s == '/') s++;
    const char *e = s;
    while (*e && *e != '/') e++;
    size_t k = (size_t)(e - s);
    if (k == 0 || (k == 1 && s[0] == '.')) {
      /* nothing */
    } else if (k == 2 && s[0] == '.' && s[1] == '.') {
      char *slash = strrchr(out, '/');
      if (slash && slash != out) *slash = 0;
      else out[1] = 0;
      n = strlen(out);
    } else {
      if (n > 1) out[n++] = '/';
      memcpy(out + n, s, k);
      n += k;
      out[n] = 0;
    }
    s = e;
  }
  return out;
}

/* ---- args, env ------------------------------------------------------------ */

static uint32_t strings_sizes(wb_wasi *w, char **v, size_t n, uint32_t count_ptr, uint32_t size_ptr) {
  uint8_t *c = gmem(w, count_ptr, 4), *s = gmem(w, size_ptr, 4);
  if (!c || !s) return WASI_EFAULT;
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) total += strlen(v[i]) + 1;
  put_u32(c, (uint32_t)n);
  put_u32(s, (uint32_t)total);
  return 0;
}

static uint32_t strings_get(wb_wasi *w, char **v, size_t n, uint32_t ptrs, uint32_t buf) {
  uint8_t *p = gmem(w, ptrs, (uint64_t)n * 4);
  if (!p) return WASI_EFAULT;
  uint32_t at = buf;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(v[i]) + 1;
    uint8_t *d = gmem(w, at, len);
    if (!d) return WASI_EFAULT;
    memcpy(d, v[i], len);
    put_u32(p + 4 * i, at);
    at += (uint32_t)len;
  }
  return 0;
}

uint32_t wasi_args_sizes_get(wb_wasi *w, uint32_t count, uint32_t size) {
  return strings_sizes(w, w->args, w->nargs, count, size);
}
uint32_t wasi_args_get(wb_wasi *w, uint32_t ptrs, uint32_t buf) { return strings_get(w, w->args, w->nargs, ptrs, buf); }
uint32_t wasi_environ_sizes_get(wb_wasi *w, uint32_t count, uint32_t size) {
  return strings_sizes(w, w->env, w->nenv, count, size);
}
uint32_t wasi_environ_get(wb_wasi *w, uint32_t ptrs, uint32_t buf) {
  return strings_get(w, w->env, w->nenv, ptrs, buf);
}

/* ---- clocks, random, sched, exit ------------------------------------------ */

static int host_clock(uint32_t id) {
  switch (id) {
    case WASI_CLOCK_REALTIME: return CLOCK_REALTIME;
    case WASI_CLOCK_MONOTONIC: return CLOCK_MONOTONIC;
    /* The guest is this thread: its CPU time is the process's. */
    case WASI_CLOCK_PROCESS_CPUTIME:
    case WASI_CLOCK_THREAD_CPUTIME: return CLOCK_THREAD_CPUTIME_ID;
  }
  return -1;
}

uint32_t wasi_clock_res_get(wb_wasi *w, uint32_t id, uint32_t out) {
  int c = host_clock(id);
  if (c < 0) return WASI_EINVAL;
  uint8_t *p = gmem(w, out, 8);
  if (!p) return WASI_EFAULT;
  struct timespec ts;
  clock_getres(c, &ts);
  put_u64(p, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
  return 0;
}

uint32_t wasi_clock_time_get(wb_wasi *w, uint32_t id, uint64_t precision, uint32_t out) {
  (void)precision;
  int c = host_clock(id);
  if (c < 0) return WASI_EINVAL;
  uint8_t *p = gmem(w, out, 8);
  if (!p) return WASI_EFAULT;
  uint64_t t;
  if (!w->journal || !wb_journal_take(w->journal, WB_JOURNAL_CLOCK, &t, 8)) {
    t = wb_now_ns(c);
    if (w->journal) wb_journal_record(w->journal, WB_JOURNAL_CLOCK, &t, 8);
  }
  put_u64(p, t);
  return 0;
}

uint32_t wasi_random_get(wb_wasi *w, uint32_t buf, uint32_t len) {
  uint8_t *p = gmem(w, buf, len);
  if (!p) return WASI_EFAULT;
  if (w->journal && wb_journal_take(w->journal, WB_JOURNAL_RANDOM, p, len)) return 0;
  uint8_t *start = p;
  uint32_t n_all = len;
  while (len) {
    ssize_t n = getrandom(p, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return WASI_EIO;
    }
    p += n;
    len -= (uint32_t)n;
  }
  if (w->journal) wb_journal_record(w->journal, WB_JOURNAL_RANDOM, start, n_all);
  return 0;
}

uint32_t wasi_sched_yield(wb_wasi *w) {
  (void)w;
  return 0;
}

void wasi_proc_exit(wb_wasi *w, uint32_t code) {
  (void)w;
  wb_guest_frame *f = wb_guest_current();
  if (f) f->exit_code = code;
  wb_guest_trap(WB_TRAP_EXIT);
}

/* ---- stdio ---------------------------------------------------------------- */

static void out_append(out_buf *b, const uint8_t *p, size_t n) {
  b->total += n;
  size_t room = b->max > b->len ? b->max - b->len : 0;
  if (n > room) n = room;
  if (!n) return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    if (cap > b->max) cap = b->max;
    char *d = realloc(b->data, cap + 1);
    if (!d) return; /* counted in total, so reported as truncated */
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = 0;
}

/* fd_write to stdout/stderr: always "succeeds" for the whole request so a
 * program keeps running; what exceeds the limit is counted, not kept. */
uint32_t wb_stdio_write(wb_wasi *w, wb_fd *f, uint32_t iovs, uint32_t n, uint64_t *written) {
  out_buf *b = &w->out[f->kind == FD_STDOUT ? 0 : 1];
  uint8_t *v = gmem(w, iovs, (uint64_t)n * 8);
  if (!v) return WASI_EFAULT;
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t ptr = get_u32(v + 8 * i), len = get_u32(v + 8 * i + 4);
    uint8_t *p = gmem(w, ptr, len);
    if (!p) return WASI_EFAULT;
    out_append(b, p, len);
    total += len;
  }
  *written = total;
  return 0;
}

uint32_t wb_stdin_read(wb_wasi *w, uint32_t iovs, uint32_t n, uint64_t *nread) {
  uint8_t *v = gmem(w, iovs, (uint64_t)n * 8);
  if (!v) return WASI_EFAULT;
  uint64_t total = 0;
  for (uint32_t i = 0; i < n && w->stdin_pos < w->stdin_len; i++) {
    uint32_t ptr = get_u32(v + 8 * i), len = get_u32(v + 8 * i + 4);
    uint8_t *p = gmem(w, ptr, len);
    if (!p) return WASI_EFAULT;
    size_t k = w->stdin_len - w->stdin_pos;
    if (k > len) k = len;
    memcpy(p, w->stdin_data + w->stdin_pos, k);
    w->stdin_pos += k;
    total += k;
  }
  *nread = total;
  return 0;
}

/* ---- poll_oneoff ------------------------------------------------------------ */

/* Sleep until `until` (monotonic ns) or the deadline, whichever is first;
 * reaching the deadline is a timeout trap. False: the guest's alarm came
 * first (the sleep is interrupted, EINTR, as a signal interrupts one). */
static bool sleep_until(wb_wasi *w, uint64_t until) {
  bool hits_deadline = w->deadline_ns && until >= w->deadline_ns;
  if (hits_deadline) until = w->deadline_ns;
  struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ull), .tv_nsec = (long)(until % 1000000000ull)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    wb_guest_frame *f = wb_guest_current();
    if (f && f->deadline_hit) break;
    if (f && f->alarm_due) return false;
  }
  if (hits_deadline) {
    wb_guest_frame *f = wb_guest_current();
    if (f) f->deadline_hit = 1; /* wb_host_leave() turns this into the trap */
  }
  return true;
}

#define POLL_MAX_SUBSCRIPTIONS 4096

uint32_t wasi_poll_oneoff(wb_wasi *w, uint32_t in, uint32_t out, uint32_t nsubs, uint32_t nevents_ptr) {
  if (nsubs == 0 || nsubs > POLL_MAX_SUBSCRIPTIONS) return WASI_EINVAL;
  uint8_t *subs = gmem(w, in, (uint64_t)nsubs * SUB_SIZE);
  uint8_t *evs = gmem(w, out, (uint64_t)nsubs * EVENT_SIZE);
  uint8_t *nev = gmem(w, nevents_ptr, 4);
  if (!subs || !evs || !nev) return WASI_EFAULT;

  /* Descriptors here never block (files, buffers), so any fd subscription is
   * ready now; otherwise sleep until the earliest clock. */
  uint32_t ready = 0;
  uint64_t now = wb_now_ns(CLOCK_MONOTONIC), earliest = UINT64_MAX;
  int64_t earliest_idx = -1;
  for (uint32_t i = 0; i < nsubs; i++) {
    uint8_t *s = subs + (size_t)i * SUB_SIZE;
    uint8_t tag = s[SUB_TAG];
    if (tag == WASI_EVENTTYPE_CLOCK) {
      uint32_t id = get_u32(s + SUB_CLOCK_ID);
      uint64_t t = get_u64(s + SUB_CLOCK_TIMEOUT);
      uint16_t flags;
      memcpy(&flags, s + SUB_CLOCK_FLAGS, 2);
      int c = host_clock(id);
      if (c < 0) return WASI_EINVAL;
      uint64_t until;
      if (flags & WASI_SUBCLOCK_ABSTIME) {
        uint64_t clock_now = wb_now_ns(c);
        until = t > clock_now ? now + (t - clock_now) : now;
      } else {
        until = t > UINT64_MAX - now ? UINT64_MAX : now + t;
      }
      if (until < earliest) {
        earliest = until;
        earliest_idx = i;
      }
    } else if (tag == WASI_EVENTTYPE_FD_READ || tag == WASI_EVENTTYPE_FD_WRITE) {
      uint8_t *e = evs + (size_t)ready * EVENT_SIZE;
      memset(e, 0, EVENT_SIZE);
      put_u64(e + EVENT_USERDATA, get_u64(s + SUB_USERDATA));
      e[EVENT_TYPE] = tag;
      wb_fd *f = wb_fd_get(w, get_u32(s + SUB_FD));
      if (!f) {
        put_u16(e + EVENT_ERROR, WASI_EBADF);
      } else if (f->kind == FD_STDIN) {
        put_u64(e + EVENT_NBYTES, w->stdin_len - w->stdin_pos);
      }
      ready++;
    } else {
      return WASI_EINVAL;
    }
  }
  if (!ready && earliest_idx >= 0) {
    /* a replay does not wait: the clock readings after it are recorded */
    if (earliest > now && !(w->journal && wb_journal_replaying(w->journal)) && !sleep_until(w, earliest))
      return WASI_EINTR; /* wb_host_leave() delivers the alarm */
    uint8_t *s = subs + (size_t)earliest_idx * SUB_SIZE;
    uint8_t *e = evs;
    memset(e, 0, EVENT_SIZE);
    put_u64(e + EVENT_USERDATA, get_u64(s + SUB_USERDATA));
    e[EVENT_TYPE] = WASI_EVENTTYPE_CLOCK;
    ready = 1;
  }
  put_u32(nev, ready);
  return 0;
}

/* ---- sockets: there are none ------------------------------------------------ */

static uint32_t no_socket(wb_wasi *w, uint32_t fd) { return wb_fd_get(w, fd) ? WASI_ENOTSOCK : WASI_EBADF; }

uint32_t wasi_sock_accept(wb_wasi *w, uint32_t fd, uint32_t flags, uint32_t out) {
  (void)flags;
  (void)out;
  return no_socket(w, fd);
}
uint32_t wasi_sock_recv(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t flags, uint32_t nread,
                        uint32_t oflags) {
  (void)iovs, (void)n, (void)flags, (void)nread, (void)oflags;
  return no_socket(w, fd);
}
uint32_t wasi_sock_send(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t flags, uint32_t nwritten) {
  (void)iovs, (void)n, (void)flags, (void)nwritten;
  return no_socket(w, fd);
}
uint32_t wasi_sock_shutdown(wb_wasi *w, uint32_t fd, uint32_t how) {
  (void)how;
  return no_socket(w, fd);
}
