/* WASI host: files and directories.
 *
 * Two backends. Host directories: every lookup is openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV) relative to the directory fd the
 * guest named, so `..`, absolute paths and symlinks cannot leave it; calls
 * that act on a name (unlink, mkdir, rename, link, symlink) first open the
 * parent directory that way and then use the *at() call on one plain name.
 * Only regular files and directories can be opened (no fifos, devices or
 * sockets that could block or reach the host). Images: read-only trees in
 * memory (image.h), resolved with the same rules. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "wasi/calls.h"
#include "wasi/internal.h"
#include "wasi/resolve.h"

#define WRITE_RIGHTS (WASI_RIGHT_FD_WRITE | WASI_RIGHT_FD_ALLOCATE | WASI_RIGHT_FD_FILESTAT_SET_SIZE)
#define IOV_BATCH 64

/* ---- host resolution ------------------------------------------------------ */

/* Run an *at() call on a descriptor from wb_beneath(); AT_EMPTY_PATH where the
 * kernel allows it, else the /proc/self/fd path of the descriptor. */
static void fd_proc_path(int fd, char buf[32]) { snprintf(buf, 32, "/proc/self/fd/%d", fd); }

static uint8_t filetype_of(mode_t m) {
  if (S_ISREG(m)) return WASI_FILETYPE_REGULAR_FILE;
  if (S_ISDIR(m)) return WASI_FILETYPE_DIRECTORY;
  if (S_ISLNK(m)) return WASI_FILETYPE_SYMBOLIC_LINK;
  if (S_ISCHR(m)) return WASI_FILETYPE_CHARACTER_DEVICE;
  if (S_ISBLK(m)) return WASI_FILETYPE_BLOCK_DEVICE;
  if (S_ISSOCK(m)) return WASI_FILETYPE_SOCKET_STREAM;
  return WASI_FILETYPE_UNKNOWN;
}

static uint64_t ts_ns(struct timespec t) { return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec; }

static void put_stat(uint8_t *p, const struct stat *st) {
  memset(p, 0, FILESTAT_BYTES);
  put_u64(p + FILESTAT_DEV, st->st_dev);
  put_u64(p + FILESTAT_INO, st->st_ino);
  p[FILESTAT_FILETYPE] = filetype_of(st->st_mode);
  put_u64(p + FILESTAT_NLINK, st->st_nlink);
  put_u64(p + FILESTAT_SIZE, (uint64_t)st->st_size);
  put_u64(p + FILESTAT_ATIM, ts_ns(st->st_atim));
  put_u64(p + FILESTAT_MTIM, ts_ns(st->st_mtim));
  put_u64(p + FILESTAT_CTIM, ts_ns(st->st_ctim));
}

/* ---- image resolution ------------------------------------------------------ */

/* Resolve `path` from image node `start`; ".." may not climb above start. */
static int image_lookup(const wb_image *img, uint32_t start, const char *path, uint32_t *out) {
  if (path[0] == '/') return WASI_EACCES;
  uint32_t stack[256];
  uint32_t depth = 0, node = start;
  const char *s = path;
  while (*s) {
    while (*s == '/') s++;
    if (!*s) break;
    const char *e = s;
    while (*e && *e != '/') e++;
    size_t k = (size_t)(e - s);
    if (k == 1 && s[0] == '.') {
      /* stay */
    } else if (k == 2 && s[0] == '.' && s[1] == '.') {
      if (depth == 0) return WASI_EACCES;
      node = stack[--depth];
    } else {
      if (img->nodes[node].kind != WB_NODE_DIR) return WASI_ENOTDIR;
      uint32_t c = wb_image_child(img, node, s, k);
      if (c == UINT32_MAX) return WASI_ENOENT;
      if (depth == 256) return WASI_ENAMETOOLONG;
      stack[depth++] = node;
      node = c;
    }
    s = e;
  }
  /* "dir/file/" names a directory */
  size_t n = strlen(path);
  if (n && path[n - 1] == '/' && img->nodes[node].kind != WB_NODE_DIR) return WASI_ENOTDIR;
  *out = node;
  return 0;
}

static void put_image_stat(uint8_t *p, const wb_image *img, uint32_t node) {
  memset(p, 0, FILESTAT_BYTES);
  put_u64(p + FILESTAT_DEV, 0x5742); /* "WB": not a host device */
  put_u64(p + FILESTAT_INO, node + 1);
  p[FILESTAT_FILETYPE] = img->nodes[node].kind == WB_NODE_DIR ? WASI_FILETYPE_DIRECTORY : WASI_FILETYPE_REGULAR_FILE;
  put_u64(p + FILESTAT_NLINK, 1);
  put_u64(p + FILESTAT_SIZE, img->nodes[node].kind == WB_NODE_FILE ? img->nodes[node].size : 4096);
  put_u64(p + FILESTAT_ATIM, img->mtime_ns);
  put_u64(p + FILESTAT_MTIM, img->mtime_ns);
  put_u64(p + FILESTAT_CTIM, img->mtime_ns);
}

/* ---- common checks ------------------------------------------------------------ */

/* The directory fd a path call is relative to, or an errno. */
static int dir_fd(wb_wasi *w, uint32_t fd, wb_fd **out) {
  wb_fd *d = wb_fd_get(w, fd);
  if (!d) return WASI_EBADF;
  if ((d->kind != FD_HOST && d->kind != FD_IMAGE) || !d->is_dir) return WASI_ENOTDIR;
  *out = d;
  return 0;
}

static bool writable_dir(const wb_fd *d) { return d->kind == FD_HOST && d->mount && d->mount->writable; }

static void note_fd_written(wb_wasi *w, wb_fd *f) {
  if (f->kind != FD_HOST || !f->mount || !f->mount->writable || !f->guest_path) return;
  wb_fd root = {.mount = f->mount, .guest_path = f->guest_path};
  wb_note_changed(w, &root, "");
}

/* ---- the workspace quota -------------------------------------------------------- */

#define QUOTA_DEPTH_MAX 256
/* Every file, directory and symlink costs this besides its bytes, so that
 * a flood of empty files is bounded too. */
#define ENTRY_BYTES 4096u

/* What a directory's tree costs (each link of a file counts: an upper
 * bound), without following symlinks. */
static uint64_t tree_bytes(int dir, int depth) {
  uint64_t sum = 0;
  int fd = dup(dir);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return 0;
  }
  rewinddir(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    sum += ENTRY_BYTES;
    if (S_ISREG(st.st_mode)) {
      sum += (uint64_t)st.st_size;
    } else if (S_ISDIR(st.st_mode) && depth < QUOTA_DEPTH_MAX) {
      int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) {
        sum += tree_bytes(sub, depth + 1);
        close(sub);
      }
    }
  }
  closedir(d);
  return sum;
}

static void quota_count(wb_wasi *w) {
  uint64_t sum = 0;
  for (uint32_t i = 3; i < w->nfixed; i++) {
    wb_fd *f = &w->fds[i];
    if (f->kind == FD_HOST && f->mount && f->mount->writable) sum += tree_bytes(f->host_fd, 0);
  }
  w->quota_used = sum;
  w->quota_counted = true;
}

/* How many of `growth` new bytes the quota allows (all or part). Counted
 * again before saying no: files removed since make room. */
static uint64_t quota_allows(wb_wasi *w, uint64_t growth) {
  if (!w->quota || !growth) return growth;
  if (!w->quota_counted || w->quota_used + growth > w->quota) quota_count(w);
  uint64_t room = w->quota > w->quota_used ? w->quota - w->quota_used : 0;
  return growth < room ? growth : room;
}

static void quota_add(wb_wasi *w, uint64_t bytes) {
  if (w->quota) w->quota_used += bytes;
}

/* The file's size now, for the growth a write or resize would cause. */
static uint64_t file_size(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

/* ---- fd calls ---------------------------------------------------------------- */

uint32_t wasi_fd_advise(wb_wasi *w, uint32_t fd, uint64_t off, uint64_t len, uint32_t advice) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  if (advice > 5) return WASI_EINVAL;
  if (f->kind == FD_HOST && !f->is_dir) {
    static const int map[] = {POSIX_FADV_NORMAL,   POSIX_FADV_SEQUENTIAL, POSIX_FADV_RANDOM,
                              POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED,   POSIX_FADV_NOREUSE};
    posix_fadvise(f->host_fd, (off_t)off, (off_t)len, map[advice]);
  }
  return 0; /* advice: nothing to report either way */
}

uint32_t wasi_fd_allocate(wb_wasi *w, uint32_t fd, uint64_t off, uint64_t len) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  if (f->kind != FD_HOST || f->is_dir || !f->writable) return WASI_EBADF;
  if (off > INT64_MAX || len > INT64_MAX - off) return WASI_EFBIG;
  uint64_t size = file_size(f->host_fd), growth = off + len > size ? off + len - size : 0;
  if (quota_allows(w, growth) < growth) return WASI_ENOSPC;
  int r = posix_fallocate(f->host_fd, (off_t)off, (off_t)len);
  if (r) return (uint32_t)wb_errno_to_wasi(r);
  quota_add(w, growth);
  note_fd_written(w, f);
  return 0;
}

uint32_t wasi_fd_close(wb_wasi *w, uint32_t fd) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  wb_fd_close(f);
  return 0;
}

static uint32_t sync_fd(wb_wasi *w, uint32_t fd, bool data_only) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  if (f->kind != FD_HOST) return 0; /* buffers and images have nothing to flush */
  if ((data_only ? fdatasync(f->host_fd) : fsync(f->host_fd)) != 0) return (uint32_t)wb_errno_to_wasi(errno);
  return 0;
}

uint32_t wasi_fd_datasync(wb_wasi *w, uint32_t fd) { return sync_fd(w, fd, true); }
uint32_t wasi_fd_sync(wb_wasi *w, uint32_t fd) { return sync_fd(w, fd, false); }

uint32_t wasi_fd_fdstat_get(wb_wasi *w, uint32_t fd, uint32_t out) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  uint8_t *p = gmem(w, out, FDSTAT_SIZE);
  if (!p) return WASI_EFAULT;
  memset(p, 0, FDSTAT_SIZE);
  uint8_t type;
  uint64_t base = WASI_RIGHTS_ALL, inheriting = WASI_RIGHTS_ALL;
  if (f->kind == FD_STDIN || f->kind == FD_STDOUT || f->kind == FD_STDERR) {
    /* Pipe-like: not a terminal, not seekable. */
    type = WASI_FILETYPE_UNKNOWN;
    base = (f->readable ? WASI_RIGHT_FD_READ : WASI_RIGHT_FD_WRITE) | WASI_RIGHT_POLL_FD_READWRITE |
           WASI_RIGHT_FD_SYNC | WASI_RIGHT_FD_DATASYNC;
    inheriting = 0;
  } else {
    type = f->is_dir ? WASI_FILETYPE_DIRECTORY : WASI_FILETYPE_REGULAR_FILE;
    if (!f->writable && !f->is_dir) base &= ~WRITE_RIGHTS;
    if (!f->readable) base &= ~WASI_RIGHT_FD_READ;
  }
  p[FDSTAT_FILETYPE] = type;
  put_u16(p + FDSTAT_FLAGS, f->fdflags);
  put_u64(p + FDSTAT_RIGHTS_BASE, base);
  put_u64(p + FDSTAT_RIGHTS_INHERITING, inheriting);
  return 0;
}

uint32_t wasi_fd_fdstat_set_flags(wb_wasi *w, uint32_t fd, uint32_t flags) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  if (flags & ~0x1fu) return WASI_EINVAL;
  if (f->kind == FD_HOST && !f->is_dir) {
    int fl = fcntl(f->host_fd, F_GETFL);
    if (fl < 0) return (uint32_t)wb_errno_to_wasi(errno);
    fl = (flags & WASI_FDFLAG_APPEND) ? (fl | O_APPEND) : (fl & ~O_APPEND);
    if (fcntl(f->host_fd, F_SETFL, fl) != 0) return (uint32_t)wb_errno_to_wasi(errno);
  }
  f->fdflags = (uint16_t)flags;
  return 0;
}

uint32_t wasi_fd_fdstat_set_rights(wb_wasi *w, uint32_t fd, uint64_t base, uint64_t inheriting) {
  (void)inheriting;
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  /* Rights can only shrink. */
  if (!(base & WASI_RIGHT_FD_READ)) f->readable = false;
  if (!(base & WASI_RIGHT_FD_WRITE)) f->writable = false;
  return 0;
}

uint32_t wasi_fd_filestat_get(wb_wasi *w, uint32_t fd, uint32_t out) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  uint8_t *p = gmem(w, out, FILESTAT_BYTES);
  if (!p) return WASI_EFAULT;
  if (f->kind == FD_HOST) {
    struct stat st;
    if (fstat(f->host_fd, &st) != 0) return (uint32_t)wb_errno_to_wasi(errno);
    put_stat(p, &st);
  } else if (f->kind == FD_IMAGE) {
    put_image_stat(p, f->mount->image, f->node);
  } else {
    memset(p, 0, FILESTAT_BYTES);
    p[FILESTAT_FILETYPE] = WASI_FILETYPE_UNKNOWN;
    put_u64(p + FILESTAT_NLINK, 1);
  }
  return 0;
}

uint32_t wasi_fd_filestat_set_size(wb_wasi *w, uint32_t fd, uint64_t size) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  if (f->kind != FD_HOST || f->is_dir || !f->writable) return WASI_EBADF;
  if (size > INT64_MAX) return WASI_EFBIG;
  uint64_t now = file_size(f->host_fd), growth = size > now ? size - now : 0;
  if (quota_allows(w, growth) < growth) return WASI_ENOSPC;
  if (ftruncate(f->host_fd, (off_t)size) != 0) return (uint32_t)wb_errno_to_wasi(errno);
  quota_add(w, growth);
  note_fd_written(w, f);
  return 0;
}

/* Build the timespec pair for futimens/utimensat from WASI fst_flags. */
static int make_times(uint64_t atim, uint64_t mtim, uint32_t fst, struct timespec ts[2]) {
  if ((fst & WASI_FSTFLAG_ATIM && fst & WASI_FSTFLAG_ATIM_NOW) ||
      (fst & WASI_FSTFLAG_MTIM && fst & WASI_FSTFLAG_MTIM_NOW) || (fst & ~0xfu))
    return WASI_EINVAL;
  ts[0].tv_nsec = UTIME_OMIT;
  ts[1].tv_nsec = UTIME_OMIT;
  if (fst & WASI_FSTFLAG_ATIM) ts[0] = (struct timespec){(time_t)(atim / 1000000000ull), (long)(atim % 1000000000ull)};
  if (fst & WASI_FSTFLAG_ATIM_NOW) ts[0].tv_nsec = UTIME_NOW;
  if (fst & WASI_FSTFLAG_MTIM) ts[1] = (struct timespec){(time_t)(mtim / 1000000000ull), (long)(mtim % 1000000000ull)};
  if (fst & WASI_FSTFLAG_MTIM_NOW) ts[1].tv_nsec = UTIME_NOW;
  return 0;
}

uint32_t wasi_fd_filestat_set_times(wb_wasi *w, uint32_t fd, uint64_t atim, uint64_t mtim, uint32_t fst) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  if (f->kind == FD_IMAGE) return WASI_EROFS;
  if (f->kind != FD_HOST) return WASI_EBADF;
  if (!f->mount->writable) return WASI_EROFS;
  struct timespec ts[2];
  int e = make_times(atim, mtim, fst, ts);
  if (e) return (uint32_t)e;
  if (futimens(f->host_fd, ts) != 0) return (uint32_t)wb_errno_to_wasi(errno);
  return 0;
}

/* Translate guest iovecs into host iovecs (at most IOV_BATCH at a time; a
 * short transfer is allowed by the ABI). */
static int host_iovs(wb_wasi *w, uint32_t iovs, uint32_t n, struct iovec *out, int *count) {
  uint8_t *v = gmem(w, iovs, (uint64_t)n * 8);
  if (!v) return WASI_EFAULT;
  int k = 0;
  for (uint32_t i = 0; i < n && k < IOV_BATCH; i++) {
    uint32_t ptr = get_u32(v + 8 * i), len = get_u32(v + 8 * i + 4);
    uint8_t *p = gmem(w, ptr, len);
    if (!p) return WASI_EFAULT;
    out[k].iov_base = p;
    out[k].iov_len = len;
    k++;
  }
  *count = k;
  return 0;
}

static uint32_t image_read(wb_wasi *w, wb_fd *f, uint32_t iovs, uint32_t n, uint64_t *pos, uint64_t *nread) {
  const wb_image_node *node = &f->mount->image->nodes[f->node];
  struct iovec v[IOV_BATCH];
  int k;
  int e = host_iovs(w, iovs, n, v, &k);
  if (e) return (uint32_t)e;
  uint64_t total = 0;
  for (int i = 0; i < k && *pos < node->size; i++) {
    uint64_t m = node->size - *pos;
    if (m > v[i].iov_len) m = v[i].iov_len;
    memcpy(v[i].iov_base, f->mount->image->base + node->data_off + *pos, m);
    *pos += m;
    total += m;
  }
  *nread = total;
  return 0;
}

static uint32_t read_common(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, bool positional, uint64_t off,
                            uint32_t nread_ptr) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  uint8_t *out = gmem(w, nread_ptr, 4);
  if (!out) return WASI_EFAULT;
  if (!f->readable) return WASI_EBADF;
  if (f->is_dir) return WASI_EISDIR;
  uint64_t got = 0;
  uint32_t e = 0;
  if (f->kind == FD_STDIN) {
    if (positional) return WASI_ESPIPE;
    e = wb_stdin_read(w, iovs, n, &got);
  } else if (f->kind == FD_IMAGE) {
    uint64_t pos = positional ? off : f->pos;
    e = image_read(w, f, iovs, n, &pos, &got);
    if (!positional) f->pos = pos;
  } else if (f->kind == FD_HOST) {
    struct iovec v[IOV_BATCH];
    int k;
    int ee = host_iovs(w, iovs, n, v, &k);
    if (ee) return (uint32_t)ee;
    if (positional && off > INT64_MAX) return WASI_EINVAL;
    ssize_t r = positional ? preadv(f->host_fd, v, k, (off_t)off) : readv(f->host_fd, v, k);
    if (r < 0) return (uint32_t)wb_errno_to_wasi(errno);
    got = (uint64_t)r;
  } else {
    return WASI_EBADF;
  }
  if (e) return e;
  put_u32(out, (uint32_t)got);
  return 0;
}

uint32_t wasi_fd_read(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t nread) {
  return read_common(w, fd, iovs, n, false, 0, nread);
}
uint32_t wasi_fd_pread(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint64_t off, uint32_t nread) {
  return read_common(w, fd, iovs, n, true, off, nread);
}

static uint32_t write_common(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, bool positional, uint64_t off,
                             uint32_t nwritten_ptr) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  uint8_t *out = gmem(w, nwritten_ptr, 4);
  if (!out) return WASI_EFAULT;
  if (!f->writable) return f->kind == FD_IMAGE ? WASI_EROFS : WASI_EBADF;
  if (f->is_dir) return WASI_EISDIR;
  uint64_t put = 0;
  if (f->kind == FD_STDOUT || f->kind == FD_STDERR) {
    if (positional) return WASI_ESPIPE;
    uint32_t e = wb_stdio_write(w, f, iovs, n, &put);
    if (e) return e;
  } else if (f->kind == FD_HOST) {
    struct iovec v[IOV_BATCH];
    int k;
    int e = host_iovs(w, iovs, n, v, &k);
    if (e) return (uint32_t)e;
    if (positional && off > INT64_MAX) return WASI_EINVAL;
    uint64_t size = 0, growth = 0;
    if (w->quota) {
      /* where this write ends, and what of it lies past the end of the file */
      uint64_t len = 0;
      for (int i = 0; i < k; i++) len += v[i].iov_len;
      size = file_size(f->host_fd);
      off_t cur = positional                          ? (off_t)off
                  : (f->fdflags & WASI_FDFLAG_APPEND) ? (off_t)size
                                                      : lseek(f->host_fd, 0, SEEK_CUR);
      uint64_t end = (cur > 0 ? (uint64_t)cur : 0) + len;
      growth = end > size ? end - size : 0;
      uint64_t allowed = quota_allows(w, growth);
      if (allowed < growth) {
        uint64_t cut = growth - allowed; /* drop this much from the end */
        if (cut >= len) return WASI_ENOSPC;
        for (int i = k - 1; i >= 0 && cut; i--) {
          size_t c = v[i].iov_len < cut ? v[i].iov_len : (size_t)cut;
          v[i].iov_len -= c;
          cut -= c;
        }
      }
    }
    ssize_t r = positional ? pwritev(f->host_fd, v, k, (off_t)off) : writev(f->host_fd, v, k);
    if (r < 0) return (uint32_t)wb_errno_to_wasi(errno);
    put = (uint64_t)r;
    if (w->quota) {
      uint64_t after = file_size(f->host_fd);
      quota_add(w, after > size ? after - size : 0);
    }
    note_fd_written(w, f);
  } else {
    return WASI_EBADF;
  }
  put_u32(out, (uint32_t)put);
  return 0;
}

uint32_t wasi_fd_write(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t nwritten) {
  return write_common(w, fd, iovs, n, false, 0, nwritten);
}
uint32_t wasi_fd_pwrite(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint64_t off, uint32_t nwritten) {
  return write_common(w, fd, iovs, n, true, off, nwritten);
}

uint32_t wasi_fd_prestat_get(wb_wasi *w, uint32_t fd, uint32_t out) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f || !f->preopen) return WASI_EBADF;
  uint8_t *p = gmem(w, out, 8);
  if (!p) return WASI_EFAULT;
  memset(p, 0, 8);
  p[0] = WASI_PREOPENTYPE_DIR;
  put_u32(p + 4, (uint32_t)strlen(f->mount->guest_path));
  return 0;
}

uint32_t wasi_fd_prestat_dir_name(wb_wasi *w, uint32_t fd, uint32_t buf, uint32_t len) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f || !f->preopen) return WASI_EBADF;
  size_t n = strlen(f->mount->guest_path);
  if (len < n) return WASI_ENAMETOOLONG;
  uint8_t *p = gmem(w, buf, n);
  if (!p) return WASI_EFAULT;
  memcpy(p, f->mount->guest_path, n);
  return 0;
}

/* Directory listing snapshot for readdir cookies (index into the listing). */
static int list_host_dir(wb_fd *f, dir_entry **out, uint32_t *count) {
  int dfd = openat(f->host_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return wb_errno_to_wasi(errno);
  DIR *d = fdopendir(dfd);
  if (!d) {
    close(dfd);
    return WASI_ENOMEM;
  }
  dir_entry *v = NULL;
  uint32_t n = 0, cap = 0;
  int err = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (n == WB_DIR_LISTING_MAX) {
      err = WASI_ENOMEM; /* a directory larger than any listing we hand out */
      break;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 32;
      dir_entry *g = realloc(v, cap * sizeof *v);
      if (!g) {
        err = WASI_ENOMEM;
        break;
      }
      v = g;
    }
    uint8_t t = WASI_FILETYPE_UNKNOWN;
    switch (de->d_type) {
      case DT_REG: t = WASI_FILETYPE_REGULAR_FILE; break;
      case DT_DIR: t = WASI_FILETYPE_DIRECTORY; break;
      case DT_LNK: t = WASI_FILETYPE_SYMBOLIC_LINK; break;
      case DT_CHR: t = WASI_FILETYPE_CHARACTER_DEVICE; break;
      case DT_BLK: t = WASI_FILETYPE_BLOCK_DEVICE; break;
      case DT_SOCK: t = WASI_FILETYPE_SOCKET_STREAM; break;
    }
    v[n].name = strdup(de->d_name);
    if (!v[n].name) {
      err = WASI_ENOMEM;
      break;
    }
    v[n].ino = de->d_ino;
    v[n].type = t;
    n++;
  }
  closedir(d);
  if (err) {
    for (uint32_t i = 0; i < n; i++) free(v[i].name);
    free(v);
    return err;
  }
  *out = v;
  *count = n;
  return 0;
}

static int list_image_dir(wb_fd *f, dir_entry **out, uint32_t *count) {
  const wb_image *img = f->mount->image;
  const wb_image_node *d = &img->nodes[f->node];
  uint32_t n = d->child_count + 2;
  dir_entry *v = calloc(n, sizeof *v);
  if (!v) return WASI_ENOMEM;
  v[0] = (dir_entry){strdup("."), f->node + 1, WASI_FILETYPE_DIRECTORY};
  v[1] = (dir_entry){strdup(".."), d->parent + 1, WASI_FILETYPE_DIRECTORY};
  for (uint32_t i = 0; i < d->child_count; i++) {
    uint32_t c = d->first_child + i, len;
    const char *name = wb_image_name(img, c, &len);
    v[i + 2].name = strndup(name, len);
    v[i + 2].ino = c + 1;
    v[i + 2].type = img->nodes[c].kind == WB_NODE_DIR ? WASI_FILETYPE_DIRECTORY : WASI_FILETYPE_REGULAR_FILE;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!v[i].name) {
      for (uint32_t j = 0; j < n; j++) free(v[j].name);
      free(v);
      return WASI_ENOMEM;
    }
  }
  *out = v;
  *count = n;
  return 0;
}

uint32_t wasi_fd_readdir(wb_wasi *w, uint32_t fd, uint32_t buf, uint32_t len, uint64_t cookie, uint32_t used_ptr) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  if (!f->is_dir || (f->kind != FD_HOST && f->kind != FD_IMAGE)) return WASI_ENOTDIR;
  uint8_t *p = gmem(w, buf, len), *used = gmem(w, used_ptr, 4);
  if (!p || !used) return WASI_EFAULT;
  if (cookie == 0 || !f->listing) {
    dir_entry *v = NULL;
    uint32_t n = 0;
    int e = f->kind == FD_HOST ? list_host_dir(f, &v, &n) : list_image_dir(f, &v, &n);
    if (e) return (uint32_t)e;
    wb_fd_set_listing(f, v, n);
  }
  uint32_t at = 0;
  for (uint64_t i = cookie; i < f->nlisting && at < len; i++) {
    dir_entry *de = &f->listing[i];
    uint8_t head[DIRENT_SIZE];
    memset(head, 0, sizeof head);
    uint32_t namelen = (uint32_t)strlen(de->name);
    put_u64(head + DIRENT_NEXT, i + 1);
    put_u64(head + DIRENT_INO, de->ino);
    put_u32(head + DIRENT_NAMLEN, namelen);
    head[DIRENT_TYPE] = de->type;
    /* The ABI lets the last entry be cut off: the guest sees a full buffer
     * and asks again with a larger one. */
    uint32_t k = len - at < DIRENT_SIZE ? len - at : DIRENT_SIZE;
    memcpy(p + at, head, k);
    at += k;
    k = len - at < namelen ? len - at : namelen;
    memcpy(p + at, de->name, k);
    at += k;
  }
  put_u32(used, at);
  return 0;
}

uint32_t wasi_fd_renumber(wb_wasi *w, uint32_t from, uint32_t to) {
  wb_fd *a = wb_fd_get(w, from), *b = wb_fd_get(w, to);
  if (!a || !b) return WASI_EBADF;
  if (from == to) return 0;
  wb_fd_close(b);
  *b = *a;
  memset(a, 0, sizeof *a);
  a->host_fd = -1;
  return 0;
}

uint32_t wasi_fd_seek(wb_wasi *w, uint32_t fd, int64_t off, uint32_t whence, uint32_t out) {
  wb_fd *f = wb_fd_get(w, fd);
  if (!f) return WASI_EBADF;
  uint8_t *p = gmem(w, out, 8);
  if (!p) return WASI_EFAULT;
  if (whence > WASI_WHENCE_END) return WASI_EINVAL;
  if (f->kind == FD_HOST) {
    if (f->is_dir) return WASI_EISDIR;
    static const int wh[] = {SEEK_SET, SEEK_CUR, SEEK_END};
    off_t r = lseek(f->host_fd, (off_t)off, wh[whence]);
    if (r < 0) return (uint32_t)wb_errno_to_wasi(errno);
    put_u64(p, (uint64_t)r);
    return 0;
  }
  if (f->kind == FD_IMAGE) {
    if (f->is_dir) return WASI_EISDIR;
    int64_t base = whence == WASI_WHENCE_SET   ? 0
                   : whence == WASI_WHENCE_CUR ? (int64_t)f->pos
                                               : (int64_t)f->mount->image->nodes[f->node].size;
    if ((off > 0 && base > INT64_MAX - off) || base + off < 0) return WASI_EINVAL;
    f->pos = (uint64_t)(base + off);
    put_u64(p, f->pos);
    return 0;
  }
  return WASI_ESPIPE;
}

uint32_t wasi_fd_tell(wb_wasi *w, uint32_t fd, uint32_t out) { return wasi_fd_seek(w, fd, 0, WASI_WHENCE_CUR, out); }

/* ---- path calls ------------------------------------------------------------------ */

uint32_t wasi_path_open(wb_wasi *w, uint32_t dirfd, uint32_t lookup, uint32_t path_ptr, uint32_t path_len,
                        uint32_t oflags, uint64_t rights, uint64_t inheriting, uint32_t fdflags, uint32_t out) {
  (void)inheriting;
  wb_fd *d;
  int e = dir_fd(w, dirfd, &d);
  if (e) return (uint32_t)e;
  char path[WB_PATH_MAX];
  if ((e = wb_guest_path(w, path_ptr, path_len, path))) return (uint32_t)e;
  uint8_t *outp = gmem(w, out, 4);
  if (!outp) return WASI_EFAULT;
  if (oflags & ~0xfu || fdflags & ~0x1fu) return WASI_EINVAL;

  bool want_write =
      (rights & WRITE_RIGHTS) || (oflags & (WASI_O_CREAT | WASI_O_TRUNC)) || (fdflags & WASI_FDFLAG_APPEND);
  bool want_read = (rights & (WASI_RIGHT_FD_READ | WASI_RIGHT_FD_READDIR)) != 0;
  uint32_t newfd;
  wb_fd *entry;
  if ((e = wb_fd_alloc(w, &newfd, &entry))) return (uint32_t)e;

  wb_fd nf = {.mount = d->mount, .readable = want_read, .fdflags = (uint16_t)fdflags, .host_fd = -1};
  if (d->kind == FD_IMAGE) {
    uint32_t node;
    e = image_lookup(d->mount->image, d->node, path, &node);
    if (e == WASI_ENOENT && (oflags & WASI_O_CREAT)) return WASI_EROFS;
    if (e) return (uint32_t)e;
    if ((oflags & WASI_O_CREAT) && (oflags & WASI_O_EXCL)) return WASI_EEXIST;
    if (want_write) return WASI_EROFS;
    bool is_dir = d->mount->image->nodes[node].kind == WB_NODE_DIR;
    if ((oflags & WASI_O_DIRECTORY) && !is_dir) return WASI_ENOTDIR;
    nf.kind = FD_IMAGE;
    nf.node = node;
    nf.is_dir = is_dir;
  } else {
    if (want_write && !d->mount->writable) return WASI_EROFS;
    int flags = O_NONBLOCK | O_NOCTTY;
    if (oflags & WASI_O_DIRECTORY) flags |= O_DIRECTORY;
    if (oflags & WASI_O_TRUNC) flags |= O_TRUNC;
    if (!(lookup & WASI_LOOKUP_SYMLINK_FOLLOW)) flags |= O_NOFOLLOW;
    if (fdflags & WASI_FDFLAG_APPEND) flags |= O_APPEND;
    if (fdflags & (WASI_FDFLAG_SYNC | WASI_FDFLAG_RSYNC)) flags |= O_SYNC;
    else if (fdflags & WASI_FDFLAG_DSYNC) flags |= O_DSYNC;
    bool writes = (rights & WRITE_RIGHTS) || (oflags & WASI_O_TRUNC) || (fdflags & WASI_FDFLAG_APPEND);
    flags |= writes ? (want_read ? O_RDWR : O_WRONLY) : O_RDONLY;
    bool created = false;
    int fd;
    if (writes && d->mount->cow_links) {
      int r = wb_break_shared_link(d->host_fd, path, lookup & WASI_LOOKUP_SYMLINK_FOLLOW);
      if (r < 0) return (uint32_t)wb_errno_to_wasi(-r);
    }
    if (oflags & WASI_O_CREAT) {
      /* Try to open first, to know whether this open makes a new file (which
       * the quota must allow); then create. */
      fd = (oflags & WASI_O_EXCL) ? -ENOENT : wb_beneath(d->host_fd, path, flags, 0);
      if (fd == -ENOENT) {
        if (quota_allows(w, ENTRY_BYTES) < ENTRY_BYTES) return WASI_ENOSPC;
        fd = wb_beneath(d->host_fd, path, flags | O_CREAT | O_EXCL, 0666);
        created = fd >= 0;
        if (created) quota_add(w, ENTRY_BYTES);
        if (fd == -EEXIST && !(oflags & WASI_O_EXCL)) fd = wb_beneath(d->host_fd, path, flags, 0);
      }
    } else {
      fd = wb_beneath(d->host_fd, path, flags, 0);
    }
    if (fd < 0) return (uint32_t)wb_errno_to_wasi(-fd);
    struct stat st;
    if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
      close(fd);
      return WASI_EACCES; /* fifos, devices, sockets: not part of a workspace */
    }
    nf.kind = FD_HOST;
    nf.host_fd = fd;
    nf.is_dir = S_ISDIR(st.st_mode);
    nf.writable = writes && !nf.is_dir;
    if (created || (oflags & WASI_O_TRUNC)) wb_note_changed(w, d, path);
  }
  nf.guest_path = wb_join_guest_path(d->guest_path, path);
  if (!nf.guest_path) {
    if (nf.host_fd >= 0) close(nf.host_fd);
    return WASI_ENOMEM;
  }
  *entry = nf;
  put_u32(outp, newfd);
  return 0;
}

/* Resolve a path beneath a host directory to an O_PATH descriptor. */
static int host_path_fd(wb_wasi *w, wb_fd *d, uint32_t flags, uint32_t ptr, uint32_t len, int *out) {
  char path[WB_PATH_MAX];
  int e = wb_guest_path(w, ptr, len, path);
  if (e) return e;
  int fd = wb_beneath(d->host_fd, path, O_PATH | ((flags & WASI_LOOKUP_SYMLINK_FOLLOW) ? 0 : O_NOFOLLOW), 0);
  if (fd < 0) return wb_errno_to_wasi(-fd);
  *out = fd;
  return 0;
}

uint32_t wasi_path_filestat_get(wb_wasi *w, uint32_t dirfd, uint32_t flags, uint32_t ptr, uint32_t len, uint32_t out) {
  wb_fd *d;
  int e = dir_fd(w, dirfd, &d);
  if (e) return (uint32_t)e;
  uint8_t *p = gmem(w, out, FILESTAT_BYTES);
  if (!p) return WASI_EFAULT;
  if (d->kind == FD_IMAGE) {
    char path[WB_PATH_MAX];
    uint32_t node;
    if ((e = wb_guest_path(w, ptr, len, path))) return (uint32_t)e;
    if ((e = image_lookup(d->mount->image, d->node, path, &node))) return (uint32_t)e;
    put_image_stat(p, d->mount->image, node);
    return 0;
  }
  int fd = -1;
  if ((e = host_path_fd(w, d, flags, ptr, len, &fd))) return (uint32_t)e;
  struct stat st;
  int r = fstat(fd, &st);
  int err = errno;
  close(fd);
  if (r != 0) return (uint32_t)wb_errno_to_wasi(err);
  put_stat(p, &st);
  return 0;
}

uint32_t wasi_path_filestat_set_times(wb_wasi *w, uint32_t dirfd, uint32_t flags, uint32_t ptr, uint32_t len,
                                      uint64_t atim, uint64_t mtim, uint32_t fst) {
  wb_fd *d;
  int e = dir_fd(w, dirfd, &d);
  if (e) return (uint32_t)e;
  if (!writable_dir(d)) return WASI_EROFS;
  struct timespec ts[2];
  if ((e = make_times(atim, mtim, fst, ts))) return (uint32_t)e;
  int fd = -1;
  if ((e = host_path_fd(w, d, flags, ptr, len, &fd))) return (uint32_t)e;
  int r = utimensat(fd, "", ts, AT_EMPTY_PATH);
  if (r != 0 && (errno == EINVAL || errno == ENOENT)) {
    char pp[32];
    fd_proc_path(fd, pp);
    r = utimensat(AT_FDCWD, pp, ts, (flags & WASI_LOOKUP_SYMLINK_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW);
  }
  int err = errno;
  close(fd);
  return r == 0 ? 0 : (uint32_t)wb_errno_to_wasi(err);
}

/* Open the parent of a guest path in a writable host directory: `path` gets
 * the whole guest path (for reports), `leaf` its last component. */
static int writable_parent(wb_wasi *w, uint32_t dirfd, uint32_t ptr, uint32_t len, char *path, char *leaf, wb_fd **dp,
                           int *pfd) {
  wb_fd *d;
  int e = dir_fd(w, dirfd, &d);
  if (e) return e;
  if ((e = wb_guest_path(w, ptr, len, path))) return e;
  if (!writable_dir(d)) return WASI_EROFS;
  char tmp[WB_PATH_MAX];
  const char *name;
  memcpy(tmp, path, strlen(path) + 1);
  int fd = wb_open_parent(d->host_fd, tmp, &name);
  if (fd < 0) return wb_errno_to_wasi(-fd);
  memcpy(leaf, name, strlen(name) + 1);
  *dp = d;
  *pfd = fd;
  return 0;
}

/* The fstat of the root of d's mount (a host directory). */
static const struct stat *mount_root(const wb_wasi *w, const wb_fd *d) { return &w->mount_roots[d->mount - w->mounts]; }

uint32_t wasi_path_create_directory(wb_wasi *w, uint32_t dirfd, uint32_t ptr, uint32_t len) {
  char path[WB_PATH_MAX], leaf[WB_PATH_MAX];
  wb_fd *d;
  int pfd, e = writable_parent(w, dirfd, ptr, len, path, leaf, &d, &pfd);
  if (e) return (uint32_t)e;
  if (quota_allows(w, ENTRY_BYTES) < ENTRY_BYTES) {
    close(pfd);
    return WASI_ENOSPC;
  }
  int deep = wb_check_depth(mount_root(w, d), pfd, 0);
  if (deep < 0) {
    close(pfd);
    return (uint32_t)wb_errno_to_wasi(-deep);
  }
  int r = mkdirat(pfd, leaf, 0777);
  int err = errno;
  close(pfd);
  if (r != 0) return (uint32_t)wb_errno_to_wasi(err);
  quota_add(w, ENTRY_BYTES);
  wb_note_changed(w, d, path);
  return 0;
}

static uint32_t remove_entry(wb_wasi *w, uint32_t dirfd, uint32_t ptr, uint32_t len, int at_flags) {
  char path[WB_PATH_MAX], leaf[WB_PATH_MAX];
  wb_fd *d;
  int pfd, e = writable_parent(w, dirfd, ptr, len, path, leaf, &d, &pfd);
  if (e) return (uint32_t)e;
  int r = unlinkat(pfd, leaf, at_flags);
  int err = errno;
  close(pfd);
  if (r != 0) return (uint32_t)wb_errno_to_wasi(err);
  wb_note_changed(w, d, path);
  return 0;
}

uint32_t wasi_path_remove_directory(wb_wasi *w, uint32_t dirfd, uint32_t ptr, uint32_t len) {
  return remove_entry(w, dirfd, ptr, len, AT_REMOVEDIR);
}

uint32_t wasi_path_unlink_file(wb_wasi *w, uint32_t dirfd, uint32_t ptr, uint32_t len) {
  return remove_entry(w, dirfd, ptr, len, 0);
}

uint32_t wasi_path_rename(wb_wasi *w, uint32_t fd1, uint32_t p1, uint32_t l1, uint32_t fd2, uint32_t p2, uint32_t l2) {
  char a[WB_PATH_MAX], b[WB_PATH_MAX], la[WB_PATH_MAX], lb[WB_PATH_MAX];
  wb_fd *da, *db;
  int pa, pb, e = writable_parent(w, fd1, p1, l1, a, la, &da, &pa);
  if (e) return (uint32_t)e;
  if ((e = writable_parent(w, fd2, p2, l2, b, lb, &db, &pb))) {
    close(pa);
    return (uint32_t)e;
  }
  int r = -1, err = EXDEV;
  if (da->mount == db->mount) {
    /* a directory moved deeper must not nest past WB_DEPTH_MAX */
    int deep = 0;
    struct stat st;
    int moved = fstatat(pa, la, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)
                    ? openat(pa, la, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    : -1;
    if (moved >= 0) {
      deep = wb_tree_depth(moved);
      close(moved);
      if (deep >= 0) deep = wb_check_depth(mount_root(w, db), pb, deep);
    }
    if (deep < 0) {
      err = -deep;
    } else {
      r = renameat(pa, la, pb, lb);
      err = errno;
    }
  }
  close(pa);
  close(pb);
  if (r != 0) return err == EXDEV ? WASI_EXDEV : (uint32_t)wb_errno_to_wasi(err);
  wb_note_changed(w, da, a);
  wb_note_changed(w, db, b);
  return 0;
}

uint32_t wasi_path_link(wb_wasi *w, uint32_t fd1, uint32_t flags, uint32_t p1, uint32_t l1, uint32_t fd2, uint32_t p2,
                        uint32_t l2) {
  char a[WB_PATH_MAX], la[WB_PATH_MAX], b[WB_PATH_MAX], lb[WB_PATH_MAX];
  wb_fd *da, *db;
  int pa, pb, e;
  if ((e = writable_parent(w, fd1, p1, l1, a, la, &da, &pa))) return (uint32_t)e;
  if ((e = writable_parent(w, fd2, p2, l2, b, lb, &db, &pb))) {
    close(pa);
    return (uint32_t)e;
  }
  /* Link the entry itself, by its resolved parent and name: no path is
   * resolved again, and a symlink is linked, not followed (following it
   * would need the magic links a jailed worker does not have). */
  struct stat st;
  int r = -1, err = EXDEV;
  if (da->mount != db->mount) {
    err = EXDEV;
  } else if (fstatat(pa, la, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    err = errno;
  } else if (S_ISLNK(st.st_mode) && (flags & WASI_LOOKUP_SYMLINK_FOLLOW)) {
    err = ENOTSUP;
  } else if (quota_allows(w, ENTRY_BYTES + (uint64_t)st.st_size) < ENTRY_BYTES + (uint64_t)st.st_size) {
    err = ENOSPC;
  } else {
    r = linkat(pa, la, pb, lb, 0);
    err = errno;
    if (r == 0) quota_add(w, ENTRY_BYTES + (uint64_t)st.st_size);
  }
  close(pa);
  close(pb);
  if (r != 0) return err == EXDEV ? WASI_EXDEV : (uint32_t)wb_errno_to_wasi(err);
  wb_note_changed(w, db, b);
  return 0;
}

uint32_t wasi_path_symlink(wb_wasi *w, uint32_t tp, uint32_t tl, uint32_t dirfd, uint32_t p, uint32_t l) {
  char target[WB_PATH_MAX];
  int e = wb_guest_path(w, tp, tl, target);
  if (e) return (uint32_t)e;
  char path[WB_PATH_MAX], leaf[WB_PATH_MAX];
  wb_fd *d;
  int pfd;
  if ((e = writable_parent(w, dirfd, p, l, path, leaf, &d, &pfd))) return (uint32_t)e;
  if (quota_allows(w, ENTRY_BYTES) < ENTRY_BYTES) {
    close(pfd);
    return WASI_ENOSPC;
  }
  /* The link may say anything: resolution never follows it out (beneath). */
  int r = symlinkat(target, pfd, leaf);
  int err = errno;
  close(pfd);
  if (r != 0) return (uint32_t)wb_errno_to_wasi(err);
  quota_add(w, ENTRY_BYTES);
  wb_note_changed(w, d, path);
  return 0;
}

uint32_t wasi_path_readlink(wb_wasi *w, uint32_t dirfd, uint32_t p, uint32_t l, uint32_t buf, uint32_t len,
                            uint32_t used_ptr) {
  wb_fd *d;
  int e = dir_fd(w, dirfd, &d);
  if (e) return (uint32_t)e;
  uint8_t *out = gmem(w, buf, len), *used = gmem(w, used_ptr, 4);
  if (!out || !used) return WASI_EFAULT;
  if (d->kind == FD_IMAGE) {
    char path[WB_PATH_MAX];
    uint32_t node;
    if ((e = wb_guest_path(w, p, l, path))) return (uint32_t)e;
    if ((e = image_lookup(d->mount->image, d->node, path, &node))) return (uint32_t)e;
    return WASI_EINVAL; /* images hold no symlinks */
  }
  int fd = -1;
  if ((e = host_path_fd(w, d, 0, p, l, &fd))) return (uint32_t)e;
  char tmp[WB_PATH_MAX];
  ssize_t n = readlinkat(fd, "", tmp, sizeof tmp);
  int err = errno;
  close(fd);
  if (n < 0) return (uint32_t)wb_errno_to_wasi(err == ENOENT ? EINVAL : err);
  size_t k = (size_t)n < len ? (size_t)n : len;
  memcpy(out, tmp, k);
  put_u32(used, (uint32_t)k);
  return 0;
}
