/* Resolving paths beneath a directory, for the WASI host and for anyone
 * else touching a sandbox's files from outside (session file tools).
 *
 * Every lookup is util/os.h's wb_beneath (included here for this module's
 * users): openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)
 * from the directory fd: `..`, absolute paths, absolute symlinks and
 * symlinks that lead out fail (EXDEV). Functions return an fd or -errno. */
#ifndef WASMBOX_WASI_RESOLVE_H
#define WASMBOX_WASI_RESOLVE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/os.h"

/* How deep directories may nest below a writable mount's root (the
 * workspace). A session copies its workspace before every call with a few
 * descriptors per level (src/session/tree.c): a tree nested deeper than
 * that can copy would stop the session for good. Real code stays far below. */
#define WB_DEPTH_MAX 64

/* 0 when a directory made in directory `parent` (or a directory tree
 * `moved_depth` levels deep moved there) stays within WB_DEPTH_MAX levels
 * below the directory `root` (its fstat), else -ENAMETOOLONG (or -errno). */
int wb_check_depth(const struct stat *root, int parent, int moved_depth);
/* How many levels of directories lie below directory fd (0: none), counted
 * up to WB_DEPTH_MAX + 1. -errno on failure. */
int wb_tree_depth(int fd);

/* Split `path` (modified) into its parent directory, opened beneath dirfd,
 * and its last component (*name, pointing into path). "." and ".." as the
 * last component are refused (EINVAL): they name no entry of their own. */
int wb_open_parent(int dirfd, char *path, const char **name);

/* Before writing to `path`: if the file it names (following symlinks inside
 * the tree when `follow`) shares its inode with another link, give it an
 * inode of its own (copy, then rename over). 0 or -errno; a path that does
 * not resolve is left alone. */
int wb_break_shared_link(int dirfd, const char *path, bool follow);

#endif
