/* wasmbox: run untrusted Python and JavaScript in a WebAssembly sandbox.
 *
 * Contract
 *   wasmbox_new()        creates a library instance (thread-safe to share).
 *   wasmbox_run()        runs one request to completion and hands back a
 *                        result; it never hangs past the request's timeout
 *                        and never lets guest code touch anything but the
 *                        request's workspace (mounted at /app).
 *   wasmbox_result_json() renders a result as one JSON object (the fields of
 *                        wasmbox_result below; README "wasmbox run").
 *   wasmbox_result_free(), wasmbox_free() release them.
 *   wasmbox_session_*()  sessions: state kept across calls (below).
 * Guest failures (exceptions, timeouts, exhausted limits, crashes) are
 * results with a status, not errors: wasmbox_run() fails only for a bad
 * request (WASMBOX_EUSAGE) or a host failure (WASMBOX_EINTERNAL), with a
 * message in `err`. Strings in a result stay valid until it is freed. */
#ifndef WASMBOX_H
#define WASMBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; wasmbox_version() is the library's own, which
 * can differ when the library was installed apart from the program. */
#define WASMBOX_VERSION "0.1.0"
#define WASMBOX_VERSION_MAJOR 0
#define WASMBOX_VERSION_MINOR 1
#define WASMBOX_VERSION_PATCH 0
#define WASMBOX_VERSION_NUMBER (WASMBOX_VERSION_MAJOR * 10000 + WASMBOX_VERSION_MINOR * 100 + WASMBOX_VERSION_PATCH)

#define WASMBOX_DEFAULT_TIMEOUT_S 30.0
#define WASMBOX_DEFAULT_MEMORY (256ull << 20)
#define WASMBOX_DEFAULT_MAX_OUTPUT (1u << 20)
#define WASMBOX_DEFAULT_QUOTA (100ull << 20)
/* Fuel: a deterministic budget of work, in units of WebAssembly
 * instructions counted statically (the cost model is in tools/wasm_fuel.c;
 * a unit is an upper bound, so busy interpreter code uses 10^10-10^11 of
 * them a second). The same code run from the same state uses the same fuel
 * every time, whatever the machine or its load; work done by the host for
 * the guest (file and output calls) is not counted. By default a call has
 * no budget beyond its timeout (the most there is: years of any loop); set
 * one to bound work exactly and reproducibly. */
#define WASMBOX_MAX_FUEL ((uint64_t)INT64_MAX)
#define WASMBOX_DEFAULT_FUEL WASMBOX_MAX_FUEL

enum { WASMBOX_OK = 0, WASMBOX_EUSAGE = 2, WASMBOX_EINTERNAL = 4 };

typedef enum {
  WASMBOX_STATUS_OK,            /* ran to the end, exit code 0 */
  WASMBOX_STATUS_ERROR,         /* raised, or exited non-zero */
  WASMBOX_STATUS_TIMEOUT,       /* stopped at the wall-clock limit */
  WASMBOX_STATUS_OUT_OF_FUEL,   /* stopped at the instruction budget */
  WASMBOX_STATUS_OUT_OF_MEMORY, /* needed more than the memory limit */
  WASMBOX_STATUS_CRASHED,       /* trapped: stack exhausted, invalid access */
  WASMBOX_STATUS_CANCELLED,     /* stopped by wasmbox_cancel_fire() */
  WASMBOX_STATUS_PAUSED,        /* stopped at a tool call that waits for
                                   approval: wasmbox_resume() goes on */
} wasmbox_status;

/* A way to stop a call from another thread (a client gave up on it): pass
 * it in the request, fire it any time; a running guest is stopped within
 * milliseconds, a call not yet started does not start. One token may serve
 * one call at a time. */
typedef struct wasmbox_cancel wasmbox_cancel;
wasmbox_cancel *wasmbox_cancel_new(void);
void wasmbox_cancel_fire(wasmbox_cancel *c);
void wasmbox_cancel_free(wasmbox_cancel *c);

/* A host directory the guest may read (never write) at guest_path. */
typedef struct {
  const char *host_dir;
  const char *guest_path; /* absolute; not / and not inside /app */
} wasmbox_mount;

typedef struct {
  const char *name; /* printable ASCII, below WASMBOX_ID_MAX */
  const char *host_dir;
} wasmbox_named_mount;

#define WASMBOX_MAX_MOUNTS 16 /* mounts and package directories together */

/* Python packages of the operator's (pure Python, or py3-none-any wheels):
 * host directories shown read-only at /packages/0, /packages/1, ... and on
 * sys.path before the built-in packages (a package the base snapshot
 * already imported stays the built-in one). */
#define WASMBOX_MAX_PACKAGES 4

/* Tools: guest code can call tools of the embedder's (Python `from wasmbox
 * import tools`, JavaScript's global `tools`; README "Code mode"). Each
 * request the guest makes is checked by the library (its JSON, the
 * request's allowed_tools, its limits) and then given to the request's
 * tool handler:
 *   op "list"   -> reply: a JSON array of {"name", "description", ...}
 *   op "search" -> the same, best matches of `query` first, at most `limit`
 *   op "schema" -> the tool's definition: {"name", "description",
 *                  "inputSchema", ...}
 *   op "call"   -> an MCP CallToolResult: {"content": [...],
 *                  "structuredContent"?, "isError"?}
 * The library drops entries of a list or search that the call may not use,
 * and refuses calls and schemas of those tools before the handler sees them.
 * The handler returns WASMBOX_TOOL_OK with *reply (malloc'd, NUL-terminated
 * JSON text; the library frees it), or WASMBOX_TOOL_ERROR,
 * WASMBOX_TOOL_NOT_ALLOWED or WASMBOX_TOOL_BAD_ARGUMENTS (the arguments do
 * not match the tool's inputSchema) with a message in err: the guest gets a
 * ToolError, ToolNotAllowed or ToolArgumentError with it. A handler never
 * sees guest memory. It runs on a thread of the
 * library while the call runs, one request at a time per call, and must
 * return within `seconds_left`: time spent in tools counts against the
 * call's timeout (fuel does not). */
typedef struct {
  const char *op;        /* "call", "list", "search", "schema" */
  const char *name;      /* call, schema: the tool's name (ASCII, no spaces) */
  const char *arguments; /* call: a JSON object, as text */
  size_t arguments_len;
  const char *query;      /* search */
  unsigned limit;         /* search: 1..WASMBOX_TOOL_SEARCH_MAX */
  double seconds_left;    /* until the call's deadline */
  const char *session_id; /* the call's session, or NULL */
  const char *owner;      /* the call's wasmbox_request.owner, or NULL */
  bool approved;          /* call: a person approved it (wasmbox_resume) */
} wasmbox_tool_request;

/* What a handler returns: 0, or why it has no reply. */
enum {
  WASMBOX_TOOL_OK = 0,
  WASMBOX_TOOL_ERROR = 1,
  WASMBOX_TOOL_NOT_ALLOWED = 2,
  WASMBOX_TOOL_BAD_ARGUMENTS = 3,
  WASMBOX_TOOL_NEEDS_APPROVAL = 4 /* call, not approved: the run pauses (below) */
};
typedef int (*wasmbox_tool_handler)(void *ctx, const wasmbox_tool_request *req, char **reply, char *err, size_t errlen);
/* Told of every op "call" request once it is answered or refused, for an
 * audit log: outcome is "ok", "error" (the tool or handler failed),
 * "not_allowed", "bad_arguments", "limit", "timeout", "bad_request" or
 * "paused" (it waits for approval); req->name and
 * req->arguments may be NULL for a malformed request. */
typedef void (*wasmbox_tool_audit)(void *ctx, const wasmbox_tool_request *req, const char *outcome, double duration_ms);

#define WASMBOX_DEFAULT_MAX_TOOL_CALLS 100
#define WASMBOX_MAX_TOOL_CALLS 100000
#define WASMBOX_DEFAULT_MAX_TOOL_BYTES (16ull << 20) /* requests and replies, all together */
#define WASMBOX_MAX_TOOL_BYTES (1ull << 30)
#define WASMBOX_TOOL_SEARCH_MAX 1000
#define WASMBOX_MAX_ALLOWED_TOOLS 64 /* patterns in allowed_tools */

typedef struct {
  const char *language;    /* "python" (default; alias "py") or "javascript" ("js") */
  const char *code;        /* the program */
  size_t code_len;         /* 0: strlen(code) */
  const char *filename;    /* shown in tracebacks; NULL: "<string>" (python),
                              "<input>" (javascript); a .mjs name makes a module */
  const char *workspace;   /* host directory mounted at /app; NULL: a fresh
                              temporary directory, removed afterwards */
  double timeout_seconds;  /* 0: WASMBOX_DEFAULT_TIMEOUT_S */
  uint64_t memory_bytes;   /* linear memory limit; 0: WASMBOX_DEFAULT_MEMORY */
  uint64_t fuel;           /* instruction budget of this call (a session's
                              calls each have their own); 0:
                              WASMBOX_DEFAULT_FUEL, at most WASMBOX_MAX_FUEL */
  size_t max_output_bytes; /* kept per stream (stdout, stderr); 0: default */
  uint64_t quota_bytes;    /* files /app may hold, all together; growing
                              past it fails (ENOSPC); 0: WASMBOX_DEFAULT_QUOTA */
  const char *stdin_data;  /* bytes the guest reads from stdin */
  size_t stdin_len;
  const char *const *env; /* "NAME=value" entries the guest sees; none else */
  size_t env_len;
  const wasmbox_mount *mounts; /* extra read-only host directories */
  size_t mounts_len;
  const char *const *packages; /* Python: package directories (above) */
  size_t packages_len;
  /* Python import policy, for eval harnesses that must restrict code (a
   * policy, not the security boundary): only the top-level modules in
   * allow_imports (NULL: any; non-NULL with length 0: none), never those in
   * deny_imports, and none of the builtins in deny_builtins (e.g. "eval",
   * "exec", "compile"). The code is checked before it runs (every violation
   * with its line, as one error of type ImportPolicyError) and again while
   * it runs; imports made inside the libraries it uses are theirs. */
  const char *const *allow_imports;
  size_t allow_imports_len;
  const char *const *deny_imports;
  size_t deny_imports_len;
  const char *const *deny_builtins;
  size_t deny_builtins_len;
  bool no_files;          /* no files: /app is empty and read-only, so
                             the code can neither find nor write one
                             (read-only mounts stay); not in a session,
                             whose /app is its state */
  wasmbox_cancel *cancel; /* NULL, or a token that may stop the call */
  const char *session_id; /* run in this session: its workspace is /app,
                             its environment, mounts and packages are the
                             session's (`workspace`, `env`, `mounts`,
                             `packages` must be unset) */
  /* Tools (above). Without a handler every tool request fails. Which tools
   * the call may use: names matching a pattern of allowed_tools (shell
   * globs, fnmatch(3): "github__*", "*__read_*") and no pattern starting
   * with "!" ("!github__delete_*"); none when the list is empty. */
  wasmbox_tool_handler tool_handler;
  wasmbox_tool_audit tool_audit; /* or NULL */
  void *tool_ctx;                /* both are given it */
  const char *const *allowed_tools;
  size_t allowed_tools_len;
  unsigned max_tool_calls; /* op "call" requests; 0: the default */
  uint64_t max_tool_bytes; /* bytes of requests and replies; 0: the default */
  /* Whose call this is (NULL: nobody's): handed to the tool handler and
   * audit, and kept with a paused run together with its scope (say, the
   * MCP session that made it): wasmbox_resume() then goes on only for the
   * same owner and scope. Printable ASCII, below WASMBOX_OWNER_MAX. */
  const char *owner;
  const char *owner_scope;
} wasmbox_request;

typedef struct {
  wasmbox_status status;
  int exit_code;
  const char *stdout_data, *stderr_data; /* NUL-terminated; may hold NULs */
  size_t stdout_len, stderr_len;
  bool stdout_truncated, stderr_truncated;
  uint64_t stdout_total, stderr_total; /* bytes the guest wrote */
  const char *error_type;              /* NULL when status is ok */
  const char *error_message;
  const char *error_traceback;
  const char *const *guidance; /* hints for the caller */
  size_t guidance_len;
  /* per hint: its kind ("timeout", "module_not_found", "no_network", ...)
   * and the section of docs/ about it ("docs/runtimes.md#python-packages") */
  const char *const *guidance_types, *const *guidance_docs;
  double duration_ms;
  uint64_t fuel_used; /* the whole budget when out_of_fuel */
  /* The call's fuel budget, 0 for none. With one, wasmbox_result_json() adds
   * "fuel_analysis": consumed, budget, utilization_percent, a status
   * (efficient < 50 %, moderate < 75 %, warning < 90 %, critical, or
   * exhausted when out_of_fuel), and from warning on a suggested_budget
   * (1.5x what the run used; 2x the budget when it ran out) with a
   * recommendation. */
  uint64_t fuel_budget;
  uint64_t memory_peak_bytes;
  const char *session_id;           /* NULL: a stateless call */
  bool session_rolled_back;         /* the failed call left no trace */
  const char *const *files_changed; /* guest paths under /app */
  size_t files_changed_len;
  /* WASMBOX_STATUS_PAUSED: the tool call that waits (its name and its
   * arguments as JSON) and the one-use token that resumes the run. */
  const char *pending_tool, *pending_arguments;
  const char *resume_token;
} wasmbox_result;

typedef struct wasmbox wasmbox;

typedef struct {
  const char *home; /* state directory; NULL: $WASMBOX_HOME, else
                       ~/.local/share/wasmbox */
  /* Guest code runs in jailed worker processes (namespaces, Landlock,
   * seccomp, rlimits, cgroups; see `wasmbox doctor`), never in the calling
   * process. in_process runs it here instead, behind WebAssembly alone: for
   * embedders that isolate the whole process themselves.
   * A worker is this same program started again (/proc/self/exe) with
   * WASMBOX_WORKER_FD in its environment: a constructor in the library
   * sees that variable before main() runs and becomes the worker, so the
   * program's own main() never runs in a worker. Without the variable the
   * constructor does nothing; a program must not set it itself. With the
   * shared library (libwasmbox.so, which Python's ctypes or another
   * language's FFI may load into any program) a worker is instead the
   * program libwasmbox/wasmbox-worker in the library's own directory, linked
   * to the same library. */
  bool in_process;
  unsigned warm_workers; /* stateless workers started by wasmbox_open()
                            so that the first calls wait for none */
  /* A process that makes one call and exits (the CLI): its workers are not
   * put in cgroups, whose placement (cgroup v1) waits for a kernel RCU
   * grace period, ~10-15 ms, longer than the call. The other layers hold;
   * seccomp alone already forbids new processes. */
  bool one_shot;
  /* Sessions in a store that several servers share: a postgres:// URL
   * (NULL: $WASMBOX_STORE; unset or empty: the state directory alone). The
   * state directory then caches the sessions this process serves; each
   * call takes its session's lease in the database, so calls on one
   * session are serialised across every server, and commits there. */
  const char *store;
  /* The directories a session in that store may mount, by name: the store
   * records a session mount's name, never its host path, and each server
   * resolves the name here, from its own configuration. A session mount
   * whose host directory is none of these cannot go into the store; a
   * stored host path, or a name this server lacks, is refused. */
  const wasmbox_named_mount *named_mounts;
  size_t named_mounts_len;
  /* Bounded waits on the store. store_timeout_s (0: 120) is how long a call
   * waits for a session another call holds; every other statement may take
   * a second more, and no reply is waited for longer than that plus one
   * second, so a database that stops answering fails session calls, as
   * "session store: ...", instead of holding them. store_connections (0:
   * 32) connections are used at once at most: a session call holds one
   * while it runs, and past the cap an operation fails at once with
   * "session store busy: N connections in use". */
  double store_timeout_s;
  unsigned store_connections;
  /* A session's worker keeps, beside the session's memory, a copy of its
   * committed state, which a call's save compares against and a failed
   * call goes back to. Idle this long (0: 30 s), it gives the copy back,
   * and the next call copies it back first: an idle session then holds
   * half the memory, and that next call takes about 1 ms more per MB of
   * state the session changed. A number of seconds, 0 or more. */
  double session_idle_release_s;
} wasmbox_options;

wasmbox *wasmbox_new(char *err, size_t errlen); /* default options */
wasmbox *wasmbox_open(const wasmbox_options *opts, char *err, size_t errlen);
void wasmbox_free(wasmbox *wb);
/* The state directory wasmbox_open() uses for this home (NULL: the
 * default, as wasmbox_options.home says); malloc'd, NULL without memory. */
char *wasmbox_state_dir(const char *home);

int wasmbox_run(wasmbox *wb, const wasmbox_request *req, wasmbox_result **out, char *err, size_t errlen);
void wasmbox_result_free(wasmbox_result *r);

/* "ok", "error", "timeout", "out_of_fuel", "out_of_memory", "crashed",
 * "cancelled", "paused" */
const char *wasmbox_status_name(wasmbox_status s);

/* The result as one JSON object (malloc'd; free() it). */
char *wasmbox_result_json(const wasmbox_result *r);

/* Approval. A tool handler that answers a call with
 * WASMBOX_TOOL_NEEDS_APPROVAL stops the run there: the result has status
 * paused, the pending call and a resume token, and a session's state is as
 * it was before the call (rolled back). The paused run is kept in the state
 * directory: the code, the request, and everything it learned from outside
 * (clock readings, random bytes, tool replies). wasmbox_resume() - in this
 * process or another, before WASMBOX_RESUME_TTL_S - runs the code again from
 * the same state, handing it the same values up to the pending call (so it
 * takes the same path and nothing is done twice: earlier tool calls are not
 * repeated), then makes the call (approved: the handler gets approved=true,
 * or `result` is given to the guest instead) or fails it with a ToolError
 * (denied), and the run goes on live. A token works once. A run that takes
 * another path than before gets a ToolError of type ResumeDiverged from its
 * first different tool request on, never a live call. The guest's output
 * before the pause is produced again. */
#define WASMBOX_RESUME_TTL_S (24.0 * 3600)

typedef struct {
  const char *resume_token;
  bool approve;
  const char *result;  /* approve: the tool's result (a CallToolResult, JSON)
                          to give the guest instead of calling the tool */
  const char *message; /* deny: why (the guest's ToolError says it) */
  /* the rest of the run's tools, as in wasmbox_request */
  wasmbox_tool_handler tool_handler;
  wasmbox_tool_audit tool_audit;
  void *tool_ctx;
  const char *workspace;  /* a stateless call's /app, as in wasmbox_request */
  wasmbox_cancel *cancel; /* or NULL */
  /* who resumes: a paused run whose request named another owner or scope
   * is, to this caller, no paused run at all (and stays for its own);
   * NULL owner: no check (an operator's) */
  const char *owner;
  const char *owner_scope;
} wasmbox_resume_request;

int wasmbox_resume(wasmbox *wb, const wasmbox_resume_request *rr, wasmbox_result **out, char *err, size_t errlen);

/* Sessions. A session is a workspace (its /app) plus the whole memory of
 * its interpreter after its last successful call: variables, functions,
 * imports, open generators. A call that ends in timeout, out_of_memory,
 * out_of_fuel or a crash is rolled back: memory and files are as they were
 * before it (the result's `session_rolled_back` says so). Every committed
 * state is on disk in the state directory before the call returns (written
 * atomically), so sessions survive the process, even kill -9. Calls on one
 * session are serialised (across processes too); different sessions run in
 * parallel. Ids are ASCII, at most WASMBOX_ID_MAX - 1 characters. */
#define WASMBOX_ID_MAX 64
#define WASMBOX_DEFAULT_SESSION_TTL_S (24.0 * 3600)
#define WASMBOX_OWNER_MAX 256

typedef struct {
  const char *language;   /* NULL: "python" */
  double ttl_seconds;     /* idle time after which prune removes it;
                             0: WASMBOX_DEFAULT_SESSION_TTL_S */
  const char *const *env; /* "NAME=value": the session's environment */
  size_t env_len;
  const wasmbox_mount *mounts; /* read-only mounts of every call */
  size_t mounts_len;
  const char *const *packages; /* Python: package directories of every call */
  size_t packages_len;
  /* whose session it is (NULL: nobody's): recorded with it, in the shared
   * store too, and kept by its forks; the library reports it and leaves
   * who may use what to the caller (the MCP server's rule: README) */
  const char *owner;
} wasmbox_session_options;

typedef struct {
  char id[WASMBOX_ID_MAX];
  char language[16];
  double created, last_used; /* seconds since the epoch */
  double ttl_seconds;
  uint64_t disk_bytes; /* memory image, workspace and checkpoints */
  size_t checkpoints;
  char owner[WASMBOX_OWNER_MAX]; /* "" for nobody's */
} wasmbox_session_info;

int wasmbox_session_create(wasmbox *wb, const wasmbox_session_options *opts, char id[WASMBOX_ID_MAX], char *err,
                           size_t errlen);
/* A copy-on-write clone: memory and files; the two then evolve apart. */
int wasmbox_session_fork(wasmbox *wb, const char *id, char new_id[WASMBOX_ID_MAX], char *err, size_t errlen);
/* Remember the current state under a new checkpoint id ... */
int wasmbox_session_checkpoint(wasmbox *wb, const char *id, char checkpoint_id[WASMBOX_ID_MAX], char *err,
                               size_t errlen);
/* ... and go back to it later (memory and files). */
int wasmbox_session_restore(wasmbox *wb, const char *id, const char *checkpoint_id, char *err, size_t errlen);
int wasmbox_session_destroy(wasmbox *wb, const char *id, char *err, size_t errlen);
/* All sessions (malloc'd array; free() it). */
int wasmbox_session_list(wasmbox *wb, wasmbox_session_info **out, size_t *n, char *err, size_t errlen);
int wasmbox_session_info_get(wasmbox *wb, const char *id, wasmbox_session_info *out, char *err, size_t errlen);
/* The session's owner alone ("" for nobody's): cheaper than info, for a
 * check before each use. Unknown ids fail as every session function does. */
int wasmbox_session_owner(wasmbox *wb, const char *id, char owner[WASMBOX_OWNER_MAX], char *err, size_t errlen);
/* Remove sessions idle for longer than their TTL; *removed counts them.
 * Paused runs past WASMBOX_RESUME_TTL_S are removed too. */
int wasmbox_session_prune(wasmbox *wb, size_t *removed, char *err, size_t errlen);

/* Install Python packages into a session: pip on this host resolves
 * `requirement` (a name with an optional version: "tabulate", "attrs>=22")
 * and its dependencies against `index_url` or the wheels in `wheelhouse`
 * (exactly one), pure-Python wheels only (one with compiled code is refused,
 * named); a call in the session unpacks them into /app/.site-packages, which
 * is on sys.path. Nothing of a package runs on the host; built-in packages
 * are neither replaced nor installed again. *out (malloc'd; free() it) is
 * JSON: {"installed": [{"name", "version"}], "built_in": [{"name",
 * "version"}]}. */
int wasmbox_session_install(wasmbox *wb, const char *id, const char *requirement, const char *index_url,
                            const char *wheelhouse, char **out, char *err, size_t errlen);

/* Files of a session's workspace, from outside any call: for tools that
 * hand files in or take results out. Paths are guest paths (/app/x, or x
 * relative to /app) and resolve exactly as the guest's own do: nothing
 * outside /app, no symlink leads out. Changes are committed at once and
 * survive like the rest of the session; fork and checkpoint copies are not
 * affected (a written file gets its own copy first). */
#define WASMBOX_FILE_MAX (64ull << 20) /* read_file and write_file */
#define WASMBOX_LIST_MAX 10000         /* entries one list_files returns */

typedef struct {
  char *path; /* guest path, e.g. /app/data/x.csv */
  bool is_dir;
  bool is_symlink; /* the entry itself (not followed) */
  uint64_t size;   /* of a regular file; 0 otherwise */
  double mtime;    /* seconds since the epoch */
} wasmbox_file_info;

/* Entries under `path` (a directory), recursively when `recursive`; more
 * than WASMBOX_LIST_MAX is an error (EUSAGE) rather than a silent cut. */
int wasmbox_session_list_files(wasmbox *wb, const char *id, const char *path, bool recursive, wasmbox_file_info **out,
                               size_t *n, char *err, size_t errlen);
void wasmbox_file_info_free(wasmbox_file_info *v, size_t n);
/* Contents (malloc'd, NUL-terminated besides *len). */
int wasmbox_session_read_file(wasmbox *wb, const char *id, const char *path, char **data, size_t *len, char *err,
                              size_t errlen);
/* Create or replace a file (parent directories are created). */
int wasmbox_session_write_file(wasmbox *wb, const char *id, const char *path, const void *data, size_t len, char *err,
                               size_t errlen);
/* Empty the workspace. */
int wasmbox_session_reset_workspace(wasmbox *wb, const char *id, char *err, size_t errlen);

/* How guest code is isolated here: the layers of a worker's jail in the
 * order a worker applies them, each active or not with a reason (a kernel
 * that refuses a layer leaves it off; the others still hold). *n is 0 for
 * an in_process library. */
#define WASMBOX_LAYERS_MAX 16
typedef struct {
  const char *name; /* "user_ns", "landlock", "seccomp", ... */
  bool active;
  char detail[120]; /* what it enforces, or why it is off */
} wasmbox_layer;
int wasmbox_isolation(wasmbox *wb, wasmbox_layer out[WASMBOX_LAYERS_MAX], size_t *n, char *err, size_t errlen);

/* The worker processes an instance holds now (all 0 for an in_process
 * library), and its work with a shared session store (wasmbox_options.store:
 * leases with their reloads, and publishes), for monitoring. */
typedef struct {
  size_t workers_idle;     /* waiting for a call */
  size_t workers_busy;     /* running one */
  size_t workers_starting; /* not ready yet */
  uint64_t store_operations, store_failures;
  double store_seconds; /* the time store_operations took, in all */
} wasmbox_stats;
void wasmbox_stats_get(wasmbox *wb, wasmbox_stats *out);

/* Ids ended for good, remembered for WASMBOX_ENDED_KEEP_S and shared like
 * sessions (the state directory's mcp-ended/, or the shared store): a server
 * records there the MCP sessions clients ended (DELETE), so that every
 * server behind a balancer refuses them. An id is what a session id may be
 * (letters, digits, '-', '_'), at most 127 characters. has: 1 ended, 0 not,
 * -1 cannot tell (err set). */
#define WASMBOX_ENDED_KEEP_S (30.0 * 86400)
int wasmbox_ended_add(wasmbox *wb, const char *id, char *err, size_t errlen);
int wasmbox_ended_has(wasmbox *wb, const char *id, char *err, size_t errlen);

/* Languages this build runs, NULL-terminated. */
const char *const *wasmbox_languages(void);
/* The state directory this instance uses (wasmbox_options.home or its
 * default), valid until wasmbox_free(). */
const char *wasmbox_home(const wasmbox *wb);

/* WASMBOX_VERSION as the library was built with it. */
const char *wasmbox_version(void);

#ifdef __cplusplus
}
#endif
#endif
