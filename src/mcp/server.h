/* The MCP server core, shared by both transports. Contract:
 *   mcp_server_new() opens one library instance (wasmbox_open) for the whole
 *     server and prepares /external; every other function is thread-safe.
 *   mcp_handle() answers one parsed JSON-RPC message: the response object, or
 *     NULL when none is due (notifications, responses, cancelled requests).
 *     It never fails on what a client sends: bad input becomes a JSON-RPC
 *     error, a failed guest becomes a tool result with isError.
 * The transport fills an mcp_msg with what it knows (HTTP headers, the
 * connection) and reads back what to send besides the response: an HTTP
 * status, a new session id, notifications to send first. */
#ifndef WASMBOX_MCP_SERVER_H
#define WASMBOX_MCP_SERVER_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "mcp/config.h"
#include "mcp/metrics.h"
#include "mcp/session_ids.h"
#include "mcp/upstream.h"
#include "mcp/version.h"
#include "wasmbox.h"

#define MCP_STATELESS_VERSION "2026-07-28"
#define MCP_LATEST_LEGACY "2025-11-25"

enum { MCP_LOG_NONE = -1, MCP_LOG_DEBUG, MCP_LOG_INFO, MCP_LOG_NOTICE, MCP_LOG_WARNING, MCP_LOG_ERROR };

/* A client that initialized (protocols up to 2025-11-25): over stdio the
 * one connection, over HTTP one Mcp-Session-Id. */
typedef struct mcp_conn {
  char id[MCP_SESSION_ID_LEN + 1]; /* "" for stdio */
  char version[16];                /* negotiated protocol version */
  atomic_int log_level;            /* set by logging/setLevel; MCP_LOG_NONE */
  atomic_bool initialized;
  double last_used;
  int refs; /* under the server's lock */
  bool removed;
} mcp_conn;

typedef struct mcp_server {
  mcp_config *cfg;
  wasmbox *wb;
  wasmbox_mount mounts[1]; /* /external, when configured */
  size_t n_mounts;
  char *external_dir;      /* our private copy of --external-files */
  char *scratch;           /* workspaces of stateless calls */
  int scratch_lock;        /* its .lock, held while the server runs */
  pthread_mutex_t ws_lock; /* empty workspaces kept for reuse */
  char *ws_free[64];
  size_t ws_n;
  pthread_t warmer; /* starts workers for the first calls */
  bool warming;
  mcp_metrics metrics;
  int log_level; /* stderr */
  double started;
  struct mcp_state *state;  /* connections and calls in flight */
  mcp_upstreams *upstreams; /* code mode: --upstream, or NULL */
  mcp_ids *ids;             /* --session-key: ids any server can check, or NULL */
} mcp_server;

typedef struct mcp_msg mcp_msg;
struct mcp_msg {
  mcp_server *srv;
  mcp_conn *conn; /* NULL over HTTP without a session */
  bool http;
  /* who asks: the owner of what it makes (a token's client, "oauth:" and a
   * claim, or "local": stdio, and loopback without tokens); an admin (a
   * role=admin token, or stdio: the operator's own process) sees every
   * owner's sessions and paused runs */
  const char *owner;
  bool admin;
  const char *h_version, *h_method, *h_name; /* HTTP headers, or NULL */
  /* set by mcp_handle */
  int http_status; /* 0: 200 */
  cJSON *notes;    /* notifications to send before the response */
  char new_session[MCP_SESSION_ID_LEN + 1];
  bool no_response;       /* the request was cancelled: answer nothing */
  bool stateless;         /* handled under 2026-07-28 rules */
  int log_level;          /* notifications/message wanted from this level */
  const char *version;    /* protocol version of this message */
  wasmbox_cancel *cancel; /* the running tools/call's token */
  /* HTTP: watch the client while a call runs (fire `cancel` if it leaves) */
  void (*watch)(mcp_msg *m, bool start);
  void *transport;
};

mcp_server *mcp_server_new(mcp_config *cfg, char *err, size_t errlen);
void mcp_server_free(mcp_server *s);

cJSON *mcp_handle(mcp_msg *m, const cJSON *msg);
void mcp_msg_done(mcp_msg *m); /* frees notes, releases conn */

/* An empty directory for one stateless call (malloc'd path), and its return:
 * emptied (never following symlinks) and kept for the next call, so a call
 * costs no mkdir/rmdir and sees nothing of the one before. */
char *mcp_workspace_take(mcp_server *s);
void mcp_workspace_give(mcp_server *s, char *dir);

/* Connections (HTTP sessions). get/create take a reference; put drops it.
 * get also takes up a session another server made, when its signed id
 * checks out (session_ids.h), unless it ended: remove records a signed id
 * with wasmbox_ended_add(), which every server sharing the sessions reads. */
mcp_conn *mcp_conn_create(mcp_server *s, const char *version);
extern const char *const mcp_legacy_versions[]; /* the versions that have sessions */
mcp_conn *mcp_conn_get(mcp_server *s, const char *id);
void mcp_conn_put(mcp_server *s, mcp_conn *c);
bool mcp_conn_remove(mcp_server *s, const char *id);
size_t mcp_conn_count(mcp_server *s);

/* Ownership (docs/deploy.md "Deploying for several clients"). A session made
 * without an owner (the CLI, the library) is the local operator's.
 * mcp_session_access: 0 when the request may use the session, else what the
 * library says of an unknown one, so that another's session cannot be told
 * apart from none. */
const char *mcp_owner(const mcp_msg *m);
const char *mcp_owner_scope(const mcp_msg *m); /* the MCP session ("" none) */
bool mcp_owns(const mcp_msg *m, const char *owner);
int mcp_session_access(mcp_msg *m, const char *sid, char *err, size_t errlen);

/* Calls in flight, by connection id ("" stateless) and request id (its JSON
 * text), so notifications/cancelled can stop them. */
bool mcp_inflight_add(mcp_server *s, const char *conn, const char *id, wasmbox_cancel *c);
void mcp_inflight_remove(mcp_server *s, const char *conn, const char *id);
bool mcp_inflight_cancel(mcp_server *s, const char *conn, const char *id);
size_t mcp_inflight_count(mcp_server *s);

/* stderr log, one line, when `level` is at least the configured level. */
void mcp_log(mcp_server *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A notifications/message for the client of `m`, if it asked for `level`. */
void mcp_note(mcp_msg *m, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int mcp_log_level_parse(const char *name);
#endif
