/* Frames between a worker and its parent (see wire.h). */
#include "jail/wire.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

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

#define GET(type)                        \
  type v = 0;                            \
  const uint8_t *p = take(r, sizeof v);  \
  if (p) memcpy(&v, p, sizeof v);        \
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

uint64_t wb_monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
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
