/* The WASI preview1 host: what a guest sees of the world.
 *
 * Contract: a wb_wasi is the import instance of "wasi_snapshot_preview1" for
 * one guest instance. It owns the guest's file descriptors: stdin (a byte
 * buffer), stdout/stderr (bounded capture buffers; bytes beyond the limit are
 * counted and dropped, never silently: `truncated` is set), and one preopened
 * directory per mount. A mount is a host directory (read-write or read-only)
 * or a read-only image. Every path a guest names is resolved beneath the
 * directory fd it is relative to: `..`, absolute symlinks, symlinks out and
 * magic links fail with EACCES; nothing else of the host is reachable. No
 * sockets exist. The host environment is invisible: args and env are exactly
 * what the config lists. Every guest pointer is bounds-checked (EFAULT). */
#ifndef WASMBOX_WASI_WASI_H
#define WASMBOX_WASI_WASI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wasm-rt.h>

#include "wasi/image.h"
#include "wasi/journal.h"

typedef struct Z_wasi_snapshot_preview1_instance_t wb_wasi;

typedef struct {
  const char *guest_path; /* absolute, e.g. "/app" */
  const char *host_dir;   /* a host directory, or NULL when `image` is set */
  const wb_image *image;  /* a read-only image */
  bool writable;          /* host directories only */
  /* Files here may share their inode with a saved copy of the tree (a
   * session's hard-link snapshot): before one is opened for writing it gets
   * an inode of its own, so the copy never changes. */
  bool cow_links;
} wb_mount;

typedef struct {
  const char *const *args;
  size_t nargs;
  const char *const *env; /* "NAME=value" */
  size_t nenv;
  const wb_mount *mounts;
  size_t nmounts;
  const char *cwd; /* guest working directory (a mount path) */
  const uint8_t *stdin_data;
  size_t stdin_len;
  size_t max_output; /* bytes kept per output stream */
  uint32_t max_fds;  /* open descriptors, stdio and preopens included */
  /* Descriptors the guest opens are numbered from fd_base + (3 + nmounts):
   * a session's calls use different bases, so a descriptor the guest kept
   * from an earlier call is invalid instead of naming another file. */
  uint32_t fd_base;
  /* Bytes of files the writable mounts may hold (0: no limit): a write or
   * resize beyond it fails with ENOSPC, a partial write is cut to what
   * fits. Counted lazily: the first growing write of a call sums the tree. */
  uint64_t quota;
  /* Clock readings and random bytes are recorded here (and, while it
   * replays, taken from it; sleeps are then skipped): wasi/journal.h. NULL:
   * none. The caller's; it outlives the host. */
  wb_journal *journal;
} wb_wasi_config;

typedef struct {
  const char *data;
  size_t len;     /* bytes kept */
  uint64_t total; /* bytes the guest wrote */
  bool truncated; /* total > len */
} wb_output;

/* Create the host. Fails (NULL, reason in err) if a mount cannot be opened. */
wb_wasi *wb_wasi_new(const wb_wasi_config *cfg, char *err, size_t errlen);
void wb_wasi_free(wb_wasi *w);

/* The guest's linear memory; must be set before the guest runs. */
void wb_wasi_bind_memory(wb_wasi *w, wasm_rt_memory_t *mem);

/* Monotonic deadline (ns, CLOCK_MONOTONIC) that bounds sleeps; 0 = none. */
void wb_wasi_set_deadline(wb_wasi *w, uint64_t deadline_ns);

wb_output wb_wasi_stdout(const wb_wasi *w);
wb_output wb_wasi_stderr(const wb_wasi *w);

/* Guest paths (sorted, unique) that the guest created, wrote, truncated,
 * renamed or removed under writable mounts. Owned by w. */
const char *const *wb_wasi_changed_files(wb_wasi *w, size_t *n);

#endif
