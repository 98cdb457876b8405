/* What the guest glue's C files share: the natives each one adds to the
 * `native` object the prelude receives, and helpers for bytes and errors. */
#ifndef WASMBOX_JS_GLUE_H
#define WASMBOX_JS_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include "quickjs.h"

/* node_bytes.c: text codecs, base64/hex, hashes, HMAC, random bytes */
extern const JSCFunctionListEntry wb_bytes_natives[];
extern const size_t wb_bytes_natives_len;

/* node_fs.c: the file system calls behind node's fs module */
extern const JSCFunctionListEntry wb_fs_natives[];
extern const size_t wb_fs_natives_len;

/* The bytes of an ArrayBuffer or typed array (no copy); NULL with a
 * TypeError thrown for anything else. A detached buffer has no bytes. The
 * pointer is good until JavaScript runs again: get it after any conversion
 * of the other arguments. */
uint8_t *wb_bytes(JSContext *c, JSValueConst v, size_t *len);

/* Throw node's file error: Error("ENOENT: no such file or directory, open
 * 'x'") with errno, code, syscall, path (and dest) as node sets them; a
 * NULL path is left out, as node does for some calls. */
JSValue wb_throw_errno(JSContext *c, int e, const char *syscall, const char *path, const char *dest);
/* Write `len` bytes to `path` opened with `flags` (0644), errors thrown as node's. */
JSValue wb_write_file(JSContext *c, const char *path, int flags, const void *data, size_t len);

/* errno as a program sees it (WASI's "outside every preopen" is EACCES) and
 * node's text for it ("no such file or directory") */
int wb_visible_errno(int e);
const char *wb_errno_text(int e);

/* All of fd as bytes (malloc'd, *len set); closes fd unless it is 0. NULL
 * with errno set on failure. */
uint8_t *wb_read_all(int fd, size_t *len);

#endif
