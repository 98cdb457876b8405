/* libFuzzer: a guest's tool requests (api/guest_tools.h), the one input of code
 * mode a guest writes byte for byte, and the reply of the embedder's
 * handler. The input is the request, a NUL, then the handler's reply.
 * Properties beyond "no crash, no overread, no UB": every reply is an
 * envelope ({"ok": true, "result"} or {"ok": false, "error": {"type",
 * "message"}}), the handler is never asked for a tool the call may not use
 * nor called past the call limit, and the byte count only grows. */
#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/guest_tools.h"
#include "util/os.h"
#include "util/patterns.h"

static void check(int ok) {
  if (!ok) abort();
}

static const char *handler_reply;
static size_t handler_reply_len;
static int handler_calls;

static const char *const patterns[] = {"a__*", "!a__no*", "b__x"};

static int handler(void *ctx, const wasmbox_tool_request *req, char **reply, char *err, size_t errlen) {
  (void)ctx;
  if (req->name) check(wb_patterns_allow(patterns, 3, req->name) && fnmatch("!*", req->name, 0) != 0);
  if (!strcmp(req->op, "call")) handler_calls++;
  check(req->seconds_left > 0);
  if (handler_reply_len && handler_reply[0] == 'E') {
    snprintf(err, errlen, "%.*s", (int)handler_reply_len - 1, handler_reply + 1);
    if (handler_reply_len > 1 && handler_reply[1] == 'A') return WASMBOX_TOOL_NEEDS_APPROVAL;
    return handler_reply_len > 1 && handler_reply[1] == 'N' ? WASMBOX_TOOL_NOT_ALLOWED : WASMBOX_TOOL_ERROR;
  }
  *reply = strndup(handler_reply, handler_reply_len);
  return WASMBOX_TOOL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t req_len = nul ? (size_t)(nul - data) : size;
  handler_reply = nul ? (const char *)nul + 1 : "";
  handler_reply_len = nul ? size - req_len - 1 : 0;
  /* an exact-size copy of the request, so that ASan sees any overread */
  uint8_t *req = malloc(req_len ? req_len : 1);
  if (!req) return 0;
  memcpy(req, data, req_len);
  wasmbox_request q = {.code = "",
                       .tool_handler = handler,
                       .allowed_tools = patterns,
                       .allowed_tools_len = 3,
                       .max_tool_calls = 2,
                       .max_tool_bytes = 1 << 20};
  wb_tools t;
  wb_tools_begin(&t, &q, 60, wb_monotonic_ns());
  handler_calls = 0;
  for (int round = 0; round < 3; round++) {
    uint64_t before = t.bytes;
    size_t n = 0;
    bool pause = false;
    char *reply = wb_tools_answer(&t, req, req_len, &n, &pause);
    if (pause) { /* the handler asked for approval: the run would stop here */
      check(reply == NULL && t.paused && t.paused_len == req_len);
      break;
    }
    check(reply != NULL && t.bytes >= before + req_len);
    cJSON *env = cJSON_ParseWithLength(reply, n);
    check(env != NULL);
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(env, "ok");
    check(cJSON_IsBool(ok));
    if (cJSON_IsTrue(ok)) {
      check(cJSON_GetObjectItemCaseSensitive(env, "result") != NULL);
    } else {
      const cJSON *e = cJSON_GetObjectItemCaseSensitive(env, "error");
      check(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "type")) &&
            cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "message")));
    }
    cJSON_Delete(env);
    free(reply);
  }
  check(handler_calls <= 2 && t.calls <= 2);
  wb_tools_end(&t);
  free(req);
  return 0;
}
