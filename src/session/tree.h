/* Directory trees of a session's state: hard-link copies (a copy-on-write
 * clone, given that every writer breaks shared links first: the WASI host's
 * copy-up) and size. Symlinks are copied as links, never followed; nothing
 * leaves the tree it starts in. Removal is util/os.h's wb_tree_remove, the
 * one remover of the tree (included here for this module's users). */
#ifndef WASMBOX_SESSION_TREE_H
#define WASMBOX_SESSION_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/os.h"

/* Make dst_name (in dst_parent) a copy of the tree at src (a directory fd)
 * whose regular files are hard links to src's. */
bool wb_tree_link(int src, int dst_parent, const char *dst_name);

/* Bytes the tree holds on disk (st_blocks). */
uint64_t wb_tree_bytes(int parent, const char *name);

#endif
