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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcp/transport.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/options.h"
#include "wasmbox.h"

#define INPUT_MAX (64u << 20)

enum { EXIT_OK = 0, EXIT_GUEST = 1, EXIT_USAGE = 2, EXIT_LIMIT = 3, EXIT_INTERNAL = 4 };

#define LIST_MAX 8192 /* values of a repeatable option: more than any limit of the library, which speaks first */

/* wasmbox run's options, as the table below fills them in. */
typedef struct {
  const char *code, *lang, *workspace, *stdin_path, *session, *allow_imports, *deny_imports, *deny_builtins;
  double timeout;
  uint64_t memory_mb, fuel, max_output, quota_mb;
  const char *env[LIST_MAX];
  size_t nenv;
  const char *mounts[WASMBOX_MAX_MOUNTS];
  size_t nmounts;
  const char *packages[WASMBOX_MAX_PACKAGES];
  size_t npackages;
  bool json, no_files;
} run_options;

#define RUN(f) offsetof(run_options, f)
static const wb_option run_table[] = {
    {"-c", WB_OPT_TEXT, RUN(code), 0, 0, 0, 0, NULL, "CODE", "the program text", 0},
    {"--lang", WB_OPT_TEXT, RUN(lang), 0, 0, 0, 0, NULL, "LANG",
     "python (default; also from a .py FILE) or javascript\n(js; also from a .js or .mjs FILE)", 0},
    {"--workspace", WB_OPT_TEXT, RUN(workspace), 0, 0, 0, 0, NULL, "DIR",
     "host directory mounted read-write at /app\n(default: a fresh temporary directory, removed after)", 0},
    {"--timeout", WB_OPT_DOUBLE, RUN(timeout), 0, 0, 1e-300, 1e300, "a positive number of seconds", "SECONDS",
     "wall-clock limit (default 30)", 0},
    {"--memory", WB_OPT_U64, RUN(memory_mb), 0, 0, 1, 4096, "megabytes between 1 and 4096", "MB",
     "memory limit (default 256)", 0},
    {"--fuel", WB_OPT_U64, RUN(fuel), 0, 0, 1, (double)WASMBOX_MAX_FUEL,
     "a number of units between 1 and 9223372036854775807", "N",
     "instruction budget: the code stops with out_of_fuel\nafter N units of work, the same point on every run\n"
     "(default: no budget, the timeout binds)",
     0},
    {"--max-output", WB_OPT_U64, RUN(max_output), 0, 0, 1, 0x1p64, "a positive number of bytes", "BYTES",
     "output kept per stream (default 1048576)", 0},
    {"--quota", WB_OPT_U64, RUN(quota_mb), 0, 0, 1, 1ull << 24, "a positive number of megabytes", "MB",
     "files /app may hold in all (default 100); writing\nmore fails with 'No space left on device'", 0},
    {"--stdin", WB_OPT_TEXT, RUN(stdin_path), 0, 0, 0, 0, NULL, "FILE",
     "what the program reads on stdin ('-': this stdin);\ndefault: this stdin when it is not a terminal", 0},
    {"--env", WB_OPT_LIST, RUN(env), RUN(nenv), LIST_MAX, 0, 0, NULL, "NAME=VALUE",
     "set a variable for the program (repeatable); the host\nenvironment is never visible. --env NAME copies NAME.", 0},
    {"--mount", WB_OPT_LIST, RUN(mounts), RUN(nmounts), WASMBOX_MAX_MOUNTS, 0, 0, NULL, "DIR:PATH",
     "show host directory DIR read-only at PATH (repeatable)", 0},
    {"--packages", WB_OPT_LIST, RUN(packages), RUN(npackages), WASMBOX_MAX_PACKAGES, 0, 0, NULL, "DIR",
     "Python: a directory of pure-Python packages or\npy3-none-any wheels, read-only on sys.path\n"
     "(repeatable, at most 4)",
     0},
    {"--allow-imports", WB_OPT_TEXT, RUN(allow_imports), 0, 0, 0, 0, NULL, "M,M",
     "Python: the code may import only these top-level\nmodules ('' for none); checked before it runs and\n"
     "while it runs. A policy for eval harnesses, not the\nsandbox's security boundary",
     0},
    {"--deny-imports", WB_OPT_TEXT, RUN(deny_imports), 0, 0, 0, 0, NULL, "M,M", "Python: the code may not import these",
     0},
    {"--deny-builtins", WB_OPT_TEXT, RUN(deny_builtins), 0, 0, 0, 0, NULL, "B,B",
     "Python: the code may not call these builtins\n(e.g. eval,exec,compile)", 0},
    {"--no-files", WB_OPT_FLAG, RUN(no_files), 0, 0, 0, 0, NULL, NULL,
     "no files: /app is empty and read-only, so the code\ncan neither find nor write one (mounts stay)", 0},
    {"--session", WB_OPT_TEXT, RUN(session), 0, 0, 0, 0, NULL, "ID",
     "run in a session (wasmbox session new): variables,\nimports and files of its earlier calls are there", 0},
    {"--json", WB_OPT_FLAG, RUN(json), 0, 0, 0, 0, NULL, NULL, "print the result as one JSON object", 0},
};
#define N_RUN (sizeof run_table / sizeof run_table[0])

static void run_usage(FILE *out) {
  fputs(
      "usage: wasmbox run [options] (-c CODE | FILE | -)\n"
      "\n"
      "Run Python or JavaScript code in a WebAssembly sandbox. The code sees only\n"
      "/app (the workspace, also its working directory) and its language's library:\n"
      "no other files, no network, no processes, no host environment.\n"
      "\n"
      "  FILE                 a file holding the program ('-' reads it from stdin)\n",
      out);
  wb_opt_usage(run_table, N_RUN, out);
  fputs(
      "\nexit status: 0 ok, 1 the code raised or exited non-zero, 2 bad usage,\n"
      "3 a limit stopped it or cut its output, 4 internal error\n",
      out);
}

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

/* A failure before any run: a JSON error object on stdout with --json,
 * else a line on stderr (`human` before the message); returns `code`. */
static int fail_as(const output_mode *m, const char *type, const char *human, const char *msg, int code) {
  if (m->json) {
    wb_buf b = {0};
    wb_buf_puts(&b, "{\"error\":{\"type\":");
    wb_json_cstr(&b, type);
    wb_buf_puts(&b, ",\"message\":");
    wb_json_cstr(&b, msg);
    wb_buf_puts(&b, "}}\n");
    char *s = wb_buf_take(&b);
    if (s) fputs(s, stdout);
    free(s);
  } else {
    fprintf(stderr, "wasmbox: %s%s\n", human, msg);
  }
  return code;
}

static int fail_usage(const output_mode *m, const char *msg) { return fail_as(m, "UsageError", "", msg, EXIT_USAGE); }

static int fail_internal(const output_mode *m, const char *msg) {
  return fail_as(m, "InternalError", "internal error: ", msg, EXIT_INTERNAL);
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
  } else if (r->status == WASMBOX_STATUS_ERROR && !r->error_traceback && r->error_message)
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

/* --mount HOST_DIR:GUEST_PATH values as mounts; specs[0..*n) hold the host
 * directories (free them). EXIT_OK, or the exit code of a message printed. */
static int split_mounts(const output_mode *m, const char *const *v, size_t count, wasmbox_mount *mounts, char **specs,
                        size_t *n) {
  for (size_t i = 0; i < count; i++) {
    const char *colon = strrchr(v[i], ':');
    if (!colon || colon == v[i] || !colon[1]) {
      char msg[512];
      snprintf(msg, sizeof msg, "--mount wants HOST_DIR:GUEST_PATH, not '%s'", v[i]);
      return fail_usage(m, msg);
    }
    if (!(specs[*n] = strndup(v[i], (size_t)(colon - v[i])))) return fail_internal(m, "out of memory");
    mounts[*n] = (wasmbox_mount){.host_dir = specs[*n], .guest_path = colon + 1};
    (*n)++;
  }
  return EXIT_OK;
}

/* "a,b,c" as a list of names ("" is the empty list). */
static bool split_into(const char *v, name_list *l) { return !v || split_names(v, l); }

static int cmd_run(int argc, char **argv) {
  output_mode m = {0};
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--json")) m.json = true;

  /* static: zeroed pages the kernel hands out as they are touched (calloc
   * wrote all 64 KB at every start-up) */
  static run_options options;
  run_options *o = &options;
  /* an --env value per argument at most */
  const char **env = calloc((size_t)argc, sizeof *env);
  char **env_owned = calloc((size_t)argc, sizeof *env_owned);
  wasmbox_mount mounts[WASMBOX_MAX_MOUNTS];
  char *mount_specs[WASMBOX_MAX_MOUNTS];
  size_t nmounts = 0, nowned = 0;
  name_list allow = {0}, deny = {0}, deny_builtins = {0};
  wb_buf code_buf = {0}, stdin_buf = {0};
  wasmbox_request req = {0};
  char msg[512];
  int rc = EXIT_OK;
  if (!env || !env_owned) {
    rc = fail_internal(&m, "out of memory");
    goto out;
  }
  const char *file = NULL;
  size_t npos;
  int parsed = wb_opt_parse(run_table, N_RUN, o, argc, argv, 1, &file, 1, &npos, "wasmbox run", msg, sizeof msg);
  if (parsed == 1) {
    run_usage(stdout);
    goto out;
  }
  if (parsed < 0) {
    rc = fail_usage(&m, msg);
    goto out;
  }
  /* what the table cannot say: the values' own forms */
  if (o->fuel > WASMBOX_MAX_FUEL) {
    snprintf(msg, sizeof msg, "--fuel wants a number of units between 1 and %llu, not '%llu'",
             (unsigned long long)WASMBOX_MAX_FUEL, (unsigned long long)o->fuel);
    rc = fail_usage(&m, msg);
    goto out;
  }
  if ((rc = split_mounts(&m, o->mounts, o->nmounts, mounts, mount_specs, &nmounts))) goto out;
  for (size_t i = 0; i < o->nenv; i++) {
    const char *v = o->env[i];
    if (strchr(v, '=')) {
      env[i] = v;
      continue;
    }
    const char *val = getenv(v);
    if (!val) {
      snprintf(msg, sizeof msg, "--env %s: no such variable in this environment", v);
      rc = fail_usage(&m, msg);
      goto out;
    }
    if (asprintf(&env_owned[nowned], "%s=%s", v, val) < 0) {
      rc = fail_internal(&m, "out of memory");
      goto out;
    }
    env[i] = env_owned[nowned++];
  }
  if (!split_into(o->allow_imports, &allow) || !split_into(o->deny_imports, &deny) ||
      !split_into(o->deny_builtins, &deny_builtins)) {
    rc = fail_internal(&m, "out of memory");
    goto out;
  }
  const char *code = o->code, *lang = o->lang, *stdin_path = o->stdin_path;
  req.workspace = o->workspace;
  req.session_id = o->session;
  req.no_files = o->no_files;
  req.timeout_seconds = o->timeout;
  req.memory_bytes = o->memory_mb << 20;
  req.quota_bytes = o->quota_mb << 20;
  req.fuel = o->fuel;
  req.max_output_bytes = (size_t)o->max_output;
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
  req.env_len = o->nenv;
  req.mounts = mounts;
  req.mounts_len = nmounts;
  req.packages = o->packages;
  req.packages_len = o->npackages;
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

/* wasmbox session's options, as the table below fills them in. */
typedef struct {
  const char *lang, *package_index, *wheelhouse;
  double ttl;
  const char *env[LIST_MAX];
  size_t nenv;
  const char *mounts[WASMBOX_MAX_MOUNTS];
  size_t nmounts;
  const char *packages[WASMBOX_MAX_PACKAGES];
  size_t npackages;
  bool json;
} session_options;

#define SES(f) offsetof(session_options, f)
/* Options `session` shares with `run` are listed again, by design: each
 * table is all of its command's options, in the order its usage prints. */
static const wb_option session_table[] = {
    {"--lang", WB_OPT_TEXT, SES(lang), 0, 0, 0, 0, NULL, "LANG", "new: python (default) or javascript", 0},
    {"--ttl", WB_OPT_DOUBLE, SES(ttl), 0, 0, 1e-300, 1e300, "a positive number of seconds", "SECONDS",
     "new: idle time after which prune removes it (default 86400)", 0},
    {"--env", WB_OPT_LIST, SES(env), SES(nenv), LIST_MAX, 0, 0, NULL, "NAME=VALUE",
     "new: a variable the session's code sees (repeatable)", 0},
    {"--mount", WB_OPT_LIST, SES(mounts), SES(nmounts), WASMBOX_MAX_MOUNTS, 0, 0, NULL, "DIR:PATH",
     "new: host directory DIR read-only at PATH (repeatable)", 0},
    {"--packages", WB_OPT_LIST, SES(packages), SES(npackages), WASMBOX_MAX_PACKAGES, 0, 0, NULL, "DIR",
     "new: Python package directory on sys.path (repeatable, at most 4)", 0},
    {"--package-index", WB_OPT_TEXT, SES(package_index), 0, 0, 0, 0, NULL, "URL",
     "install: resolve and download from this index (pip's --index-url)", 0},
    {"--wheelhouse", WB_OPT_TEXT, SES(wheelhouse), 0, 0, 0, 0, NULL, "DIR",
     "install: take wheels from this directory instead", 0},
    {"--json", WB_OPT_FLAG, SES(json), 0, 0, 0, 0, NULL, NULL, "print the answer as one JSON object", 0},
};
#define N_SESSION (sizeof session_table / sizeof session_table[0])

static void session_usage(FILE *out) {
  fputs(
      "usage: wasmbox session COMMAND [options]\n"
      "\n"
      "  new                   create a session; prints its id\n"
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
      "\noptions:\n",
      out);
  wb_opt_usage(session_table, N_SESSION, out);
  fputs("\nSessions live in $WASMBOX_HOME (default ~/.local/share/wasmbox).\n", out);
}

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
  char msg[512], err[512];
  int rc = EXIT_OK;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--json")) m.json = true;
  session_options *so = calloc(1, sizeof *so);
  if (!so) return fail_internal(&m, "out of memory");
  int parsed =
      wb_opt_parse(session_table, N_SESSION, so, argc, argv, 1, pos, 3, &npos, "wasmbox session", msg, sizeof msg);
  if (parsed == 1) {
    session_usage(stdout);
    goto out;
  }
  if (parsed < 0) rc = fail_usage(&m, msg);
  for (size_t i = 0; rc == EXIT_OK && i < so->nenv; i++) {
    if (strchr(so->env[i], '=')) continue;
    snprintf(msg, sizeof msg, "--env wants NAME=VALUE, not '%s'", so->env[i]);
    rc = fail_usage(&m, msg);
  }
  if (rc == EXIT_OK) rc = split_mounts(&m, so->mounts, so->nmounts, mounts, specs, &nspecs);
  const char *index_url = so->package_index, *wheelhouse = so->wheelhouse;
  o.language = so->lang;
  o.ttl_seconds = so->ttl;
  o.env_len = so->nenv;
  o.packages_len = so->npackages;
  if (rc != EXIT_OK) goto out;
  o.env = so->env;
  o.mounts = mounts;
  o.mounts_len = nspecs;
  o.packages = so->packages;
  const char *cmd = pos[0] ? pos[0] : "";
  size_t want = !strcmp(cmd, "new") || !strcmp(cmd, "list") || !strcmp(cmd, "prune")                               ? 1
                : !strcmp(cmd, "restore") || !strcmp(cmd, "install")                                               ? 3
                : !strcmp(cmd, "fork") || !strcmp(cmd, "checkpoint") || !strcmp(cmd, "info") || !strcmp(cmd, "rm") ? 2
                                                                                                                   : 0;
  if (!want || npos != want ||
      (strcmp(cmd, "new") && (o.language || o.ttl_seconds || o.env_len || nspecs || o.packages_len)) ||
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
    if (!(r = wasmbox_session_restore(wb, pos[1], pos[2], err, sizeof err)))
      rc = print_id("session_id", pos[1], m.json);
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
  free(so);
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
      fputs(
          "usage: wasmbox doctor [--json]\n"
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
    printf(
        "guest code runs as WebAssembly (bounds-checked memory, no system calls of its own)\n"
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
    printf("wasmbox %s\nlanguages:", wasmbox_version());
    for (const char *const *l = wasmbox_languages(); *l; l++) printf(" %s", *l);
    printf("\n");
    return EXIT_OK;
  }
  fprintf(stderr, "wasmbox: unknown command '%s'\n%s", argv[1], main_usage);
  return EXIT_USAGE;
}
