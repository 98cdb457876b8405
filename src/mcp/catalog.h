/* Resources, prompts and completions. Resources are the files of session
 * workspaces, at wasmbox://session/{session_id}/app/{path} (what
 * execute_code links to when an image is too large to inline); the prompt
 * sets a model up to solve a task with the sandbox. Each function returns
 * the MCP result object, or NULL with a JSON-RPC error code and message (and
 * optional data) for the caller to send. */
#ifndef WASMBOX_MCP_CATALOG_H
#define WASMBOX_MCP_CATALOG_H

#include <cjson/cJSON.h>

#include "mcp/server.h"

typedef struct {
  int code;
  char message[512];
  cJSON *data;
} mcp_fault;

cJSON *mcp_resources_list(mcp_msg *m, const cJSON *params, mcp_fault *f);
cJSON *mcp_resource_templates_list(mcp_msg *m, const cJSON *params, mcp_fault *f);
cJSON *mcp_resource_read(mcp_msg *m, const cJSON *params, mcp_fault *f);
cJSON *mcp_prompts_list(mcp_msg *m, const cJSON *params, mcp_fault *f);
cJSON *mcp_prompt_get(mcp_msg *m, const cJSON *params, mcp_fault *f);
cJSON *mcp_complete(mcp_msg *m, const cJSON *params, mcp_fault *f);

#endif
