/* The WASI preview1 functions as wasm2c names them: one definition each,
 * shared by every runtime module (the names depend only on the import module
 * and field). A runtime glue file includes this beside its generated header,
 * so the compiler checks that both agree on every signature. */
#ifndef WASMBOX_WASI_IMPORTS_H
#define WASMBOX_WASI_IMPORTS_H

#include <stdint.h>

struct Z_wasi_snapshot_preview1_instance_t;

uint32_t Z_wasi_snapshot_preview1Z_args_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t argv, uint32_t buf);
uint32_t Z_wasi_snapshot_preview1Z_args_sizes_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t count,
                                                  uint32_t size);
uint32_t Z_wasi_snapshot_preview1Z_clock_res_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t id,
                                                 uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t id,
                                                  uint64_t precision, uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_environ_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t env,
                                               uint32_t buf);
uint32_t Z_wasi_snapshot_preview1Z_environ_sizes_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t count,
                                                     uint32_t size);
uint32_t Z_wasi_snapshot_preview1Z_fd_advise(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                             uint64_t offset, uint64_t len, uint32_t advice);
uint32_t Z_wasi_snapshot_preview1Z_fd_allocate(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                               uint64_t offset, uint64_t len);
uint32_t Z_wasi_snapshot_preview1Z_fd_close(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd);
uint32_t Z_wasi_snapshot_preview1Z_fd_datasync(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                 uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                       uint32_t flags);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                        uint64_t base, uint64_t inheriting);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                   uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_size(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                        uint64_t size);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_times(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                         uint64_t atim, uint64_t mtim, uint32_t fst);
uint32_t Z_wasi_snapshot_preview1Z_fd_pread(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint32_t iovs,
                                            uint32_t n, uint64_t offset, uint32_t nread);
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                       uint32_t buf, uint32_t len);
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                  uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_fd_pwrite(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint32_t iovs,
                                             uint32_t n, uint64_t offset, uint32_t nwritten);
uint32_t Z_wasi_snapshot_preview1Z_fd_read(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint32_t iovs,
                                           uint32_t n, uint32_t nread);
uint32_t Z_wasi_snapshot_preview1Z_fd_readdir(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint32_t buf,
                                              uint32_t len, uint64_t cookie, uint32_t used);
uint32_t Z_wasi_snapshot_preview1Z_fd_renumber(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t from,
                                               uint32_t to);
uint32_t Z_wasi_snapshot_preview1Z_fd_seek(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint64_t offset,
                                           uint32_t whence, uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_fd_sync(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd);
uint32_t Z_wasi_snapshot_preview1Z_fd_tell(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_fd_write(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint32_t iovs,
                                            uint32_t n, uint32_t nwritten);
uint32_t Z_wasi_snapshot_preview1Z_path_create_directory(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                         uint32_t path, uint32_t len);
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                     uint32_t flags, uint32_t path, uint32_t len, uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_set_times(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                           uint32_t flags, uint32_t path, uint32_t len, uint64_t atim,
                                                           uint64_t mtim, uint32_t fst);
uint32_t Z_wasi_snapshot_preview1Z_path_link(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd1,
                                             uint32_t flags, uint32_t p1, uint32_t l1, uint32_t fd2, uint32_t p2,
                                             uint32_t l2);
uint32_t Z_wasi_snapshot_preview1Z_path_open(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                             uint32_t lookup, uint32_t path, uint32_t len, uint32_t oflags,
                                             uint64_t rights, uint64_t inheriting, uint32_t fdflags, uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_path_readlink(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                 uint32_t path, uint32_t len, uint32_t buf, uint32_t buflen,
                                                 uint32_t used);
uint32_t Z_wasi_snapshot_preview1Z_path_remove_directory(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                         uint32_t path, uint32_t len);
uint32_t Z_wasi_snapshot_preview1Z_path_rename(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd1, uint32_t p1,
                                               uint32_t l1, uint32_t fd2, uint32_t p2, uint32_t l2);
uint32_t Z_wasi_snapshot_preview1Z_path_symlink(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t target,
                                                uint32_t tlen, uint32_t fd, uint32_t path, uint32_t len);
uint32_t Z_wasi_snapshot_preview1Z_path_unlink_file(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                    uint32_t path, uint32_t len);
uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t in, uint32_t out,
                                               uint32_t nsubs, uint32_t nevents);
void Z_wasi_snapshot_preview1Z_proc_exit(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t code);
uint32_t Z_wasi_snapshot_preview1Z_random_get(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t buf,
                                              uint32_t len);
uint32_t Z_wasi_snapshot_preview1Z_sched_yield(struct Z_wasi_snapshot_preview1_instance_t *w);
uint32_t Z_wasi_snapshot_preview1Z_sock_accept(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                               uint32_t flags, uint32_t out);
uint32_t Z_wasi_snapshot_preview1Z_sock_recv(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint32_t iovs,
                                             uint32_t n, uint32_t flags, uint32_t nread, uint32_t oflags);
uint32_t Z_wasi_snapshot_preview1Z_sock_send(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd, uint32_t iovs,
                                             uint32_t n, uint32_t flags, uint32_t nwritten);
uint32_t Z_wasi_snapshot_preview1Z_sock_shutdown(struct Z_wasi_snapshot_preview1_instance_t *w, uint32_t fd,
                                                 uint32_t how);

#endif
