/* Code mode in the library: guest code calls the embedder's tools through
 * wasmbox_request.tool_handler, under allowed_tools and the tool limits,
 * in a worker and in process, from Python and JavaScript. */
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include "harness.h"

/* ---- a small tool catalogue ---- */
static const char *const catalogue[] = {"calc__add", "files__read", "files__delete", "img__pixel", "slow__sleep",
                                        "bad__fail", "big__blob",   "danger__drop",  NULL};

typedef struct {
  pthread_mutex_t mu;
  int calls;           /* op "call" requests the handler saw */
  char last_args[256]; /* arguments of the last call */
  char last_session[WASMBOX_ID_MAX];
  char last_owner[WASMBOX_OWNER_MAX];
  char audit[2048]; /* "tool:outcome " for each audited call */
} seen_t;
static seen_t seen = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void seen_reset(void) {
  pthread_mutex_lock(&seen.mu);
  seen.calls = 0;
  seen.last_args[0] = seen.last_session[0] = seen.last_owner[0] = seen.audit[0] = 0;
  pthread_mutex_unlock(&seen.mu);
}

static char *dupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dupf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) s = NULL;
  va_end(ap);
  return s;
}

static int handler(void *ctx, const wasmbox_tool_request *req, char **reply, char *err, size_t errlen) {
  assert_ptr_equal(ctx, &seen);
  if (!strcmp(req->op, "list") || !strcmp(req->op, "search")) {
    char buf[1024] = "[";
    for (size_t i = 0; catalogue[i]; i++) {
      if (req->query && !strstr(catalogue[i], req->query)) continue;
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s{\"name\":\"%s\",\"description\":\"tool %zu\"}",
               buf[1] ? "," : "", catalogue[i], i);
    }
    strcat(buf, "]");
    *reply = strdup(buf);
    return WASMBOX_TOOL_OK;
  }
  if (!strcmp(req->op, "schema")) {
    *reply = dupf(
        "{\"name\":\"%s\",\"description\":\"Adds.\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
        "{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}}",
        req->name);
    return WASMBOX_TOOL_OK;
  }
  pthread_mutex_lock(&seen.mu);
  seen.calls++;
  snprintf(seen.last_args, sizeof seen.last_args, "%.*s", (int)req->arguments_len, req->arguments);
  snprintf(seen.last_session, sizeof seen.last_session, "%s", req->session_id ? req->session_id : "");
  snprintf(seen.last_owner, sizeof seen.last_owner, "%s", req->owner ? req->owner : "");
  pthread_mutex_unlock(&seen.mu);
  if (!strcmp(req->name, "calc__add") && strstr(req->arguments, "\"a\":\"")) {
    snprintf(err, errlen, "arguments[a]: not a number");
    return WASMBOX_TOOL_BAD_ARGUMENTS;
  } else if (!strcmp(req->name, "calc__add")) {
    *reply =
        strdup("{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"sum\\\":5}\"}],\"structuredContent\":{\"sum\":5}}");
  } else if (!strcmp(req->name, "danger__drop") && !req->approved) {
    snprintf(err, errlen, "tool danger__drop needs approval");
    return WASMBOX_TOOL_NEEDS_APPROVAL;
  } else if (!strcmp(req->name, "danger__drop")) {
    *reply = strdup("{\"content\":[{\"type\":\"text\",\"text\":\"dropped\"}]}");
  } else if (!strcmp(req->name, "files__read")) {
    *reply = strdup("{\"content\":[{\"type\":\"text\",\"text\":\"hello from the host\"}]}");
  } else if (!strcmp(req->name, "img__pixel")) {
    *reply = strdup("{\"content\":[{\"type\":\"image\",\"data\":\"iVBORw==\",\"mimeType\":\"image/png\"}]}");
  } else if (!strcmp(req->name, "bad__fail")) {
    *reply = strdup("{\"content\":[{\"type\":\"text\",\"text\":\"disk on fire\"}],\"isError\":true}");
  } else if (!strcmp(req->name, "big__blob")) {
    size_t n = 200000;
    char *s = malloc(n + 64);
    strcpy(s, "{\"content\":[{\"type\":\"text\",\"text\":\"");
    size_t at = strlen(s);
    memset(s + at, 'x', n);
    strcpy(s + at + n, "\"}]}");
    *reply = s;
  } else if (!strcmp(req->name, "slow__sleep")) {
    /* a tool that overruns: the library must not wait for it past the
     * call's deadline to stop the guest (it returns late, and is
     * reported as a timeout) */
    struct timespec t = {(time_t)req->seconds_left + 1, 0};
    nanosleep(&t, NULL);
    *reply = strdup("{\"content\":[]}");
  } else {
    snprintf(err, errlen, "no tool %s", req->name);
    return WASMBOX_TOOL_ERROR;
  }
  return WASMBOX_TOOL_OK;
}

static void audit(void *ctx, const wasmbox_tool_request *req, const char *outcome, double ms) {
  (void)ctx;
  assert_true(ms >= 0);
  pthread_mutex_lock(&seen.mu);
  snprintf(seen.audit + strlen(seen.audit), sizeof seen.audit - strlen(seen.audit), "%s:%s ",
           req->name ? req->name : "-", outcome);
  pthread_mutex_unlock(&seen.mu);
}

static const char *const all_tools[] = {"*"};

static wasmbox_request with_tools(const char *lang, const char *code) {
  return (wasmbox_request){.language = lang,
                           .code = code,
                           .tool_handler = handler,
                           .tool_audit = audit,
                           .tool_ctx = &seen,
                           .allowed_tools = all_tools,
                           .allowed_tools_len = 1};
}

static void expect_out(wasmbox_result *r, const char *out) {
  if (r->status != WASMBOX_STATUS_OK || strcmp(r->stdout_data, out)) dump(r);
  assert_int_equal(r->status, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, out);
}

/* ---- Python ---- */

static void python_calls_list_search_schema(void **state) {
  (void)state;
  seen_reset();
  wasmbox_request req = with_tools(NULL,
                                   "from wasmbox import tools\n"
                                   "print(tools.call('calc__add', {'a': 2, 'b': 3})['sum'])\n"
                                   "print(tools.files.read())\n"
                                   "print(tools.img.pixel())\n"
                                   "print(len(tools.list()), [t['name'] for t in tools.search('files')])\n"
                                   "print(tools.schema('calc__add')['inputSchema']['required'])\n"
                                   "import inspect; print(inspect.signature(tools.calc.add))\n");
  wasmbox_result *r = run_req(&req);
  expect_out(r,
             "5\nhello from the host\nb'\\x89PNG'\n8 ['files__read', 'files__delete']\n['a', 'b']\n"
             "(*, a, b)\n");
  assert_int_equal(seen.calls, 3);
  assert_string_equal(seen.last_args, "{}");
  assert_string_equal(seen.audit, "calc__add:ok files__read:ok img__pixel:ok ");
  wasmbox_result_free(r);
}

static void allowed_tools_globs_and_negation(void **state) {
  (void)state;
  seen_reset();
  static const char *const allow[] = {"files__*", "!files__delete", "calc__*"};
  wasmbox_request req = with_tools(NULL,
                                   "from wasmbox import tools, ToolError\n"
                                   "print(sorted(t['name'] for t in tools.list()))\n"
                                   "for name in ('files__delete', 'img__pixel'):\n"
                                   "    try:\n"
                                   "        tools.call(name)\n"
                                   "    except ToolError as e:\n"
                                   "        print(e.type, e)\n"
                                   "try:\n"
                                   "    tools.schema('img__pixel')\n"
                                   "except ToolError as e:\n"
                                   "    print(e.type)\n");
  req.allowed_tools = allow;
  req.allowed_tools_len = 3;
  wasmbox_result *r = run_req(&req);
  expect_out(r,
             "['calc__add', 'files__read']\n"
             "ToolNotAllowed tool 'files__delete' is not allowed in this call\n"
             "ToolNotAllowed tool 'img__pixel' is not allowed in this call\n"
             "ToolNotAllowed\n");
  assert_int_equal(seen.calls, 0); /* the handler never saw a refused call */
  assert_string_equal(seen.audit, "files__delete:not_allowed img__pixel:not_allowed ");
  wasmbox_result_free(r);
}

static void no_tools_by_default(void **state) {
  (void)state;
  seen_reset();
  wasmbox_request req = with_tools(NULL,
                                   "from wasmbox import tools, ToolError\n"
                                   "print(tools.list())\n"
                                   "try:\n"
                                   "    tools.call('calc__add')\n"
                                   "except ToolError as e:\n"
                                   "    print(e.type, e)\n");
  req.allowed_tools = NULL;
  req.allowed_tools_len = 0;
  wasmbox_result *r = run_req(&req);
  expect_out(r,
             "[]\nToolNotAllowed tool 'calc__add' is not allowed in this call (no tool is: allowed_tools is "
             "empty)\n");
  wasmbox_result_free(r);
  /* and without a handler, nothing at all */
  wasmbox_request bare = {.code =
                              "from wasmbox import tools, ToolError\n"
                              "try:\n"
                              "    tools.list()\n"
                              "except ToolError as e:\n"
                              "    print(e)\n"};
  r = run_req(&bare);
  expect_out(r, "no tools are available to this call\n");
  wasmbox_result_free(r);
  assert_int_equal(seen.calls, 0);
}

static void tool_errors_raise(void **state) {
  (void)state;
  wasmbox_request req =
      with_tools(NULL,
                 "from wasmbox import tools, ToolError\n"
                 "for name, args in (('bad__fail', {}), ('nope__x', {}), ('calc__add', {'a': 'x'})):\n"
                 "    try:\n"
                 "        tools.call(name, args)\n"
                 "    except ToolError as e:\n"
                 "        print(e.type, e)\n"
                 "import _wasmbox, json\n"
                 "for raw in (b'not json', b'[1]', b'{\"op\": \"drop\"}', "
                 "b'{\"op\": \"call\", \"name\": \"a b\"}', "
                 "b'{\"op\": \"call\", \"name\": \"calc__add\", \"arguments\": 3}', "
                 "b'{\"op\": \"search\", \"query\": \"x\", \"limit\": 0}'):\n"
                 "    print(json.loads(_wasmbox.tool_request(raw))['error']['type'])\n");
  wasmbox_result *r = run_req(&req);
  expect_out(r,
             "ToolError disk on fire\nToolError no tool nope__x\nToolArgumentError arguments[a]: not a number\n"
             "ToolRequestError\nToolRequestError\nToolRequestError\nToolRequestError\nToolRequestError\n"
             "ToolRequestError\n");
  wasmbox_result_free(r);
}

static void call_limit(void **state) {
  (void)state;
  seen_reset();
  wasmbox_request req = with_tools(NULL,
                                   "from wasmbox import tools, ToolError\n"
                                   "n = 0\n"
                                   "try:\n"
                                   "    while True:\n"
                                   "        tools.call('calc__add', {'a': 1, 'b': 2})\n"
                                   "        n += 1\n"
                                   "except ToolError as e:\n"
                                   "    print(n, e.type, e)\n");
  req.max_tool_calls = 3;
  wasmbox_result *r = run_req(&req);
  expect_out(r, "3 ToolLimitExceeded this call made its max_tool_calls (3) tool calls\n");
  assert_int_equal(seen.calls, 3);
  assert_string_equal(seen.last_args, "{\"a\":1,\"b\":2}");
  assert_string_equal(seen.audit, "calc__add:ok calc__add:ok calc__add:ok calc__add:limit ");
  wasmbox_result_free(r);
}

static void byte_limit(void **state) {
  (void)state;
  wasmbox_request req = with_tools(NULL,
                                   "from wasmbox import tools, ToolError\n"
                                   "try:\n"
                                   "    tools.call('big__blob')\n"
                                   "except ToolError as e:\n"
                                   "    print(e.type, e)\n"
                                   "print(len(tools.call('calc__add', {'a': 1})) if False else 'after')\n");
  req.max_tool_bytes = 100000;
  wasmbox_result *r = run_req(&req);
  expect_out(r,
             "ToolLimitExceeded this call's tool requests and replies passed max_tool_bytes (100000 bytes)\n"
             "after\n");
  wasmbox_result_free(r);
  req.max_tool_bytes = 0; /* the default (16 MB) holds it */
  req.code = "from wasmbox import tools\nprint(len(tools.call('big__blob')))\n";
  r = run_req(&req);
  expect_out(r, "200000\n");
  wasmbox_result_free(r);
}

static void bad_limits_are_usage_errors(void **state) {
  (void)state;
  wasmbox_request req = with_tools(NULL, "pass");
  wasmbox_result *r = NULL;
  char err[256];
  req.max_tool_calls = WASMBOX_MAX_TOOL_CALLS + 1;
  assert_int_equal(wasmbox_run(test_wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "max_tool_calls"));
  req.max_tool_calls = 0;
  static const char *const empty[] = {"!"};
  req.allowed_tools = empty;
  assert_int_equal(wasmbox_run(test_wb, &req, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "allowed_tools"));
}

/* A tool that overruns the call's deadline: the call ends as a timeout
 * soon after it, and the library serves the next call. */
static void slow_tool_times_out(void **state) {
  (void)state;
  wasmbox_request req = with_tools(NULL, "from wasmbox import tools\ntools.call('slow__sleep')\nprint('after')\n");
  req.timeout_seconds = 1;
  wasmbox_result *r = run_req(&req);
  if (r->status != WASMBOX_STATUS_TIMEOUT) dump(r);
  assert_int_equal(r->status, WASMBOX_STATUS_TIMEOUT);
  assert_true(r->duration_ms < 4000);
  assert_null(strstr(r->stdout_data, "after"));
  wasmbox_result_free(r);
  req = with_tools(NULL, "from wasmbox import tools\nprint(tools.call('calc__add')['sum'])\n");
  r = run_req(&req);
  expect_out(r, "5\n");
  wasmbox_result_free(r);
}

static void code_executor_names(void **state) {
  (void)state;
  wasmbox_request req = with_tools(NULL,
                                   "import asyncio\n"
                                   "async def main():\n"
                                   "    r = await call_mcp_tool('mcp__calc__add', {'a': 2, 'b': 3})\n"
                                   "    s = await get_tool_schema('calc__add')\n"
                                   "    found = await search_tools('calc', 5)\n"
                                   "    return r['sum'], s['name'], [t['name'] for t in found]\n"
                                   "print(asyncio.run(main()))\n");
  wasmbox_result *r = run_req(&req);
  expect_out(r, "(5, 'calc__add', ['calc__add'])\n");
  wasmbox_result_free(r);
}

static void session_calls_see_their_session(void **state) {
  (void)state;
  seen_reset();
  char id[WASMBOX_ID_MAX], err[256];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request req = with_tools(NULL, "from wasmbox import tools\nx = tools.call('calc__add')\n");
  req.session_id = id;
  req.language = NULL;
  wasmbox_result *r = run_req(&req);
  expect_out(r, "");
  wasmbox_result_free(r);
  req.code = "print(x['sum'], tools.call('files__read'))\n";
  r = run_req(&req);
  expect_out(r, "5 hello from the host\n");
  wasmbox_result_free(r);
  assert_string_equal(seen.last_session, id);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

/* ---- JavaScript ---- */

static void javascript_tools(void **state) {
  (void)state;
  seen_reset();
  wasmbox_request req = with_tools("javascript",
                                   "const r = await tools.call('calc__add', {a: 2, b: 3});\n"
                                   "console.log(r.sum, await tools.files.read(), (await tools.img.pixel()).length);\n"
                                   "console.log((await tools.search('calc')).map((t) => t.name).join());\n"
                                   "try { await tools.call('bad__fail'); } catch (e) {\n"
                                   "  console.log(e instanceof ToolError, e.type, e.message);\n"
                                   "}\n"
                                   "console.log((await callMCPTool('mcp__calc__add', {})).sum);\n");
  wasmbox_result *r = run_req(&req);
  expect_out(r, "5 hello from the host 4\ncalc__add\ntrue ToolError disk on fire\n5\n");
  assert_int_equal(seen.calls, 5);
  wasmbox_result_free(r);
  static const char *const allow[] = {"files__*"};
  req.allowed_tools = allow;
  req.code = "try { await tools.calc.add({}); } catch (e) { console.log(e.type); }\n";
  r = run_req(&req);
  expect_out(r, "ToolError\n"); /* not listed: the wrapper does not find it */
  wasmbox_result_free(r);
  req.code = "try { await tools.call('calc__add', {}); } catch (e) { console.log(e.type); }\n";
  r = run_req(&req);
  expect_out(r, "ToolNotAllowed\n");
  wasmbox_result_free(r);
}

/* ---- in process: the same checks without a worker ---- */

static void in_process(void **state) {
  (void)state;
  seen_reset();
  char err[256];
  wasmbox_options o = {.in_process = true};
  wasmbox *wb = wasmbox_open(&o, err, sizeof err);
  assert_non_null(wb);
  static const char *const allow[] = {"calc__*"};
  wasmbox_request req = with_tools(NULL,
                                   "from wasmbox import tools, ToolError\n"
                                   "print(tools.call('calc__add')['sum'])\n"
                                   "try:\n"
                                   "    tools.call('files__read')\n"
                                   "except ToolError as e:\n"
                                   "    print(e.type)\n");
  req.allowed_tools = allow;
  req.allowed_tools_len = 1;
  wasmbox_result *r = NULL;
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_OK);
  expect_out(r, "5\nToolNotAllowed\n");
  wasmbox_result_free(r);
  req.code = "from wasmbox import tools\ntools.call('slow__sleep')\n";
  req.allowed_tools = all_tools;
  req.timeout_seconds = 1;
  assert_int_equal(wasmbox_run(wb, &req, &r, err, sizeof err), WASMBOX_OK);
  assert_int_equal(r->status, WASMBOX_STATUS_TIMEOUT);
  wasmbox_result_free(r);
  wasmbox_free(wb);
  assert_int_equal(seen.calls, 2);
}

/* ---- approval: pause, resume (approve, deny, a given result), once ---- */

static const char paused_code[] =
    "import random, time\n"
    "from wasmbox import tools\n"
    "r, t = random.random(), time.time()\n"
    "print('before', r, t, tools.call('calc__add')['sum'])\n"
    "print('after', tools.call('danger__drop', {'table': 'x'}))\n";

static wasmbox_result *run_to_pause(const char *session) {
  wasmbox_request req = with_tools(NULL, paused_code);
  req.session_id = session;
  wasmbox_result *r = run_req(&req);
  if (r->status != WASMBOX_STATUS_PAUSED) dump(r);
  assert_int_equal(r->status, WASMBOX_STATUS_PAUSED);
  assert_string_equal(r->pending_tool, "danger__drop");
  assert_string_equal(r->pending_arguments, "{\"table\":\"x\"}");
  assert_int_equal(strlen(r->resume_token), 32);
  assert_non_null(strstr(r->stdout_data, "before "));
  char *json = wasmbox_result_json(r);
  assert_non_null(strstr(json, "\"status\":\"paused\""));
  assert_non_null(strstr(json, "\"resume_token\":\""));
  free(json);
  return r;
}

static int resume(const char *token, bool approve, const char *given, wasmbox_result **out, char *err, size_t n) {
  wasmbox_resume_request rr = {.resume_token = token,
                               .approve = approve,
                               .result = given,
                               .message = approve ? NULL : "not today",
                               .tool_handler = handler,
                               .tool_audit = audit,
                               .tool_ctx = &seen};
  return wasmbox_resume(test_wb, &rr, out, err, n);
}

static void approval_pause_and_resume(void **state) {
  (void)state;
  seen_reset();
  wasmbox_result *p = run_to_pause(NULL);
  assert_int_equal(seen.calls, 2); /* calc__add, and danger__drop asked for approval */
  char before[256];
  snprintf(before, sizeof before, "%s", p->stdout_data);
  char token[64];
  snprintf(token, sizeof token, "%s", p->resume_token);
  wasmbox_result_free(p);
  /* approved: the same values up to the pause, earlier tools not called again */
  wasmbox_result *r = NULL;
  char err[512];
  assert_int_equal(resume(token, true, NULL, &r, err, sizeof err), WASMBOX_OK);
  char want[400];
  snprintf(want, sizeof want, "%safter dropped\n", before);
  expect_out(r, want);
  assert_int_equal(seen.calls, 3); /* danger__drop, approved; calc__add was not called again */
  assert_string_equal(seen.audit, "calc__add:ok danger__drop:paused danger__drop:ok ");
  wasmbox_result_free(r);
  /* a token works once, and only a token is one */
  assert_int_equal(resume(token, true, NULL, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "no paused run has this resume token"));
  assert_int_equal(resume("not-a-token", true, NULL, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_int_equal(resume("0123456789abcdef0123456789abcdef", true, NULL, &r, err, sizeof err), WASMBOX_EUSAGE);
}

static void approval_denied_or_given(void **state) {
  (void)state;
  wasmbox_result *p = run_to_pause(NULL);
  char token[64];
  snprintf(token, sizeof token, "%s", p->resume_token);
  wasmbox_result_free(p);
  wasmbox_result *r = NULL;
  char err[512];
  assert_int_equal(resume(token, false, NULL, &r, err, sizeof err), WASMBOX_OK);
  assert_int_equal(r->status, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "wasmbox.ToolError");
  assert_string_equal(r->error_message, "the call was denied: not today");
  wasmbox_result_free(r);
  p = run_to_pause(NULL);
  snprintf(token, sizeof token, "%s", p->resume_token);
  wasmbox_result_free(p);
  /* a given result is one JSON object, whole (checked before the token is used) */
  assert_int_equal(resume(token, true, "{\"content\":[]}, 1", &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_int_equal(resume(token, true, "[1]", &r, err, sizeof err), WASMBOX_EUSAGE);
  seen_reset();
  assert_int_equal(resume(token, true, "{\"content\":[{\"type\":\"text\",\"text\":\"given\"}]}", &r, err, sizeof err),
                   WASMBOX_OK);
  assert_int_equal(r->status, WASMBOX_STATUS_OK);
  assert_non_null(strstr(r->stdout_data, "after given\n"));
  assert_int_equal(seen.calls, 0); /* neither tool was called */
  wasmbox_result_free(r);
}

static void approval_in_a_session(void **state) {
  (void)state;
  char id[WASMBOX_ID_MAX], err[512];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request req = with_tools(NULL, "n = 1\n");
  req.session_id = id;
  wasmbox_result_free(run_req(&req));
  wasmbox_result *p = run_to_pause(id);
  assert_true(p->session_rolled_back);
  char token[64];
  snprintf(token, sizeof token, "%s", p->resume_token);
  wasmbox_result_free(p);
  wasmbox_result *r = NULL;
  assert_int_equal(resume(token, true, NULL, &r, err, sizeof err), WASMBOX_OK);
  assert_int_equal(r->status, WASMBOX_STATUS_OK);
  assert_false(r->session_rolled_back);
  wasmbox_result_free(r);
  req.code = "print(n, 'r' in globals())\n";
  r = run_req(&req);
  expect_out(r, "1 True\n"); /* the resumed call's state is the session's */
  wasmbox_result_free(r);
  /* the session moves on while a run waits: that run cannot go on */
  p = run_to_pause(id);
  snprintf(token, sizeof token, "%s", p->resume_token);
  wasmbox_result_free(p);
  req.code = "n = 2\n";
  wasmbox_result_free(run_req(&req));
  assert_int_equal(resume(token, true, NULL, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "changed since the run paused"));
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

/* A resumed run that takes another path (here: a file of its workspace
 * changed) gets ResumeDiverged from its tools, never a live call. */
static void approval_diverged(void **state) {
  (void)state;
  char ws[] = "/tmp/wasmbox-diverge-XXXXXX";
  assert_non_null(mkdtemp(ws));
  char flag[64];
  snprintf(flag, sizeof flag, "%s/flag", ws);
  FILE *f = fopen(flag, "w");
  fputs("a", f);
  fclose(f);
  wasmbox_request req = with_tools(NULL,
                                   "from wasmbox import tools, ToolError\n"
                                   "if open('flag').read() == 'a':\n"
                                   "    tools.call('calc__add')\n"
                                   "try:\n"
                                   "    print(tools.call('danger__drop'))\n"
                                   "except ToolError as e:\n"
                                   "    print(e.type)\n");
  req.workspace = ws;
  wasmbox_result *p = run_req(&req);
  assert_int_equal(p->status, WASMBOX_STATUS_PAUSED);
  char token[64];
  snprintf(token, sizeof token, "%s", p->resume_token);
  wasmbox_result_free(p);
  f = fopen(flag, "w");
  fputs("b", f);
  fclose(f);
  seen_reset();
  wasmbox_resume_request rr = {
      .resume_token = token, .approve = true, .tool_handler = handler, .tool_ctx = &seen, .workspace = ws};
  wasmbox_result *r = NULL;
  char err[512];
  assert_int_equal(wasmbox_resume(test_wb, &rr, &r, err, sizeof err), WASMBOX_OK);
  expect_out(r, "ResumeDiverged\n");
  assert_int_equal(seen.calls, 0);
  wasmbox_result_free(r);
  unlink(flag);
  rmdir(ws);
}

/* max_tool_calls holds across a resume: the replayed calls count as they
 * did when the run first made them (two before the pause, the approved one),
 * so one more call fits in 4, not a fresh budget. */
static void approval_keeps_the_call_limit(void **state) {
  (void)state;
  seen_reset();
  wasmbox_request req = with_tools(NULL,
                                   "from wasmbox import tools, ToolError\n"
                                   "tools.call('calc__add'); tools.call('calc__add')\n"
                                   "tools.call('danger__drop', {'table': 'x'})\n"
                                   "n = 0\n"
                                   "try:\n"
                                   "    while True:\n"
                                   "        tools.call('calc__add'); n += 1\n"
                                   "except ToolError as e:\n"
                                   "    print(n, e.type)\n");
  req.max_tool_calls = 4;
  wasmbox_result *p = run_req(&req);
  assert_int_equal(p->status, WASMBOX_STATUS_PAUSED);
  char token[64], err[512];
  snprintf(token, sizeof token, "%s", p->resume_token);
  wasmbox_result_free(p);
  wasmbox_result *r = NULL;
  assert_int_equal(resume(token, true, NULL, &r, err, sizeof err), WASMBOX_OK);
  expect_out(r, "1 ToolLimitExceeded\n");
  wasmbox_result_free(r);
}

/* A paused run is its owner's: another owner's resume, or the same owner's
 * from another scope (MCP session), finds no paused run and leaves it be;
 * the owner's own resume goes on, its tools see the owner. */
static void approval_is_the_owners(void **state) {
  (void)state;
  seen_reset();
  wasmbox_request req = with_tools(NULL, paused_code);
  req.owner = "alice", req.owner_scope = "mcp-1";
  wasmbox_result *p = run_req(&req);
  assert_int_equal(p->status, WASMBOX_STATUS_PAUSED);
  char token[64], err[512];
  snprintf(token, sizeof token, "%s", p->resume_token);
  wasmbox_result_free(p);
  const char *who[][2] = {{"bob", "mcp-1"}, {"alice", "mcp-2"}, {"alice", ""}};
  for (size_t i = 0; i < 3; i++) {
    wasmbox_resume_request rr = {.resume_token = token,
                                 .approve = true,
                                 .tool_handler = handler,
                                 .tool_ctx = &seen,
                                 .owner = who[i][0],
                                 .owner_scope = who[i][1]};
    wasmbox_result *r = NULL;
    assert_int_equal(wasmbox_resume(test_wb, &rr, &r, err, sizeof err), WASMBOX_EUSAGE);
    assert_non_null(strstr(err, "no paused run has this resume token"));
  }
  wasmbox_resume_request rr = {.resume_token = token,
                               .approve = true,
                               .tool_handler = handler,
                               .tool_ctx = &seen,
                               .owner = "alice",
                               .owner_scope = "mcp-1"};
  wasmbox_result *r = NULL;
  assert_int_equal(wasmbox_resume(test_wb, &rr, &r, err, sizeof err), WASMBOX_OK);
  assert_int_equal(r->status, WASMBOX_STATUS_OK);
  assert_string_equal(seen.last_owner, "alice");
  wasmbox_result_free(r);
  req.owner = "al\nice";
  char e2[256];
  assert_int_equal(wasmbox_run(test_wb, &req, &r, e2, sizeof e2), WASMBOX_EUSAGE);
  assert_non_null(strstr(e2, "printable ASCII"));
}

/* A paused run is kept 24 hours: prune removes an older one. */
static void approval_expires(void **state) {
  (void)state;
  char home[] = "/tmp/wasmbox-expire-XXXXXX", err[512];
  assert_non_null(mkdtemp(home));
  wasmbox_options o = {.home = home, .in_process = true};
  wasmbox *wb = wasmbox_open(&o, err, sizeof err);
  assert_non_null(wb);
  wasmbox_request req = with_tools(NULL, paused_code);
  wasmbox_result *p = NULL;
  assert_int_equal(wasmbox_run(wb, &req, &p, err, sizeof err), WASMBOX_OK);
  assert_int_equal(p->status, WASMBOX_STATUS_PAUSED);
  char path[256], token[64];
  snprintf(token, sizeof token, "%s", p->resume_token);
  snprintf(path, sizeof path, "%s/paused/%s", home, token);
  wasmbox_result_free(p);
  size_t removed;
  assert_int_equal(wasmbox_session_prune(wb, &removed, err, sizeof err), WASMBOX_OK);
  assert_int_equal(access(path, F_OK), 0); /* young: kept */
  struct timespec old[2] = {{.tv_sec = time(NULL) - 25 * 3600}, {.tv_sec = time(NULL) - 25 * 3600}};
  assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
  assert_int_equal(wasmbox_session_prune(wb, &removed, err, sizeof err), WASMBOX_OK);
  wasmbox_resume_request rr = {.resume_token = token, .approve = true, .tool_handler = handler, .tool_ctx = &seen};
  assert_int_equal(wasmbox_resume(wb, &rr, &p, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "no paused run has this resume token"));
  wasmbox_free(wb);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", home);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(python_calls_list_search_schema),
      cmocka_unit_test(allowed_tools_globs_and_negation),
      cmocka_unit_test(no_tools_by_default),
      cmocka_unit_test(tool_errors_raise),
      cmocka_unit_test(call_limit),
      cmocka_unit_test(byte_limit),
      cmocka_unit_test(bad_limits_are_usage_errors),
      cmocka_unit_test(slow_tool_times_out),
      cmocka_unit_test(code_executor_names),
      cmocka_unit_test(session_calls_see_their_session),
      cmocka_unit_test(javascript_tools),
      cmocka_unit_test(in_process),
      cmocka_unit_test(approval_pause_and_resume),
      cmocka_unit_test(approval_denied_or_given),
      cmocka_unit_test(approval_in_a_session),
      cmocka_unit_test(approval_diverged),
      cmocka_unit_test(approval_keeps_the_call_limit),
      cmocka_unit_test(approval_is_the_owners),
      cmocka_unit_test(approval_expires),
  };
  return cmocka_run_group_tests(tests, harness_setup, harness_teardown);
}
