/* The playground page `wasmbox serve` shows at / (unless --no-playground):
 * files linked into the program (the Makefile embeds src/mcp/playground/
 * and the editor its editor.sh fetches). mcp_playground_find() gives the
 * file at a URL path ("/" is the page), or NULL. */
#ifndef WASMBOX_MCP_PLAYGROUND_H
#define WASMBOX_MCP_PLAYGROUND_H

#include <stddef.h>

typedef struct {
  const char *path, *type; /* URL path, Content-Type */
  const unsigned char *data;
  size_t len;
} mcp_asset;

const mcp_asset *mcp_playground_find(const char *path);

#endif
