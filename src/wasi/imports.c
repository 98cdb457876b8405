/* WASI entry points called by generated code. Each marks its span as host
 * code, so a timeout waits for it to return instead of unwinding it, and
 * calls the implementation in wasi.c or fs.c. The same three lines in every
 * entry are by design: one plain function per import, under the name and
 * signature wasm2c's module expects (imports.h, checked by the compiler). */
#include "wasm_rt/guest.h"
#include "wasi/calls.h"
#include "wasi/imports.h"
#include "wasi/internal.h"

uint32_t Z_wasi_snapshot_preview1Z_args_get(wb_wasi *w, uint32_t argv, uint32_t buf) {
  wb_host_enter();
  uint32_t r = wasi_args_get(w, argv, buf);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_args_sizes_get(wb_wasi *w, uint32_t count, uint32_t size) {
  wb_host_enter();
  uint32_t r = wasi_args_sizes_get(w, count, size);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_clock_res_get(wb_wasi *w, uint32_t id, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_clock_res_get(w, id, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(wb_wasi *w, uint32_t id, uint64_t precision, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_clock_time_get(w, id, precision, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_environ_get(wb_wasi *w, uint32_t env, uint32_t buf) {
  wb_host_enter();
  uint32_t r = wasi_environ_get(w, env, buf);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_environ_sizes_get(wb_wasi *w, uint32_t count, uint32_t size) {
  wb_host_enter();
  uint32_t r = wasi_environ_sizes_get(w, count, size);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_advise(wb_wasi *w, uint32_t fd, uint64_t offset, uint64_t len, uint32_t advice) {
  wb_host_enter();
  uint32_t r = wasi_fd_advise(w, fd, offset, len, advice);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_allocate(wb_wasi *w, uint32_t fd, uint64_t offset, uint64_t len) {
  wb_host_enter();
  uint32_t r = wasi_fd_allocate(w, fd, offset, len);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_close(wb_wasi *w, uint32_t fd) {
  wb_host_enter();
  uint32_t r = wasi_fd_close(w, fd);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_datasync(wb_wasi *w, uint32_t fd) {
  wb_host_enter();
  uint32_t r = wasi_fd_datasync(w, fd);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(wb_wasi *w, uint32_t fd, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_fd_fdstat_get(w, fd, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(wb_wasi *w, uint32_t fd, uint32_t flags) {
  wb_host_enter();
  uint32_t r = wasi_fd_fdstat_set_flags(w, fd, flags);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(wb_wasi *w, uint32_t fd, uint64_t base, uint64_t inheriting) {
  wb_host_enter();
  uint32_t r = wasi_fd_fdstat_set_rights(w, fd, base, inheriting);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_get(wb_wasi *w, uint32_t fd, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_fd_filestat_get(w, fd, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_size(wb_wasi *w, uint32_t fd, uint64_t size) {
  wb_host_enter();
  uint32_t r = wasi_fd_filestat_set_size(w, fd, size);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_times(wb_wasi *w, uint32_t fd, uint64_t atim, uint64_t mtim,
                                                         uint32_t fst) {
  wb_host_enter();
  uint32_t r = wasi_fd_filestat_set_times(w, fd, atim, mtim, fst);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_pread(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint64_t offset,
                                            uint32_t nread) {
  wb_host_enter();
  uint32_t r = wasi_fd_pread(w, fd, iovs, n, offset, nread);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(wb_wasi *w, uint32_t fd, uint32_t buf, uint32_t len) {
  wb_host_enter();
  uint32_t r = wasi_fd_prestat_dir_name(w, fd, buf, len);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_get(wb_wasi *w, uint32_t fd, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_fd_prestat_get(w, fd, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_pwrite(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint64_t offset,
                                             uint32_t nwritten) {
  wb_host_enter();
  uint32_t r = wasi_fd_pwrite(w, fd, iovs, n, offset, nwritten);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_read(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t nread) {
  wb_host_enter();
  uint32_t r = wasi_fd_read(w, fd, iovs, n, nread);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_readdir(wb_wasi *w, uint32_t fd, uint32_t buf, uint32_t len, uint64_t cookie,
                                              uint32_t used) {
  wb_host_enter();
  uint32_t r = wasi_fd_readdir(w, fd, buf, len, cookie, used);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_renumber(wb_wasi *w, uint32_t from, uint32_t to) {
  wb_host_enter();
  uint32_t r = wasi_fd_renumber(w, from, to);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_seek(wb_wasi *w, uint32_t fd, uint64_t offset, uint32_t whence, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_fd_seek(w, fd, (int64_t)offset, whence, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_sync(wb_wasi *w, uint32_t fd) {
  wb_host_enter();
  uint32_t r = wasi_fd_sync(w, fd);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_tell(wb_wasi *w, uint32_t fd, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_fd_tell(w, fd, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_fd_write(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t nwritten) {
  wb_host_enter();
  uint32_t r = wasi_fd_write(w, fd, iovs, n, nwritten);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_create_directory(wb_wasi *w, uint32_t fd, uint32_t path, uint32_t len) {
  wb_host_enter();
  uint32_t r = wasi_path_create_directory(w, fd, path, len);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_filestat_get(wb_wasi *w, uint32_t fd, uint32_t flags, uint32_t path,
                                                     uint32_t len, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_path_filestat_get(w, fd, flags, path, len, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_filestat_set_times(wb_wasi *w, uint32_t fd, uint32_t flags, uint32_t path,
                                                           uint32_t len, uint64_t atim, uint64_t mtim, uint32_t fst) {
  wb_host_enter();
  uint32_t r = wasi_path_filestat_set_times(w, fd, flags, path, len, atim, mtim, fst);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_link(wb_wasi *w, uint32_t fd1, uint32_t flags, uint32_t p1, uint32_t l1,
                                             uint32_t fd2, uint32_t p2, uint32_t l2) {
  wb_host_enter();
  uint32_t r = wasi_path_link(w, fd1, flags, p1, l1, fd2, p2, l2);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_open(wb_wasi *w, uint32_t fd, uint32_t lookup, uint32_t path, uint32_t len,
                                             uint32_t oflags, uint64_t rights, uint64_t inheriting, uint32_t fdflags,
                                             uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_path_open(w, fd, lookup, path, len, oflags, rights, inheriting, fdflags, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_readlink(wb_wasi *w, uint32_t fd, uint32_t path, uint32_t len, uint32_t buf,
                                                 uint32_t buflen, uint32_t used) {
  wb_host_enter();
  uint32_t r = wasi_path_readlink(w, fd, path, len, buf, buflen, used);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_remove_directory(wb_wasi *w, uint32_t fd, uint32_t path, uint32_t len) {
  wb_host_enter();
  uint32_t r = wasi_path_remove_directory(w, fd, path, len);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_rename(wb_wasi *w, uint32_t fd1, uint32_t p1, uint32_t l1, uint32_t fd2,
                                               uint32_t p2, uint32_t l2) {
  wb_host_enter();
  uint32_t r = wasi_path_rename(w, fd1, p1, l1, fd2, p2, l2);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_symlink(wb_wasi *w, uint32_t target, uint32_t tlen, uint32_t fd, uint32_t path,
                                                uint32_t len) {
  wb_host_enter();
  uint32_t r = wasi_path_symlink(w, target, tlen, fd, path, len);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_path_unlink_file(wb_wasi *w, uint32_t fd, uint32_t path, uint32_t len) {
  wb_host_enter();
  uint32_t r = wasi_path_unlink_file(w, fd, path, len);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(wb_wasi *w, uint32_t in, uint32_t out, uint32_t nsubs,
                                               uint32_t nevents) {
  wb_host_enter();
  uint32_t r = wasi_poll_oneoff(w, in, out, nsubs, nevents);
  wb_host_leave();
  return r;
}

void Z_wasi_snapshot_preview1Z_proc_exit(wb_wasi *w, uint32_t code) {
  wb_host_enter();
  wasi_proc_exit(w, code);
}

uint32_t Z_wasi_snapshot_preview1Z_random_get(wb_wasi *w, uint32_t buf, uint32_t len) {
  wb_host_enter();
  uint32_t r = wasi_random_get(w, buf, len);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_sched_yield(wb_wasi *w) {
  wb_host_enter();
  uint32_t r = wasi_sched_yield(w);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_sock_accept(wb_wasi *w, uint32_t fd, uint32_t flags, uint32_t out) {
  wb_host_enter();
  uint32_t r = wasi_sock_accept(w, fd, flags, out);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_sock_recv(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t flags,
                                             uint32_t nread, uint32_t oflags) {
  wb_host_enter();
  uint32_t r = wasi_sock_recv(w, fd, iovs, n, flags, nread, oflags);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_sock_send(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t flags,
                                             uint32_t nwritten) {
  wb_host_enter();
  uint32_t r = wasi_sock_send(w, fd, iovs, n, flags, nwritten);
  wb_host_leave();
  return r;
}

uint32_t Z_wasi_snapshot_preview1Z_sock_shutdown(wb_wasi *w, uint32_t fd, uint32_t how) {
  wb_host_enter();
  uint32_t r = wasi_sock_shutdown(w, fd, how);
  wb_host_leave();
  return r;
}
