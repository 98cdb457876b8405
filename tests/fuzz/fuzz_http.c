/* libFuzzer: the MCP server's HTTP layer (mcp/http.c) as a client reaches
 * it: the server listens on a loopback port in this process, and each input
 * is written to a new TCP connection, which is then half-closed; the answer
 * is read to the end. libmicrohttpd parses the bytes, our handler checks the
 * request (path, Host, Origin, token, method, types, sizes), takes the body
 * and answers (tools run for real, with a short timeout).
 * The first byte of an input picks how it is sent: bit 0 set, every
 * Content-Length header is replaced by the body's real length (so mutated
 * bodies still reach the handler); bit 1 set, the input goes out in small
 * writes (bodies that arrive in pieces); bit 2 set, it goes to a second
 * server with everything an operator turns on: clients with limits
 * (--tokens; the token is "fuzz-token-0123456789"), signed session ids
 * (--session-key) and an access log.
 * Properties beyond "no crash, leak or UB": the server closes the connection
 * within its deadlines (never hangs), and whatever it sends begins with an
 * HTTP status line. (libFuzzer's -timeout alarm, SIGALRM, lands on this
 * thread: every socket call here goes on after EINTR.) */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mcp/config.h"
#include "mcp/server.h"
#include "mcp/transport.h"
#include "util/os.h"

static mcp_config cfg[2];
static mcp_server *srv[2];
static mcp_http *http[2];
static char home[64];

static void cleanup(void) {
  for (int i = 0; i < 2; i++) {
    mcp_http_stop(http[i]);
    mcp_server_free(srv[i]);
    mcp_config_free(&cfg[i]);
  }
  wb_remove_tree(home);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    fprintf(stderr, "fuzz_http: cannot write %s\n", path);
    exit(1);
  }
  chmod(path, 0600);
}

static void check(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_http: %s\n", what);
  abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(home, sizeof home, "/tmp/wasmbox-fuzz-%d", (int)getpid());
  char tokens[96], key[96];
  snprintf(tokens, sizeof tokens, "%s-tokens", home);
  snprintf(key, sizeof key, "%s-key", home);
  write_file(tokens, "# the harness's client\nfuzz fuzz-token-0123456789 rate=100000/s burst=1000 max-in-flight=8\n");
  write_file(key, "a key of more than thirty-two bytes, for the harness");
  char *args[] = {"serve",       "--listen",
                  "127.0.0.1:0", "--home",
                  home,          "--timeout",
                  "2",           "--max-timeout",
                  "2",           "--memory",
                  "128",         "--max-memory",
                  "128",         "--max-request-bytes",
                  "65536",       "--request-timeout",
                  "5",           "--idle-timeout",
                  "5",           "--log-level",
                  "error",       "--tokens",
                  tokens,        "--session-key",
                  key,           "--access-log",
                  "/dev/null"};
  char err[512];
  int nargs = (int)(sizeof args / sizeof args[0]);
  for (int i = 0; i < 2; i++) /* the first without the last six arguments */
    if (mcp_config_load(&cfg[i], true, i ? nargs : nargs - 6, args, err, sizeof err) != 0 ||
        !(srv[i] = mcp_server_new(&cfg[i], err, sizeof err)) ||
        mcp_http_start(srv[i], &http[i], err, sizeof err) != 0) {
      fprintf(stderr, "fuzz_http: %s\n", err);
      exit(1);
    }
  unlink(tokens);
  unlink(key);
  atexit(cleanup);
  return 0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The input with each Content-Length header replaced by the body's length. */
static size_t fix_length(const uint8_t *in, size_t n, char *out, size_t cap) {
  const uint8_t *eoh = memmem(in, n, "\r\n\r\n", 4);
  if (!eoh) {
    memcpy(out, in, n);
    return n;
  }
  size_t head = (size_t)(eoh - in) + 2, body = n - head - 2, o = 0;
  for (size_t at = 0; at < head;) {
    const uint8_t *eol = memmem(in + at, head - at, "\r\n", 2);
    size_t len = (size_t)(eol - (in + at)) + 2;
    if (len < 15 || strncasecmp((const char *)in + at, "content-length:", 15)) {
      memcpy(out + o, in + at, len);
      o += len;
    }
    at += len;
  }
  o += (size_t)snprintf(out + o, cap - o, "Content-Length: %zu\r\n\r\n", body);
  memcpy(out + o, eoh + 4, body);
  return o + body;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > (64u << 10)) return 0;
  int mode = data[0];
  static char buf[(64u << 10) + 64];
  size_t n = size - 1;
  const char *req = (const char *)data + 1;
  if (mode & 1) {
    n = fix_length(data + 1, size - 1, buf, sizeof buf);
    req = buf;
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  check(fd >= 0, "socket");
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = htons((uint16_t)mcp_http_port(http[mode & 4 ? 1 : 0])),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int c = connect(fd, (struct sockaddr *)&a, sizeof a);
  if (c != 0 && errno == EINTR) { /* (libFuzzer's alarm) the connection goes on: wait for it */
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    while (poll(&p, 1, 5000) < 0 && errno == EINTR) {}
    int e = 0;
    socklen_t l = sizeof e;
    c = getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) == 0 && e == 0 ? 0 : -1;
  }
  check(c == 0, "connect");
  size_t step = mode & 2 ? 7 : n;
  for (size_t at = 0; at < n;) {
    size_t k = n - at < step ? n - at : step;
    ssize_t w = send(fd, req + at, k, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break; /* the server may close early: that is an answer */
    at += (size_t)w;
  }
  shutdown(fd, SHUT_WR);
  /* the answer, to the end: within the call timeout, the request timeout
   * and a margin; a server that keeps the connection longer hangs */
  static char answer[1 << 16];
  size_t got = 0;
  double deadline = now() + 20;
  for (;;) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int left = (int)((deadline - now()) * 1000);
    int ready = left > 0 ? poll(&p, 1, left) : 0;
    if (ready < 0 && errno == EINTR) continue; /* the library's timer signals land on any thread */
    check(ready == 1, "the server kept the connection open past every deadline");
    char tmp[4096];
    ssize_t r = recv(fd, tmp, sizeof tmp, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (got < sizeof answer) {
      size_t k = (size_t)r < sizeof answer - got ? (size_t)r : sizeof answer - got;
      memcpy(answer + got, tmp, k);
      got += k;
    }
  }
  close(fd);
  check(got == 0 || (got >= 9 && !memcmp(answer, "HTTP/1.", 7)), "an answer that is not HTTP");
  return 0;
}
