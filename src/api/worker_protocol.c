/* The worker protocol (see worker_protocol.h). */
#include "api/worker_protocol.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "util/os.h"

void wb_put_u8(wb_buf *b, uint8_t v) { wb_buf_append(b, &v, 1); }
void wb_put_u32(wb_buf *b, uint32_t v) { wb_buf_append(b, &v, sizeof v); }
void wb_put_u64(wb_buf *b, uint64_t v) { wb_buf_append(b, &v, sizeof v); }
void wb_put_f64(wb_buf *b, double v) { wb_buf_append(b, &v, sizeof v); }

void wb_put_bytes(wb_buf *b, const void *p, size_t n) {
  wb_put_u8(b, p != NULL);
  if (!p) return;
  wb_put_u64(b, n);
  wb_buf_append(b, p, n);
  wb_put_u8(b, 0);
}

void wb_put_str(wb_buf *b, const char *s) { wb_put_bytes(b, s, s ? strlen(s) : 0); }

static const uint8_t *take(wb_reader *r, size_t n) {
  if (r->bad || n > r->len - r->at) {
    r->bad = true;
    return NULL;
  }
  const uint8_t *p = r->p + r->at;
  r->at += n;
  return p;
}

#define GET(type)                       \
  type v = 0;                           \
  const uint8_t *p = take(r, sizeof v); \
  if (p) memcpy(&v, p, sizeof v);       \
  return v

uint8_t wb_get_u8(wb_reader *r) { GET(uint8_t); }
uint32_t wb_get_u32(wb_reader *r) { GET(uint32_t); }
uint64_t wb_get_u64(wb_reader *r) { GET(uint64_t); }
double wb_get_f64(wb_reader *r) { GET(double); }

const char *wb_get_bytes(wb_reader *r, size_t *n) {
  *n = 0;
  if (!wb_get_u8(r)) return NULL;
  uint64_t len = wb_get_u64(r);
  if (r->bad || len >= r->len - r->at) {
    r->bad = true;
    return NULL;
  }
  const char *s = (const char *)take(r, (size_t)len + 1);
  if (!s || s[len] != 0) {
    r->bad = true;
    return NULL;
  }
  *n = (size_t)len;
  return s;
}

const char *wb_get_str(wb_reader *r) {
  size_t n;
  const char *s = wb_get_bytes(r, &n);
  if (s && strlen(s) != n) r->bad = true; /* a C string holds no NUL */
  return r->bad ? NULL : s;
}

/* Wait until fd is ready for `events` or the deadline passes. */
static bool wait_fd(int fd, short events, uint64_t deadline_ns) {
  for (;;) {
    int ms = -1;
    if (deadline_ns) {
      uint64_t now = wb_monotonic_ns();
      if (now >= deadline_ns) {
        errno = ETIMEDOUT;
        return false;
      }
      ms = (int)((deadline_ns - now + 999999) / 1000000);
    }
    struct pollfd p = {.fd = fd, .events = events};
    int r = poll(&p, 1, ms);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
}

static bool write_all(int fd, struct iovec *iov, int n, uint64_t deadline_ns) {
  while (n > 0) {
    /* sendmsg, not writev: a peer that died must be an error here, not a
     * SIGPIPE that ends the whole process */
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      if (!wait_fd(fd, POLLOUT, deadline_ns)) return false;
      continue;
    }
    if (w <= 0) return false;
    while (n > 0 && (size_t)w >= iov->iov_len) {
      w -= (ssize_t)iov->iov_len;
      iov++;
      n--;
    }
    if (n > 0) {
      iov->iov_base = (char *)iov->iov_base + w;
      iov->iov_len -= (size_t)w;
    }
  }
  return true;
}

bool wb_frame_write(int fd, uint8_t type, const wb_buf *payload, uint64_t deadline_ns) {
  if (payload->failed || payload->len + 1 > WB_FRAME_MAX) {
    errno = ENOMEM;
    return false;
  }
  uint8_t head[5];
  uint32_t len = (uint32_t)(payload->len + 1);
  memcpy(head, &len, 4);
  head[4] = type;
  struct iovec iov[2] = {{head, sizeof head}, {payload->data, payload->len}};
  return write_all(fd, iov, payload->len ? 2 : 1, deadline_ns);
}

static bool read_all(int fd, void *buf, size_t n, bool first, uint64_t deadline_ns) {
  size_t at = 0;
  while (at < n) {
    ssize_t r = read(fd, (char *)buf + at, n - at);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) {
      if (!wait_fd(fd, POLLIN, deadline_ns)) return false;
      continue;
    }
    if (r == 0) errno = first && at == 0 ? 0 : EPROTO;
    if (r <= 0) return false;
    at += (size_t)r;
  }
  return true;
}

bool wb_frame_read(int fd, uint8_t *type, uint8_t **payload, size_t *len, uint64_t max, uint64_t deadline_ns) {
  uint8_t head[5];
  *payload = NULL;
  *len = 0;
  if (!read_all(fd, head, sizeof head, true, deadline_ns)) return false;
  uint32_t n;
  memcpy(&n, head, 4);
  if (n == 0) {
    errno = EPROTO;
    return false;
  }
  if (n - 1 > max || n > WB_FRAME_MAX) {
    errno = EMSGSIZE;
    return false;
  }
  *type = head[4];
  uint8_t *p = malloc(n);
  if (!p) return false;
  if (!read_all(fd, p, n - 1, false, deadline_ns)) {
    free(p);
    return false;
  }
  p[n - 1] = 0;
  *payload = p;
  *len = n - 1;
  return true;
}

/* ---- messages ---------------------------------------------------------------- */

/* Each encoder puts its message's fields one a line, in the order its
 * decoder reads them back: encoders look alike by design, so that each can
 * be checked against its decoder line by line. */

void wb_encode_request(wb_buf *b, const wasmbox_request *q, const wb_journal_wire *j) {
  wb_put_str(b, q->language);
  wb_put_bytes(b, q->code, q->code_len);
  wb_put_str(b, q->filename);
  wb_put_str(b, q->workspace);
  wb_put_f64(b, q->timeout_seconds);
  wb_put_u64(b, q->memory_bytes);
  wb_put_u64(b, q->fuel);
  wb_put_u64(b, q->max_output_bytes);
  wb_put_u64(b, q->quota_bytes);
  wb_put_bytes(b, q->stdin_data, q->stdin_data ? q->stdin_len : 0);
  wb_put_u32(b, (uint32_t)q->env_len);
  for (size_t i = 0; i < q->env_len; i++) wb_put_str(b, q->env[i]);
  wb_put_u32(b, (uint32_t)q->mounts_len);
  for (size_t i = 0; i < q->mounts_len; i++) {
    wb_put_str(b, q->mounts[i].host_dir);
    wb_put_str(b, q->mounts[i].guest_path);
  }
  wb_put_str(b, q->session_id);
  wb_put_u8(b, q->no_files);
  wb_put_u8(b, j && j->record);
  wb_put_bytes(b, j ? j->replay : NULL, j && j->replay ? j->replay_len : 0);
}

bool wb_decode_request(wb_reader *r, wasmbox_request *q, wb_request_storage *s, wb_journal_wire *j) {
  memset(q, 0, sizeof *q);
  memset(j, 0, sizeof *j);
  memset(s, 0, sizeof *s);
  q->language = wb_get_str(r);
  q->code = wb_get_bytes(r, &q->code_len);
  q->filename = wb_get_str(r);
  q->workspace = wb_get_str(r);
  q->timeout_seconds = wb_get_f64(r);
  q->memory_bytes = wb_get_u64(r);
  q->fuel = wb_get_u64(r);
  q->max_output_bytes = (size_t)wb_get_u64(r);
  q->quota_bytes = wb_get_u64(r);
  q->stdin_data = wb_get_bytes(r, &q->stdin_len);
  uint32_t nenv = wb_get_u32(r);
  if (r->bad || nenv > WB_ENV_MAX || !(s->env = calloc(nenv + 1, sizeof *s->env))) return false;
  for (uint32_t i = 0; i < nenv; i++) s->env[i] = wb_get_str(r);
  q->env = s->env;
  q->env_len = nenv;
  uint32_t nm = wb_get_u32(r);
  if (r->bad || nm > WASMBOX_MAX_MOUNTS) return false;
  for (uint32_t i = 0; i < nm; i++) {
    s->mounts[i].host_dir = wb_get_str(r);
    s->mounts[i].guest_path = wb_get_str(r);
  }
  q->mounts = s->mounts;
  q->mounts_len = nm;
  q->session_id = wb_get_str(r);
  q->no_files = wb_get_u8(r) != 0;
  j->record = wb_get_u8(r) != 0;
  j->replay = wb_get_bytes(r, &j->replay_len);
  return !r->bad && q->code;
}

void wb_request_storage_free(wb_request_storage *s) { free(s->env); }

void wb_encode_result(wb_buf *b, const wasmbox_result *p, const char *journal, size_t journal_len,
                      bool journal_overflowed) {
  wb_put_u32(b, (uint32_t)p->status);
  wb_put_u32(b, (uint32_t)p->exit_code);
  wb_put_bytes(b, p->stdout_data, p->stdout_len);
  wb_put_bytes(b, p->stderr_data, p->stderr_len);
  wb_put_u8(b, p->stdout_truncated);
  wb_put_u8(b, p->stderr_truncated);
  wb_put_u64(b, p->stdout_total);
  wb_put_u64(b, p->stderr_total);
  wb_put_str(b, p->error_type);
  wb_put_str(b, p->error_message);
  wb_put_str(b, p->error_traceback);
  wb_put_u32(b, (uint32_t)p->guidance_len);
  for (size_t i = 0; i < p->guidance_len; i++) {
    wb_put_str(b, p->guidance[i]);
    wb_put_str(b, p->guidance_types[i]); /* the docs follow from the type */
  }
  wb_put_f64(b, p->duration_ms);
  wb_put_u64(b, p->fuel_used);
  wb_put_u64(b, p->memory_peak_bytes);
  wb_put_str(b, p->session_id);
  wb_put_u8(b, p->session_rolled_back);
  wb_put_u32(b, (uint32_t)p->files_changed_len);
  for (size_t i = 0; i < p->files_changed_len; i++) wb_put_str(b, p->files_changed[i]);
  wb_put_bytes(b, journal, journal ? journal_len : 0);
  wb_put_u8(b, journal_overflowed);
}

static char *dup_or_null(const char *s, size_t n, bool *ok) {
  if (!s) return NULL;
  char *d = malloc(n + 1);
  if (!d) {
    *ok = false;
    return NULL;
  }
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

static char *dup_str(const char *s, bool *ok) { return dup_or_null(s, s ? strlen(s) : 0, ok); }

wb_result *wb_decode_result(wb_reader *r) {
  wb_result *res = calloc(1, sizeof *res);
  if (!res) return NULL;
  wasmbox_result *p = &res->pub;
  bool ok = true;
  uint32_t status = wb_get_u32(r);
  p->status = status <= WASMBOX_STATUS_PAUSED ? (wasmbox_status)status : WASMBOX_STATUS_CRASHED;
  p->exit_code = (int)wb_get_u32(r);
  size_t n;
  const char *s = wb_get_bytes(r, &n);
  res->out = dup_or_null(s ? s : "", n, &ok);
  p->stdout_len = n;
  s = wb_get_bytes(r, &n);
  res->err = dup_or_null(s ? s : "", n, &ok);
  p->stderr_len = n;
  p->stdout_truncated = wb_get_u8(r);
  p->stderr_truncated = wb_get_u8(r);
  p->stdout_total = wb_get_u64(r);
  p->stderr_total = wb_get_u64(r);
  res->type = dup_str(wb_get_str(r), &ok);
  res->message = dup_str(wb_get_str(r), &ok);
  res->traceback = dup_str(wb_get_str(r), &ok);
  uint32_t ng = wb_get_u32(r);
  if (ng > WB_GUIDANCE_MAX) r->bad = true;
  for (uint32_t i = 0; !r->bad && i < ng; i++) {
    res->guidance[i] = dup_str(wb_get_str(r), &ok);
    /* a kind this build knows, as the table's own strings */
    if (!(res->guidance_type[i] = wb_guidance_kind(wb_get_str(r), &res->guidance_doc[i]))) r->bad = true;
  }
  p->guidance_len = r->bad ? 0 : ng;
  p->duration_ms = wb_get_f64(r);
  p->fuel_used = wb_get_u64(r);
  p->memory_peak_bytes = wb_get_u64(r);
  res->session = dup_str(wb_get_str(r), &ok);
  p->session_rolled_back = wb_get_u8(r);
  uint32_t nf = wb_get_u32(r);
  /* each name takes at least 10 bytes of the frame (flag, length, NUL):
   * no count can make us allocate more than the frame holds */
  if (nf > (r->len - r->at) / 10) r->bad = true;
  res->files = r->bad ? NULL : calloc(nf ? nf : 1, sizeof *res->files);
  for (uint32_t i = 0; res->files && !r->bad && i < nf; i++) {
    res->files[i] = dup_str(wb_get_str(r), &ok);
    p->files_changed_len = i + 1;
    if (!res->files[i]) ok = false;
  }
  if (!res->files) ok = false;
  const char *journal = wb_get_bytes(r, &n);
  if (journal) {
    res->journal = dup_or_null(journal, n, &ok);
    res->journal_len = n;
  }
  res->journal_overflowed = wb_get_u8(r) != 0;
  for (size_t i = 0; i < p->guidance_len; i++)
    if (!res->guidance[i]) ok = false;
  /* contradictions: less output in all than was kept, a duration that is no time */
  if (p->stdout_total < p->stdout_len || p->stderr_total < p->stderr_len || !(p->duration_ms >= 0) ||
      p->duration_ms > 1e12)
    r->bad = true;
  if (!ok || r->bad || r->at != r->len) {
    wasmbox_result_free(p);
    return NULL;
  }
  p->stdout_data = res->out;
  p->stderr_data = res->err;
  p->error_type = res->type;
  p->error_message = res->message;
  p->error_traceback = res->traceback;
  p->guidance = (const char *const *)res->guidance;
  p->guidance_types = res->guidance_type;
  p->guidance_docs = res->guidance_doc;
  p->session_id = res->session;
  p->files_changed = (const char *const *)res->files;
  return res;
}

void wb_encode_setup(wb_buf *b, const wb_worker_setup *s) {
  wb_put_str(b, s->home);
  wb_put_str(b, s->scratch);
  wb_put_u8(b, s->session);
  wb_put_u32(b, (uint32_t)s->spec.npaths);
  for (size_t i = 0; i < s->spec.npaths; i++) {
    wb_put_str(b, s->spec.paths[i].path);
    wb_put_u8(b, s->spec.paths[i].writable);
    wb_put_u8(b, s->spec.paths[i].is_file);
    wb_put_u8(b, s->spec.paths[i].tmpfs);
  }
  wb_put_u64(b, s->spec.max_file_bytes);
  wb_put_u32(b, s->spec.max_fds);
  wb_put_u64(b, s->image_release_ns);
  wb_put_str(b, s->runtime);
}

bool wb_decode_setup(wb_reader *r, wb_worker_setup *s) {
  memset(s, 0, sizeof *s);
  s->home = wb_get_str(r);
  s->scratch = wb_get_str(r);
  s->session = wb_get_u8(r) != 0;
  uint32_t n = wb_get_u32(r);
  if (n > WB_JAIL_PATHS_MAX) r->bad = true;
  for (uint32_t i = 0; !r->bad && i < n; i++) {
    s->spec.paths[i].path = (char *)wb_get_str(r);
    s->spec.paths[i].writable = wb_get_u8(r) != 0;
    s->spec.paths[i].is_file = wb_get_u8(r) != 0;
    s->spec.paths[i].tmpfs = wb_get_u8(r) != 0;
    if (!s->spec.paths[i].path || s->spec.paths[i].path[0] != '/') r->bad = true;
  }
  s->spec.npaths = r->bad ? 0 : n;
  s->spec.max_file_bytes = wb_get_u64(r);
  s->spec.max_fds = wb_get_u32(r);
  s->image_release_ns = wb_get_u64(r);
  s->runtime = wb_get_str(r);
  return !r->bad && r->at == r->len && s->home && s->home[0] == '/' && (!s->scratch || s->scratch[0] == '/');
}

void wb_encode_ready(wb_buf *b, const wb_jail_report *rep, const char *host_scratch) {
  for (int l = 0; l < WB_LAYER_COUNT; l++) {
    wb_put_u8(b, rep->active[l]);
    wb_put_str(b, rep->detail[l]);
  }
  wb_put_str(b, host_scratch);
}

bool wb_decode_ready(wb_reader *r, wb_jail_report *rep, const char **host_scratch) {
  memset(rep, 0, sizeof *rep);
  for (int l = 0; l < WB_LAYER_COUNT && !r->bad; l++) {
    rep->active[l] = wb_get_u8(r) != 0;
    const char *d = wb_get_str(r);
    if (!d) r->bad = true;
    else snprintf(rep->detail[l], sizeof rep->detail[l], "%s", d);
  }
  *host_scratch = wb_get_str(r);
  return !r->bad && r->at == r->len && (!*host_scratch || (*host_scratch)[0] == '/');
}

void wb_encode_error(wb_buf *b, int rc, const char *message) {
  wb_put_u32(b, (uint32_t)rc);
  wb_put_str(b, message);
}

bool wb_decode_error(wb_reader *r, int *rc, const char **message) {
  uint32_t code = wb_get_u32(r);
  *message = wb_get_str(r);
  *rc = code == WASMBOX_EUSAGE ? WASMBOX_EUSAGE : WASMBOX_EINTERNAL;
  return !r->bad && r->at == r->len && *message;
}

void wb_encode_tool(wb_buf *b, uint32_t seq, uint8_t flags, const void *bytes, size_t n) {
  wb_put_u32(b, seq);
  wb_put_u8(b, flags);
  wb_put_bytes(b, bytes, n);
}

bool wb_decode_tool(wb_reader *r, uint32_t *seq, uint8_t *flags, const char **bytes, size_t *n) {
  *seq = wb_get_u32(r);
  *flags = wb_get_u8(r);
  *bytes = wb_get_bytes(r, n);
  bool pause = *flags == WB_TOOL_PAUSE;
  return !r->bad && (*flags == 0 || pause) && (pause ? !*bytes : *bytes != NULL) && r->at == r->len;
}
