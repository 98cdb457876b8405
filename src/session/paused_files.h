/* Paused runs (api/paused.h) as files of this process's state directory:
 * $home/paused/TOKEN, written whole (a temporary file, fsync, rename) and
 * taken by a rename, so that of two takes one wins. The bytes are the
 * caller's; `mine` reads its owner from them, and a run that is not the
 * caller's is left for its owner. Tokens are lowercase hex. */
#ifndef WASMBOX_SESSION_PAUSED_FILES_H
#define WASMBOX_SESSION_PAUSED_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef bool (*wb_paused_mine)(const uint8_t *data, size_t len, void *ctx);

/* WASMBOX_OK or WASMBOX_EINTERNAL */
int wb_paused_file_put(const char *home, const char *token, const void *data, size_t len, char *err, size_t n);
/* WASMBOX_OK (*data malloc'd) or WASMBOX_EUSAGE: none with this token that
 * is the caller's (mine NULL: anyone's) */
int wb_paused_file_take(const char *home, const char *token, wb_paused_mine mine, void *ctx, uint8_t **data,
                        size_t *len, char *err, size_t n);
/* Remove runs older than ttl_s, and what a crash left half written or half
 * taken (older than an hour). */
void wb_paused_files_prune(const char *home, double ttl_s);

#endif
