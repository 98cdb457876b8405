/* The library instance and shared helpers (see library.h). */
#include "api/library.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wb_usage(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return WASMBOX_EUSAGE;
}

static char *default_home(void) {
  const char *h = getenv("WASMBOX_HOME");
  if (h && *h) return strdup(h);
  const char *home = getenv("HOME");
  char *p;
  if (home && *home) {
    if (asprintf(&p, "%s/.local/share/wasmbox", home) < 0) return NULL;
  } else if (asprintf(&p, "/tmp/wasmbox-%u", (unsigned)getuid()) < 0) {
    return NULL;
  }
  return p;
}

char *wasmbox_state_dir(const char *home) { return home ? strdup(home) : default_home(); }

wasmbox *wb_library_new(const char *home, char *err, size_t errlen) {
  wasmbox *wb = calloc(1, sizeof *wb);
  if (wb) wb->home = home ? strdup(home) : default_home();
  if (!wb || !wb->home) {
    free(wb);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&wb->lock, NULL);
  return wb;
}

wb_store *wb_store_of(wasmbox *wb, char *err, size_t errlen) {
  pthread_mutex_lock(&wb->lock);
  if (!wb->store) wb->store = wb_store_open(wb->home, err, errlen);
  wb_store *st = wb->store;
  pthread_mutex_unlock(&wb->lock);
  return st;
}
