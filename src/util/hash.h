/* FNV-1a over bytes: the one checksum of what is not secret (a session's
 * HEAD slots) and hash of small keys (function signatures). Start from
 * WB_FNV1A_BASIS; feed more bytes by passing the result back in. */
#ifndef WASMBOX_UTIL_HASH_H
#define WASMBOX_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define WB_FNV1A_BASIS 0xcbf29ce484222325ull

uint64_t wb_fnv1a(uint64_t hash, const void *bytes, size_t n);

#endif
