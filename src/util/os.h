/* Small POSIX helpers that several layers need, written once: the
 * monotonic clock, whole positioned reads and writes, scratch directories and tree
 * removal (the one remover: session/tree.h and the MCP server use it too). Plain functions of the OS; no state. */
#ifndef WASMBOX_UTIL_OS_H
#define WASMBOX_UTIL_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* CLOCK_MONOTONIC in nanoseconds, and in seconds: deadlines and durations.
 * wb_wall_s: CLOCK_REALTIME in seconds, for times that are stored or shown
 * (a session's creation, a paused run's age); never for a deadline. */
uint64_t wb_monotonic_ns(void);
double wb_monotonic_s(void);
double wb_wall_s(void);

/* pwrite()/pread() until all `n` bytes are moved at `off` (EINTR
 * retried); false otherwise (a read also at end of file). */
bool wb_pwrite_all(int fd, const void *p, size_t n, uint64_t off);
bool wb_pread_all(int fd, void *p, size_t n, uint64_t off);

/* The size of an open file, found by seeking to its end (which moves the
 * offset), not by fstat(): since Linux 6.13 a stat marks the file's times
 * as seen, so its next write stores a new fine-grained time, and
 * fdatasync() on ext4 without a journal writes the inode as well as the
 * data (a commit's flush: 0.08 -> 0.115 ms). False with errno set. */
bool wb_fd_size(int fd, uint64_t *size);

/* A new empty directory $TMPDIR/PREFIX-XXXXXX (TMPDIR unset: /tmp),
 * malloc'd; NULL with a message in err. */
char *wb_scratch_dir(const char *prefix, char *err, size_t errlen);

/* The one remover of directory trees: `name` in directory `parent`
 * (AT_FDCWD: a path) and everything under it, never through a symlink, nor
 * into another file system, nor deeper than 256 levels; directories its
 * owner may not read or write are made so on the way. Best effort: what
 * cannot be removed stays. True when it is all gone. wb_remove_tree is the
 * same by path; wb_empty_dir(_at) removes only what is inside the directory.
 * wb_dir_fd_is_empty reads directory fd from its start and leaves it there. */
bool wb_tree_remove(int parent, const char *name);
void wb_remove_tree(const char *dir);
bool wb_empty_dir_at(int parent, const char *name);
void wb_empty_dir(const char *dir);
bool wb_dir_is_empty(const char *dir);
bool wb_dir_fd_is_empty(int fd);

/* The one open beneath a directory: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV) from dirfd, so `..`, absolute
 * paths, absolute symlinks and symlinks that lead out fail (EXDEV);
 * wb_beneath_no_symlinks refuses every symlink on the way (ELOOP), for
 * reading what a guest wrote with the host's eyes. An fd (O_CLOEXEC) or
 * -errno. (wasi/resolve.h builds path resolution on it.) */
int wb_beneath(int dirfd, const char *path, int flags, mode_t mode);
int wb_beneath_no_symlinks(int dirfd, const char *path, int flags, mode_t mode);

/* mkdir -p with mode 0700: the directory and its missing parents. */
bool wb_mkdirs(const char *path);

#endif
