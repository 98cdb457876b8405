/* search_tools: the upstream tools (code mode) a model can call from
 * execute_code, found progressively: names first, then what it needs. */
#include <string.h>

#include "mcp/args.h"
#include "mcp/tools.h"

cJSON *tool_search_tools(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"query", "limit", "detail", NULL};
  static const char *const details[] = {"name", "summary", "schema", NULL};
  mcp_args a;
  args_init(&a, args, allowed);
  const char *query = args_str(&a, "query", false, 4096, NULL);
  uint64_t limit = args_int(&a, "limit", 1, WASMBOX_TOOL_SEARCH_MAX, 10);
  const char *detail = args_enum(&a, "detail", details, "summary");
  if (a.bad) return tool_error("search_tools: %s", a.msg);
  int d = !strcmp(detail, "name")     ? MCP_DETAIL_NAME
          : !strcmp(detail, "schema") ? MCP_DETAIL_SCHEMA
                                      : MCP_DETAIL_SUMMARY;
  cJSON *unavailable = NULL;
  cJSON *found = mcp_upstreams_search(m->srv->upstreams, query ? query : "", (unsigned)limit, d, m->srv->cfg->timeout,
                                      &unavailable);
  cJSON *out = cJSON_CreateObject();
  if (!out || !found || !unavailable) {
    cJSON_Delete(out), cJSON_Delete(found), cJSON_Delete(unavailable);
    return NULL;
  }
  cJSON_AddItemToObject(out, "tools", found);
  cJSON_AddItemToObject(out, "unavailable", unavailable);
  return tool_result(out, false);
}
