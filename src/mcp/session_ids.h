/* Mcp-Session-Id values (protocols up to 2025-11-25). Without a key: 32
 * random hex digits, known only to the server that made them. With
 * --session-key FILE (the same file on every server behind a balancer): 32
 * random hex digits, the protocol version as 8 digits and 16 hex digits of
 * HMAC-SHA256 under the key, so that any server can accept an id another
 * made and knows the session's protocol version without shared state.
 *   mcp_ids_load(): reads and checks the key file (at least 32 bytes, not
 *     readable by others); NULL with a message.
 *   mcp_ids_make(): a new id for a session of `version` (key or not).
 *   mcp_ids_check(): true when `id` carries a valid signature; the version
 *     it names in `version` (one of `known`). */
#ifndef WASMBOX_MCP_SESSION_IDS_H
#define WASMBOX_MCP_SESSION_IDS_H

#include <stdbool.h>
#include <stddef.h>

#define MCP_SESSION_ID_LEN 56 /* the longest: a signed id */

typedef struct mcp_ids mcp_ids;
mcp_ids *mcp_ids_load(const char *file, char *err, size_t errlen);
void mcp_ids_free(mcp_ids *k);
void mcp_ids_make(const mcp_ids *k, const char *version, char out[MCP_SESSION_ID_LEN + 1]);
bool mcp_ids_check(const mcp_ids *k, const char *id, const char *const *known, char version[16]);

#endif
