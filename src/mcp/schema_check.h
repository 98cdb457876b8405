/* Tool arguments checked against the tool's inputSchema before they leave
 * for an upstream (code mode). The checker is valijson (Debian's
 * libvalijson-dev: JSON Schema drafts 4, 6 and 7) over nlohmann-json, in
 * schema_check.cc: C++ behind this C function, and nothing else.
 *
 * Contract: MCP_SCHEMA_VALID, or MCP_SCHEMA_INVALID with the first
 * problems in err ("arguments.path: missing required property"), or
 * MCP_SCHEMA_UNUSABLE when the schema itself cannot be loaded (an upstream's
 * schema is untrusted: remote $refs, bad keywords, nesting over
 * MCP_SCHEMA_DEPTH_MAX); the caller then lets the upstream judge. Never
 * throws, never recurses without bound. */
#ifndef WASMBOX_MCP_SCHEMA_CHECK_H
#define WASMBOX_MCP_SCHEMA_CHECK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCP_SCHEMA_DEPTH_MAX 64

enum { MCP_SCHEMA_VALID, MCP_SCHEMA_INVALID, MCP_SCHEMA_UNUSABLE };
int mcp_schema_check(const char *schema, size_t schema_len, const char *instance, size_t instance_len, char *err,
                     size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
