/* Who this server is, to its clients and to the upstream servers it is a
 * client of (code mode). */
#ifndef WASMBOX_MCP_VERSION_H
#define WASMBOX_MCP_VERSION_H

#include "wasmbox.h"

#define MCP_SERVER_NAME "wasmbox"
#define MCP_SERVER_VERSION WASMBOX_VERSION

#endif
