/* Implementations of the WASI calls (wasi.c, fs.c), free of the entry-point
 * bookkeeping in imports.c. Each returns a WASI errno. */
#ifndef WASMBOX_WASI_CALLS_H
#define WASMBOX_WASI_CALLS_H

#include <stdint.h>

#include "wasi/internal.h"

uint32_t wasi_args_get(wb_wasi *w, uint32_t argv, uint32_t buf);
uint32_t wasi_args_sizes_get(wb_wasi *w, uint32_t count, uint32_t size);
uint32_t wasi_clock_res_get(wb_wasi *w, uint32_t id, uint32_t out);
uint32_t wasi_clock_time_get(wb_wasi *w, uint32_t id, uint64_t precision, uint32_t out);
uint32_t wasi_environ_get(wb_wasi *w, uint32_t env, uint32_t buf);
uint32_t wasi_environ_sizes_get(wb_wasi *w, uint32_t count, uint32_t size);
uint32_t wasi_fd_advise(wb_wasi *w, uint32_t fd, uint64_t offset, uint64_t len, uint32_t advice);
uint32_t wasi_fd_allocate(wb_wasi *w, uint32_t fd, uint64_t offset, uint64_t len);
uint32_t wasi_fd_close(wb_wasi *w, uint32_t fd);
uint32_t wasi_fd_datasync(wb_wasi *w, uint32_t fd);
uint32_t wasi_fd_fdstat_get(wb_wasi *w, uint32_t fd, uint32_t out);
uint32_t wasi_fd_fdstat_set_flags(wb_wasi *w, uint32_t fd, uint32_t flags);
uint32_t wasi_fd_fdstat_set_rights(wb_wasi *w, uint32_t fd, uint64_t base, uint64_t inheriting);
uint32_t wasi_fd_filestat_get(wb_wasi *w, uint32_t fd, uint32_t out);
uint32_t wasi_fd_filestat_set_size(wb_wasi *w, uint32_t fd, uint64_t size);
uint32_t wasi_fd_filestat_set_times(wb_wasi *w, uint32_t fd, uint64_t atim, uint64_t mtim, uint32_t fst);
uint32_t wasi_fd_pread(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint64_t offset, uint32_t nread);
uint32_t wasi_fd_prestat_dir_name(wb_wasi *w, uint32_t fd, uint32_t buf, uint32_t len);
uint32_t wasi_fd_prestat_get(wb_wasi *w, uint32_t fd, uint32_t out);
uint32_t wasi_fd_pwrite(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint64_t offset, uint32_t nwritten);
uint32_t wasi_fd_read(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t nread);
uint32_t wasi_fd_readdir(wb_wasi *w, uint32_t fd, uint32_t buf, uint32_t len, uint64_t cookie, uint32_t used);
uint32_t wasi_fd_renumber(wb_wasi *w, uint32_t from, uint32_t to);
uint32_t wasi_fd_seek(wb_wasi *w, uint32_t fd, int64_t offset, uint32_t whence, uint32_t out);
uint32_t wasi_fd_sync(wb_wasi *w, uint32_t fd);
uint32_t wasi_fd_tell(wb_wasi *w, uint32_t fd, uint32_t out);
uint32_t wasi_fd_write(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t nwritten);
uint32_t wasi_path_create_directory(wb_wasi *w, uint32_t fd, uint32_t path, uint32_t len);
uint32_t wasi_path_filestat_get(wb_wasi *w, uint32_t fd, uint32_t flags, uint32_t path, uint32_t len, uint32_t out);
uint32_t wasi_path_filestat_set_times(wb_wasi *w, uint32_t fd, uint32_t flags, uint32_t path, uint32_t len,
                                      uint64_t atim, uint64_t mtim, uint32_t fst);
uint32_t wasi_path_link(wb_wasi *w, uint32_t fd1, uint32_t flags, uint32_t p1, uint32_t l1, uint32_t fd2, uint32_t p2,
                        uint32_t l2);
uint32_t wasi_path_open(wb_wasi *w, uint32_t fd, uint32_t lookup, uint32_t path, uint32_t len, uint32_t oflags,
                        uint64_t rights, uint64_t inheriting, uint32_t fdflags, uint32_t out);
uint32_t wasi_path_readlink(wb_wasi *w, uint32_t fd, uint32_t path, uint32_t len, uint32_t buf, uint32_t buflen,
                            uint32_t used);
uint32_t wasi_path_remove_directory(wb_wasi *w, uint32_t fd, uint32_t path, uint32_t len);
uint32_t wasi_path_rename(wb_wasi *w, uint32_t fd1, uint32_t p1, uint32_t l1, uint32_t fd2, uint32_t p2, uint32_t l2);
uint32_t wasi_path_symlink(wb_wasi *w, uint32_t target, uint32_t tlen, uint32_t fd, uint32_t path, uint32_t len);
uint32_t wasi_path_unlink_file(wb_wasi *w, uint32_t fd, uint32_t path, uint32_t len);
uint32_t wasi_poll_oneoff(wb_wasi *w, uint32_t in, uint32_t out, uint32_t nsubs, uint32_t nevents);
void wasi_proc_exit(wb_wasi *w, uint32_t code);
uint32_t wasi_random_get(wb_wasi *w, uint32_t buf, uint32_t len);
uint32_t wasi_sched_yield(wb_wasi *w);
uint32_t wasi_sock_accept(wb_wasi *w, uint32_t fd, uint32_t flags, uint32_t out);
uint32_t wasi_sock_recv(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t flags, uint32_t nread,
                        uint32_t oflags);
uint32_t wasi_sock_send(wb_wasi *w, uint32_t fd, uint32_t iovs, uint32_t n, uint32_t flags, uint32_t nwritten);
uint32_t wasi_sock_shutdown(wb_wasi *w, uint32_t fd, uint32_t how);

/* stdio buffers (wasi.c), used by fd_read/fd_write in fs.c */
uint32_t wb_stdio_write(wb_wasi *w, wb_fd *f, uint32_t iovs, uint32_t n, uint64_t *written);
uint32_t wb_stdin_read(wb_wasi *w, uint32_t iovs, uint32_t n, uint64_t *nread);
void wb_fd_set_listing(wb_fd *f, dir_entry *entries, uint32_t n);

#endif
