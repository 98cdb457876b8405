/* Small POSIX helpers that several layers need, written once: the
 * monotonic clock, whole positioned reads and writes, scratch directories and tree
 * removal. Plain functions of the OS; no state. */
#ifndef WASMBOX_UTIL_OS_H
#define WASMBOX_UTIL_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds, and in seconds: deadlines and durations
 * (the wall clock, for what is stored or shown, stays with its users). */
uint64_t wb_monotonic_ns(void);
double wb_monotonic_s(void);

/* pwrite()/pread() until all `n` bytes are moved at `off` (EINTR
 * retried); false otherwise (a read also at end of file). */
bool wb_pwrite_all(int fd, const void *p, size_t n, uint64_t off);
bool wb_pread_all(int fd, void *p, size_t n, uint64_t off);

/* A new empty directory $TMPDIR/PREFIX-XXXXXX (TMPDIR unset: /tmp),
 * malloc'd; NULL with a message in err. */
char *wb_scratch_dir(const char *prefix, char *err, size_t errlen);

/* Remove a directory tree, or only what is inside it, without following
 * symlinks or crossing into another file system. Best effort: what cannot
 * be removed stays. */
void wb_remove_tree(const char *dir);
void wb_empty_dir(const char *dir);
bool wb_dir_is_empty(const char *dir);

/* mkdir -p with mode 0700: the directory and its missing parents. */
bool wb_mkdirs(const char *path);

#endif
