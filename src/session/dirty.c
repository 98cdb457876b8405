/* Written pages of a private file mapping (see dirty.h). */
#include "session/dirty.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define PAGE 4096u
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE (1ull << 61) /* file page or shared anonymous: not written */

static int kept = -1;

bool wb_dirty_keep_open(void) {
  if (kept < 0) kept = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  return kept >= 0;
}

ssize_t wb_dirty_pages(const uint8_t *base, size_t len, uint32_t *out, size_t max) {
  int fd = kept >= 0 ? dup(kept) : open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  uint64_t entries[512];
  size_t pages = len / PAGE, n = 0;
  uint64_t first = (uint64_t)(uintptr_t)base / PAGE;
  for (size_t at = 0; at < pages;) {
    size_t want = pages - at < 512 ? pages - at : 512;
    ssize_t r = pread(fd, entries, want * 8, (off_t)((first + at) * 8));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || r % 8) {
      close(fd);
      return -1;
    }
    size_t got = (size_t)r / 8;
    for (size_t i = 0; i < got; i++) {
      uint64_t e = entries[i];
      if ((e & PM_SWAPPED) || ((e & PM_PRESENT) && !(e & PM_FILE))) {
        if (n == max) {
          close(fd);
          return -1;
        }
        out[n++] = (uint32_t)(at + i);
      }
    }
    at += got;
  }
  close(fd);
  return (ssize_t)n;
}
