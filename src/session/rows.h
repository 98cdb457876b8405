/* What the shared store's rows and the cache's `stored` marker hold,
 * parsed and checked (remote.h uses them). Rows are data: another server,
 * an older version or whoever can write to the database may have put any
 * bytes there, and a marker is a file a crash may have cut. So each parser
 * takes bytes of any length and content and either yields a whole, checked
 * value or fails (false or NULL; err says why where there is one); none of
 * them reads the database. A row's meta names its mounts (the server's
 * named mounts, wasmbox_options.named_mounts), never a host path; a HEAD
 * row is the HEAD file's bytes (format.h). */
#ifndef WASMBOX_SESSION_ROWS_H
#define WASMBOX_SESSION_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/format.h"
#include "wasmbox.h"

/* One entry of a workspace: as the cache saw it on disk, and its content's
 * hash as the store has it. */
typedef struct {
  char kind; /* 'f' file, 'd' directory, 'l' symlink */
  uint64_t ino, size, mtime;
  uint8_t hash[32]; /* sha256 of the content, as the store has it */
  char *path;       /* relative to the workspace, '/'-separated */
} wb_entry;

typedef struct {
  wb_entry *v;
  size_t n, cap;
} wb_manifest;

void wb_manifest_clear(wb_manifest *m);
wb_entry *wb_manifest_add(wb_manifest *m, const char *path); /* zeroed but for path; NULL: out of memory */
void wb_manifest_sort(wb_manifest *m);                       /* by path, for wb_manifest_find */
wb_entry *wb_manifest_find(const wb_manifest *m, const char *path);

/* The cache's record of the store's version it holds (the session
 * directory's `stored` file): text, "wasmbox-stored 1", then the version
 * line, then one line per workspace entry (hash and path in hex). */
typedef struct {
  int64_t version; /* the store's */
  uint64_t gen, log_no, log_len, ws_no;
  char log_id[40];
  wb_manifest files; /* sorted by path */
} wb_marker;

void wb_marker_clear(wb_marker *mk);
/* false when damaged (*mk then empty): the cache claims nothing */
bool wb_marker_parse(const char *text, size_t len, wb_marker *mk);
bool wb_marker_format(const wb_marker *mk, char **text, size_t *len); /* malloc'd */
/* The `stored` file of a session directory; read: false when missing too.
 * Written whole but not flushed: after a crash of the machine it may be
 * old, missing or damaged, which makes the next lease reload. */
bool wb_marker_read(int dir, wb_marker *mk);
bool wb_marker_write(int dir, const wb_marker *mk);
/* Remove it: the cache is stale, and the next lease reloads it. */
void wb_marker_drop(int dir);

/* A HEAD row: the header and globals_size bytes of globals after it
 * (malloc'd into *globals), nothing more or less. */
bool wb_head_parse(const uint8_t *p, size_t len, wb_head *h, uint8_t **globals);

/* A workspace row's path: relative, plain components (no empty ones, no
 * "." or ".."), so that nothing written from it climbs out. */
bool wb_row_path_ok(const char *p);

/* A cache's meta (host paths) as the store keeps it (the names of named
 * mounts); NULL with err when a mount is not one of them. */
char *wb_meta_to_store(const wasmbox_named_mount *named, size_t nnamed, const char *text, size_t len, size_t *out_len,
                       char *err, size_t n);
/* A store's meta of session id (names) as this server's cache keeps it
 * (named[]'s host paths); NULL with err for a damaged meta, a host path in
 * it, or a name that named[] does not have. */
char *wb_meta_from_store(const wasmbox_named_mount *named, size_t nnamed, const char *id, const uint8_t *meta,
                         size_t len, size_t *out_len, char *err, size_t n);
/* The owner a store's meta names: "" when none, or when the meta cannot be
 * read (a damaged row is nobody's to use). */
void wb_meta_owner(const uint8_t *meta, size_t len, char owner[WASMBOX_OWNER_MAX]);

#endif
