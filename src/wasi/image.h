/* Read-only file-system images: a directory tree packed into one blob that
 * the WASI host serves without touching the host file system (the stdlib).
 *
 * Layout (little-endian): a 32-byte header, `count` 40-byte nodes, the names,
 * then file data. Node 0 is the root directory. The children of a directory
 * are consecutive nodes sorted by name (bytewise), so lookup is a binary
 * search per path component. tools/mkimage.c writes images and checks each
 * with wb_image_open(), which checks every offset; an image built into this
 * binary is then opened with wb_image_open_built(), which checks its header
 * only (walking every node cost each worker 0.05 ms, Python's images). */
#ifndef WASMBOX_WASI_IMAGE_H
#define WASMBOX_WASI_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_IMAGE_MAGIC "WBIMG\0\0\1"

enum { WB_NODE_DIR = 1, WB_NODE_FILE = 2 };

typedef struct {
  char magic[8];
  uint32_t count;
  uint32_t names_size;
  uint64_t names_offset;
  uint64_t mtime_ns; /* every entry's modification time */
} wb_image_header;

typedef struct {
  uint32_t name_off, name_len; /* into the names area */
  uint32_t parent;
  uint32_t kind; /* WB_NODE_DIR or WB_NODE_FILE */
  uint32_t first_child, child_count;
  uint64_t data_off; /* files: offset of the contents in the image */
  uint64_t size;     /* files: bytes */
} wb_image_node;

typedef struct {
  const uint8_t *base;
  size_t size;
  const wb_image_node *nodes;
  uint32_t count;
  const char *names;
  uint64_t mtime_ns;
} wb_image;

/* Validate `size` bytes at `base` as an image. Returns false (with a reason
 * in err) if anything points outside it. The bytes must outlive the image. */
bool wb_image_open(wb_image *img, const void *base, size_t size, char *err, size_t errlen);
/* The same for an image tools/mkimage wrote and checked, and the build
 * linked into this binary: only the header and the areas it names are
 * checked, not every node (they are as trusted as the code beside them). */
bool wb_image_open_built(wb_image *img, const void *base, size_t size, char *err, size_t errlen);

/* Child `name` (len bytes) of directory node `dir`, or UINT32_MAX. */
uint32_t wb_image_child(const wb_image *img, uint32_t dir, const char *name, size_t len);

static inline const char *wb_image_name(const wb_image *img, uint32_t node, uint32_t *len) {
  *len = img->nodes[node].name_len;
  return img->names + img->nodes[node].name_off;
}

#endif
