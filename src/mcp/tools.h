/* The MCP tools: their definitions (name, description written for a model,
 * inputSchema, outputSchema, annotations) and their handlers. Every handler
 * returns a CallToolResult: structuredContent matching the outputSchema with
 * the same JSON as a text block, or isError with text that says what to do.
 * Guest failures and bad arguments are isError results; only an unknown tool
 * is a protocol error (the caller checks mcp_tool_find first). */
#ifndef WASMBOX_MCP_TOOLS_H
#define WASMBOX_MCP_TOOLS_H

#include <cjson/cJSON.h>

#include "mcp/server.h"

typedef struct mcp_tool {
  const char *name, *title, *description;
  const char *input_schema, *output_schema; /* JSON text */
  bool read_only, destructive, idempotent;
  cJSON *(*run)(mcp_msg *m, const cJSON *args);
} mcp_tool;

/* The server's tool of that name (search_tools only in code mode). */
const mcp_tool *mcp_tool_find(mcp_server *s, const char *name);
/* The "tools" array of tools/list, with this server's limits filled in. */
cJSON *mcp_tools_list(mcp_server *s);
/* Runs a tool, counting it in the metrics; NULL only when out of memory. */
cJSON *mcp_tool_call(mcp_msg *m, const mcp_tool *t, const cJSON *args);

/* For handlers: a success (takes `structured`) or a failure with a message. */
cJSON *tool_result(cJSON *structured, bool is_error);
cJSON *tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Handlers, by file. */
cJSON *tool_execute_code(mcp_msg *m, const cJSON *args);   /* execute.c */
cJSON *tool_create_session(mcp_msg *m, const cJSON *args); /* sessions.c */
cJSON *tool_destroy_session(mcp_msg *m, const cJSON *args);
cJSON *tool_fork_session(mcp_msg *m, const cJSON *args);
cJSON *tool_checkpoint_session(mcp_msg *m, const cJSON *args);
cJSON *tool_restore_session(mcp_msg *m, const cJSON *args);
cJSON *tool_list_sessions(mcp_msg *m, const cJSON *args);
cJSON *tool_install_package(mcp_msg *m, const cJSON *args);
cJSON *tool_list_files(mcp_msg *m, const cJSON *args); /* files.c */
cJSON *tool_read_file(mcp_msg *m, const cJSON *args);
cJSON *tool_write_file(mcp_msg *m, const cJSON *args);
cJSON *tool_reset_workspace(mcp_msg *m, const cJSON *args);
cJSON *tool_list_runtimes(mcp_msg *m, const cJSON *args); /* info.c */
cJSON *tool_get_metrics(mcp_msg *m, const cJSON *args);
cJSON *tool_search_tools(mcp_msg *m, const cJSON *args);     /* search.c: only with upstreams */
cJSON *tool_resume_execution(mcp_msg *m, const cJSON *args); /* execute.c: only with upstreams */

#endif
