/* The cache a PostgreSQL store keeps (remote.h): session directories of
 * this process's directory store, written from the store's rows and read
 * back to publish them. Names and files of the directory come from
 * format.c (HEAD, meta, log-N, ws-N) and rows.c (the `stored` marker); the
 * workspace is written beneath itself only (no symlink leads a write out).
 * No SQL here: remote_pull.c and remote_push.c bring the rows. */
#ifndef WASMBOX_SESSION_REMOTE_CACHE_H
#define WASMBOX_SESSION_REMOTE_CACHE_H

#include "session/rows.h"
#include "session/store.h"

/* The cache's directory of session `id` (an fd, -1 with errno); a new one
 * has the store's meta (as this server's) and HEAD over an empty state (no
 * log, no files) for a pull to fill, made aside and renamed in. */
int wb_cache_dir(wb_store *st, const char *id, const uint8_t *meta, size_t meta_len, const wb_head *sh,
                 const uint8_t *globals);
/* The one there is (no lock), -1 with errno if none. */
int wb_cache_open(wb_store *st, const char *id);

/* The workspace's directories, files and links (not sorted); false past
 * 64 levels or on a read error. */
bool wb_cache_walk(int ws, wb_manifest *m);
/* Content of a file or a symlink's target under the workspace (malloc'd). */
uint8_t *wb_cache_read_entry(int ws, const wb_entry *e, size_t *len);
/* Whether the workspace ws-N is what the marker recorded: the same entries,
 * and files and links not touched since (inode, size, mtime). */
bool wb_cache_matches(int dir, uint64_t ws_no, const wb_marker *mk);
/* ws-N opened; _adopt: the cache's own workspace (own_no) renamed to the
 * store's number first, made if missing. -1 on failure. */
int wb_cache_ws_open(int dir, uint64_t ws_no);
int wb_cache_ws_adopt(int dir, const uint64_t *own_no, uint64_t ws_no, char *err, size_t n);
/* Write one entry at e->path (data, len: a file's content, a link's
 * target; nothing for a directory). What is there is replaced: a file by
 * rename, so hard-linked copies keep their content. */
bool wb_cache_put_entry(int ws, const wb_entry *e, const uint8_t *data, size_t len, char *err, size_t n);
/* Remove path and all under it; true if it is gone. */
bool wb_cache_remove_entry(int ws, const char *path);

/* log-N written from the store: whole (beside the old one, renamed in at
 * the end) or appended to; end truncates it to len, syncs and frees lw
 * (ok: whether everything before went well; returns whether all did). */
typedef struct wb_cache_log wb_cache_log;
wb_cache_log *wb_cache_log_begin(int dir, uint64_t log_no, bool append, char *err, size_t n);
bool wb_cache_log_put(wb_cache_log *lw, uint64_t at, const uint8_t *data, size_t len);
bool wb_cache_log_end(wb_cache_log *lw, bool ok, uint64_t len, char *err, size_t n);
/* log-N for reading (-1 with errno) */
int wb_cache_log_open(int dir, uint64_t log_no);

#endif
