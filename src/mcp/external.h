/* --external-files: host files the guest may read at /external. The library
 * mounts directories, so the files are copied into a private directory
 * (mode 0700) once at start: later changes on the host are not seen, a
 * symlink anywhere is refused (it could point anywhere), only regular files
 * and directories are taken, and the total size is bounded. */
#ifndef WASMBOX_MCP_EXTERNAL_H
#define WASMBOX_MCP_EXTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Copy `paths` into directory `dest` (a stable place: sessions made with
 * it mount it again after a restart), replacing what was there; each path
 * appears under its own base name. 0, or -1 with a message. */
int mcp_external_prepare(const char *const *paths, size_t n, uint64_t max_bytes, const char *dest, char *err,
                         size_t errlen);

#endif
