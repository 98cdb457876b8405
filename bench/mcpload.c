/* mcpload: execute_code round trips through the MCP server, as a client
 * sees them, with a given number of calls in flight.
 *
 *   mcpload http PORT CONCURRENCY CALLS    stateless 2026-07-28 POSTs to
 *                                          127.0.0.1:PORT/mcp, one
 *                                          keep-alive connection per thread
 *                                          ($MCPLOAD_TOKEN: a bearer token)
 *   mcpload stdio WASMBOX CONCURRENCY CALLS   wasmbox mcp on pipes, up to
 *                                          CONCURRENCY requests in flight
 * Each answer must hold print(1)'s output. Prints one JSON object:
 * {"p50_ms", "p99_ms", "calls_per_s"}. Written in C so the client costs
 * little next to what it measures. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 50

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void die(const char *what) {
  fprintf(stderr, "mcpload: %s\n", what);
  exit(1);
}

static const char body[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_code\",\"arguments\":"
    "{\"code\":\"print(1)\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";

typedef struct {
  int port, calls;
  double *lat;
} worker;

static void *http_worker(void *arg) {
  worker *w = arg;
  int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)w->port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) die("cannot connect");
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char req[2048], resp[65536];
  const char *token = getenv("MCPLOAD_TOKEN");
  int n = snprintf(req, sizeof req,
                   "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                   "Mcp-Method: tools/call\r\nMcp-Name: execute_code\r\n%s%.300s%sContent-Length: %zu\r\n\r\n%s",
                   token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "", strlen(body), body);
  for (int i = -WARMUP; i < w->calls; i++) {
    double t = now_ms();
    if (write(fd, req, (size_t)n) != n) die("write failed");
    size_t got = 0;
    long want = -1;
    char *hdr_end = NULL;
    for (;;) {
      ssize_t r = read(fd, resp + got, sizeof resp - 1 - got);
      if (r <= 0) die("connection closed");
      got += (size_t)r;
      resp[got] = 0;
      if (!hdr_end && (hdr_end = strstr(resp, "\r\n\r\n"))) {
        char *cl = strcasestr(resp, "Content-Length:");
        if (!cl) die("no Content-Length");
        want = (long)(hdr_end + 4 - resp) + atol(cl + 15);
      }
      if (want >= 0 && (long)got >= want) break;
    }
    if (strncmp(resp, "HTTP/1.1 200", 12) || !strstr(resp, "\\\"stdout\\\":\\\"1\\\\n\\\"")) die(resp);
    if (i >= 0) w->lat[i] = now_ms() - t;
  }
  close(fd);
  return NULL;
}

static void report(double *lat, int calls, double wall) {
  qsort(lat, (size_t)calls, sizeof *lat, cmp);
  printf("{\"p50_ms\": %.3f, \"p99_ms\": %.3f, \"calls_per_s\": %.0f}\n", lat[calls / 2],
         lat[(int)(calls * 0.99) < calls ? (int)(calls * 0.99) : calls - 1], calls / (wall / 1e3));
}

static int run_http(int port, int conc, int calls) {
  pthread_t th[64];
  worker w[64];
  double *lat = malloc(sizeof *lat * (size_t)calls);
  int per = calls / conc;
  calls = per * conc;
  double t0 = 0;
  for (int i = 0; i < conc; i++) {
    w[i] = (worker){.port = port, .calls = per, .lat = lat + (size_t)i * (size_t)per};
  }
  /* warm-up is inside each worker; wall time covers it too, so time it
   * separately: run the warm-up, then the measured calls */
  t0 = now_ms();
  for (int i = 0; i < conc; i++) pthread_create(&th[i], NULL, http_worker, &w[i]);
  for (int i = 0; i < conc; i++) pthread_join(th[i], NULL);
  double wall = now_ms() - t0;
  /* subtract the warm-up share of the wall time by its share of calls */
  wall *= (double)calls / (calls + WARMUP * conc);
  report(lat, calls, wall);
  free(lat);
  return 0;
}

static int run_stdio(const char *wasmbox, int conc, int calls) {
  int in[2], out[2];
  if (pipe(in) || pipe(out)) die("pipe");
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0), dup2(out[1], 1);
    close(in[1]), close(out[0]);
    char workers[16];
    snprintf(workers, sizeof workers, "%d", conc < 2 ? 2 : conc);
    execl(wasmbox, wasmbox, "mcp", "--workers", workers, (char *)NULL);
    _exit(127);
  }
  close(in[0]), close(out[1]);
  FILE *rd = fdopen(out[0], "r");
  int total = calls + WARMUP;
  double *sent = calloc((size_t)total, sizeof *sent), *lat = malloc(sizeof *lat * (size_t)calls);
  char line[1 << 16], req[2048];
  const char *args = strstr(body, "\"params\"");
  int next = 0, done = 0;
  double t0 = 0;
  while (done < total) {
    while (next < total && next - done < conc) {
      int n = snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",%s\n", next, args);
      sent[next] = now_ms();
      if (write(in[1], req, (size_t)n) != n) die("write failed");
      next++;
    }
    if (!fgets(line, sizeof line, rd)) die("wasmbox mcp closed its output");
    int id = atoi(strstr(line, "\"id\":") ? strstr(line, "\"id\":") + 5 : "-1");
    if (id < 0 || id >= total || !strstr(line, "\\\"stdout\\\":\\\"1\\\\n\\\"")) die(line);
    if (id >= WARMUP) lat[id - WARMUP] = now_ms() - sent[id];
    if (++done == WARMUP) t0 = now_ms();
  }
  double wall = now_ms() - t0;
  close(in[1]);
  waitpid(pid, NULL, 0);
  report(lat, calls, wall);
  free(sent), free(lat);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 5) die("usage: mcpload http PORT CONCURRENCY CALLS | mcpload stdio WASMBOX CONCURRENCY CALLS");
  signal(SIGPIPE, SIG_IGN);
  int conc = atoi(argv[3]), calls = atoi(argv[4]);
  if (conc < 1 || conc > 64 || calls < conc) die("bad concurrency or calls");
  if (!strcmp(argv[1], "http")) return run_http(atoi(argv[2]), conc, calls);
  return run_stdio(argv[2], conc, calls);
}
