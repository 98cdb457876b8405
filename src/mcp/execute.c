/* execute_code: one call of the library, its result object as
 * structuredContent, and images the code wrote as image content. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mcp/args.h"
#include "mcp/base64.h"
#include "mcp/external.h"
#include "mcp/jsonrpc.h"
#include "mcp/tools.h"
#include "util/os.h"

#define MAX_IMAGES 4

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static const char *image_type(const char *path) {
  const char *dot = strrchr(path, '.');
  if (!dot) return NULL;
  if (!strcasecmp(dot, ".png")) return "image/png";
  if (!strcasecmp(dot, ".svg")) return "image/svg+xml";
  if (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg")) return "image/jpeg";
  if (!strcasecmp(dot, ".gif")) return "image/gif";
  if (!strcasecmp(dot, ".webp")) return "image/webp";
  return NULL;
}

/* Read a file the guest wrote in our own workspace. The guest controls its
 * names and may have made symlinks: resolve beneath the workspace and refuse
 * every symlink. */
static char *read_beneath(const char *root, const char *rel, size_t max, size_t *len, bool *too_big) {
  int dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return NULL;
  int fd = wb_beneath_no_symlinks(dir, rel, O_RDONLY | O_NOFOLLOW, 0);
  close(dir);
  if (fd < 0) return NULL;
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if ((uint64_t)st.st_size > max) {
      *too_big = true;
      *len = (size_t)st.st_size;
    } else if ((buf = malloc((size_t)st.st_size + 1))) {
      size_t got = 0;
      while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
      }
      *len = got;
    }
  }
  close(fd);
  return buf;
}

/* Images among the changed files: inline when small enough, else a note
 * telling how to fetch them (never base64 in text). */
static void add_images(mcp_msg *m, cJSON *content, const wasmbox_result *r, const char *workspace) {
  int shown = 0;
  for (size_t i = 0; i < r->files_changed_len; i++) {
    const char *path = r->files_changed[i];
    const char *mime = image_type(path);
    if (!mime || strncmp(path, "/app/", 5)) continue;
    size_t len = 0;
    bool too_big = false;
    char *data = NULL;
    uint64_t max = m->srv->cfg->max_image_bytes;
    if (shown < MAX_IMAGES && max) {
      if (workspace) {
        data = read_beneath(workspace, path + 5, max, &len, &too_big);
      } else {
        char err[256];
        if (wasmbox_session_read_file(m->srv->wb, r->session_id, path, &data, &len, err, sizeof err) == WASMBOX_OK &&
            len > max) {
          free(data);
          data = NULL;
          too_big = true;
        }
      }
    }
    cJSON *block = cJSON_CreateObject();
    if (!block) {
      free(data);
      return;
    }
    char *b64 = data ? b64_encode(data, len) : NULL;
    free(data);
    if (b64) {
      cJSON_AddStringToObject(block, "type", "image");
      cJSON_AddStringToObject(block, "data", b64);
      cJSON_AddStringToObject(block, "mimeType", mime);
      shown++;
      free(b64);
    } else if (r->session_id) {
      /* a link the client can read with resources/read */
      char uri[512];
      snprintf(uri, sizeof uri, "wasmbox://session/%s%s", r->session_id, path);
      cJSON_AddStringToObject(block, "type", "resource_link");
      cJSON_AddStringToObject(block, "uri", uri);
      cJSON_AddStringToObject(block, "name", path);
      cJSON_AddStringToObject(block, "mimeType", mime);
      if (too_big) cJSON_AddNumberToObject(block, "size", (double)len);
    } else {
      char note[512];
      snprintf(note, sizeof note,
               "%s was written but is not shown here (%s). Run the code in a session (create_session) and fetch "
               "it with read_file (encoding base64).",
               path, too_big ? "larger than the inline image limit" : "too many images in one call");
      cJSON_AddStringToObject(block, "type", "text");
      cJSON_AddStringToObject(block, "text", note);
    }
    cJSON_AddItemToArray(content, block);
  }
}

/* A module that is not there, on a server that can install packages: say
 * how (the library's own hint has named a built-in package if one was
 * meant, and then this one is not added). */
static void install_hint(mcp_server *s, cJSON *structured, const wasmbox_result *r, const char *sid) {
  const char *p = r->error_message ? strstr(r->error_message, "No module named '") : NULL;
  if (!p || !r->error_type || strcmp(r->error_type, "ModuleNotFoundError") ||
      !(s->cfg->package_index[0] || s->cfg->wheelhouse[0]))
    return;
  p += strlen("No module named '");
  int n = (int)strcspn(p, "'.");
  cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(structured, "error"), "guidance");
  const cJSON *h;
  cJSON_ArrayForEach(h, g) if (cJSON_IsString(h) && strstr(h->valuestring, "is imported as")) return;
  char text[512];
  if (sid)
    snprintf(text, sizeof text,
             "If '%.*s' is a pure-Python package, install_package(session_id=\"%s\", "
             "requirement=\"%.*s\") installs it into this session (its pip name may differ from the module name).",
             n, p, sid, n, p);
  else
    snprintf(text, sizeof text,
             "If '%.*s' is a pure-Python package, create_session, then install_package("
             "session_id, requirement=\"%.*s\") installs it there (its pip name may differ from the module name).",
             n, p, n, p);
  if (cJSON_IsArray(g)) cJSON_AddItemToArray(g, cJSON_CreateString(text));
}

static cJSON *render(const char *tool, mcp_msg *m, int rc, wasmbox_result *r, const char *err, double ms,
                     const char *workspace);

cJSON *tool_execute_code(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"code",  "language",      "session_id", "timeout_seconds", "memory_mb", "fuel",
                                        "stdin", "allowed_tools", NULL};
  static const char *const languages[] = {"python", "javascript", NULL};
  mcp_server *s = m->srv;
  mcp_args a;
  args_init(&a, args, allowed);
  size_t code_len = 0, stdin_len = 0;
  const char *code = args_str(&a, "code", true, s->cfg->max_request_bytes, &code_len);
  const char *lang = args_enum(&a, "language", languages, NULL);
  const char *sid = args_str(&a, "session_id", false, WASMBOX_ID_MAX - 1, NULL);
  double timeout = args_num(&a, "timeout_seconds", 0.001, s->cfg->max_timeout, s->cfg->timeout);
  uint64_t mem = args_int(&a, "memory_mb", 1, s->cfg->max_memory_mb, s->cfg->memory_mb);
  uint64_t fuel = args_int(&a, "fuel", 1, s->cfg->max_fuel, s->cfg->fuel);
  const char *in = args_str(&a, "stdin", false, s->cfg->max_request_bytes, &stdin_len);
  if (a.bad) return tool_error("execute_code: %s", a.msg);
  if (!code_len) return tool_error("execute_code: 'code' is empty; pass the program to run");
  /* code mode: the upstream tools this call may use, narrowed from what
   * the server allows (every one of them when the call names none) */
  static const char *const every_tool[] = {"*"};
  const char *narrowed[WASMBOX_MAX_ALLOWED_TOOLS];
  size_t n_narrowed = 0;
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(args, "allowed_tools");
  if (at && !s->upstreams)
    return tool_error("execute_code: 'allowed_tools' is for code mode, and this server has no upstream tools");
  if (at) {
    const cJSON *p;
    bool ok = cJSON_IsArray(at) && cJSON_GetArraySize(at) <= WASMBOX_MAX_ALLOWED_TOOLS;
    for (p = ok ? at->child : NULL; p; p = p->next) {
      ok = cJSON_IsString(p) && p->valuestring[0] && strlen(p->valuestring) <= 256;
      if (!ok) break;
      narrowed[n_narrowed++] = p->valuestring;
    }
    if (!ok)
      return tool_error(
          "execute_code: 'allowed_tools' must be an array of at most %d tool name patterns "
          "(\"github__get_*\", \"!github__delete_*\"), each 1 to 256 characters",
          WASMBOX_MAX_ALLOWED_TOOLS);
  }

  wasmbox_request req = {.language = sid ? lang : (lang ? lang : "python"),
                         .code = code,
                         .code_len = code_len,
                         .timeout_seconds = timeout,
                         .memory_bytes = mem << 20,
                         .fuel = fuel,
                         .max_output_bytes = (size_t)s->cfg->max_output_bytes,
                         .stdin_data = in,
                         .stdin_len = stdin_len,
                         .cancel = m->cancel,
                         .session_id = sid,
                         .owner = mcp_owner(m),
                         .owner_scope = mcp_owner_scope(m)};
  if (s->upstreams) {
    req.tool_handler = mcp_upstreams_handle;
    req.tool_audit = mcp_upstreams_audit;
    req.tool_ctx = s->upstreams;
    req.allowed_tools = at ? narrowed : every_tool;
    req.allowed_tools_len = at ? n_narrowed : 1;
    req.max_tool_calls = (unsigned)s->cfg->max_tool_calls;
  }
  char err[512];
  /* another client's session is, to this one, no session */
  int access = sid ? mcp_session_access(m, sid, err, sizeof err) : 0;
  if (access) return render("execute_code", m, access, NULL, err, 0, NULL);
  const mcp_config *c = s->cfg;
  wasmbox_session_info info;
  const char *runs = lang ? lang : "python";
  int irc = !lang && sid ? wasmbox_session_info_get(s->wb, sid, &info, err, sizeof err) : WASMBOX_EUSAGE;
  if (irc == WASMBOX_OK) runs = info.language;
  /* a store that cannot answer this cannot lease the session either: one
   * wait for it is enough */
  if (irc == WASMBOX_EINTERNAL) return render("execute_code", m, irc, NULL, err, 0, NULL);
  if (!strcmp(runs, "python")) { /* the import policy is Python's */
    if (c->n_allow_imports) req.allow_imports = (const char *const *)c->allow_imports;
    req.allow_imports_len = c->n_allow_imports;
    req.deny_imports = (const char *const *)c->deny_imports, req.deny_imports_len = c->n_deny_imports;
    req.deny_builtins = (const char *const *)c->deny_builtins, req.deny_builtins_len = c->n_deny_builtins;
  }
  char *workspace = NULL;
  if (!sid) {
    /* our own workspace, so images the code writes can be returned */
    if (!(workspace = mcp_workspace_take(s)))
      return tool_error("execute_code: internal error: cannot make a workspace: %s", strerror(errno));
    req.workspace = workspace;
    req.mounts = s->mounts;
    req.mounts_len = s->n_mounts;
    if (!strcmp(req.language, "python")) {
      req.packages = (const char *const *)s->cfg->packages;
      req.packages_len = s->cfg->n_packages;
    }
  }
  wasmbox_result *r = NULL;
  double t0 = now_ms();
  int rc = wasmbox_run(s->wb, &req, &r, err, sizeof err);
  cJSON *out = render("execute_code", m, rc, r, err, now_ms() - t0, workspace);
  mcp_workspace_give(s, workspace);
  return out;
}

/* A run's answer: the result object (and images), or what went wrong. */
static cJSON *render(const char *tool, mcp_msg *m, int rc, wasmbox_result *r, const char *err, double ms,
                     const char *workspace) {
  mcp_server *s = m->srv;
  cJSON *out = NULL;
  if (rc == WASMBOX_EUSAGE) {
    out = tool_error("%s: %s%s", tool, err,
                     strstr(err, "session") ? " (list_sessions shows the sessions that exist; create_session makes a "
                                              "new one)"
                                            : "");
  } else if (rc != WASMBOX_OK) {
    out = tool_error("%s: internal error: %s", tool, err);
  } else {
    const char *sid = r->session_id;
    mcp_metrics_execute(&s->metrics, (int)r->status, ms);
    if (r->status == WASMBOX_STATUS_CANCELLED) m->no_response = true;
    char *json = wasmbox_result_json(r);
    cJSON *structured = json ? cJSON_Parse(json) : NULL;
    free(json);
    if (structured) install_hint(s, structured, r, sid);
    out = structured ? tool_result(structured, r->status != WASMBOX_STATUS_OK && r->status != WASMBOX_STATUS_PAUSED)
                     : NULL;
    cJSON *content = cJSON_GetObjectItemCaseSensitive(out, "content");
    if (content) add_images(m, content, r, workspace);
    mcp_note(m, r->status == WASMBOX_STATUS_OK ? MCP_LOG_INFO : MCP_LOG_WARNING, "%s: %s in %.1f ms%s%s", tool,
             wasmbox_status_name(r->status), ms, r->error_type ? ": " : "", r->error_type ? r->error_type : "");
    mcp_log(s, MCP_LOG_DEBUG, "%s %s %s %.2f ms", tool, r->session_id ? r->session_id : "-",
            wasmbox_status_name(r->status), ms);
    wasmbox_result_free(r);
  }
  return out;
}

cJSON *tool_resume_execution(mcp_msg *m, const cJSON *args) {
  static const char *const allowed[] = {"resume_token", "approve", "result", "message", NULL};
  mcp_server *s = m->srv;
  if (!s->upstreams) return tool_error("resume_execution: this server has no upstream tools (--upstream)");
  mcp_args a;
  args_init(&a, args, allowed);
  const char *token = args_str(&a, "resume_token", true, 64, NULL);
  const char *message = args_str(&a, "message", false, 4096, NULL);
  const cJSON *approve = cJSON_GetObjectItemCaseSensitive(args, "approve");
  const cJSON *given = cJSON_GetObjectItemCaseSensitive(args, "result");
  if (a.bad) return tool_error("resume_execution: %s", a.msg);
  if (!cJSON_IsBool(approve)) return tool_error("resume_execution: 'approve' (true or false) is required");
  if (given && (!cJSON_IsObject(given) || !cJSON_IsTrue(approve)))
    return tool_error(
        "resume_execution: 'result' is an object (a tool result to hand the code instead of calling "
        "the tool), with approve true");
  char *result = given ? cJSON_PrintUnformatted(given) : NULL;
  char *workspace = mcp_workspace_take(s);
  if (!workspace) {
    free(result);
    return tool_error("resume_execution: internal error: cannot make a workspace: %s", strerror(errno));
  }
  wasmbox_resume_request rr = {.resume_token = token,
                               .approve = cJSON_IsTrue(approve),
                               .result = result,
                               .message = message,
                               .tool_handler = mcp_upstreams_handle,
                               .tool_audit = mcp_upstreams_audit,
                               .tool_ctx = s->upstreams,
                               .workspace = workspace,
                               .cancel = m->cancel,
                               /* another's paused run is, to this client, none */
                               .owner = m->admin ? NULL : mcp_owner(m),
                               .owner_scope = mcp_owner_scope(m)};
  wasmbox_result *r = NULL;
  char err[512];
  double t0 = now_ms();
  int rc = wasmbox_resume(s->wb, &rr, &r, err, sizeof err);
  cJSON *out = render("resume_execution", m, rc, r, err, now_ms() - t0, r && r->session_id ? NULL : workspace);
  mcp_workspace_give(s, workspace);
  free(result);
  return out;
}
