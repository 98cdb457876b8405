/* Tool definitions (see tools.h). Descriptions are what a model reads to pick
 * a tool and fill its arguments: what it does, when to use it, the limits,
 * and what a failure looks like. */
#include "mcp/tools.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/jsonrpc.h"

#define SID "\"session_id\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":63,"
#define SID_IN SID "\"description\":\"A session id from create_session or list_sessions.\"}"
#define NO_ARGS "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"

static const char exec_in[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"code\":{\"type\":\"string\",\"description\":\"The program. Python: a script; print() what you want back. "
    "JavaScript: a script whose top level may await (console.log to print), or an ES module.\"},"
    "\"language\":{\"type\":\"string\",\"enum\":[\"python\",\"javascript\"],\"default\":\"python\","
    "\"description\":\"python (CPython 3.11) or javascript (QuickJS, ES2023). With session_id, leave it out: the "
    "session's language is used.\"}," SID
    "\"description\":\"Run in this session (from create_session): variables, functions, imports and /app files "
    "of its earlier calls are still there. Leave out for a fresh, stateless run.\"},"
    "\"timeout_seconds\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"description\":\"Wall-clock limit.\"},"
    "\"memory_mb\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Memory limit in MB.\"},"
    "\"fuel\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Instruction budget: the code stops with "
    "status out_of_fuel after this much work, at the same point on every run (fuel_used in the result says what a "
    "run took). Set it to bound work exactly; the timeout is what normally binds.\"},"
    "\"stdin\":{\"type\":\"string\",\"description\":\"Text the program reads from standard input.\"}"
    "},\"required\":[\"code\"],\"additionalProperties\":false}";

static const char exec_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"status\":{\"type\":\"string\",\"enum\":[\"ok\",\"error\",\"timeout\",\"out_of_fuel\",\"out_of_memory\","
    "\"crashed\",\"cancelled\",\"paused\"]},"
    "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"
    "\"stdout_truncated\":{\"type\":\"boolean\"},\"stderr_truncated\":{\"type\":\"boolean\"},"
    "\"stdout_bytes\":{\"type\":\"integer\"},\"stderr_bytes\":{\"type\":\"integer\"},"
    "\"exit_code\":{\"type\":\"integer\"},"
    "\"error\":{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"type\":{\"type\":\"string\"},"
    "\"message\":{\"type\":\"string\"},\"traceback\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]},"
    "\"guidance\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"guidance_entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},\"docs\":{\"type\":\"string\"}}}}}},{\"type\":\"null\"}]},"
    "\"duration_ms\":{\"type\":\"number\"},\"fuel_used\":{\"type\":\"integer\"},"
    "\"fuel_analysis\":{\"type\":\"object\",\"properties\":{\"consumed\":{\"type\":\"integer\"},"
    "\"budget\":{\"type\":\"integer\"},\"utilization_percent\":{\"type\":\"number\"},\"status\":{\"type\":"
    "\"string\",\"enum\":[\"efficient\",\"moderate\",\"warning\",\"critical\",\"exhausted\"]},"
    "\"suggested_budget\":{\"type\":[\"integer\",\"null\"]},\"recommendation\":{\"type\":[\"string\",\"null\"]}}},"
    "\"memory_peak_bytes\":{\"type\":\"integer\"},"
    "\"session_id\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]},\"session_rolled_back\":{\"type\":\"boolean\"},"
    "\"files_changed\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"guidance\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"guidance_entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},\"docs\":{\"type\":\"string\"}}}},"
    "\"pending_tool\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"arguments\":{\"type\":\"object\"}}},\"resume_token\":{\"type\":\"string\"}"
    "},\"required\":[\"status\",\"stdout\",\"stderr\",\"exit_code\",\"error\",\"duration_ms\",\"session_id\","
    "\"files_changed\"]}";

static const char create_in[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"language\":{\"type\":\"string\",\"enum\":[\"python\",\"javascript\"],\"default\":\"python\"},"
    "\"ttl_seconds\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"description\":\"Idle time after which the "
    "session may be removed.\"}},\"additionalProperties\":false}";
static const char create_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"language\":{\"type\":\"string\"},"
    "\"ttl_seconds\":{\"type\":\"number\"},\"external\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}},"
    "\"required\":[\"session_id\",\"language\",\"ttl_seconds\",\"external\"]}";

static const char sid_in[] = "{\"type\":\"object\",\"properties\":{" SID_IN
                             "},\"required\":[\"session_id\"],"
                             "\"additionalProperties\":false}";
static const char destroy_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"destroyed\":{\"type\":\"boolean\"}},"
    "\"required\":[\"session_id\",\"destroyed\"]}";
static const char fork_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"forked_from\":{\"type\":\"string\"}},"
    "\"required\":[\"session_id\",\"forked_from\"]}";
static const char checkpoint_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"checkpoint_id\":{\"type\":\"string\"}},"
    "\"required\":[\"session_id\",\"checkpoint_id\"]}";
static const char restore_in[] =
    "{\"type\":\"object\",\"properties\":{" SID_IN
    ",\"checkpoint_id\":{\"type\":\"string\",\"minLength\":1,"
    "\"maxLength\":63,\"description\":\"An id from checkpoint_session.\"}},\"required\":[\"session_id\","
    "\"checkpoint_id\"],\"additionalProperties\":false}";
static const char restore_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"checkpoint_id\":{\"type\":\"string\"},"
    "\"restored\":{\"type\":\"boolean\"}},\"required\":[\"session_id\",\"checkpoint_id\",\"restored\"]}";
static const char list_sessions_out[] =
    "{\"type\":\"object\",\"properties\":{\"sessions\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"session_id\":{\"type\":\"string\"},\"language\":{\"type\":\"string\"},"
    "\"created\":{\"type\":\"number\"},\"last_used\":{\"type\":\"number\"},\"ttl_seconds\":{\"type\":\"number\"},"
    "\"disk_bytes\":{\"type\":\"integer\"},\"checkpoints\":{\"type\":\"integer\"},"
    "\"owner\":{\"type\":\"string\"}},"
    "\"required\":[\"session_id\",\"language\"]}}},\"required\":[\"sessions\"]}";

static const char list_files_in[] =
    "{\"type\":\"object\",\"properties\":{" SID_IN
    ",\"path\":{\"type\":\"string\",\"default\":\"/app\","
    "\"description\":\"A directory under /app (absolute, or relative to /app).\"},"
    "\"recursive\":{\"type\":\"boolean\",\"default\":false}},\"required\":[\"session_id\"],"
    "\"additionalProperties\":false}";
static const char list_files_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
    "\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"file\",\"directory\",\"symlink\"]},\"size\":{\"type\":\"integer\"},"
    "\"mtime\":{\"type\":\"number\"}},\"required\":[\"path\",\"type\",\"size\"]}}},"
    "\"required\":[\"session_id\",\"path\",\"entries\"]}";
static const char read_in[] =
    "{\"type\":\"object\",\"properties\":{" SID_IN
    ",\"path\":{\"type\":\"string\",\"description\":\"A file under "
    "/app (absolute, or relative to /app).\"},\"encoding\":{\"type\":\"string\",\"enum\":[\"utf-8\",\"base64\"],"
    "\"default\":\"utf-8\"}},\"required\":[\"session_id\",\"path\"],\"additionalProperties\":false}";
static const char read_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
    "\"encoding\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\"}},"
    "\"required\":[\"session_id\",\"path\",\"encoding\",\"content\",\"size\"]}";
static const char write_in[] =
    "{\"type\":\"object\",\"properties\":{" SID_IN
    ",\"path\":{\"type\":\"string\",\"description\":\"Where, under "
    "/app (absolute, or relative to /app); parent directories are created.\"},\"content\":{\"type\":\"string\"},"
    "\"encoding\":{\"type\":\"string\",\"enum\":[\"utf-8\",\"base64\"],\"default\":\"utf-8\",\"description\":"
    "\"How content is written here: utf-8 text, or base64 for binary data.\"}},\"required\":[\"session_id\","
    "\"path\",\"content\"],\"additionalProperties\":false}";
static const char write_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
    "\"size\":{\"type\":\"integer\"}},\"required\":[\"session_id\",\"path\",\"size\"]}";
static const char install_in[] =
    "{\"type\":\"object\",\"properties\":{" SID_IN
    ",\"requirement\":{\"type\":\"string\",\"minLength\":1,"
    "\"maxLength\":200,\"description\":\"A package name with an optional version, as pip takes it: 'tabulate', "
    "'attrs>=22,<24'.\"}},\"required\":[\"session_id\",\"requirement\"],\"additionalProperties\":false}";
static const char install_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"requirement\":{\"type\":\"string\"},"
    "\"installed\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"version\":{\"type\":\"string\"}},\"required\":[\"name\",\"version\"]}},\"built_in\":{\"type\":\"array\","
    "\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"version\":{\"type\":\"string\"}},"
    "\"required\":[\"name\",\"version\"]}}},\"required\":[\"session_id\",\"requirement\",\"installed\",\"built_in\"]}";
static const char reset_out[] =
    "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},\"reset\":{\"type\":\"boolean\"}},"
    "\"required\":[\"session_id\",\"reset\"]}";
static const char runtimes_out[] =
    "{\"type\":\"object\",\"properties\":{\"runtimes\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"language\":{\"type\":\"string\"},\"version\":{\"type\":\"string\"},"
    "\"aliases\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"modules\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"packages\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"version\":{\"type\":\"string\"},\"import\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"from\":{\"type\":\"string\"}},\"required\":[\"name\",\"version\",\"import\",\"from\"]}},"
    "\"notes\":{\"type\":\"string\"}},\"required\":[\"language\",\"version\"]}},"
    "\"limits\":{\"type\":\"object\"},\"external\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
    "\"required\":[\"runtimes\",\"limits\",\"external\"]}";
static const char metrics_out[] =
    "{\"type\":\"object\",\"properties\":{\"uptime_seconds\":{\"type\":\"number\"},\"requests\":{\"type\":\"integer\"},"
    "\"tool_calls\":{\"type\":\"integer\"},\"in_flight\":{\"type\":\"integer\"},"
    "\"execute_code\":{\"type\":\"object\"},\"calls_by_tool\":{\"type\":\"object\"}},"
    "\"required\":[\"uptime_seconds\",\"requests\",\"tool_calls\",\"in_flight\",\"execute_code\"]}";

static const char search_in[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"query\":{\"type\":\"string\",\"description\":\"Words describing what the tool should do, e.g. "
    "\\\"read file\\\" or \\\"create issue\\\". Leave out to list every tool.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":10},"
    "\"detail\":{\"type\":\"string\",\"enum\":[\"name\",\"summary\",\"schema\"],\"default\":\"summary\","
    "\"description\":\"name: names only; summary: name, one line of description, server; schema: the whole "
    "definition with inputSchema.\"}},\"additionalProperties\":false}";

static const char search_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"tools\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
    "\"required\":[\"name\"]}},"
    "\"unavailable\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"server\":{\"type\":\"string\"},\"error\":{\"type\":\"string\"}}}}},"
    "\"required\":[\"tools\",\"unavailable\"]}";

static const char resume_in[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"resume_token\":{\"type\":\"string\",\"description\":\"From the paused execute_code result.\"},"
    "\"approve\":{\"type\":\"boolean\",\"description\":\"true: make the call; false: refuse it.\"},"
    "\"result\":{\"type\":\"object\",\"description\":\"With approve true: a tool result (content, "
    "structuredContent) to give the code instead of calling the tool.\"},"
    "\"message\":{\"type\":\"string\",\"description\":\"With approve false: why, for the code's ToolError.\"}"
    "},\"required\":[\"resume_token\",\"approve\"],\"additionalProperties\":false}";

static const mcp_tool tools[] = {
    {"execute_code", "Run Python or JavaScript in a sandbox",
     "Run Python 3.11 or JavaScript (QuickJS, ES2023) in an isolated WebAssembly sandbox and get back what it "
     "printed. Use it to compute, parse or transform data, check an idea, or produce files. The code sees only /app "
     "(its working directory; files it writes there are listed in files_changed) and, when this server offers them, "
     "read-only host files in /external. There is no network, no subprocess and no package installation; Python has "
     "the standard library and built-in pure-Python packages (openpyxl, xlsxwriter, pypdf, jinja2, yaml, bs4, "
     "networkx, sympy, dateutil, pydantic, tabulate...; list_runtimes lists them). Without session_id every call starts from a fresh interpreter; to "
     "keep variables, imports and files across calls (like a notebook) call create_session once and pass its "
     "session_id. The result has status (ok, error, timeout, out_of_fuel, out_of_memory, crashed), stdout, stderr, "
     "error {type, message, traceback, guidance} and files_changed; when the code fails the result has isError true and "
     "error.guidance says what to change. A failed call in a session (timeout, memory, crash) is rolled back. "
     "PNG, SVG, JPEG, GIF and WebP images the code writes in /app come back as images (up to 4 per call).",
     exec_in, exec_out, false, false, false, tool_execute_code},
    {"create_session", "Create a sandbox session",
     "Start a session: an interpreter whose variables, functions, imports and /app files persist across "
     "execute_code calls that pass its session_id. Use one when a task takes several steps, loads data once, or "
     "builds files; skip it for one-off calculations. Sessions are kept on disk (they survive a server restart) "
     "until destroy_session or until idle for ttl_seconds. Returns session_id.",
     create_in, create_out, false, false, false, tool_create_session},
    {"destroy_session", "Delete a session",
     "Delete a session with its memory, files and checkpoints. Cannot be undone.", sid_in, destroy_out, false, true,
     true, tool_destroy_session},
    {"fork_session", "Copy a session",
     "Copy a session (memory and files) into a new one; the two then evolve apart. Use it to try something risky "
     "or explore alternatives without losing the current state. Returns the new session_id.",
     sid_in, fork_out, false, false, false, tool_fork_session},
    {"checkpoint_session", "Save a session state",
     "Remember the current state of a session (memory and files) under a new checkpoint_id, to return to it later "
     "with restore_session.",
     sid_in, checkpoint_out, false, false, false, tool_checkpoint_session},
    {"restore_session", "Go back to a checkpoint",
     "Put a session back to a checkpoint made by checkpoint_session: memory and files as they were then. The "
     "current state is discarded (checkpoint it first to keep it).",
     restore_in, restore_out, false, true, true, tool_restore_session},
    {"list_sessions", "List sessions",
     "List your sessions: id, language, when created and last used, idle TTL, disk use and number of checkpoints "
     "(an admin client sees every client's, with its owner).",
     NO_ARGS, list_sessions_out, true, false, true, tool_list_sessions},
    {"list_files", "List files in a session",
     "List files and directories of a session's workspace (/app), optionally recursively: path, type, size, "
     "modification time.",
     list_files_in, list_files_out, true, false, true, tool_list_files},
    {"read_file", "Read a file from a session",
     "Read a file from a session's workspace (/app), e.g. a result the code wrote. Text comes back as utf-8; use "
     "encoding base64 for binary files (images, archives).",
     read_in, read_out, true, false, true, tool_read_file},
    {"write_file", "Write a file into a session",
     "Create or replace a file in a session's workspace (/app) so the code can read it, e.g. data to analyse. "
     "Parent directories are created. Use encoding base64 for binary data.",
     write_in, write_out, false, true, true, tool_write_file},
    {"reset_workspace", "Empty a session's files",
     "Delete every file in a session's workspace (/app). Variables in memory stay.", sid_in, reset_out, false, true,
     true, tool_reset_workspace},
    {"install_package", "Install a Python package into a session",
     "Install a pure-Python package and its dependencies into a Python session, from the package index this "
     "server is configured with; the session's later execute_code calls import it. Check list_runtimes first: "
     "many packages are built in already. Packages with compiled code cannot be installed.",
     install_in, install_out, false, false, true, tool_install_package},
    {"list_runtimes", "Languages, versions and limits",
     "What this sandbox runs: languages and versions, the modules and packages available (Python: the standard "
     "library and built-in pure-Python packages with their versions and import names), the default and maximum "
     "limits, and the files in /external.",
     NO_ARGS, runtimes_out, true, false, true, tool_list_runtimes},
    {"search_tools", "Find tools the code can call",
     "Search the tools that code run by execute_code can call (this server's upstream MCP servers): the best "
     "matches for the words of query (leave it out to list them all), as names, one-line summaries or whole "
     "definitions with inputSchema (detail name, summary, schema). Look up only what the task needs, then call "
     "the tools from code: Python `from wasmbox import tools; tools.call(\"server__tool\", {...})` or "
     "`tools.server.tool(arg=...)`, JavaScript `await tools.call(\"server__tool\", {...})`.",
     search_in, search_out, true, false, true, tool_search_tools},
    {"resume_execution", "Approve or deny a paused tool call",
     "Go on with an execute_code run that paused (status paused) at a tool call that needs a person's approval: "
     "ask the user about pending_tool (its name and arguments), then pass the run's resume_token with approve "
     "true (the tool is called and the code continues) or false (the code gets a ToolError saying it was denied; "
     "message says why). result, with approve true, hands the code that tool result instead of calling the tool. "
     "The code runs again from where it started, up to the paused call, with the same values as before: nothing "
     "it did before the pause is done twice. A token works once, for 24 hours.",
     resume_in, exec_out, false, true, false, tool_resume_execution},
    {"get_metrics", "Server metrics",
     "Counters of this server: requests, tool calls, execute_code outcomes and latency (p50/p99), calls in "
     "flight.",
     NO_ARGS, metrics_out, true, false, false, tool_get_metrics},
};
#define N_TOOLS (sizeof tools / sizeof tools[0])

/* Is tool t offered by this server? (search_tools: in code mode only) */
static bool offered(const mcp_server *s, const mcp_tool *t) {
  return (t->run != tool_search_tools && t->run != tool_resume_execution) || s->upstreams;
}

const mcp_tool *mcp_tool_find(mcp_server *s, const char *name) {
  for (size_t i = 0; i < N_TOOLS; i++)
    if (!strcmp(tools[i].name, name)) return offered(s, &tools[i]) ? &tools[i] : NULL;
  return NULL;
}

/* Put this server's limits into execute_code's schema and description. */
static void add_limits(mcp_server *s, cJSON *tool, cJSON *in) {
  cJSON *props = cJSON_GetObjectItemCaseSensitive(in, "properties");
  cJSON *t = cJSON_GetObjectItemCaseSensitive(props, "timeout_seconds");
  cJSON *mem = cJSON_GetObjectItemCaseSensitive(props, "memory_mb");
  if (t)
    cJSON_AddNumberToObject(t, "maximum", s->cfg->max_timeout), cJSON_AddNumberToObject(t, "default", s->cfg->timeout);
  if (mem)
    cJSON_AddNumberToObject(mem, "maximum", (double)s->cfg->max_memory_mb),
        cJSON_AddNumberToObject(mem, "default", (double)s->cfg->memory_mb);
  cJSON *fuel = cJSON_GetObjectItemCaseSensitive(props, "fuel");
  if (fuel) {
    rpc_add_u64(fuel, "maximum", s->cfg->max_fuel);
    if (s->cfg->fuel) rpc_add_u64(fuel, "default", s->cfg->fuel);
  }
  char extra[512];
  snprintf(extra, sizeof extra,
           " Limits here: timeout_seconds %g by default, at most %g; memory_mb %llu by default, at most %llu; "
           "stdout and stderr kept up to %llu bytes each (the rest is counted and reported as truncated).%s",
           s->cfg->timeout, s->cfg->max_timeout, (unsigned long long)s->cfg->memory_mb,
           (unsigned long long)s->cfg->max_memory_mb, (unsigned long long)s->cfg->max_output_bytes,
           s->n_mounts ? " Host files are readable in /external." : "");
  cJSON *d = cJSON_GetObjectItemCaseSensitive(tool, "description");
  size_t n = strlen(d->valuestring) + strlen(extra) + 1;
  char *full = malloc(n);
  if (!full) return;
  snprintf(full, n, "%s%s", d->valuestring, extra);
  cJSON_SetValuestring(d, full);
  free(full);
}

/* Code mode: execute_code says how to call the upstream tools, and takes
 * allowed_tools. */
static void add_code_mode(cJSON *tool, cJSON *in) {
  static const char text[] =
      " The code can call this user's other tools (search_tools finds them; names are server__tool). Python: "
      "`from wasmbox import tools`, then `tools.search(\"words\")`, `tools.schema(name)`, `tools.call(name, "
      "{...})` or `tools.server.tool(arg=...)`; JavaScript: the same under the global `tools`, with await. "
      "Results come back as data (structuredContent, parsed JSON, or text; images as bytes): filter them in code "
      "and print only what matters. A failing tool raises ToolError. Call tools from code rather than one by one.";
  cJSON *props = cJSON_GetObjectItemCaseSensitive(in, "properties");
  cJSON *at = cJSON_Parse(
      "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":64,"
      "\"description\":\"Tools this run may call (server__tool patterns, * globs, ! to "
      "exclude); narrows what the server allows, never widens it. Default: all of them.\"}");
  if (at) cJSON_AddItemToObject(props, "allowed_tools", at);
  cJSON *d = cJSON_GetObjectItemCaseSensitive(tool, "description");
  size_t n = strlen(d->valuestring) + sizeof text;
  char *full = malloc(n);
  if (!full) return;
  snprintf(full, n, "%s%s", d->valuestring, text);
  cJSON_SetValuestring(d, full);
  free(full);
}

cJSON *mcp_tools_list(mcp_server *s) {
  cJSON *arr = cJSON_CreateArray();
  if (!arr) return NULL;
  for (size_t i = 0; i < N_TOOLS; i++) {
    const mcp_tool *t = &tools[i];
    if (!offered(s, t)) continue;
    cJSON *o = cJSON_CreateObject(), *ann = cJSON_CreateObject();
    cJSON *in = cJSON_Parse(t->input_schema), *out = cJSON_Parse(t->output_schema);
    if (!o || !ann || !in || !out) {
      cJSON_Delete(o), cJSON_Delete(ann), cJSON_Delete(in), cJSON_Delete(out), cJSON_Delete(arr);
      return NULL;
    }
    cJSON_AddStringToObject(o, "name", t->name);
    cJSON_AddStringToObject(o, "title", t->title);
    cJSON_AddStringToObject(o, "description", t->description);
    if (t->run == tool_execute_code) add_limits(s, o, in);
    if (t->run == tool_execute_code && s->upstreams) add_code_mode(o, in);
    cJSON_AddItemToObject(o, "inputSchema", in);
    cJSON_AddItemToObject(o, "outputSchema", out);
    cJSON_AddStringToObject(ann, "title", t->title);
    cJSON_AddBoolToObject(ann, "readOnlyHint", t->read_only);
    if (!t->read_only) {
      cJSON_AddBoolToObject(ann, "destructiveHint", t->destructive);
      cJSON_AddBoolToObject(ann, "idempotentHint", t->idempotent);
    }
    cJSON_AddBoolToObject(ann, "openWorldHint", false); /* nothing outside the sandbox is reached */
    cJSON_AddItemToObject(o, "annotations", ann);
    cJSON_AddItemToArray(arr, o);
  }
  return arr;
}

cJSON *tool_result(cJSON *structured, bool is_error) {
  cJSON *r = cJSON_CreateObject(), *content = cJSON_CreateArray(), *text = cJSON_CreateObject();
  char *s = structured ? cJSON_PrintUnformatted(structured) : NULL;
  if (!r || !content || !text || !s) {
    cJSON_Delete(r), cJSON_Delete(content), cJSON_Delete(text), cJSON_Delete(structured);
    cJSON_free(s);
    return NULL;
  }
  cJSON_AddStringToObject(text, "type", "text");
  cJSON_AddStringToObject(text, "text", s);
  cJSON_free(s);
  cJSON_AddItemToArray(content, text);
  cJSON_AddItemToObject(r, "content", content);
  cJSON_AddItemToObject(r, "structuredContent", structured);
  cJSON_AddBoolToObject(r, "isError", is_error);
  return r;
}

cJSON *tool_error(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cJSON *r = cJSON_CreateObject(), *content = cJSON_CreateArray(), *text = cJSON_CreateObject();
  if (!r || !content || !text) {
    cJSON_Delete(r), cJSON_Delete(content), cJSON_Delete(text);
    return NULL;
  }
  cJSON_AddStringToObject(text, "type", "text");
  cJSON_AddStringToObject(text, "text", msg);
  cJSON_AddItemToArray(content, text);
  cJSON_AddItemToObject(r, "content", content);
  cJSON_AddBoolToObject(r, "isError", true);
  return r;
}

cJSON *mcp_tool_call(mcp_msg *m, const mcp_tool *t, const cJSON *args) {
  cJSON *r = t->run(m, args);
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "isError");
  mcp_metrics_tool(&m->srv->metrics, t->name, cJSON_IsTrue(e));
  return r;
}
