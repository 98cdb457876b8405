/* Guidance: one or two actionable hints for a failed call, written for the
 * model or person who wrote the code (module not available, file outside
 * /app, no network, no processes, limits hit, output cut). */
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

/* Fill `out` with up to WB_GUIDANCE_MAX malloc'd strings; returns how many. */
size_t wb_guidance(const wb_guidance_input *in, char **out);

#endif
