/* A connection to one upstream MCP server (code mode): a process this server
 * starts and talks to over stdio (newline-delimited JSON-RPC), or a
 * Streamable HTTP endpoint (libcurl; JSON or SSE answers, Mcp-Session-Id).
 *
 * Contract: not thread-safe (upstream.c serialises each connection). Every call
 * returns by its deadline (CLOCK_MONOTONIC ns). What an upstream sends is
 * untrusted: a message over UPSTREAM_CONN_MESSAGE_MAX, bad JSON on stdio or a
 * dead process ends the connection (the next start makes a new one); a
 * late answer to an abandoned request is skipped by its id. Requests the
 * upstream sends us are answered (ping; roots/list: none; others: method
 * not found); notifications/tools/list_changed is remembered. The
 * upstream's environment and headers stay in this process. */
#ifndef WASMBOX_MCP_UPSTREAM_CONN_H
#define WASMBOX_MCP_UPSTREAM_CONN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UPSTREAM_CONN_MESSAGE_MAX (64u << 20)
#define UPSTREAM_CONN_PROTOCOL "2025-06-18"

typedef struct {
  /* stdio: the program (looked up in PATH), its arguments, and its
   * environment: NAME=value entries over a minimal one taken from this
   * process (HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG, TZ), never the
   * rest of it */
  const char *command;
  const char *const *args;
  size_t nargs;
  const char *const *env;
  size_t nenv;
  /* HTTP: the endpoint and "Name: value" headers */
  const char *url;
  const char *const *headers;
  size_t nheaders;
} upstream_conn_spec;

typedef struct upstream_conn upstream_conn;

/* Copies the spec; starts nothing. */
upstream_conn *upstream_conn_new(const upstream_conn_spec *spec);
void upstream_conn_free(upstream_conn *c); /* stops it first */

/* Starts the process (stdio) and initializes the session, unless already
 * done. False with a message. */
bool upstream_conn_start(upstream_conn *c, uint64_t deadline_ns, char *err, size_t errlen);
bool upstream_conn_started(const upstream_conn *c);
/* One request: its result (the caller frees it), or NULL with a message
 * (the upstream's JSON-RPC error, a timeout, a lost connection). Takes
 * `params` (may be NULL). */
cJSON *upstream_conn_request(upstream_conn *c, const char *method, cJSON *params, uint64_t deadline_ns, char *err,
                             size_t errlen);
/* Did the upstream say its tools changed since the last call? */
bool upstream_conn_take_list_changed(upstream_conn *c);
/* Ends the connection: the process is asked to exit, then killed. */
void upstream_conn_stop(upstream_conn *c);

#endif
