/* A client of one upstream MCP server (code mode): a process this server
 * starts and talks to over stdio (newline-delimited JSON-RPC), or a
 * Streamable HTTP endpoint (libcurl; JSON or SSE answers, Mcp-Session-Id).
 *
 * Contract: not thread-safe (upstream.c serialises each client). Every call
 * returns by its deadline (CLOCK_MONOTONIC ns). What an upstream sends is
 * untrusted: a message over MCP_CLIENT_MESSAGE_MAX, bad JSON on stdio or a
 * dead process ends the connection (the next start makes a new one); a
 * late answer to an abandoned request is skipped by its id. Requests the
 * upstream sends us are answered (ping; roots/list: none; others: method
 * not found); notifications/tools/list_changed is remembered. The
 * upstream's environment and headers stay in this process. */
#ifndef WASMBOX_MCP_MCP_CLIENT_H
#define WASMBOX_MCP_MCP_CLIENT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MCP_CLIENT_MESSAGE_MAX (64u << 20)
#define MCP_CLIENT_PROTOCOL "2025-06-18"

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
} mcp_client_spec;

typedef struct mcp_client mcp_client;

/* Copies the spec; starts nothing. */
mcp_client *mcp_client_new(const mcp_client_spec *spec);
void mcp_client_free(mcp_client *c); /* stops it first */

/* Starts the process (stdio) and initializes the session, unless already
 * done. False with a message. */
bool mcp_client_start(mcp_client *c, uint64_t deadline_ns, char *err, size_t errlen);
bool mcp_client_started(const mcp_client *c);
/* One request: its result (the caller frees it), or NULL with a message
 * (the upstream's JSON-RPC error, a timeout, a lost connection). Takes
 * `params` (may be NULL). */
cJSON *mcp_client_request(mcp_client *c, const char *method, cJSON *params, uint64_t deadline_ns, char *err,
                          size_t errlen);
/* Did the upstream say its tools changed since the last call? */
bool mcp_client_take_list_changed(mcp_client *c);
/* Ends the connection: the process is asked to exit, then killed. */
void mcp_client_stop(mcp_client *c);

#endif
