/* Native driver for wasmbox_main.c (build.sh links it as `jsnative`): the
 * same QuickJS sources and guest glue compiled with gcc, so `make bench` and
 * `make conformance` compare wasmbox against exactly the interpreter it runs.
 *
 *   jsnative FILE        run FILE (a .mjs name or import/export: a module)
 *   jsnative -c CODE     run CODE, named <input>
 * Exit status: what wasmbox_run returned (0 ok, 1 uncaught error). */
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

static char *copy(const char *s, size_t n) {
  char *d = wasmbox_alloc((uint32_t)n);
  if (d) memcpy(d, s, n);
  return d;
}

int main(int argc, char **argv) {
  const char *name = "<input>";
  char *code = NULL;
  size_t len = 0;
  if (argc == 3 && !strcmp(argv[1], "-c")) {
    len = strlen(argv[2]);
    code = copy(argv[2], len);
  } else if (argc == 2) {
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
      perror(argv[1]);
      return 2;
    }
    size_t cap = 1 << 16;
    code = malloc(cap);
    size_t r;
    while (code && (r = fread(code + len, 1, cap - len, f)) > 0) {
      len += r;
      if (len == cap) code = realloc(code, cap *= 2);
    }
    fclose(f);
    const char *slash = strrchr(argv[1], '/');
    name = slash ? slash + 1 : argv[1];
  } else {
    fprintf(stderr, "usage: jsnative FILE | jsnative -c CODE\n");
    return 2;
  }
  if (!code || wasmbox_init() != 0) {
    fprintf(stderr, "jsnative: cannot start QuickJS\n");
    return 2;
  }
  char *n = copy(name, strlen(name));
  return wasmbox_run(code, (uint32_t)len, n, (uint32_t)strlen(name));
}
