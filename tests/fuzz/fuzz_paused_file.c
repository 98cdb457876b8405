/* libFuzzer: a paused run's file ($home/paused/TOKEN, api/paused.h) as a
 * crash, a full disk or someone with the state directory leaves it. The
 * first byte of the input picks who resumes (bits 0-1: an operator with no
 * owner, alice in scope mcp-1, alice in any scope, mallory), how (bit 2:
 * approve, else deny; bit 3: approve with a result given instead of the
 * tool) and through what (bit 4: the internal wb_paused_take, else
 * wasmbox_resume(), which runs the guest again in this process); the rest
 * is the file. Properties beyond "no crash, leak or UB":
 *   - every call either succeeds or fails with a message;
 *   - a run whose file names another owner or scope (or none readable) is
 *     never claimed by an owner: "no such token", and the file stays, whole;
 *   - a run that is taken is gone (a token works once), and the tool
 *     handler only ever hears the owner the file names.
 * A file's `created` is rewritten before it is used, so that seeds do not
 * expire: a time (over 1e9) becomes now, a small number an age (so that
 * expiry stays reachable); other values stay. Runs whose request would be
 * slow to fuzz (a timeout over 5 s or the default, over 256 MiB) are only
 * taken, not run. The session named "sfuzz" is remade after a run commits
 * in it, so that its seeds keep their generation.
 * With WB_FUZZ_SEEDS=DIR set, the harness pauses real runs (the library
 * writes their files), writes them there as seeds and ends
 * (tests/fuzz/make_seeds.py runs it so). */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/library.h"
#include "api/paused.h"
#include "util/os.h"
#include "wasmbox.h"

#define TOKEN "0123456789abcdef0123456789abcdef"
#define PROBE "fedcba9876543210fedcba9876543210"
#define SESSION "sfuzz"

static wasmbox *wb;
static char home[64];
static const char *expect_owner; /* what the handler must hear: the file's owner, "" for none */

static const char *const allowed[] = {"mail__*", "calc__add"};

static void check(int ok, const char *what, const char *err) {
  if (ok) return;
  fprintf(stderr, "fuzz_paused_file: %s%s%s\n", what, err ? ": " : "", err ? err : "");
  abort();
}

/* Answers something fixed; mail__send needs approval. */
static int handler(void *ctx, const wasmbox_tool_request *req, char **reply, char *err, size_t errlen) {
  (void)ctx;
  check(!strcmp(req->owner ? req->owner : "", expect_owner), "the handler heard another owner", req->owner);
  if (!strcmp(req->op, "call") && req->name && !strcmp(req->name, "mail__send") && !req->approved) {
    snprintf(err, errlen, "mail__send needs approval");
    return WASMBOX_TOOL_NEEDS_APPROVAL;
  }
  if (!strcmp(req->op, "list") || !strcmp(req->op, "search"))
    *reply = strdup("[{\"name\":\"mail__send\",\"description\":\"d\"},{\"name\":\"calc__add\"}]");
  else if (!strcmp(req->op, "schema"))
    *reply = strdup("{\"name\":\"calc__add\",\"inputSchema\":{\"type\":\"object\"}}");
  else *reply = strdup("{\"content\":[{\"type\":\"text\",\"text\":\"5\"}],\"structuredContent\":{\"sum\":5}}");
  return WASMBOX_TOOL_OK;
}

static double wall_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void put_file(const char *token, const uint8_t *p, size_t n) {
  char path[256];
  snprintf(path, sizeof path, "%s/paused/%s", home, token);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  check(fd >= 0 && wb_pwrite_all(fd, p, n, 0), "cannot write a paused run", path);
  close(fd);
}

static bool file_is(const char *token, size_t n) {
  char path[256];
  snprintf(path, sizeof path, "%s/paused/%s", home, token);
  struct stat st;
  return stat(path, &st) == 0 && (size_t)st.st_size == n;
}

/* Everything in paused/ goes: the runs left, those a resumed run paused again. */
static void clear_paused(void) {
  char dir[128];
  snprintf(dir, sizeof dir, "%s/paused", home);
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(dirfd(d), e->d_name, 0);
  if (d) closedir(d);
}

/* The offset of `created` (paused.c's order), or 0 when the file does not
 * read that far. */
static size_t created_at(const uint8_t *p, size_t n) {
  if (n < 8 || memcmp(p, "WBPAUSE2", 8)) return 0;
  wb_reader r = {.p = p + 8, .len = n - 8};
  wasmbox_request q;
  wb_request_storage s;
  wb_journal_wire j;
  wb_get_str(&r);
  wb_get_str(&r);
  bool ok = wb_decode_request(&r, &q, &s, &j);
  wb_request_storage_free(&s);
  uint32_t k = ok ? wb_get_u32(&r) : 0;
  for (uint32_t i = 0; ok && i < k && i <= WASMBOX_MAX_ALLOWED_TOOLS; i++) wb_get_str(&r);
  wb_get_u32(&r);
  wb_get_u64(&r);
  wb_get_u64(&r);
  return ok && !r.bad && r.at + 8 <= r.len ? 8 + r.at : 0;
}

static void refresh_created(uint8_t *p, size_t n) {
  size_t at = created_at(p, n);
  if (!at) return;
  double v;
  memcpy(&v, p + at, 8);
  if (isfinite(v) && v > 1e9) v = wall_s() - 1;
  else if (isfinite(v) && v >= 0) v = wall_s() - v;
  memcpy(p + at, &v, 8);
}

/* The session the seeds run in, under a name that stays. */
static void make_session(void) {
  char id[WASMBOX_ID_MAX], err[512], from[256], to[256];
  snprintf(to, sizeof to, "%s/sessions/%s", home, SESSION);
  wb_remove_tree(to);
  check(wasmbox_session_create(wb, NULL, id, err, sizeof err) == WASMBOX_OK, "create", err);
  snprintf(from, sizeof from, "%s/sessions/%s", home, id);
  check(rename(from, to) == 0, "rename", from);
}

/* Who resumes (bits 0-1 of the mode). */
static const char *const owners[] = {NULL, "alice", "alice", "mallory"};
static const char *const scopes[] = {NULL, "mcp-1", NULL, "mcp-1"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > (1u << 20)) return 0;
  uint8_t mode = data[0];
  size_t n = size - 1;
  uint8_t *file = malloc(n ? n : 1);
  check(file != NULL, "out of memory", NULL);
  memcpy(file, data + 1, n);
  refresh_created(file, n);
  const char *owner = owners[mode & 3], *scope = scopes[mode & 3];
  /* the file's owner and scope, read as paused.c reads them */
  wb_reader r = {.p = file + 8, .len = n >= 8 ? n - 8 : 0};
  bool magic = n >= 8 && !memcmp(file, "WBPAUSE2", 8);
  const char *f_owner = magic ? wb_get_str(&r) : NULL, *f_scope = magic ? wb_get_str(&r) : NULL;
  bool mine = !owner || (f_owner && f_scope && !strcmp(owner, f_owner) && (!scope || !strcmp(scope, f_scope)));
  expect_owner = f_owner ? f_owner : "";
  /* a probe of the same bytes under another token: may it run here? */
  bool run = !(mode & 16);
  if (run) {
    wb_paused p;
    char err[512];
    put_file(PROBE, file, n);
    if (wb_paused_take(wb->backend, PROBE, NULL, NULL, &p, err, sizeof err) == WASMBOX_OK) {
      run = p.req.timeout_seconds > 0 && p.req.timeout_seconds <= 5 && p.req.memory_bytes <= (256u << 20);
      wb_paused_free(&p);
    }
  }
  put_file(TOKEN, file, n);
  char err[512] = "";
  int rc;
  bool committed = false;
  if (run) {
    wasmbox_resume_request rr = {.resume_token = TOKEN,
                                 .approve = mode & 4,
                                 .result = mode & 8 ? "{\"content\":[{\"type\":\"text\",\"text\":\"given\"}]}" : NULL,
                                 .message = "not today",
                                 .tool_handler = handler,
                                 .owner = owner,
                                 .owner_scope = scope};
    wasmbox_result *out = NULL;
    rc = wasmbox_resume(wb, &rr, &out, err, sizeof err);
    check(rc == WASMBOX_OK ? out != NULL : out == NULL, "a result without success, or none with it", err);
    if (out) committed = out->session_id != NULL, wasmbox_result_free(out);
  } else {
    wb_paused p;
    rc = wb_paused_take(wb->backend, TOKEN, owner, scope, &p, err, sizeof err);
    if (rc == WASMBOX_OK) {
      check(!strcmp(p.owner, f_owner) && !strcmp(p.scope, f_scope), "a run's owner changed when taken", NULL);
      check(!strcmp(p.req.owner ? p.req.owner : "", f_owner), "a taken request has another owner", NULL);
      wb_paused_free(&p);
    }
  }
  check(rc == WASMBOX_OK || ((rc == WASMBOX_EUSAGE || rc == WASMBOX_EINTERNAL) && err[0]), "a silent failure", err);
  if (!mine) {
    check(rc == WASMBOX_EUSAGE && strstr(err, "no paused run has this resume token"), "another's run was claimed", err);
    check(file_is(TOKEN, n), "another's run did not stay where it was", NULL);
  }
  if (rc == WASMBOX_OK) check(mine && !file_is(TOKEN, n), "a run that was taken is still there", NULL);
  clear_paused();
  if (committed) make_session();
  free(file);
  return 0;
}

static void cleanup(void) {
  wasmbox_free(wb);
  wb_remove_tree(home);
}

/* ---- seeds: real runs, paused by the library ------------------------------------------ */

static void seed_of(const char *dir, int i, uint8_t mode, const char *token) {
  char path[256], out[4200];
  snprintf(path, sizeof path, "%s/paused/%s", home, token);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  check(fd >= 0, "no paused run", path);
  struct stat st;
  check(fstat(fd, &st) == 0, "stat", path);
  uint8_t *b = malloc((size_t)st.st_size + 1);
  check(b && wb_pread_all(fd, b + 1, (size_t)st.st_size, 0), "read", path);
  close(fd);
  b[0] = mode;
  snprintf(out, sizeof out, "%s/seed-%02d", dir, i);
  FILE *f = fopen(out, "wb");
  check(f && fwrite(b, 1, (size_t)st.st_size + 1, f) == (size_t)st.st_size + 1 && fclose(f) == 0, "write", out);
  free(b);
}

static void pause_run(const char *language, const char *code, const char *session, const char *owner, const char *scope,
                      char token[WB_TOKEN_LEN + 1]) {
  wasmbox_request q = {.language = language,
                       .code = code,
                       .session_id = session,
                       .timeout_seconds = 5,
                       .tool_handler = handler,
                       .allowed_tools = allowed,
                       .allowed_tools_len = 2,
                       .owner = owner,
                       .owner_scope = scope};
  wasmbox_result *r;
  char err[512];
  expect_owner = owner ? owner : "";
  check(wasmbox_run(wb, &q, &r, err, sizeof err) == WASMBOX_OK, "run", err);
  check(r->status == WASMBOX_STATUS_PAUSED && r->resume_token, "the run did not pause", r->stderr_data);
  snprintf(token, WB_TOKEN_LEN + 1, "%s", r->resume_token);
  wasmbox_result_free(r);
}

static void write_seeds(const char *dir) {
  static const char py[] =
      "import random, time\n"
      "from wasmbox import tools\n"
      "r, t = random.random(), time.time()\n"
      "print('before', tools.call('calc__add', {'a': 2})['sum'], len(tools.list()))\n"
      "print('after', tools.call('mail__send', {'to': 'bob'}), r < 1, t > 0)\n";
  static const char js[] =
      "const s = await tools.call('calc__add', {a: 2});\n"
      "console.log('before', Math.random() < 1, JSON.stringify(s));\n"
      "console.log('after', JSON.stringify(await tools.call('mail__send', {to: 'bob'})));\n";
  char t[4][WB_TOKEN_LEN + 1];
  pause_run("python", py, NULL, "alice", "mcp-1", t[0]);
  pause_run("python", py, SESSION, NULL, NULL, t[1]);
  pause_run("javascript", js, NULL, "alice", "mcp-1", t[2]);
  pause_run("python", "from wasmbox import tools\ntools.call('mail__send')\nprint('sent')\n", NULL, "mallory", "mcp-1",
            t[3]);
  seed_of(dir, 0, 1 | 4, t[0]);     /* alice approves her own */
  seed_of(dir, 1, 3 | 4, t[0]);     /* mallory tries alice's */
  seed_of(dir, 2, 0 | 8 | 4, t[1]); /* an operator gives a result, in a session */
  seed_of(dir, 3, 2, t[2]);         /* alice denies, in any scope */
  seed_of(dir, 4, 16 | 1, t[0]);    /* taken, not run */
  seed_of(dir, 5, 3 | 4, t[3]);     /* mallory, her own */
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(home, sizeof home, "/tmp/wasmbox-fuzz-paused-%d", (int)getpid());
  char err[512], dir[128];
  wasmbox_options o = {.home = home, .in_process = true};
  check((wb = wasmbox_open(&o, err, sizeof err)) != NULL, "open", err);
  atexit(cleanup);
  snprintf(dir, sizeof dir, "%s/paused", home);
  check(wb_mkdirs(dir), "mkdir", dir);
  make_session();
  const char *seeds = getenv("WB_FUZZ_SEEDS");
  if (seeds) {
    write_seeds(seeds);
    exit(0);
  }
  return 0;
}
