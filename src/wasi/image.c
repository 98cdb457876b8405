/* Read-only image reader (see image.h). */
#include "wasi/image.h"

#include <stdio.h>
#include <string.h>

static bool fail(char *err, size_t errlen, const char *why) {
  snprintf(err, errlen, "invalid image: %s", why);
  return false;
}

/* The header, and the node and name areas it names, within the image. */
static bool header_ok(const wb_image_header *h, size_t size, char *err, size_t errlen) {
  if (size < sizeof *h || memcmp(h->magic, WB_IMAGE_MAGIC, 8) != 0) return fail(err, errlen, "bad magic");
  if (h->count == 0 || h->count > (size - sizeof *h) / sizeof(wb_image_node)) return fail(err, errlen, "node count");
  size_t nodes_end = sizeof *h + (size_t)h->count * sizeof(wb_image_node);
  if (h->names_offset < nodes_end || h->names_offset > size || h->names_size > size - h->names_offset)
    return fail(err, errlen, "names area");
  return true;
}

static void set(wb_image *img, const void *base, size_t size) {
  const wb_image_header *h = base;
  img->base = base;
  img->size = size;
  img->nodes = (const wb_image_node *)((const uint8_t *)base + sizeof *h);
  img->count = h->count;
  img->names = (const char *)base + h->names_offset;
  img->mtime_ns = h->mtime_ns;
}

bool wb_image_open(wb_image *img, const void *base, size_t size, char *err, size_t errlen) {
  const wb_image_header *h = base;
  if (!header_ok(h, size, err, errlen)) return false;
  const wb_image_node *n = (const wb_image_node *)((const uint8_t *)base + sizeof *h);
  for (uint32_t i = 0; i < h->count; i++) {
    if ((uint64_t)n[i].name_off + n[i].name_len > h->names_size) return fail(err, errlen, "name offset");
    if (n[i].parent >= h->count) return fail(err, errlen, "parent");
    if (n[i].kind == WB_NODE_DIR) {
      if (n[i].child_count && ((uint64_t)n[i].first_child + n[i].child_count > h->count || n[i].first_child <= i))
        return fail(err, errlen, "children");
    } else if (n[i].kind == WB_NODE_FILE) {
      if (n[i].data_off > size || n[i].size > size - n[i].data_off) return fail(err, errlen, "file data");
    } else {
      return fail(err, errlen, "node kind");
    }
  }
  if (n[0].kind != WB_NODE_DIR) return fail(err, errlen, "root is not a directory");
  set(img, base, size);
  return true;
}

bool wb_image_open_built(wb_image *img, const void *base, size_t size, char *err, size_t errlen) {
  if (!header_ok(base, size, err, errlen)) return false;
  set(img, base, size);
  return true;
}

static int name_cmp(const wb_image *img, uint32_t node, const char *name, size_t len) {
  const wb_image_node *n = &img->nodes[node];
  size_t m = n->name_len < len ? n->name_len : len;
  int c = memcmp(img->names + n->name_off, name, m);
  if (c) return c;
  return n->name_len < len ? -1 : n->name_len > len ? 1 : 0;
}

uint32_t wb_image_child(const wb_image *img, uint32_t dir, const char *name, size_t len) {
  const wb_image_node *d = &img->nodes[dir];
  if (d->kind != WB_NODE_DIR) return UINT32_MAX;
  uint32_t lo = d->first_child, hi = d->first_child + d->child_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = name_cmp(img, mid, name, len);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return UINT32_MAX;
}
