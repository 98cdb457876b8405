/* The two transports and the commands that start them.
 *   mcp_stdio_serve(): newline-delimited JSON-RPC on stdin/stdout; requests
 *     run on a pool of workers (a slow call never holds up the others);
 *     returns at end of input once every answer is written.
 *   mcp_http_serve(): Streamable HTTP at /mcp until SIGINT/SIGTERM;
 *     mcp_http_start()/_stop() are its listening part alone (port 0 in
 *     --listen: any free one, see mcp_http_port()): 0, or 2 for bad
 *     settings, 1 when it cannot load libmicrohttpd or listen.
 *   mcp_command(): `wasmbox mcp` and `wasmbox serve`: settings, server,
 *     transport; returns the exit status. */
#ifndef WASMBOX_MCP_TRANSPORT_H
#define WASMBOX_MCP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/server.h"

int mcp_stdio_serve(mcp_server *s, int in_fd, int out_fd);
int mcp_http_serve(mcp_server *s);
typedef struct mcp_http mcp_http;
int mcp_http_start(mcp_server *s, mcp_http **out, char *err, size_t errlen);
unsigned mcp_http_port(const mcp_http *h);
void mcp_http_stop(mcp_http *h);
int mcp_command(bool http, int argc, char **argv);

#endif
