/* Checking tool arguments against what each tool's inputSchema promises.
 * The first problem found is kept as a message written for the model that
 * sent the call ("'timeout_seconds' must be a number from 0.001 to 300, got
 * \"abc\""); later checks are then no-ops, so a handler checks everything and
 * looks at `bad` once. */
#ifndef WASMBOX_MCP_ARGS_H
#define WASMBOX_MCP_ARGS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const cJSON *obj; /* the arguments object (may be NULL: none given) */
  bool bad;
  char msg[512];
} mcp_args;

/* Arguments must be an object (or absent) and hold only these names. */
void args_init(mcp_args *a, const cJSON *obj, const char *const *allowed);
/* NULL when absent (and not required); `max` bounds the byte length;
 * `len` (optional) receives it. */
const char *args_str(mcp_args *a, const char *name, bool required, size_t max, size_t *len);
/* One of `choices` (NULL-terminated); absent: `dflt`. */
const char *args_enum(mcp_args *a, const char *name, const char *const *choices, const char *dflt);
/* A number in [min, max]; absent: dflt. */
double args_num(mcp_args *a, const char *name, double min, double max, double dflt);
/* A whole number in [min, max]; absent: dflt. */
uint64_t args_int(mcp_args *a, const char *name, uint64_t min, uint64_t max, uint64_t dflt);
bool args_bool(mcp_args *a, const char *name, bool dflt);

#endif
