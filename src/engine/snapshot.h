/* Snapshot files: a wb_snapshot as bytes, to build into the binary (the base
 * snapshot of each runtime, taken at build time by tools/mksnapshot.c) or to
 * keep on disk.
 *
 * Layout: a header, the globals, then the linear memory at an offset that is
 * a multiple of 64 KiB, so the memory can be mapped straight from the file
 * (or from our own executable, where the build embeds it). A snapshot is only
 * valid for the module it was taken from: the header names the runtime and a
 * build id (the native module's cache key) and loading checks both. */
#ifndef WASMBOX_ENGINE_SNAPSHOT_H
#define WASMBOX_ENGINE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define WB_SNAPSHOT_MAGIC "WBSNAP\0\1"
#define WB_SNAPSHOT_ALIGN 65536u

typedef struct {
  char magic[8];
  char runtime[24];
  char build_id[64];
  uint32_t pages;
  uint32_t globals_size;
  uint64_t memory_offset; /* from the start of the header */
} wb_snapshot_header;

/* Write `s` to fd (at its current position 0). */
bool wb_snapshot_write(const wb_snapshot *s, const char *build_id, int fd, char *err, size_t errlen);

/* Use `size` bytes at `bytes` (linked into this program) as a snapshot of
 * `rt`. The memory is mapped copy-on-write from our executable file when
 * the kernel lets us open it, else copied once into a memfd. */
bool wb_snapshot_open_embedded(const wb_runtime *rt, const char *build_id, const uint8_t *bytes, size_t size,
                               wb_snapshot *out, char *err, size_t errlen);

#endif
