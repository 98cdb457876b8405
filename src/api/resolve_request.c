/* A request resolved once (see resolve_request.h). */
#include "api/resolve_request.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "api/library.h"
#include "api/guest_tools.h"

static int valid_env(const char *e) {
  const char *eq = strchr(e, '=');
  if (!eq || eq == e) return 0;
  for (const char *p = e; p < eq; p++)
    if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (p > e && *p >= '0' && *p <= '9')))
      return 0;
  return 1;
}

int wb_check_env(const char *const *env, size_t n, char *err, size_t errlen) {
  for (size_t i = 0; i < n; i++)
    if (!env[i] || !valid_env(env[i])) return wb_usage(err, errlen, "environment entry %zu is not NAME=value", i);
  return WASMBOX_OK;
}

/* A plain absolute path: no "." or ".." components, no empty ones. */
static int plain_path(const char *g) {
  size_t n = strlen(g);
  if (g[0] != '/' || n < 2 || n > 1024 || g[n - 1] == '/') return 0;
  for (const char *s = g; *s;) {
    s++;
    size_t k = strcspn(s, "/");
    if (k == 0 || (k == 1 && s[0] == '.') || (k == 2 && s[0] == '.' && s[1] == '.')) return 0;
    s += k;
  }
  return 1;
}

int wb_check_mounts(const wasmbox_mount *m, size_t n, char *err, size_t errlen) {
  if (n > WASMBOX_MAX_MOUNTS) return wb_usage(err, errlen, "at most %d mounts", WASMBOX_MAX_MOUNTS);
  for (size_t i = 0; i < n; i++) {
    const char *g = m[i].guest_path;
    if (!m[i].host_dir || !g) return wb_usage(err, errlen, "mount %zu lacks a host directory or guest path", i);
    if (!plain_path(g)) return wb_usage(err, errlen, "mount path '%s' must be a plain absolute path other than /", g);
    if (!strcmp(g, "/app") || !strncmp(g, "/app/", 5))
      return wb_usage(err, errlen, "mount path '%s' is inside the workspace /app", g);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(m[j].guest_path, g)) return wb_usage(err, errlen, "mount path '%s' is given twice", g);
    struct stat st;
    if (stat(m[i].host_dir, &st) != 0 || !S_ISDIR(st.st_mode))
      return wb_usage(err, errlen, "mount source %s is not a directory", m[i].host_dir);
  }
  return WASMBOX_OK;
}

/* Package directories become read-only mounts at /packages/N after the
 * caller's mounts; the guest's sys.path has those entries (runtimes/python/
 * lib/_wasmbox_packages.py). */
int wb_add_packages(const char *language, const wasmbox_mount *m, size_t n, const char *const *pkgs, size_t npkgs,
                    wasmbox_mount out[WASMBOX_MAX_MOUNTS], size_t *nout, char *err, size_t errlen) {
  static const char *const guest[WASMBOX_MAX_PACKAGES] = {"/packages/0", "/packages/1", "/packages/2", "/packages/3"};
  *nout = 0;
  if (!npkgs) return WASMBOX_OK;
  const wb_runtime *rt = wb_runtime_find(language ? language : "python");
  if (rt && strcmp(rt->language, "python"))
    return wb_usage(err, errlen, "package directories are Python's; this call runs %s", rt->language);
  if (npkgs > WASMBOX_MAX_PACKAGES)
    return wb_usage(err, errlen, "at most %d package directories", WASMBOX_MAX_PACKAGES);
  if (n + npkgs > WASMBOX_MAX_MOUNTS)
    return wb_usage(err, errlen, "at most %d mounts and package directories together", WASMBOX_MAX_MOUNTS);
  for (size_t i = 0; i < n; i++) out[i] = m[i];
  for (size_t i = 0; i < npkgs; i++) {
    struct stat st;
    if (!pkgs[i] || stat(pkgs[i], &st) != 0 || !S_ISDIR(st.st_mode))
      return wb_usage(err, errlen, "package directory %s is not a directory", pkgs[i] ? pkgs[i] : "(null)");
    out[n + i] = (wasmbox_mount){.host_dir = pkgs[i], .guest_path = guest[i]};
  }
  *nout = n + npkgs;
  return WASMBOX_OK;
}

int wb_resolve(const wasmbox_request *req, wb_resolved *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!req->code) return wb_usage(err, errlen, "no code given");
  out->code_len = req->code_len ? req->code_len : strlen(req->code);
  if (out->code_len > WB_CODE_MAX) return wb_usage(err, errlen, "code is larger than %u MB", WB_CODE_MAX >> 20);
  out->timeout_s = req->timeout_seconds == 0 ? WASMBOX_DEFAULT_TIMEOUT_S : req->timeout_seconds;
  if (!(out->timeout_s > 0 && out->timeout_s <= WB_TIMEOUT_MAX_S))
    return wb_usage(err, errlen, "timeout must be between 0 and %g seconds", WB_TIMEOUT_MAX_S);
  out->memory = req->memory_bytes ? req->memory_bytes : WASMBOX_DEFAULT_MEMORY;
  if (out->memory > WB_MEMORY_MAX)
    return wb_usage(err, errlen, "memory limit must be at most %llu MB", WB_MEMORY_MAX >> 20);
  out->fuel = req->fuel ? req->fuel : WASMBOX_DEFAULT_FUEL;
  if (out->fuel > WASMBOX_MAX_FUEL)
    return wb_usage(err, errlen, "fuel must be at most %llu", (unsigned long long)WASMBOX_MAX_FUEL);
  out->max_output = req->max_output_bytes ? req->max_output_bytes : WASMBOX_DEFAULT_MAX_OUTPUT;
  if (out->max_output > WB_OUTPUT_MAX)
    return wb_usage(err, errlen, "output limit must be at most %llu MB", WB_OUTPUT_MAX >> 20);
  out->quota = req->quota_bytes ? req->quota_bytes : WASMBOX_DEFAULT_QUOTA;
  if (req->filename && strlen(req->filename) > WB_FILENAME_MAX)
    return wb_usage(err, errlen, "file name is longer than %d bytes", WB_FILENAME_MAX);
  int trc = wb_tools_check(req, err, errlen);
  if (trc) return trc;
  if (req->language || !req->session_id) {
    const char *lang = req->language ? req->language : "python";
    if (!(out->rt = wb_runtime_find(lang))) return wb_usage(err, errlen, "unknown language '%s'", lang);
  }
  if (req->session_id) {
    if (req->workspace || req->env_len || req->mounts_len)
      return wb_usage(err, errlen,
                      "a session call uses the session's workspace, environment and mounts; "
                      "set them when creating the session");
    if (req->no_files) return wb_usage(err, errlen, "no_files is for stateless calls: a session's /app is its state");
    return WASMBOX_OK;
  }
  if (req->env_len > WB_ENV_MAX) return wb_usage(err, errlen, "at most %d environment entries", WB_ENV_MAX);
  int rc = wb_check_env(req->env, req->env_len, err, errlen);
  if (!rc) rc = wb_check_mounts(req->mounts, req->mounts_len, err, errlen);
  if (rc) return rc;
  if (req->no_files && req->workspace)
    return wb_usage(err, errlen, "a workspace and no_files contradict each other: give one");
  if (req->workspace) {
    struct stat st;
    if (stat(req->workspace, &st) != 0)
      return wb_usage(err, errlen, "workspace %s: %s", req->workspace, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return wb_usage(err, errlen, "workspace %s is not a directory", req->workspace);
  }
  return WASMBOX_OK;
}
