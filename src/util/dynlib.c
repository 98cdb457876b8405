/* Opening libraries at run time (dynlib.h says why). */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

bool wb_dynlib_load(wb_dynlib *l, char *err, size_t errlen) {
  pthread_mutex_lock(&l->lock);
  if (!l->tried) {
    l->tried = true;
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      snprintf(l->error, sizeof l->error, "cannot open %s (Debian package %s): %s", l->soname, l->package, dlerror());
    if (l->table_size > WB_DYNLIB_MAX * sizeof(void *))
      snprintf(l->error, sizeof l->error, "%s: its table has more than %d functions", l->soname, WB_DYNLIB_MAX);
    void *table[WB_DYNLIB_MAX]; /* filled whole before it is published */
    for (size_t i = 0; h && i < l->count && !l->error[0]; i++) {
      void *p = dlsym(h, l->symbols[i].name);
      if (!p) snprintf(l->error, sizeof l->error, "%s has no %s", l->soname, l->symbols[i].name);
      memcpy((char *)table + l->symbols[i].offset, &p, sizeof p); /* POSIX: dlsym's pointer is the function's */
    }
    if (h && l->error[0]) dlclose(h);
    if (h && !l->error[0]) { /* the library stays open for the life of the process */
      memcpy(l->table, table, l->table_size);
      if (l->after) l->after();
    }
  }
  bool ok = !l->error[0];
  if (!ok) snprintf(err, errlen, "%s", l->error);
  pthread_mutex_unlock(&l->lock);
  return ok;
}
