/* Ids ended for good (wasmbox.h), kept by the session store's backend
 * (session/backend.h: a file each in HOME/mcp-ended/, or a row in the
 * shared store) for WASMBOX_ENDED_KEEP_S. The id is checked here: one
 * path element of a few safe characters. */
#include <string.h>

#include "api/library.h"

static bool id_ok(const char *id) {
  size_t n = id ? strlen(id) : 0;
  if (!n || n > 127) return false;
  for (size_t i = 0; i < n; i++)
    if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') ||
          id[i] == '-' || id[i] == '_'))
      return false;
  return true;
}

int wasmbox_ended_add(wasmbox *wb, const char *id, char *err, size_t errlen) {
  if (!id_ok(id)) return wb_usage(err, errlen, "'%s' is not an id", id ? id : "");
  return wb->backend->ops->ended_add(wb->backend, id, WASMBOX_ENDED_KEEP_S, err, errlen);
}

int wasmbox_ended_has(wasmbox *wb, const char *id, char *err, size_t errlen) {
  if (!id_ok(id)) return 0;
  return wb->backend->ops->ended_has(wb->backend, id, WASMBOX_ENDED_KEEP_S, err, errlen);
}
