/* See guest_libc.h. */
#include "guest_libc.h"

#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>
#include <wasi/libc-environ.h>
#include <wasi/libc.h>

/* wasi-libc registers preopens from fd 3 up to the first that is not one;
 * the host numbers them the same way in every call. */
static int first_unregistered = 3;

static int is_preopen(int fd, __wasi_prestat_t *ps) {
  return __wasi_fd_prestat_get(fd, ps) == 0 && ps->tag == __WASI_PREOPENTYPE_DIR;
}

void wb_guest_note_preopens(void) {
  __wasi_prestat_t ps;
  int fd = 3;
  while (is_preopen(fd, &ps)) fd++;
  first_unregistered = fd;
}

int wb_guest_refresh_libc(void) {
  __wasilibc_deinitialize_environ();
  __wasilibc_initialize_environ();
  __wasi_prestat_t ps;
  for (int fd = first_unregistered; is_preopen(fd, &ps); fd++) {
    size_t n = ps.u.dir.pr_name_len;
    char *name = malloc(n + 1);
    if (!name) return -1;
    if (__wasi_fd_prestat_dir_name(fd, (uint8_t *)name, n) != 0) {
      free(name);
      return -1;
    }
    name[n] = 0;
    int r = __wasilibc_register_preopened_fd(fd, name);
    free(name);
    if (r != 0) return -1;
  }
  return 0;
}
