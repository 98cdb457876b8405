/* wasmbox: the command-line front end. A thin client of the library: it
 * parses arguments, reads code and stdin, calls wasmbox_run(), and prints
 * the result (plain, or one JSON object with --json).
 *
 * Exit codes of `run`: 0 the code ran and exited 0; 1 it raised, crashed or
 * exited non-zero; 2 bad usage; 3 a limit stopped it or cut its output
 * (timeout, fuel, memory, output); 4 internal error. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcp/transport.h"
#include "util/buf.h"
#include "util/json.h"
#include "wasmbox.h"

#define WASMBOX_VERSION "0.1.0"
#define INPUT_MAX (64u << 20)

enum { EXIT_OK = 0, EXIT_GUEST = 1, EXIT_USAGE = 2, EXIT_LIMIT = 3, EXIT_INTERNAL = 4 };

static const char run_usage[] =
    "usage: wasmbox run [options] (-c CODE | FILE | -)\n"
    "\n"
    "Run Python or JavaScript code in a WebAssembly sandbox. The code sees only\n"
    "/app (the workspace, also its working directory) and its language's library:\n"
    "no other files, no network, no processes, no host environment.\n"
    "\n"
    "  -c CODE              the program text\n"
    "  FILE                 a file holding the program ('-' reads it from stdin)\n"
    "  --lang LANG          python (default; also from a .py FILE) or javascript\n"
    "                       (js; also from a .js or .mjs FILE)\n"
    "  --workspace DIR      host directory mounted read-write at /app\n"
    "                       (default: a fresh temporary directory, removed after)\n"
    "  --timeout SECONDS    wall-clock limit (default 30)\n"
    "  --memory MB          memory limit (default 256)\n"
    "  --fuel N             instruction budget: the code stops with out_of_fuel\n"
    "                       after N units of work, the same point on every run\n"
    "                       (default: no budget, the timeout binds)\n"
    "  --max-output BYTES   output kept per stream (default 1048576)\n"
    "  --quota MB           files /app may hold in all (default 100); writing\n"
    "                       more fails with 'No space left on device'\n"
    "  --stdin FILE         what the program reads on stdin ('-': this stdin);\n"
    "                       default: this stdin when it is not a terminal\n"
    "  --env NAME=VALUE     set a variable for the program (repeatable); the host\n"
    "                       environment is never visible. --env NAME copies NAME.\n"
    "  --mount DIR:PATH     show host directory DIR read-only at PATH (repeatable)\n"
    "  --packages DIR       Python: a directory of pure-Python packages or\n"
    "                       py3-none-any wheels, read-only on sys.path\n"
    "                       (repeatable, at most 4)\n"
    "  --allow-imports M,M  Python: the code may import only these top-level\n"
    "                       modules ('' for none); checked before it runs and\n"
    "                       while it runs. A policy for eval harnesses, not the\n"
    "                       sandbox's security boundary\n"
    "  --deny-imports M,M   Python: the code may not import these\n"
    "  --deny-builtins B,B  Python: the code may not call these builtins\n"
    "                       (e.g. eval,exec,compile)\n"
    "  --no-files           no files: /app is empty and read-only, so the code\n"
    "                       can neither find nor write one (mounts stay)\n"
    "  --session ID         run in a session (wasmbox session new): variables,\n"
    "                       imports and files of its earlier calls are there\n"
    "  --json               print the result as one JSON object\n"
    "\n"
    "exit status: 0 ok, 1 the code raised or exited non-zero, 2 bad usage,\n"
    "3 a limit stopped it or cut its output, 4 internal error\n";

static const char main_usage[] =
    "usage: wasmbox COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run        run code in the sandbox (wasmbox run --help)\n"
    "  session    create, fork, checkpoint, restore, list and remove sessions\n"
    "             (wasmbox session --help)\n"
    "  mcp        serve MCP on stdin/stdout, for MCP clients (wasmbox mcp --help)\n"
    "  serve      serve MCP over Streamable HTTP at /mcp (wasmbox serve --help)\n"
    "  doctor     show how guest code is isolated on this machine (--json)\n"
    "  version    print the version and the languages of this build\n";

typedef struct {
  bool json;
} output_mode;

static int fail_usage(const output_mode *m, const char *msg) {
  if (m->json) {
    wb_buf b = {0};
    wb_buf_puts(&b, "{\"error\":{\"type\":\"UsageError\",\"message\":");
    wb_json_cstr(&b, msg);
    wb_buf_puts(&b, "}}\n");
    char *s = wb_buf_take(&b);
    if (s) fputs(s, stdout);
    free(s);
  } else {
    fprintf(stderr, "wasmbox: %s\n", msg);
  }
  return EXIT_USAGE;
}

static int fail_internal(const output_mode *m, const char *msg) {
  if (m->json) {
    wb_buf b = {0};
    wb_buf_puts(&b, "{\"error\":{\"type\":\"InternalError\",\"message\":");
    wb_json_cstr(&b, msg);
    wb_buf_puts(&b, "}}\n");
    char *s = wb_buf_take(&b);
    if (s) fputs(s, stdout);
    free(s);
  } else {
    fprintf(stderr, "wasmbox: internal error: %s\n", msg);
  }
  return EXIT_INTERNAL;
}

/* Read all of fd, at most INPUT_MAX bytes, giving up after `seconds`
 * (a pipe nobody closes must not hang the command). */
static int read_all(int fd, double seconds, wb_buf *out, char *err, size_t errlen) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  char chunk[65536];
  for (;;) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double left = seconds - ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9);
    if (left <= 0) {
      snprintf(err, errlen, "input was not closed within %g s", seconds);
      return -1;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int pr = poll(&p, 1, (int)(left * 1000) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) continue;
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      snprintf(err, errlen, "cannot read input: %s", strerror(errno));
      return -1;
    }
    if (n == 0) break;
    if (out->len + (size_t)n > INPUT_MAX) {
      snprintf(err, errlen, "input is larger than %u MB", INPUT_MAX >> 20);
      return -1;
    }
    wb_buf_append(out, chunk, (size_t)n);
  }
  if (out->failed) {
    snprintf(err, errlen, "out of memory reading input");
    return -1;
  }
  return 0;
}

static int read_path(const char *path, double seconds, wb_buf *out, char *err, size_t errlen) {
  if (!strcmp(path, "-")) return read_all(0, seconds, out, err, errlen);
  /* O_NONBLOCK: opening a FIFO nobody writes to would block here, before
   * read_all's deadline starts */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  char why[256];
  int r = read_all(fd, seconds, out, why, sizeof why);
  if (r < 0) snprintf(err, errlen, "%s: %s", path, why);
  close(fd);
  return r;
}

/* Plain decimal numbers only: strtod and strtoull also take leading
 * blanks, signs, hexadecimal, inf and nan (" -1" wrapped to 2^64-1). */
static bool parse_double(const char *s, double *v) {
  char *end;
  errno = 0;
  if (!(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))) || strpbrk(s, "xX"))
    return false;
  *v = strtod(s, &end);
  return errno == 0 && *end == 0;
}

static bool parse_u64(const char *s, unsigned long long *v) {
  char *end;
  errno = 0;
  if (!isdigit((unsigned char)s[0])) return false;
  *v = strtoull(s, &end, 10);
  return errno == 0 && *end == 0;
}

/* `a`'s index among the NULL-terminated options, or -1. */
static int option_index(const char *const *options, const char *a) {
  for (int i = 0; options[i]; i++)
    if (!strcmp(options[i], a)) return i;
  return -1;
}

static const char *language_of_file(const char *path) {
  const char *dot = strrchr(path, '.');
  if (dot && !strcmp(dot, ".py")) return "python";
  if (dot && (!strcmp(dot, ".js") || !strcmp(dot, ".mjs"))) return "javascript";
  return NULL;
}

static int print_result(const wasmbox_result *r, const output_mode *m, size_t max_output) {
  bool limit = r->status == WASMBOX_STATUS_TIMEOUT || r->status == WASMBOX_STATUS_OUT_OF_FUEL ||
               r->status == WASMBOX_STATUS_OUT_OF_MEMORY;
  bool cut = r->stdout_truncated || r->stderr_truncated;
  int code = r->status == WASMBOX_STATUS_OK ? (cut ? EXIT_LIMIT : EXIT_OK) : limit ? EXIT_LIMIT : EXIT_GUEST;
  if (m->json) {
    char *s = wasmbox_result_json(r);
    if (!s) return fail_internal(m, "out of memory");
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
    return code;
  }
  fwrite(r->stdout_data, 1, r->stdout_len, stdout);
  fflush(stdout);
  fwrite(r->stderr_data, 1, r->stderr_len, stderr);
  if (r->status != WASMBOX_STATUS_OK && r->status != WASMBOX_STATUS_ERROR) {
    /* MemoryError has no message of its own: name the type then */
    const char *why = r->error_message && *r->error_message ? r->error_message : r->error_type;
    fprintf(stderr, "wasmbox: %s%s%s\n", wasmbox_status_name(r->status), why ? ": " : "", why ? why : "");
  }
  else if (r->status == WASMBOX_STATUS_ERROR && !r->error_traceback && r->error_message)
    fprintf(stderr, "wasmbox: %s\n", r->error_message);
  if (r->stdout_truncated)
    fprintf(stderr, "wasmbox: stdout truncated: %llu bytes written, first %zu kept\n",
            (unsigned long long)r->stdout_total, max_output);
  if (r->stderr_truncated)
    fprintf(stderr, "wasmbox: stderr truncated: %llu bytes written, first %zu kept\n",
            (unsigned long long)r->stderr_total, max_output);
  for (size_t i = 0; i < r->guidance_len; i++) fprintf(stderr, "hint: %s\n", r->guidance[i]);
  return code;
}

/* A comma-separated list of names ("a,b,c"; "" is the empty list). */
typedef struct {
  char *text;
  char **names;
  size_t n;
} name_list;

static bool split_names(const char *v, name_list *l) {
  free(l->text), free(l->names);
  l->n = 0;
  l->text = strdup(v);
  l->names = calloc(strlen(v) / 2 + 2, sizeof *l->names);
  if (!l->text || !l->names) return false;
  for (char *save = NULL, *t = strtok_r(l->text, ",", &save); t; t = strtok_r(NULL, ",", &save)) l->names[l->n++] = t;
  return true;
}

static void name_list_free(name_list *l) {
  free(l->text);
  free(l->names);
}

static int cmd_run(int argc, char **argv) {
  output_mode m = {0};
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--json")) m.json = true;

  wasmbox_request req = {0};
  const char *code = NULL, *file = NULL, *stdin_path = NULL, *lang = NULL;
  const char **env = calloc((size_t)argc, sizeof *env);
  size_t nenv = 0;
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  char *mount_specs[WASMBOX_MAX_MOUNTS];
  size_t nmounts = 0;
  const char *packages[WASMBOX_MAX_PACKAGES];
  size_t npackages = 0;
  name_list allow = {0}, deny = {0}, deny_builtins = {0};
  char msg[512];
  if (!env) return fail_internal(&m, "out of memory");
  int rc = EXIT_OK;
  wb_buf code_buf = {0}, stdin_buf = {0};
  char **env_owned = calloc((size_t)argc, sizeof *env_owned);
  size_t nowned = 0;
  if (!env_owned) {
    free(env);
    return fail_internal(&m, "out of memory");
  }

  unsigned given = 0; /* options seen, by index in with_value */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    /* every option of run_usage written with a value (tests/cli.sh checks);
     * all but --env, --mount and --packages once at most */
    static const char *const with_value[] = {"-c",      "--lang",  "--workspace", "--timeout", "--memory",
                                             "--fuel",  "--max-output", "--quota", "--stdin", "--session",
                                             "--env",   "--mount", "--packages", "--allow-imports",
                                             "--deny-imports", "--deny-builtins", NULL};
    static const char *const repeatable[] = {"--env", "--mount", "--packages", NULL};
    int k = option_index(with_value, a);
    if (k >= 0 && !v) {
      snprintf(msg, sizeof msg, "%s needs a value", a);
      rc = fail_usage(&m, msg);
      goto out;
    }
    if (k >= 0 && option_index(repeatable, a) < 0 && (given & (1u << k))) {
      snprintf(msg, sizeof msg, "%s is given twice", a);
      rc = fail_usage(&m, msg);
      goto out;
    }
    if (k >= 0) given |= 1u << k;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(run_usage, stdout);
      goto out;
    } else if (!strcmp(a, "--json")) {
    } else if (!strcmp(a, "--no-files")) {
      req.no_files = true;
    } else if (!strcmp(a, "-c")) {
      code = v, i++;
    } else if (!strcmp(a, "--lang")) {
      lang = v, i++;
    } else if (!strcmp(a, "--workspace")) {
      req.workspace = v, i++;
    } else if (!strcmp(a, "--session")) {
      req.session_id = v, i++;
    } else if (!strcmp(a, "--stdin")) {
      stdin_path = v, i++;
    } else if (!strcmp(a, "--timeout")) {
      if (!parse_double(v, &req.timeout_seconds) || !(req.timeout_seconds > 0)) {
        snprintf(msg, sizeof msg, "--timeout wants a positive number of seconds, not '%s'", v);
        rc = fail_usage(&m, msg);
        goto out;
      }
      i++;
    } else if (!strcmp(a, "--memory")) {
      unsigned long long mb;
      if (!parse_u64(v, &mb) || mb == 0 || mb > 4096) {
        snprintf(msg, sizeof msg, "--memory wants megabytes between 1 and 4096, not '%s'", v);
        rc = fail_usage(&m, msg);
        goto out;
      }
      req.memory_bytes = mb << 20;
      i++;
    } else if (!strcmp(a, "--quota")) {
      unsigned long long mb;
      if (!parse_u64(v, &mb) || mb == 0 || mb > (1ull << 24)) {
        snprintf(msg, sizeof msg, "--quota wants a positive number of megabytes, not '%s'", v);
        rc = fail_usage(&m, msg);
        goto out;
      }
      req.quota_bytes = mb << 20;
      i++;
    } else if (!strcmp(a, "--fuel")) {
      unsigned long long n;
      if (!parse_u64(v, &n) || n == 0 || n > WASMBOX_MAX_FUEL) {
        snprintf(msg, sizeof msg, "--fuel wants a number of units between 1 and %llu, not '%s'",
                 (unsigned long long)WASMBOX_MAX_FUEL, v);
        rc = fail_usage(&m, msg);
        goto out;
      }
      req.fuel = n;
      i++;
    } else if (!strcmp(a, "--max-output")) {
      unsigned long long n;
      if (!parse_u64(v, &n) || n == 0) {
        snprintf(msg, sizeof msg, "--max-output wants a positive number of bytes, not '%s'", v);
        rc = fail_usage(&m, msg);
        goto out;
      }
      req.max_output_bytes = (size_t)n;
      i++;
    } else if (!strcmp(a, "--mount")) {
      const char *colon = strrchr(v, ':');
      if (!colon || colon == v || !colon[1] || nmounts == WASMBOX_MAX_MOUNTS) {
        snprintf(msg, sizeof msg, "--mount wants HOST_DIR:GUEST_PATH (at most %d), not '%s'", WASMBOX_MAX_MOUNTS, v);
        rc = fail_usage(&m, msg);
        goto out;
      }
      char *spec = strndup(v, (size_t)(colon - v));
      if (!spec) {
        rc = fail_internal(&m, "out of memory");
        goto out;
      }
      mount_specs[nmounts] = spec;
      mounts[nmounts++] = (wasmbox_mount){.host_dir = spec, .guest_path = colon + 1};
      i++;
    } else if (!strcmp(a, "--allow-imports") || !strcmp(a, "--deny-imports") || !strcmp(a, "--deny-builtins")) {
      name_list *l = a[2] == 'a' ? &allow : a[7] == 'i' ? &deny : &deny_builtins;
      if (!split_names(v, l)) {
        rc = fail_internal(&m, "out of memory");
        goto out;
      }
      i++;
    } else if (!strcmp(a, "--packages")) {
      if (npackages == WASMBOX_MAX_PACKAGES) {
        snprintf(msg, sizeof msg, "--packages is given more than %d times", WASMBOX_MAX_PACKAGES);
        rc = fail_usage(&m, msg);
        goto out;
      }
      packages[npackages++] = v, i++;
    } else if (!strcmp(a, "--env")) {
      if (strchr(v, '=')) {
        env[nenv++] = v;
      } else {
        const char *val = getenv(v);
        if (!val) {
          snprintf(msg, sizeof msg, "--env %s: no such variable in this environment", v);
          rc = fail_usage(&m, msg);
          goto out;
        }
        char *e;
        if (asprintf(&e, "%s=%s", v, val) < 0) {
          rc = fail_internal(&m, "out of memory");
          goto out;
        }
        env_owned[nowned++] = e;
        env[nenv++] = e;
      }
      i++;
    } else if (a[0] == '-' && a[1] != 0) {
      snprintf(msg, sizeof msg, "unknown option %s (see wasmbox run --help)", a);
      rc = fail_usage(&m, msg);
      goto out;
    } else if (!file) {
      file = a;
    } else {
      snprintf(msg, sizeof msg, "unexpected argument '%s' (one FILE only)", a);
      rc = fail_usage(&m, msg);
      goto out;
    }
  }
  if (!!code + !!file != 1) {
    rc = fail_usage(&m, code ? "give either -c CODE or FILE, not both" : "no code: give -c CODE, FILE or -");
    goto out;
  }
  double timeout = req.timeout_seconds ? req.timeout_seconds : WASMBOX_DEFAULT_TIMEOUT_S;
  char err[512];
  if (file) {
    if (read_path(file, timeout, &code_buf, err, sizeof err) != 0) {
      rc = fail_usage(&m, err);
      goto out;
    }
    if (!lang) lang = language_of_file(file);
    if (strcmp(file, "-")) {
      const char *slash = strrchr(file, '/');
      req.filename = slash ? slash + 1 : file;
    }
    req.code = code_buf.data ? code_buf.data : "";
    req.code_len = code_buf.len;
  } else {
    req.code = code;
    req.code_len = strlen(code);
  }
  if (req.code_len == 0) req.code = "\n", req.code_len = 1;
  req.language = lang;
  /* stdin: explicit, or this process's when it is a pipe or file */
  if (stdin_path && !strcmp(stdin_path, "-") && file && !strcmp(file, "-")) {
    rc = fail_usage(&m, "the code and its stdin cannot both come from stdin");
    goto out;
  }
  if (!stdin_path && !(file && !strcmp(file, "-")) && !isatty(0)) {
    int fl = fcntl(0, F_GETFL);
    if (fl >= 0) stdin_path = "-";
  }
  if (stdin_path) {
    if (read_path(stdin_path, timeout, &stdin_buf, err, sizeof err) != 0) {
      rc = fail_usage(&m, err);
      goto out;
    }
    req.stdin_data = stdin_buf.data;
    req.stdin_len = stdin_buf.len;
  }
  req.env = env;
  req.env_len = nenv;
  req.mounts = mounts;
  req.mounts_len = nmounts;
  req.packages = packages;
  req.packages_len = npackages;
  if (allow.text) req.allow_imports = (const char *const *)allow.names, req.allow_imports_len = allow.n;
  req.deny_imports = (const char *const *)deny.names, req.deny_imports_len = deny.n;
  req.deny_builtins = (const char *const *)deny_builtins.names, req.deny_builtins_len = deny_builtins.n;

  /* one call, then exit: no cgroup placement (see wasmbox_options) */
  wasmbox_options opts = {.one_shot = true};
  wasmbox *wb = wasmbox_open(&opts, err, sizeof err);
  if (!wb) {
    rc = fail_internal(&m, err);
    goto out;
  }
  if (req.session_id && !lang) req.language = NULL; /* the session's own */
  wasmbox_result *res;
  int r = wasmbox_run(wb, &req, &res, err, sizeof err);
  if (r == WASMBOX_EUSAGE) rc = fail_usage(&m, err);
  else if (r != WASMBOX_OK) rc = fail_internal(&m, err);
  else {
    rc = print_result(res, &m, req.max_output_bytes ? req.max_output_bytes : WASMBOX_DEFAULT_MAX_OUTPUT);
    wasmbox_result_free(res);
  }
  wasmbox_free(wb);
out:
  wb_buf_free(&code_buf);
  wb_buf_free(&stdin_buf);
  for (size_t i = 0; i < nowned; i++) free(env_owned[i]);
  for (size_t i = 0; i < nmounts; i++) free(mount_specs[i]);
  name_list_free(&allow), name_list_free(&deny), name_list_free(&deny_builtins);
  free(env_owned);
  free(env);
  return rc;
}

/* ---- wasmbox session ------------------------------------------------------ */

static const char session_usage[] =
    "usage: wasmbox session COMMAND [--json]\n"
    "\n"
    "  new [--lang LANG] [--ttl SECONDS] [--env NAME=VALUE]... [--mount DIR:PATH]...\n"
    "      [--packages DIR]...\n"
    "                        create a session; prints its id\n"
    "  fork ID               a copy of session ID that then evolves apart\n"
    "  checkpoint ID         remember its current state; prints a checkpoint id\n"
    "  restore ID CHECKPOINT go back to a checkpoint (memory and files)\n"
    "  info ID               what a session holds\n"
    "  install ID REQUIREMENT (--package-index URL | --wheelhouse DIR)\n"
    "                        install a pure-Python package and its dependencies\n"
    "                        into a Python session (pip resolves them on this\n"
    "                        host; they are unpacked inside the sandbox)\n"
    "  list                  all sessions\n"
    "  rm ID                 remove a session\n"
    "  prune                 remove sessions idle for longer than their TTL\n"
    "\n"
    "Sessions live in $WASMBOX_HOME (default ~/.local/share/wasmbox).\n";

static void print_info(const wasmbox_session_info *s, bool json, bool first) {
  if (json) {
    wb_buf b = {0};
    wb_buf_puts(&b, first ? "" : ",");
    wb_buf_puts(&b, "{\"session_id\":");
    wb_json_cstr(&b, s->id);
    wb_buf_puts(&b, ",\"language\":");
    wb_json_cstr(&b, s->language);
    wb_buf_puts(&b, ",\"created\":");
    wb_json_num(&b, s->created);
    wb_buf_puts(&b, ",\"last_used\":");
    wb_json_num(&b, s->last_used);
    wb_buf_puts(&b, ",\"ttl_seconds\":");
    wb_json_num(&b, s->ttl_seconds);
    wb_buf_printf(&b, ",\"disk_bytes\":%llu,\"checkpoints\":%zu}", (unsigned long long)s->disk_bytes, s->checkpoints);
    char *t = wb_buf_take(&b);
    if (t) fputs(t, stdout);
    free(t);
  } else {
    double idle = (double)time(NULL) - s->last_used; /* last_used has sub-second precision */
    printf("%s  %-10s  %8.1f KB  %zu checkpoints  idle %.0f s\n", s->id, s->language, (double)s->disk_bytes / 1024,
           s->checkpoints, idle > 0 ? idle : 0.0);
  }
}

/* What session install put in, a line each: "name version" (and what was
 * built in already). The library's JSON has only names, versions and these
 * two lists, so a small scan reads it. */
static void print_installed(const char *json) {
  const char *built = strstr(json, "\"built_in\"");
  for (const char *p = json; (p = strstr(p, "{\"name\":\""));) {
    p += 9;
    const char *ne = strchr(p, '"'), *v = ne ? strstr(ne, "\"version\":\"") : NULL;
    if (!ne || !v) break;
    v += 11;
    const char *ve = strchr(v, '"');
    if (!ve) break;
    printf("%.*s %.*s%s\n", (int)(ne - p), p, (int)(ve - v), v, built && p > built ? " (built in)" : "");
    p = ve;
  }
}

/* Print an id as the command's answer. */
static int print_id(const char *key, const char *id, bool json) {
  if (json) {
    wb_buf b = {0};
    wb_buf_printf(&b, "{\"%s\":", key);
    wb_json_cstr(&b, id);
    wb_buf_puts(&b, "}\n");
    char *t = wb_buf_take(&b);
    if (t) fputs(t, stdout);
    free(t);
  } else {
    puts(id);
  }
  return EXIT_OK;
}

static int cmd_session(int argc, char **argv) {
  output_mode m = {0};
  const char *pos[3] = {0};
  size_t npos = 0;
  wasmbox_session_options o = {0};
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  char *specs[WASMBOX_MAX_MOUNTS];
  size_t nspecs = 0;
  const char *packages[WASMBOX_MAX_PACKAGES];
  const char *index_url = NULL, *wheelhouse = NULL;
  char msg[512], err[512];
  int rc = EXIT_OK;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--json")) m.json = true;
  const char **env = calloc((size_t)argc, sizeof *env); /* at most one per argument */
  if (!env) return fail_internal(&m, "out of memory");
  unsigned given = 0; /* options seen, by index in with_value */
  for (int i = 1; i < argc && rc == EXIT_OK; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    static const char *const with_value[] = {"--lang",     "--ttl",           "--env",       "--mount",
                                             "--packages", "--package-index", "--wheelhouse", NULL};
    static const char *const repeatable[] = {"--env", "--mount", "--packages", NULL};
    int k = option_index(with_value, a);
    if (k >= 0 && !v) {
      snprintf(msg, sizeof msg, "%s needs a value", a);
      rc = fail_usage(&m, msg);
    } else if (k >= 0 && option_index(repeatable, a) < 0 && (given & (1u << k))) {
      snprintf(msg, sizeof msg, "%s is given twice", a);
      rc = fail_usage(&m, msg);
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(session_usage, stdout);
      goto out;
    } else if (!strcmp(a, "--json")) {
    } else if (!strcmp(a, "--lang")) {
      o.language = v, i++;
    } else if (!strcmp(a, "--ttl")) {
      if (!parse_double(v, &o.ttl_seconds) || !(o.ttl_seconds > 0)) {
        snprintf(msg, sizeof msg, "--ttl wants a positive number of seconds, not '%s'", v);
        rc = fail_usage(&m, msg);
      }
      i++;
    } else if (!strcmp(a, "--env")) {
      if (!strchr(v, '=')) {
        snprintf(msg, sizeof msg, "--env wants NAME=VALUE, not '%s'", v);
        rc = fail_usage(&m, msg);
      } else {
        env[o.env_len++] = v;
      }
      i++;
    } else if (!strcmp(a, "--package-index")) {
      index_url = v, i++;
    } else if (!strcmp(a, "--wheelhouse")) {
      wheelhouse = v, i++;
    } else if (!strcmp(a, "--packages")) {
      if (o.packages_len == WASMBOX_MAX_PACKAGES) {
        snprintf(msg, sizeof msg, "--packages is given more than %d times", WASMBOX_MAX_PACKAGES);
        rc = fail_usage(&m, msg);
      } else {
        packages[o.packages_len++] = v;
      }
      i++;
    } else if (!strcmp(a, "--mount")) {
      const char *colon = strrchr(v, ':');
      if (!colon || colon == v || !colon[1] || nspecs == WASMBOX_MAX_MOUNTS) {
        snprintf(msg, sizeof msg, "--mount wants HOST_DIR:GUEST_PATH, not '%s'", v);
        rc = fail_usage(&m, msg);
      } else if (!(specs[nspecs] = strndup(v, (size_t)(colon - v)))) {
        rc = fail_internal(&m, "out of memory");
      } else {
        mounts[nspecs] = (wasmbox_mount){.host_dir = specs[nspecs], .guest_path = colon + 1};
        nspecs++;
      }
      i++;
    } else if (a[0] == '-') {
      snprintf(msg, sizeof msg, "unknown option %s (see wasmbox session --help)", a);
      rc = fail_usage(&m, msg);
    } else if (npos < 3) {
      pos[npos++] = a;
    } else {
      snprintf(msg, sizeof msg, "unexpected argument '%s'", a);
      rc = fail_usage(&m, msg);
    }
    if (k >= 0) given |= 1u << k;
  }
  if (rc != EXIT_OK) goto out;
  o.env = env;
  o.mounts = mounts;
  o.mounts_len = nspecs;
  o.packages = packages;
  const char *cmd = pos[0] ? pos[0] : "";
  size_t want = !strcmp(cmd, "new") || !strcmp(cmd, "list") || !strcmp(cmd, "prune") ? 1
                : !strcmp(cmd, "restore") || !strcmp(cmd, "install")                   ? 3
                : !strcmp(cmd, "fork") || !strcmp(cmd, "checkpoint") || !strcmp(cmd, "info") || !strcmp(cmd, "rm")
                    ? 2
                    : 0;
  if (!want || npos != want || (strcmp(cmd, "new") && (o.language || o.ttl_seconds || o.env_len || nspecs || o.packages_len)) ||
      (strcmp(cmd, "install") && (index_url || wheelhouse))) {
    rc = fail_usage(&m, !want ? "unknown or missing session command (see wasmbox session --help)"
                              : "wrong arguments for this session command (see wasmbox session --help)");
    goto out;
  }
  wasmbox *wb = wasmbox_new(err, sizeof err);
  if (!wb) {
    rc = fail_internal(&m, err);
    goto out;
  }
  char id[WASMBOX_ID_MAX];
  int r = WASMBOX_OK;
  if (!strcmp(cmd, "new")) {
    if (!(r = wasmbox_session_create(wb, &o, id, err, sizeof err))) rc = print_id("session_id", id, m.json);
  } else if (!strcmp(cmd, "fork")) {
    if (!(r = wasmbox_session_fork(wb, pos[1], id, err, sizeof err))) rc = print_id("session_id", id, m.json);
  } else if (!strcmp(cmd, "checkpoint")) {
    if (!(r = wasmbox_session_checkpoint(wb, pos[1], id, err, sizeof err))) rc = print_id("checkpoint_id", id, m.json);
  } else if (!strcmp(cmd, "restore")) {
    if (!(r = wasmbox_session_restore(wb, pos[1], pos[2], err, sizeof err))) rc = print_id("session_id", pos[1], m.json);
  } else if (!strcmp(cmd, "rm")) {
    if (!(r = wasmbox_session_destroy(wb, pos[1], err, sizeof err))) rc = print_id("removed", pos[1], m.json);
  } else if (!strcmp(cmd, "install")) {
    char *res = NULL;
    if (!(r = wasmbox_session_install(wb, pos[1], pos[2], index_url, wheelhouse, &res, err, sizeof err))) {
      if (m.json) printf("%s\n", res);
      else print_installed(res);
      free(res);
    }
  } else if (!strcmp(cmd, "info")) {
    wasmbox_session_info info;
    if (!(r = wasmbox_session_info_get(wb, pos[1], &info, err, sizeof err))) {
      print_info(&info, m.json, true);
      if (m.json) putchar('\n');
    }
  } else if (!strcmp(cmd, "prune")) {
    size_t removed;
    if (!(r = wasmbox_session_prune(wb, &removed, err, sizeof err))) {
      if (m.json) printf("{\"removed\":%zu}\n", removed);
      else printf("%zu removed\n", removed);
    }
  } else {
    wasmbox_session_info *all;
    size_t n;
    if (!(r = wasmbox_session_list(wb, &all, &n, err, sizeof err))) {
      if (m.json) fputs("{\"sessions\":[", stdout);
      for (size_t i = 0; i < n; i++) print_info(&all[i], m.json, i == 0);
      if (m.json) fputs("]}\n", stdout);
      free(all);
    }
  }
  if (r == WASMBOX_EUSAGE) rc = fail_usage(&m, err);
  else if (r != WASMBOX_OK) rc = fail_internal(&m, err);
  wasmbox_free(wb);
out:
  for (size_t i = 0; i < nspecs; i++) free(specs[i]);
  free(env);
  return rc;
}

/* wasmbox doctor [--json]: the jail's layers as a worker sees them.
 * Exit 0 when every layer is active, 1 when some are off. */
static int cmd_doctor(int argc, char **argv) {
  output_mode m = {.json = false};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) {
      m.json = true;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs("usage: wasmbox doctor [--json]\n"
            "Start a worker and show each layer of its jail: active, or why not.\n"
            "exit status: 0 every layer active, 1 some are off, 4 no worker started\n",
            stdout);
      return EXIT_OK;
    } else {
      char msg[300];
      snprintf(msg, sizeof msg, "unknown option '%s' (see wasmbox doctor --help)", argv[i]);
      return fail_usage(&m, msg);
    }
  }
  char err[1024] = "";
  wasmbox *wb = wasmbox_new(err, sizeof err);
  wasmbox_layer layers[WASMBOX_LAYERS_MAX];
  size_t n = 0;
  if (!wb || wasmbox_isolation(wb, layers, &n, err, sizeof err) != WASMBOX_OK) {
    wasmbox_free(wb);
    return fail_internal(&m, err);
  }
  wasmbox_free(wb);
  size_t off = 0;
  for (size_t i = 0; i < n; i++) off += !layers[i].active;
  if (m.json) {
    wb_buf b = {0};
    wb_buf_puts(&b, "{\"layers\":[");
    for (size_t i = 0; i < n; i++) {
      wb_buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
      wb_json_cstr(&b, layers[i].name);
      wb_buf_printf(&b, ",\"active\":%s,\"detail\":", layers[i].active ? "true" : "false");
      wb_json_cstr(&b, layers[i].detail);
      wb_buf_puts(&b, "}");
    }
    wb_buf_printf(&b, "],\"all_active\":%s}\n", off ? "false" : "true");
    char *s = wb_buf_take(&b);
    if (s) fputs(s, stdout);
    free(s);
  } else {
    printf("guest code runs as WebAssembly (bounds-checked memory, no system calls of its own)\n"
           "in a worker process jailed by:\n");
    for (size_t i = 0; i < n; i++)
      printf("  %-14s %-4s %s\n", layers[i].name, layers[i].active ? "on" : "OFF", layers[i].detail);
    if (off) printf("%zu layer%s off; the others still hold\n", off, off == 1 ? " is" : "s are");
    else printf("every layer is active\n");
  }
  return off ? EXIT_GUEST : EXIT_OK;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    fputs(main_usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? EXIT_USAGE : EXIT_OK;
  }
  if (!strcmp(argv[1], "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(argv[1], "session")) return cmd_session(argc - 1, argv + 1);
  if (!strcmp(argv[1], "mcp")) return mcp_command(false, argc - 1, argv + 1);
  if (!strcmp(argv[1], "serve")) return mcp_command(true, argc - 1, argv + 1);
  if (!strcmp(argv[1], "doctor")) return cmd_doctor(argc - 1, argv + 1);
  if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
    printf("wasmbox %s\nlanguages:", WASMBOX_VERSION);
    for (const char *const *l = wasmbox_languages(); *l; l++) printf(" %s", *l);
    printf("\n");
    return EXIT_OK;
  }
  fprintf(stderr, "wasmbox: unknown command '%s'\n%s", argv[1], main_usage);
  return EXIT_USAGE;
}
