/* Shared between the WASI host's files; not part of its interface. */
#ifndef WASMBOX_WASI_INTERNAL_H
#define WASMBOX_WASI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "wasi/abi.h"
#include "wasi/wasi.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "guest memory is little-endian; this host copies it as is"
#endif

#define WB_PATH_MAX 4096          /* longest path a guest may pass */
#define WB_DIR_LISTING_MAX 100000 /* entries in one directory listing */

typedef enum { FD_FREE = 0, FD_STDIN, FD_STDOUT, FD_STDERR, FD_HOST, FD_IMAGE } fd_kind;

typedef struct {
  char *name;
  uint64_t ino;
  uint8_t type; /* WASI filetype */
} dir_entry;

typedef struct {
  fd_kind kind;
  bool is_dir, preopen;
  bool readable, writable;
  uint16_t fdflags;
  const wb_mount *mount;
  char *guest_path;   /* absolute guest path, for prestat and reports */
  int host_fd;        /* FD_HOST */
  uint32_t node;      /* FD_IMAGE */
  uint64_t pos;       /* FD_IMAGE files */
  dir_entry *listing; /* directory snapshot taken at readdir cookie 0 */
  uint32_t nlisting;
} wb_fd;

typedef struct {
  char *data;
  size_t len, cap, max;
  uint64_t total;
} out_buf;

struct Z_wasi_snapshot_preview1_instance_t {
  wasm_rt_memory_t *mem;
  wb_fd *fds; /* slots: stdio, preopens, then opened files */
  uint32_t nfds, max_fds;
  uint32_t nfixed;  /* stdio and preopens: slot == descriptor */
  uint32_t fd_base; /* other slots are descriptor fd_base + slot */
  char **args;
  size_t nargs;
  char **env;
  size_t nenv;
  wb_mount *mounts;
  struct stat *mount_roots; /* per mount: its host directory's fstat (depth checks) */
  size_t nmounts;
  uint8_t *stdin_data;
  size_t stdin_len, stdin_pos;
  out_buf out[2]; /* stdout, stderr */
  uint64_t deadline_ns;
  char **changed;
  size_t nchanged, changed_cap;
  uint64_t quota;      /* see wb_wasi_config */
  uint64_t quota_used; /* an upper bound once counted */
  bool quota_counted;
  wb_journal *journal; /* or NULL */
};

/* Guest memory: NULL when [addr, addr+len) is not inside it. */
static inline uint8_t *gmem(wb_wasi *w, uint32_t addr, uint64_t len) {
  if ((uint64_t)addr + len > w->mem->size) return NULL;
  return w->mem->data + addr;
}
static inline void put_u16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint32_t get_u32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline uint64_t get_u64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* The fd, or NULL if it is not open. */
wb_fd *wb_fd_get(wb_wasi *w, uint32_t fd);
/* A free slot (EMFILE when the table is full): its descriptor and entry,
 * which the caller fills (it stays free until then). */
int wb_fd_alloc(wb_wasi *w, uint32_t *fd, wb_fd **entry);
void wb_fd_close(wb_fd *f);

int wb_errno_to_wasi(int e);
uint64_t wb_now_ns(int clock);

/* Copy a guest path into buf (NUL-terminated). WASI errno on failure. */
int wb_guest_path(wb_wasi *w, uint32_t ptr, uint32_t len, char *buf);
/* "/app/x" + "y/../z" -> "/app/x/z" (lexical), malloc'd. */
char *wb_join_guest_path(const char *base, const char *rel);
void wb_note_changed(wb_wasi *w, const wb_fd *dir, const char *rel);

#endif
