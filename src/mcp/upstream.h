/* Upstream MCP servers (code mode, docs/mcp.md "Code mode"): the servers of an
 * mcpServers file (the format Claude Desktop, Claude Code and Cursor use),
 * their tools named server__tool, and the tool handler that execute_code
 * gives the library, so that sandboxed code can list, search and call them.
 *
 * Contract: mcp_upstreams_open() reads and checks the file and starts
 * nothing; a server starts at the first request that needs it, is restarted
 * with back-off after it dies, and is stopped by mcp_upstreams_free().
 * Calls to one server are serialised, each waiting for the server at
 * most until its own deadline; different servers run in parallel. A
 * search, a list or a schema never waits for a call in flight: a busy
 * server is read from the tool list it gave last. Every request returns
 * by its deadline. A tool exists for the
 * sandbox only if the server-wide patterns allow it (the server's own
 * "allowed_tools" and --allow-tools; none by default); each call can narrow
 * that further (the library's allowed_tools). A call of a tool that a
 * server's "requires_approval" patterns name, or that is destructive under
 * approve_destructive, waits for approval (the handler says
 * WASMBOX_TOOL_NEEDS_APPROVAL unless the library says a person approved it).
 * Names: a server's name and a
 * tool's name each keep [A-Za-z0-9_-] and turn every other byte into '_'
 * ("__" in a server name becomes "_"); a tool whose name then collides
 * with an earlier one of its server gets _2, _3, ... The upstreams' env and
 * headers never leave this process. */
#ifndef WASMBOX_MCP_UPSTREAM_H
#define WASMBOX_MCP_UPSTREAM_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmbox.h"

#define MCP_UPSTREAMS_MAX 64
#define MCP_UPSTREAM_TOOLS_MAX 10000 /* tools one server may list */

typedef struct mcp_upstreams mcp_upstreams;

typedef struct {
  const char *file;         /* mcpServers JSON */
  const char *const *allow; /* --allow-tools: patterns over server__tool names */
  size_t nallow;
  bool approve_destructive; /* tools with annotations.destructiveHint wait for approval */
  const char *audit;        /* JSONL audit log: a path, "-" for stderr, NULL: none */
  uint64_t audit_max_bytes; /* rotate (to PATH.1) past this size; 0: never */
} mcp_upstreams_config;

mcp_upstreams *mcp_upstreams_open(const mcp_upstreams_config *cfg, char *err, size_t errlen);
void mcp_upstreams_free(mcp_upstreams *u);
size_t mcp_upstreams_count(const mcp_upstreams *u);

/* The library's tool handler and audit hook (wasmbox.h "Tools"); ctx is
 * the mcp_upstreams. */
int mcp_upstreams_handle(void *ctx, const wasmbox_tool_request *req, char **reply, char *err, size_t errlen);
void mcp_upstreams_audit(void *ctx, const wasmbox_tool_request *req, const char *outcome, double duration_ms);

/* search_tools: the best `limit` tools for `query` ("" lists them all),
 * each as its name ("name"), name and one-line description ("summary") or
 * whole definition ("schema"); servers that cannot be reached are listed
 * in *unavailable as {"server", "error"} (both arrays the caller's). */
enum { MCP_DETAIL_NAME, MCP_DETAIL_SUMMARY, MCP_DETAIL_SCHEMA };
cJSON *mcp_upstreams_search(mcp_upstreams *u, const char *query, unsigned limit, int detail, double seconds,
                            cJSON **unavailable);

#endif
