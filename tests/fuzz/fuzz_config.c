/* libFuzzer: settings as an operator or a deployment script gives them:
 * the MCP server's flags and its JSON config file (mcp/config.c, on the
 * option tables of util/options.c, which the CLI uses too). The first byte
 * picks: flags (the rest split at NUL bytes into arguments) or a config
 * file (the rest is its content). Properties beyond "no crash, leak or UB":
 * a load that succeeds leaves every setting within its documented bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/config.h"

static void check(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_config: %s\n", what);
  abort();
}

static void bounds(const mcp_config *c) {
  check(c->timeout <= c->max_timeout && c->memory_mb <= c->max_memory_mb, "a default above its maximum");
  check(c->max_memory_mb >= 1 && c->max_memory_mb <= 4096 && c->workers >= 1 && c->workers <= 256, "out of range");
  check(c->timeout >= 0.001 && c->max_timeout <= 86400 && c->max_request_bytes >= 1024, "out of range");
  check(memchr(c->listen, 0, sizeof c->listen) && memchr(c->token, 0, sizeof c->token), "a string not ended");
  check(c->n_origins <= MCP_MAX_LIST && c->n_external <= MCP_MAX_LIST && c->n_packages <= MCP_MAX_LIST, "a list");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  char err[512];
  mcp_config c;
  bool http = data[0] & 2;
  if (data[0] & 1) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/wasmbox-fuzz-config-%d.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    char *argv[] = {"mcp", "--config", path};
    if (mcp_config_load(&c, http, 3, argv, err, sizeof err) == 0) bounds(&c);
    mcp_config_free(&c);
    unlink(path);
    return 0;
  }
  /* arguments: NUL-separated, after the command's name */
  char *copy = malloc(size);
  char *argv[130];
  int argc = 0;
  if (!copy) return 0;
  memcpy(copy, data + 1, size - 1);
  copy[size - 1] = 0;
  argv[argc++] = "mcp";
  for (char *p = copy; p < copy + size - 1 && argc < 129; p += strlen(p) + 1) {
    if (!strcmp(p, "--help") || !strcmp(p, "-h") || !strcmp(p, "--config") || !strncmp(p, "--config=", 9))
      continue; /* help prints; a config file is the other mode */
    argv[argc++] = p;
  }
  argv[argc] = NULL;
  if (mcp_config_load(&c, http, argc, argv, err, sizeof err) == 0) bounds(&c);
  mcp_config_free(&c);
  free(copy);
  return 0;
}
