/* The tool requests of a call's guest (see guest_tools.h). */
#include "api/guest_tools.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/library.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/os.h"
#include "session/format.h"
#include "util/patterns.h"
#include "wasi/journal.h"

int wb_tools_check(const wasmbox_request *req, char *err, size_t errlen) {
  if (req->allowed_tools_len > WASMBOX_MAX_ALLOWED_TOOLS)
    return wb_usage(err, errlen, "at most %d allowed_tools patterns", WASMBOX_MAX_ALLOWED_TOOLS);
  for (size_t i = 0; i < req->allowed_tools_len; i++) {
    const char *p = req->allowed_tools[i];
    size_t n = p ? strlen(p) : 0;
    if (!n || n > WB_TOOL_NAME_MAX || (p[0] == '!' && n == 1))
      return wb_usage(err, errlen, "allowed_tools pattern %zu must be 1 to %d characters (and more than '!')", i,
                      WB_TOOL_NAME_MAX);
  }
  if ((req->owner && !wb_owner_valid(req->owner)) || (req->owner_scope && !wb_owner_valid(req->owner_scope)))
    return wb_usage(err, errlen, "an owner and its scope are printable ASCII, at most %d characters",
                    WASMBOX_OWNER_MAX - 1);
  if (req->max_tool_calls > WASMBOX_MAX_TOOL_CALLS)
    return wb_usage(err, errlen, "max_tool_calls must be at most %d", WASMBOX_MAX_TOOL_CALLS);
  if (req->max_tool_bytes > WASMBOX_MAX_TOOL_BYTES)
    return wb_usage(err, errlen, "max_tool_bytes must be at most %llu MB", WASMBOX_MAX_TOOL_BYTES >> 20);
  return WASMBOX_OK;
}

void wb_tools_begin(wb_tools *t, const wasmbox_request *req, double timeout_s, uint64_t start_ns) {
  *t = (wb_tools){.req = req,
                  .max_calls = req->max_tool_calls ? req->max_tool_calls : WASMBOX_DEFAULT_MAX_TOOL_CALLS,
                  .max_bytes = req->max_tool_bytes ? req->max_tool_bytes : WASMBOX_DEFAULT_MAX_TOOL_BYTES,
                  .deadline_ns = start_ns + (uint64_t)(timeout_s * 1e9),
                  .can_pause = req->tool_handler != NULL};
}

char *wb_tools_error(size_t *len, const char *type, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  wb_buf b = {0};
  wb_buf_puts(&b, "{\"ok\":false,\"error\":{\"type\":");
  wb_json_cstr(&b, type);
  wb_buf_puts(&b, ",\"message\":");
  wb_json_cstr(&b, msg);
  wb_buf_puts(&b, "}}");
  if (b.failed) {
    wb_buf_free(&b);
    return NULL;
  }
  *len = b.len;
  return (char *)b.data;
}

/* A tool name as the handler may see it: printable ASCII, no spaces. */
static bool plain_name(const char *s) {
  size_t n = strlen(s);
  if (!n || n > WB_TOOL_NAME_MAX) return false;
  for (; *s; s++)
    if (*s <= ' ' || *s > '~') return false;
  return true;
}

/* Drops the entries of a list or search reply this call may not use. */
static bool filter_listing(cJSON *arr, const wasmbox_request *req) {
  if (!cJSON_IsArray(arr)) return false;
  for (cJSON *e = arr->child, *next; e; e = next) {
    next = e->next;
    cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (!cJSON_IsString(name) || !wb_patterns_allow(req->allowed_tools, req->allowed_tools_len, name->valuestring))
      cJSON_Delete(cJSON_DetachItemViaPointer(arr, e));
  }
  return true;
}

/* A tool request as parsed and checked: the op, the name it may use and its
 * arguments. */
typedef struct {
  cJSON *json;
  char *args; /* the call's arguments, printed */
  bool is_call, is_schema, is_search, is_list;
} parsed_request;

static void parsed_free(parsed_request *p) {
  cJSON_Delete(p->json);
  free(p->args);
}

/* Parses and checks a request as answer_live does before a tool runs, so a
 * resumed run's replayed requests count as the live ones did. NULL: it may
 * run (tr filled); else the error reply, and *outcome says which. */
static char *check_request(const wb_tools *t, const uint8_t *request, size_t len, parsed_request *p,
                           wasmbox_tool_request *tr, size_t *reply_len, const char **outcome) {
  const wasmbox_request *req = t->req;
  *outcome = "bad_request";
  cJSON *q = p->json = cJSON_ParseWithLength((const char *)request, len);
  if (!cJSON_IsObject(q)) return wb_tools_error(reply_len, "ToolRequestError", "a tool request must be a JSON object");
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(q, "op");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(q, "name");
  const cJSON *arguments = cJSON_GetObjectItemCaseSensitive(q, "arguments");
  const cJSON *query = cJSON_GetObjectItemCaseSensitive(q, "query");
  const cJSON *limit = cJSON_GetObjectItemCaseSensitive(q, "limit");
  tr->op = cJSON_IsString(op) ? op->valuestring : "";
  p->is_call = !strcmp(tr->op, "call"), p->is_schema = !strcmp(tr->op, "schema");
  p->is_search = !strcmp(tr->op, "search"), p->is_list = !strcmp(tr->op, "list");
  if (!p->is_call && !p->is_schema && !p->is_search && !p->is_list)
    return wb_tools_error(reply_len, "ToolRequestError", "unknown op '%.64s' (call, list, search, schema)", tr->op);
  if (p->is_call) {
    if (arguments && !cJSON_IsObject(arguments) && !cJSON_IsNull(arguments))
      return wb_tools_error(reply_len, "ToolRequestError", "a tool's arguments are a JSON object");
    if (!(p->args = cJSON_IsObject(arguments) ? cJSON_PrintUnformatted(arguments) : strdup("{}")))
      return wb_tools_error(reply_len, "ToolError", "out of memory");
    tr->arguments = p->args;
    tr->arguments_len = strlen(p->args);
  }
  if (p->is_call || p->is_schema) {
    if (!cJSON_IsString(name) || !plain_name(name->valuestring))
      return wb_tools_error(reply_len, "ToolRequestError",
                            "a tool name is 1 to %d printable ASCII characters without spaces", WB_TOOL_NAME_MAX);
    tr->name = name->valuestring;
    if (!wb_patterns_allow(req->allowed_tools, req->allowed_tools_len, tr->name)) {
      *outcome = "not_allowed";
      return wb_tools_error(reply_len, "ToolNotAllowed", "tool '%s' is not allowed in this call%s", tr->name,
                            req->allowed_tools_len ? "" : " (no tool is: allowed_tools is empty)");
    }
  }
  if (p->is_call && t->calls >= t->max_calls) {
    *outcome = "limit";
    return wb_tools_error(reply_len, "ToolLimitExceeded", "this call made its max_tool_calls (%u) tool calls",
                          t->max_calls);
  }
  if (p->is_search) {
    if (!cJSON_IsString(query) || strlen(query->valuestring) > WB_TOOL_QUERY_MAX)
      return wb_tools_error(reply_len, "ToolRequestError", "a search's query is a string of at most %d bytes",
                            WB_TOOL_QUERY_MAX);
    tr->query = query->valuestring;
    double l = cJSON_IsNumber(limit) ? limit->valuedouble : limit ? -1 : 10;
    if (!(l >= 1 && l <= WASMBOX_TOOL_SEARCH_MAX))
      return wb_tools_error(reply_len, "ToolRequestError", "a search's limit is 1 to %d", WASMBOX_TOOL_SEARCH_MAX);
    tr->limit = (unsigned)l;
  }
  return NULL;
}

/* A request answered now: checked, then given to the handler (approved:
 * a person said yes to it). *needs_approval: the handler wants one first
 * (no reply then). */
static char *answer_live(wb_tools *t, const uint8_t *request, size_t len, size_t *reply_len, bool approved,
                         bool *needs_approval) {
  const wasmbox_request *req = t->req;
  uint64_t t0 = wb_monotonic_ns();
  t->bytes += len;
  if (t->bytes > t->max_bytes)
    return wb_tools_error(reply_len, "ToolLimitExceeded",
                          "this call's tool requests and replies passed max_tool_bytes (%llu bytes)",
                          (unsigned long long)t->max_bytes);
  if (!req->tool_handler) return wb_tools_error(reply_len, "ToolError", "no tools are available to this call");
  cJSON *reply = NULL;
  const char *outcome;
  wasmbox_tool_request tr = {.op = "", .session_id = req->session_id, .owner = req->owner, .approved = approved};
  parsed_request p = {0};
  char *out = check_request(t, request, len, &p, &tr, reply_len, &outcome);
  bool is_call = p.is_call, is_list = p.is_list, is_search = p.is_search;
  if (out) goto done;
  if (is_call) t->calls++;
  uint64_t now = wb_monotonic_ns();
  if (now >= t->deadline_ns) {
    outcome = "timeout";
    out = wb_tools_error(reply_len, "ToolTimeout", "the call's timeout passed before the tool request");
    goto done;
  }
  tr.seconds_left = (double)(t->deadline_ns - now) / 1e9;
  char *text = NULL, err[1024] = "";
  int rc = req->tool_handler(req->tool_ctx, &tr, &text, err, sizeof err);
  if (wb_monotonic_ns() >= t->deadline_ns) {
    free(text);
    outcome = "timeout";
    out = wb_tools_error(reply_len, "ToolTimeout", "the call's timeout passed while %s%s ran",
                         is_call ? "tool " : "the request ", is_call ? tr.name : tr.op);
    goto done;
  }
  if (rc == WASMBOX_TOOL_NEEDS_APPROVAL && is_call && !approved && t->can_pause) {
    free(text);
    *needs_approval = true;
    outcome = "paused";
    goto done;
  }
  if (rc == WASMBOX_TOOL_NEEDS_APPROVAL) {
    free(text);
    outcome = "error";
    out = wb_tools_error(reply_len, "ToolError",
                         "tool '%s' needs approval, and this run cannot wait for it (it read more than %u MB of "
                         "clock and randomness)",
                         tr.name ? tr.name : "?", WB_JOURNAL_MAX >> 20);
    goto done;
  }
  if (rc != WASMBOX_TOOL_OK) {
    free(text);
    bool denied = rc == WASMBOX_TOOL_NOT_ALLOWED, bad = rc == WASMBOX_TOOL_BAD_ARGUMENTS;
    outcome = denied ? "not_allowed" : bad ? "bad_arguments" : "error";
    out = wb_tools_error(reply_len,
                         denied ? "ToolNotAllowed"
                         : bad  ? "ToolArgumentError"
                                : "ToolError",
                         "%s", err[0] ? err : "the tool failed");
    goto done;
  }
  reply = text ? cJSON_Parse(text) : NULL;
  free(text);
  outcome = "error";
  bool shape_ok = (is_list || is_search) ? filter_listing(reply, req) : cJSON_IsObject(reply);
  if (!shape_ok) {
    out = wb_tools_error(reply_len, "ToolError", "the tool handler's reply to '%s' is not %s", tr.op,
                         (is_list || is_search) ? "a JSON array" : "a JSON object");
    goto done;
  }
  while (is_search && cJSON_GetArraySize(reply) > (int)tr.limit) cJSON_DeleteItemFromArray(reply, (int)tr.limit);
  const cJSON *is_error = cJSON_GetObjectItemCaseSensitive(reply, "isError");
  outcome = is_call && cJSON_IsTrue(is_error) ? "error" : "ok";
  char *result = cJSON_PrintUnformatted(reply);
  wb_buf b = {0};
  wb_buf_puts(&b, "{\"ok\":true,\"result\":");
  wb_buf_puts(&b, result ? result : "null");
  wb_buf_puts(&b, "}");
  free(result);
  if (!result || b.failed) {
    wb_buf_free(&b);
    goto done;
  }
  t->bytes += b.len;
  if (t->bytes > t->max_bytes) {
    wb_buf_free(&b);
    outcome = "limit";
    out = wb_tools_error(reply_len, "ToolLimitExceeded",
                         "this call's tool requests and replies passed max_tool_bytes (%llu bytes)",
                         (unsigned long long)t->max_bytes);
    goto done;
  }
  *reply_len = b.len;
  out = b.data;
done:
  if (is_call && req->tool_audit) req->tool_audit(req->tool_ctx, &tr, outcome, (double)(wb_monotonic_ns() - t0) / 1e6);
  cJSON_Delete(reply);
  parsed_free(&p);
  return out;
}

/* ---- approval: a run that may pause, and a resumed one ------------------------------- */

static bool same(const uint8_t *a, size_t an, const void *b, size_t bn) { return an == bn && !memcmp(a, b, an); }

static void record(wb_tools *t, const uint8_t *request, size_t len, const char *reply, size_t reply_len) {
  uint64_t n = len, m = reply_len;
  wb_buf_append(&t->journal, &n, 8);
  wb_buf_append(&t->journal, request, len);
  wb_buf_append(&t->journal, &m, 8);
  wb_buf_append(&t->journal, reply, reply_len);
}

/* The next recorded request and reply of the run being resumed. */
static bool next_recorded(wb_tools *t, const uint8_t **rq, size_t *rqn, const uint8_t **rp, size_t *rpn) {
  const uint8_t *p = t->replay + t->replay_pos;
  size_t left = t->replay_len - t->replay_pos;
  uint64_t n, m;
  if (left < 8 || (memcpy(&n, p, 8), left - 8 < n) || left - 8 - n < 8) return false;
  memcpy(&m, p + 8 + n, 8);
  if (left - 16 - n < m) return false;
  *rq = p + 8, *rqn = (size_t)n, *rp = p + 16 + n, *rpn = (size_t)m;
  t->replay_pos += 16 + n + m;
  return true;
}

static char *copy_reply(const uint8_t *p, size_t n, size_t *reply_len) {
  char *c = malloc(n ? n : 1);
  if (c) memcpy(c, p, n), *reply_len = n;
  return c;
}

char *wb_tools_answer(void *tools, const uint8_t *request, size_t len, size_t *reply_len, bool *pause) {
  wb_tools *t = tools;
  char *out = NULL;
  if (t->diverged) {
    return wb_tools_error(reply_len, "ResumeDiverged",
                          "this resumed run took another path than the paused one: its tools are off");
  } else if (t->replay_pos < t->replay_len) {
    /* resuming: the paused run's requests get their replies again, and no
     * tool is called twice */
    const uint8_t *rq, *rp;
    size_t rqn, rpn;
    if (!next_recorded(t, &rq, &rqn, &rp, &rpn) || !same(rq, rqn, request, len)) {
      t->diverged = true;
      return wb_tools_answer(tools, request, len, reply_len, pause);
    }
    t->bytes += len + rpn;
    /* counted as the live run counted it: checked as then, not by its text
       (json.dumps writes "op": "call") */
    parsed_request p = {0};
    wasmbox_tool_request tr = {.op = ""};
    const char *outcome;
    size_t err_len;
    char *err = check_request(t, request, len, &p, &tr, &err_len, &outcome);
    if (!err && p.is_call) t->calls++;
    free(err);
    parsed_free(&p);
    out = copy_reply(rp, rpn, reply_len);
  } else if (t->pending) {
    /* the call that waited: as decided */
    if (!same((const uint8_t *)t->pending, t->pending_len, request, len)) {
      t->diverged = true;
      return wb_tools_answer(tools, request, len, reply_len, pause);
    }
    t->pending = NULL;
    if (!t->approve) {
      out = wb_tools_error(reply_len, "ToolError", "the call was denied%s%s", t->message ? ": " : "",
                           t->message ? t->message : "");
    } else if (t->given) {
      wb_buf b = {0};
      wb_buf_printf(&b, "{\"ok\":true,\"result\":%s}", t->given);
      *reply_len = b.len;
      out = wb_buf_take(&b);
      t->calls++;
    } else {
      bool again = false;
      out = answer_live(t, request, len, reply_len, true, &again);
    }
  } else {
    bool needs = false;
    out = answer_live(t, request, len, reply_len, false, &needs);
    if (needs) {
      free(t->paused);
      t->paused = malloc(len ? len : 1);
      if (t->paused) memcpy(t->paused, request, len), t->paused_len = len;
      *pause = t->paused != NULL;
      if (!*pause) out = wb_tools_error(reply_len, "ToolError", "out of memory");
      return out;
    }
  }
  if (out && t->can_pause) record(t, request, len, out, *reply_len);
  return out;
}

void wb_tools_end(wb_tools *t) {
  wb_buf_free(&t->journal);
  free(t->paused);
  t->paused = NULL;
}
