/* wasmbox_session_install (include/wasmbox.h): pip on this host resolves and
 * downloads pure-Python wheels; a call in the session itself unpacks them
 * into its /app/.site-packages, so nothing of a package is ever opened on
 * the host but by pip's resolver, and the unpacking is bounded by the
 * sandbox (its quota, its paths). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/library.h"
#include "python_packages.h" /* generated: the built-in packages, the runtime's version */
#include "session/tree.h"
#include "util/json.h"
#include "util/os.h"

#define PIP "/usr/bin/python3"
#define PIP_TIMEOUT_S 300 /* one install request, all its pip runs together */
#define PIP_OUTPUT_MAX (64u << 10)
#define REQUIREMENT_MAX 200
#define WHEELS_NAME ".wasmbox-wheels"
#define WHEELS_DIR "/app/" WHEELS_NAME

extern char **environ;

/* A name with an optional version specifier and extras, and nothing pip
 * would read as a path, a URL or an option: "pkg", "pkg[x]>=1.2,<2". */
static bool plain_requirement(const char *r) {
  size_t n = strlen(r);
  if (n == 0 || n > REQUIREMENT_MAX) return false;
  if (!((r[0] >= 'a' && r[0] <= 'z') || (r[0] >= 'A' && r[0] <= 'Z') || (r[0] >= '0' && r[0] <= '9'))) return false;
  for (const char *p = r; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-[],<>=!~* +", *p)) return false;
  return true;
}

/* PEP 503 normalisation: lower case, runs of -_. as one '-'. */
static void normalise(const char *s, size_t n, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < cap; i++) {
    char c = s[i];
    if (c == '-' || c == '_' || c == '.') {
      if (k && out[k - 1] != '-') out[k++] = '-';
    } else {
      out[k++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
  }
  out[k] = 0;
}

static int built_in(const char *name, size_t n) {
  char want[128], have[128];
  normalise(name, n, want, sizeof want);
  for (size_t i = 0; i < sizeof wb_python_packages / sizeof wb_python_packages[0]; i++) {
    if (wb_python_packages[i].module[0] == '_') continue; /* PyYAML's _yaml shim: name it by yaml */
    normalise(wb_python_packages[i].distribution, strlen(wb_python_packages[i].distribution), have, sizeof have);
    if (!strcmp(want, have)) return (int)i;
  }
  return -1;
}

/* NAME-VERSION(-BUILD)?-PY-ABI-PLATFORM.whl: pure Python when ABI is none
 * and PLATFORM any. */
static bool pure_wheel(const char *file) {
  size_t n = strlen(file);
  if (n < 5 || strcmp(file + n - 4, ".whl")) return false;
  const char *plat = NULL, *abi = NULL;
  for (const char *p = file + n - 4; p > file; p--)
    if (p[-1] == '-') {
      if (!plat) plat = p;
      else if (!abi) {
        abi = p;
        break;
      }
    }
  return plat && abi && !strncmp(plat, "any.whl", 7) && !strncmp(abi, "none-", 5);
}

/* Run pip with argv in `home` (its working directory too: nothing of ours
 * is importable from there), by the request's deadline; its output (stdout
 * and stderr, bounded) in *out. */
static int run_pip(char *const argv[], const char *home, uint64_t deadline_ns, wb_buf *out, char *err, size_t errlen) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    return -1;
  }
  char env_home[4200];
  snprintf(env_home, sizeof env_home, "HOME=%s", home);
  char *const env[] = {
      "PATH=/usr/bin:/bin", env_home, "PIP_CONFIG_FILE=/dev/null", "PIP_NO_INPUT=1", "PIP_DISABLE_PIP_VERSION_CHECK=1",
      "LANG=C.UTF-8",       NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addchdir_np(&fa, home);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  pid_t pid;
  int rc = posix_spawn(&pid, PIP, &fa, NULL, argv, env);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    snprintf(err, errlen, "cannot start %s -m pip: %s", PIP, strerror(rc));
    return -1;
  }
  char chunk[4096];
  bool timed_out = false;
  for (;;) {
    double left = ((double)deadline_ns - (double)wb_monotonic_ns()) / 1e9;
    if (left <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
    int r = poll(&p, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    ssize_t k = read(pipefd[0], chunk, sizeof chunk);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    if (out->len < PIP_OUTPUT_MAX) wb_buf_append(out, chunk, (size_t)k);
  }
  close(pipefd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (timed_out) {
    snprintf(err, errlen, "pip did not finish within %d s (one install_package, every step)", PIP_TIMEOUT_S);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The last line of pip's output that says ERROR, for the caller. */
static const char *pip_error(wb_buf *out) {
  wb_buf_append(out, "", 1);
  char *last = NULL;
  for (char *l = out->data; l && *l;) {
    char *nl = strchr(l, '\n');
    if (nl) *nl = 0;
    if (!strncmp(l, "ERROR: ", 7)) last = l + 7;
    l = nl ? nl + 1 : NULL;
  }
  return last ? last : "pip failed";
}

/* The built-in packages as pip must see them: a wheel of metadata only for
 * each (so a dependency on one resolves without downloading it) and a
 * constraints file pinning each to the built-in version (so nothing asks for
 * another). Made by our own few lines of Python on the host's interpreter. */
static const char stubs_code[] =
    "import sys, zipfile\n"
    "d = sys.argv[1]\n"
    "with open(d + '/constraints.txt', 'w') as c:\n"
    "    for spec in sys.argv[2:]:\n"
    "        name, ver = spec.split('==')\n"
    "        c.write(spec + '\\n')\n"
    "        w = name.replace('-', '_')\n"
    "        with zipfile.ZipFile('%s/stubs/%s-%s-py3-none-any.whl' % (d, w, ver), 'w') as z:\n"
    "            di = '%s-%s.dist-info/' % (w, ver)\n"
    "            z.writestr(di + 'METADATA', 'Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n' % (name, ver))\n"
    "            z.writestr(di + 'WHEEL', 'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n"
    "            z.writestr(di + 'RECORD', '')\n";

static int make_stubs(const char *tmp, uint64_t deadline_ns, char *err, size_t errlen) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/stubs", tmp);
  if (mkdir(dir, 0700) != 0) {
    snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
    return -1;
  }
  size_t n = sizeof wb_python_packages / sizeof wb_python_packages[0];
  char **argv = calloc(n + 6, sizeof *argv), **specs = calloc(n, sizeof *specs);
  int k = 0, rc = -1;
  if (argv && specs) {
    argv[k++] = PIP, argv[k++] = "-I", argv[k++] = "-c", argv[k++] = (char *)stubs_code, argv[k++] = (char *)tmp;
    for (size_t i = 0; i < n; i++) {
      bool seen = false; /* a distribution has a row per import name */
      for (size_t j = 0; j < i; j++)
        seen = seen || !strcmp(wb_python_packages[j].distribution, wb_python_packages[i].distribution);
      if (seen || asprintf(&specs[i], "%s==%s", wb_python_packages[i].distribution, wb_python_packages[i].version) < 0)
        continue;
      argv[k++] = specs[i];
    }
    wb_buf out = {0};
    rc = run_pip(argv, tmp, deadline_ns, &out, err, errlen);
    if (rc > 0)
      snprintf(err, errlen, "making the built-in packages' metadata for pip failed: %.200s", out.data ? out.data : "");
    wb_buf_free(&out);
    for (size_t i = 0; i < n; i++) free(specs[i]);
  } else {
    snprintf(err, errlen, "out of memory");
  }
  free(argv);
  free(specs);
  return rc;
}

static int pip_download(const char *req, const char *index_url, const char *wheelhouse, const char *dest,
                        const char *home, uint64_t deadline_ns, bool pure_only, wb_buf *out, char *err, size_t errlen) {
  char *argv[40], stubs[4200], constraints[4200];
  snprintf(stubs, sizeof stubs, "%s/stubs", home);
  snprintf(constraints, sizeof constraints, "%s/constraints.txt", home);
  int n = 0;
  /* -I: isolated (no PYTHON* variables, no user site, not the working
     directory on sys.path); one attempt per request, the deadline above it */
  argv[n++] = PIP, argv[n++] = "-I", argv[n++] = "-m", argv[n++] = "pip", argv[n++] = "download";
  argv[n++] = "--quiet", argv[n++] = "--retries", argv[n++] = "0", argv[n++] = "--timeout", argv[n++] = "30";
  argv[n++] = "--no-cache-dir", argv[n++] = "--only-binary=:all:", argv[n++] = "--dest", argv[n++] = (char *)dest;
  if (pure_only) {
    argv[n++] = "--platform", argv[n++] = "any", argv[n++] = "--implementation", argv[n++] = "py";
    argv[n++] = "--python-version", argv[n++] = WB_PYTHON_VERSION;
    argv[n++] = "--find-links", argv[n++] = stubs, argv[n++] = "--constraint", argv[n++] = constraints;
  } else {
    argv[n++] = "--no-deps";
  }
  if (index_url) argv[n++] = "--index-url", argv[n++] = (char *)index_url;
  else argv[n++] = "--no-index", argv[n++] = "--find-links", argv[n++] = (char *)wheelhouse;
  argv[n++] = "--", argv[n++] = (char *)req, argv[n] = NULL;
  return run_pip(argv, home, deadline_ns, out, err, errlen);
}

/* A wheel with compiled code among what pip finds for `req` without the
 * pure-Python restriction: its file name, to say why nothing matched. */
static char *binary_wheel(const char *req, const char *index_url, const char *wheelhouse, const char *tmp,
                          uint64_t deadline_ns) {
  char dir[4200], err[256];
  snprintf(dir, sizeof dir, "%s/any", tmp);
  if (mkdir(dir, 0700) != 0) return NULL;
  wb_buf out = {0};
  int rc = pip_download(req, index_url, wheelhouse, dir, tmp, deadline_ns, false, &out, err, sizeof err);
  wb_buf_free(&out);
  DIR *d = rc == 0 ? opendir(dir) : NULL;
  char *found = NULL;
  for (struct dirent *e; d && (e = readdir(d));)
    if (!found && strstr(e->d_name, ".whl") && !pure_wheel(e->d_name)) found = strdup(e->d_name);
  if (d) closedir(d);
  return found;
}

static int read_all(const char *path, char **data, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  wb_buf b = {0};
  char chunk[65536];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= WASMBOX_FILE_MAX) wb_buf_append(&b, chunk, k);
  fclose(f);
  if (b.len > WASMBOX_FILE_MAX) {
    wb_buf_free(&b);
    return -2;
  }
  *len = b.len;
  *data = wb_buf_take(&b);
  return *data ? 0 : -1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The call that unpacks the wheels inside the sandbox: names of its own in
 * a function, so the session's variables stay as they were. All or
 * nothing: the wheels are unpacked aside and moved in only when every one
 * unpacked; on any failure what it unpacked and the wheels are gone, and
 * the call fails. */
static const char unpack_code[] =
    "def _wasmbox_unpack():\n"
    "    import importlib, os, shutil, zipfile\n"
    "    src, tmp, dst = '" WHEELS_DIR
    "', '/app/.wasmbox-unpack', '/app/.site-packages'\n"
    "    try:\n"
    "        for w in sorted(os.listdir(src)):\n"
    "            with zipfile.ZipFile(os.path.join(src, w)) as z:\n"
    "                z.extractall(tmp)\n"
    "        for top, dirs, files in os.walk(tmp):\n"
    "            to = os.path.join(dst, os.path.relpath(top, tmp))\n"
    "            os.makedirs(to, exist_ok=True)\n"
    "            for f in files:\n"
    "                os.replace(os.path.join(top, f), os.path.join(to, f))\n"
    "    finally:\n"
    "        shutil.rmtree(tmp, ignore_errors=True)\n"
    "        shutil.rmtree(src, ignore_errors=True)\n"
    "    importlib.invalidate_caches()\n"
    "try:\n"
    "    _wasmbox_unpack()\n"
    "finally:\n"
    "    del _wasmbox_unpack\n";

int wasmbox_session_install(wasmbox *wb, const char *id, const char *requirement, const char *index_url,
                            const char *wheelhouse, char **out, char *err, size_t errlen) {
  *out = NULL;
  err[0] = 0;
  if (!index_url && !wheelhouse)
    return wb_usage(err, errlen,
                    "no package index is configured: packages can be installed only from one "
                    "(--package-index URL) or a directory of wheels (--wheelhouse DIR)");
  if (index_url && wheelhouse) return wb_usage(err, errlen, "give a package index or a wheelhouse, not both");
  if (!requirement || !plain_requirement(requirement))
    return wb_usage(err, errlen,
                    "requirement '%s' is not a package name with an optional version (e.g. "
                    "'tabulate' or 'attrs>=22,<24'); paths, URLs and options are refused",
                    requirement ? requirement : "");
  size_t name_len = strspn(requirement, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
  int bi = built_in(requirement, name_len);
  if (bi >= 0)
    return wb_usage(err, errlen,
                    "%s is built in (version %s, import %s): it is there in every call and cannot "
                    "be replaced in a session",
                    wb_python_packages[bi].distribution, wb_python_packages[bi].version, wb_python_packages[bi].module);
  wasmbox_session_info info;
  int rc = wasmbox_session_info_get(wb, id, &info, err, errlen);
  if (rc) return rc;
  if (strcmp(info.language, "python"))
    return wb_usage(err, errlen, "session %s runs %s: packages are Python's", id, info.language);
  char *tmp = wb_scratch_dir("wasmbox-install", err, errlen);
  if (!tmp) return WASMBOX_EINTERNAL;
  char dest[4200];
  snprintf(dest, sizeof dest, "%s/wheels", tmp);
  wb_buf log = {0};
  uint64_t deadline = wb_monotonic_ns() + (uint64_t)PIP_TIMEOUT_S * 1000000000u;
  int pip = mkdir(dest, 0700) == 0 ? make_stubs(tmp, deadline, err, errlen) : -1;
  if (pip == 0) pip = pip_download(requirement, index_url, wheelhouse, dest, tmp, deadline, true, &log, err, errlen);
  else if (!err[0]) snprintf(err, errlen, "cannot make %s: %s", dest, strerror(errno));
  char **wheels = NULL;
  size_t nw = 0;
  wb_buf res = {0};
  if (pip < 0) {
    rc = WASMBOX_EINTERNAL;
  } else if (pip != 0) {
    char *bin = binary_wheel(requirement, index_url, wheelhouse, tmp, deadline);
    if (bin)
      rc = wb_usage(err, errlen,
                    "%s has compiled code (%s): only pure-Python wheels (py3-none-any) can be "
                    "installed",
                    requirement, bin);
    else rc = wb_usage(err, errlen, "pip: %s", pip_error(&log));
    free(bin);
  } else {
    DIR *d = opendir(dest);
    for (struct dirent *e; d && (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      char **w = realloc(wheels, (nw + 1) * sizeof *wheels);
      if (!w || !(w[nw] = strdup(e->d_name))) {
        wheels = w ? w : wheels;
        rc = WASMBOX_EINTERNAL;
        snprintf(err, errlen, "out of memory");
        break;
      }
      wheels = w, nw++;
    }
    if (d) closedir(d);
    if (nw) qsort(wheels, nw, sizeof *wheels, by_name);
    for (size_t i = 0; i < nw && !rc; i++)
      if (!pure_wheel(wheels[i]))
        rc = wb_usage(err, errlen, "%s has compiled code: only pure-Python wheels (py3-none-any) can be installed",
                      wheels[i]);
  }
  /* hand the wheels in (dependencies that are built in stay out), unpack
   * them in the session, report what came in: one transaction of the
   * store, so that the session has all of them or, on any failure, is as
   * it was */
  wb_buf_puts(&res, "{\"installed\":[");
  bool first = true, any = false;
  wb_txn held, *txn = NULL;
  wb_buf skipped = {0};
  for (size_t i = 0; i < nw && !rc; i++) {
    const char *dash = strchr(wheels[i], '-');
    size_t nl = dash ? (size_t)(dash - wheels[i]) : strlen(wheels[i]);
    int b = built_in(wheels[i], nl);
    const char *ver = dash ? dash + 1 : "";
    size_t vl = strcspn(ver, "-");
    if (b >= 0) {
      wb_buf_puts(&skipped, skipped.len ? "," : "");
      wb_buf_puts(&skipped, "{\"name\":");
      wb_json_cstr(&skipped, wb_python_packages[b].distribution);
      wb_buf_puts(&skipped, ",\"version\":");
      wb_json_cstr(&skipped, wb_python_packages[b].version);
      wb_buf_puts(&skipped, "}");
      continue;
    }
    char path[4400], guest[4400], *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dest, wheels[i]);
    snprintf(guest, sizeof guest, WHEELS_DIR "/%s", wheels[i]);
    int r = read_all(path, &data, &len);
    if (r == -2) rc = wb_usage(err, errlen, "%s is larger than %llu MB", wheels[i], WASMBOX_FILE_MAX >> 20);
    else if (r) {
      snprintf(err, errlen, "reading %s: %s", wheels[i], strerror(errno));
      rc = WASMBOX_EINTERNAL;
    } else if (txn || !(rc = wb_txn_begin(wb->backend, id, WB_TXN_WRITE | WB_TXN_WORKSPACE, &held, err, errlen))) {
      txn = &held;
      rc = wb_workspace_write(wb_txn_workspace(txn), guest, data, len, err, errlen);
    }
    free(data);
    wb_buf_puts(&res, first ? "{\"name\":" : ",{\"name\":");
    wb_json_str(&res, wheels[i], nl);
    wb_buf_puts(&res, ",\"version\":");
    wb_json_str(&res, ver, vl);
    wb_buf_puts(&res, "}");
    first = false;
    any = true;
  }
  if (!rc && any) {
    wasmbox_request req = {.session_id = id, .code = unpack_code, .timeout_seconds = 120};
    wasmbox_result *r = NULL;
    wb_txn_unlock_workspace(txn); /* the call locks the session itself */
    rc = wb_run_held(wb, &req, txn, &r, err, errlen);
    if (!rc && r->status != WASMBOX_STATUS_OK)
      rc = wb_usage(err, errlen, "unpacking in the session failed (%s): %s", wasmbox_status_name(r->status),
                    r->error_message ? r->error_message : "");
    wasmbox_result_free(r);
  }
  if (txn && rc) {
    /* the call took back what it unpacked (or was rolled back); the wheels
     * handed in go too, and nothing of it is published */
    char e2[256];
    if (wb_txn_lock_workspace(txn, e2, sizeof e2) == WASMBOX_OK) wb_tree_remove(wb_txn_workspace(txn), WHEELS_NAME);
    wb_txn_rollback(txn);
  } else if (txn) {
    rc = wb_txn_commit(txn, err, errlen);
  }
  wb_buf_puts(&res, "],\"built_in\":[");
  if (skipped.len) wb_buf_append(&res, skipped.data, skipped.len);
  wb_buf_puts(&res, "]}");
  wb_buf_free(&skipped);
  wb_buf_free(&log);
  for (size_t i = 0; i < nw; i++) free(wheels[i]);
  free(wheels);
  wb_remove_tree(tmp);
  free(tmp);
  if (rc) {
    wb_buf_free(&res);
    return rc;
  }
  *out = wb_buf_take(&res);
  if (!*out) {
    snprintf(err, errlen, "out of memory");
    return WASMBOX_EINTERNAL;
  }
  return WASMBOX_OK;
}
