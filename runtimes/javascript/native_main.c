/* Native driver for wasmbox_main.c (build.sh links it as `jsnative`): the
 * same QuickJS sources and guest glue compiled with gcc, so `make bench` and
 * `make conformance` compare wasmbox against exactly the interpreter it runs.
 *
 *   jsnative FILE                 run FILE (.mjs or import/export: a module)
 *   jsnative -c CODE [-c CODE]... run each CODE, named <input>, one after the
 *                                 other on the same interpreter, as a session
 *                                 will: later code sees earlier globals
 * Exit status: what the last wasmbox_run returned (0 ok, 1 uncaught error). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wasmbox_init(void);
void *wasmbox_alloc(uint32_t size);
int wasmbox_run(char *code, uint32_t code_len, char *name, uint32_t name_len);

/* The glue has already printed the error; the host's copy is not needed. */
void wb_report_error(const char *type, uint32_t type_len, const char *msg, uint32_t msg_len, const char *tb,
                     uint32_t tb_len) {
  (void)type, (void)type_len, (void)msg, (void)msg_len, (void)tb, (void)tb_len;
}

/* No host to route tool calls to: every request gets this error reply. */
static const char no_tools[] =
    "{\"ok\":false,\"error\":{\"type\":\"ToolError\",\"message\":\"no tools: jsnative has no host\"}}";

uint32_t wb_tool_request(const char *req, uint32_t len) {
  (void)req, (void)len;
  return sizeof no_tools - 1;
}

void wb_tool_reply(char *buf, uint32_t len) { memcpy(buf, no_tools, len); }

static char *copy(const char *s, size_t n) {
  char *d = wasmbox_alloc((uint32_t)n);
  if (d) memcpy(d, s, n);
  return d;
}

static int run_copy(const char *code, size_t len, const char *name) {
  char *c = copy(code, len), *n = copy(name, strlen(name));
  if (!c || !n) {
    fprintf(stderr, "jsnative: out of memory\n");
    return 2;
  }
  return wasmbox_run(c, (uint32_t)len, n, (uint32_t)strlen(name));
}

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 2;
  }
  size_t cap = 1 << 16, len = 0, r;
  char *code = malloc(cap);
  while (code && (r = fread(code + len, 1, cap - len, f)) > 0) {
    len += r;
    if (len == cap) {
      char *g = realloc(code, cap *= 2);
      if (!g) free(code);
      code = g;
    }
  }
  fclose(f);
  if (!code) {
    fprintf(stderr, "jsnative: out of memory\n");
    return 2;
  }
  const char *slash = strrchr(path, '/');
  int status = run_copy(code, len, slash ? slash + 1 : path);
  free(code);
  return status;
}

int main(int argc, char **argv) {
  bool inline_code = argc >= 3 && argc % 2 == 1;
  for (int i = 1; inline_code && i < argc; i += 2) inline_code = !strcmp(argv[i], "-c");
  if (!inline_code && argc != 2) {
    fprintf(stderr, "usage: jsnative FILE | jsnative -c CODE [-c CODE]...\n");
    return 2;
  }
  if (wasmbox_init() != 0) {
    fprintf(stderr, "jsnative: cannot start QuickJS\n");
    return 2;
  }
  if (!inline_code) return run_file(argv[1]);
  int status = 0;
  for (int i = 2; i < argc; i += 2) status = run_copy(argv[i], strlen(argv[i]), "<input>");
  return status;
}
