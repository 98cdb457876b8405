/* The prompt and completions (see catalog.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/catalog.h"
#include "mcp/jsonrpc.h"

#define PROMPT "sandbox_task"
#define MAX_COMPLETIONS 100

static void fault(mcp_fault *f, int code, const char *msg) {
  f->code = code;
  snprintf(f->message, sizeof f->message, "%.500s", msg);
}

cJSON *mcp_prompts_list(mcp_msg *m, const cJSON *params, mcp_fault *f) {
  (void)m, (void)params, (void)f;
  cJSON *r = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *p = cJSON_CreateObject(), *args = cJSON_CreateArray(),
        *a1 = cJSON_CreateObject(), *a2 = cJSON_CreateObject();
  if (!r || !arr || !p || !args || !a1 || !a2) {
    cJSON_Delete(r), cJSON_Delete(arr), cJSON_Delete(p), cJSON_Delete(args), cJSON_Delete(a1), cJSON_Delete(a2);
    return NULL;
  }
  cJSON_AddStringToObject(p, "name", PROMPT);
  cJSON_AddStringToObject(p, "title", "Solve a task with the code sandbox");
  cJSON_AddStringToObject(p, "description",
                          "Asks the model to solve a task by writing and running code in wasmbox, checking its "
                          "results, with a session when the work takes several steps.");
  cJSON_AddStringToObject(a1, "name", "task");
  cJSON_AddStringToObject(a1, "description", "What to compute, analyse or produce.");
  cJSON_AddBoolToObject(a1, "required", true);
  cJSON_AddStringToObject(a2, "name", "language");
  cJSON_AddStringToObject(a2, "description", "python (default) or javascript.");
  cJSON_AddBoolToObject(a2, "required", false);
  cJSON_AddItemToArray(args, a1);
  cJSON_AddItemToArray(args, a2);
  cJSON_AddItemToObject(p, "arguments", args);
  cJSON_AddItemToArray(arr, p);
  cJSON_AddItemToObject(r, "prompts", arr);
  return r;
}

cJSON *mcp_prompt_get(mcp_msg *m, const cJSON *params, mcp_fault *f) {
  (void)m;
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
  if (!cJSON_IsString(name)) {
    fault(f, RPC_INVALID_PARAMS, "prompts/get needs params.name (a string)");
    return NULL;
  }
  if (strcmp(name->valuestring, PROMPT)) {
    fault(f, RPC_INVALID_PARAMS, "Unknown prompt: this server has only '" PROMPT "'");
    return NULL;
  }
  if (args && !cJSON_IsObject(args)) {
    fault(f, RPC_INVALID_PARAMS, "params.arguments must be an object of strings");
    return NULL;
  }
  const cJSON *task = cJSON_GetObjectItemCaseSensitive(args, "task");
  const cJSON *lang = cJSON_GetObjectItemCaseSensitive(args, "language");
  if (!cJSON_IsString(task) || !task->valuestring[0]) {
    fault(f, RPC_INVALID_PARAMS, "Missing required argument 'task'");
    return NULL;
  }
  if (lang &&
      (!cJSON_IsString(lang) || (strcmp(lang->valuestring, "python") && strcmp(lang->valuestring, "javascript")))) {
    fault(f, RPC_INVALID_PARAMS, "Argument 'language' must be python or javascript");
    return NULL;
  }
  const char *l = lang ? lang->valuestring : "python";
  size_t n = strlen(task->valuestring) + 1024;
  char *text = malloc(n);
  if (!text) return NULL;
  snprintf(
      text, n,
      "Task: %s\n\n"
      "Solve it by running %s code with the wasmbox execute_code tool rather than by guessing: compute, then "
      "check the output. The sandbox has the standard library and, in Python, built-in pure-Python "
      "packages (see list_runtimes), no network and no package installs. If the task needs several steps or data that should stay loaded, call "
      "create_session first and pass its session_id to every execute_code call; put input files in with "
      "write_file and fetch results with read_file. When a call fails, read error.guidance in the result, "
      "fix the code and run it again.",
      task->valuestring, l);
  cJSON *r = cJSON_CreateObject(), *msgs = cJSON_CreateArray(), *msg = cJSON_CreateObject(),
        *content = cJSON_CreateObject();
  if (!r || !msgs || !msg || !content) {
    free(text);
    cJSON_Delete(r), cJSON_Delete(msgs), cJSON_Delete(msg), cJSON_Delete(content);
    return NULL;
  }
  cJSON_AddStringToObject(content, "type", "text");
  cJSON_AddStringToObject(content, "text", text);
  free(text);
  cJSON_AddStringToObject(msg, "role", "user");
  cJSON_AddItemToObject(msg, "content", content);
  cJSON_AddItemToArray(msgs, msg);
  cJSON_AddStringToObject(r, "description", "Solve a task with the code sandbox");
  cJSON_AddItemToObject(r, "messages", msgs);
  return r;
}

static void offer(cJSON *values, const char *prefix, const char *v, size_t *total) {
  if (strncmp(v, prefix, strlen(prefix))) return;
  (*total)++;
  if (cJSON_GetArraySize(values) < MAX_COMPLETIONS) cJSON_AddItemToArray(values, cJSON_CreateString(v));
}

/* Suggestions for the prompt's language, and for the resource template's
 * session_id and path. Anything else has no suggestions (an empty list). */
cJSON *mcp_complete(mcp_msg *m, const cJSON *params, mcp_fault *f) {
  const cJSON *ref = cJSON_GetObjectItemCaseSensitive(params, "ref");
  const cJSON *arg = cJSON_GetObjectItemCaseSensitive(params, "argument");
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(ref, "type");
  const cJSON *an = cJSON_GetObjectItemCaseSensitive(arg, "name");
  const cJSON *av = cJSON_GetObjectItemCaseSensitive(arg, "value");
  if (!cJSON_IsObject(ref) || !cJSON_IsString(type) || !cJSON_IsString(an) || !cJSON_IsString(av)) {
    fault(f, RPC_INVALID_PARAMS, "completion/complete needs params.ref {type, ...} and params.argument {name, value}");
    return NULL;
  }
  cJSON *r = cJSON_CreateObject(), *c = cJSON_CreateObject(), *values = cJSON_CreateArray();
  if (!r || !c || !values) {
    cJSON_Delete(r), cJSON_Delete(c), cJSON_Delete(values);
    return NULL;
  }
  size_t total = 0;
  const cJSON *pname = cJSON_GetObjectItemCaseSensitive(ref, "name");
  const cJSON *uri = cJSON_GetObjectItemCaseSensitive(ref, "uri");
  if (!strcmp(type->valuestring, "ref/prompt") && cJSON_IsString(pname) && !strcmp(pname->valuestring, PROMPT) &&
      !strcmp(an->valuestring, "language")) {
    offer(values, av->valuestring, "python", &total);
    offer(values, av->valuestring, "javascript", &total);
  } else if (!strcmp(type->valuestring, "ref/resource") && cJSON_IsString(uri) &&
             !strncmp(uri->valuestring, "wasmbox://session/", 18)) {
    wasmbox_session_info *all = NULL;
    size_t n = 0;
    char err[256];
    if (!strcmp(an->valuestring, "session_id") && !wasmbox_session_list(m->srv->wb, &all, &n, err, sizeof err)) {
      for (size_t i = 0; i < n; i++)
        if (mcp_owns(m, all[i].owner)) offer(values, av->valuestring, all[i].id, &total);
      free(all);
    } else if (!strcmp(an->valuestring, "path")) {
      const cJSON *ctx =
          cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "context"), "arguments");
      const cJSON *sid = cJSON_GetObjectItemCaseSensitive(ctx, "session_id");
      wasmbox_file_info *v = NULL;
      if (cJSON_IsString(sid) && !mcp_session_access(m, sid->valuestring, err, sizeof err) &&
          !wasmbox_session_list_files(m->srv->wb, sid->valuestring, "/app", true, &v, &n, err, sizeof err)) {
        for (size_t i = 0; i < n; i++)
          if (!v[i].is_dir) offer(values, av->valuestring, v[i].path + 5, &total); /* after "/app/" */
        wasmbox_file_info_free(v, n);
      }
    }
  }
  cJSON_AddItemToObject(c, "values", values);
  cJSON_AddNumberToObject(c, "total", (double)total);
  cJSON_AddBoolToObject(c, "hasMore", total > (size_t)cJSON_GetArraySize(values));
  cJSON_AddItemToObject(r, "completion", c);
  return r;
}
