/* Request checks shared by calls and sessions. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "api/internal.h"
#include "engine/runtime.h"

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
  static const char *const guest[WASMBOX_MAX_PACKAGES] = {"/packages/0", "/packages/1", "/packages/2",
                                                          "/packages/3"};
  *nout = 0;
  if (!npkgs) return WASMBOX_OK;
  const wb_runtime *rt = wb_runtime_find(language ? language : "python");
  if (rt && strcmp(rt->language, "python"))
    return wb_usage(err, errlen, "package directories are Python's; this call runs %s", rt->language);
  if (npkgs > WASMBOX_MAX_PACKAGES) return wb_usage(err, errlen, "at most %d package directories", WASMBOX_MAX_PACKAGES);
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
