/* libFuzzer: the MCP server's message handling, as a client drives it.
 * An input is a conversation: its first byte picks the transport's rules
 * (stdio, or HTTP with or without a session's headers), the rest is JSON-RPC
 * messages, one a line, each parsed, checked and handled exactly as
 * mcp/stdio.c does (tools run for real, in the sandbox, with a short
 * timeout). Properties beyond "no crash, leak or UB": every request gets one
 * response that is valid JSON-RPC with its own id, and notifications get
 * none. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/config.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "util/os.h"

static mcp_config cfg;
static mcp_server *srv;
static char home[64];

/* the sessions the conversations made go with the process */
static void cleanup(void) {
  mcp_server_free(srv);
  mcp_config_free(&cfg);
  wb_remove_tree(home);
}

static void check(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_mcp_message: %s\n", what);
  abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(home, sizeof home, "/tmp/wasmbox-fuzz-%d", (int)getpid());
  char *args[] = {"mcp",      "--home", home,           "--timeout", "2",           "--max-timeout", "2",
                  "--memory", "128",    "--max-memory", "128",       "--log-level", "error"};
  char err[512];
  if (mcp_config_load(&cfg, false, (int)(sizeof args / sizeof args[0]), args, err, sizeof err) != 0 ||
      !(srv = mcp_server_new(&cfg, err, sizeof err))) {
    fprintf(stderr, "fuzz_mcp_message: %s\n", err);
    exit(1);
  }
  atexit(cleanup);
  return 0;
}

/* One line as stdio.c takes it: parse, check, handle. */
static void one(mcp_conn *conn, int mode, const char *line, size_t n) {
  const char *why;
  cJSON *msg = rpc_parse(line, n, &why);
  if (!msg) return; /* stdio answers a parse error itself */
  const cJSON *id = NULL;
  rpc_kind k = rpc_check(msg, &id, &why);
  cJSON *id_copy = id ? cJSON_Duplicate(id, true) : NULL;
  mcp_msg m = {.srv = srv, .conn = mode == 0 ? conn : NULL, .http = mode != 0};
  if (mode == 2) m.h_version = MCP_STATELESS_VERSION, m.h_method = "tools/call";
  cJSON *resp = mcp_handle(&m, msg);
  if (k == RPC_REQUEST && !m.no_response) {
    check(resp != NULL, "a request got no response");
    check(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(resp, "jsonrpc")), "a response without jsonrpc");
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(resp, "id");
    check(rid && cJSON_Compare(rid, id_copy, true), "a response with another id");
    check(!!cJSON_GetObjectItemCaseSensitive(resp, "result") != !!cJSON_GetObjectItemCaseSensitive(resp, "error"),
          "a response with both or neither of result and error");
    char *text = rpc_print(resp);
    check(text && rpc_utf8_valid(text, strlen(text)), "a response that is not valid UTF-8");
    cJSON_free(text);
  }
  if (k == RPC_NOTIFICATION && mode == 0) check(resp == NULL, "a notification got a response");
  cJSON_Delete(resp);
  mcp_msg_done(&m);
  if (mode != 0) mcp_conn_put(srv, m.conn); /* as http.c does: a session made here is the server's */
  cJSON_Delete(id_copy);
  cJSON_Delete(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > (64u << 10)) return 0;
  int mode = data[0] % 3; /* 0: stdio, 1: HTTP without headers, 2: HTTP, 2026 headers */
  mcp_conn conn = {0};
  atomic_init(&conn.log_level, MCP_LOG_NONE);
  const char *p = (const char *)data + 1, *end = (const char *)data + size;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (n) one(&conn, mode, p, n);
    p += n + 1;
  }
  return 0;
}
