/* `wasmbox mcp` and `wasmbox serve` (see transport.h). */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "mcp/transport.h"

int mcp_command(bool http, int argc, char **argv) {
  mcp_config cfg;
  char err[1024];
  int rc = mcp_config_load(&cfg, http, argc, argv, err, sizeof err);
  if (rc) {
    if (rc < 0) fprintf(stderr, "wasmbox %s: %s\n", http ? "serve" : "mcp", err);
    mcp_config_free(&cfg);
    return rc < 0 ? 2 : 0;
  }
  signal(SIGPIPE, SIG_IGN); /* a client that left shows up as a write error */
  mcp_server *s = mcp_server_new(&cfg, err, sizeof err);
  if (!s) {
    fprintf(stderr, "wasmbox %s: %s\n", http ? "serve" : "mcp", err);
    mcp_config_free(&cfg);
    return 2;
  }
  rc = http ? mcp_http_serve(s) : mcp_stdio_serve(s, STDIN_FILENO, STDOUT_FILENO);
  mcp_server_free(s);
  mcp_config_free(&cfg);
  return rc;
}
