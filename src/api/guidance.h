/* Guidance: one or two actionable hints for a failed call, written for the
 * model or person who wrote the code (module not available, file outside
 * /app, no network, no processes, limits hit, output cut), each with a type
 * a program can match on and a link to the section of docs/ about it. */
#ifndef WASMBOX_API_GUIDANCE_H
#define WASMBOX_API_GUIDANCE_H

#include <stddef.h>

#include "wasmbox.h"

#define WB_GUIDANCE_MAX 3

typedef struct {
  const char *language;
  wasmbox_status status;
  const char *error_type, *error_message, *traceback;
  double timeout_seconds;
  uint64_t fuel;
  uint64_t memory_bytes;
  bool output_truncated;
  size_t max_output;
  uint64_t quota_bytes;
} wb_guidance_input;

/* Fill `out` with up to WB_GUIDANCE_MAX malloc'd hints and `types` with
 * their kinds ("timeout", "module_not_found", ...: static strings); returns
 * how many. */
size_t wb_guidance(const wb_guidance_input *in, char **out, const char **types);
/* The table's own copy of a kind's name and (in *docs) the section of the
 * documents that explains it; NULL for no such kind. */
const char *wb_guidance_kind(const char *type, const char **docs);

#endif
