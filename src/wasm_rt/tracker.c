/* Written-page tracking (see tracker.h). Debian 12's headers predate the
 * interfaces (Linux 6.1): the constants and structures of
 * UFFD_FEATURE_WP_ASYNC and PAGEMAP_SCAN are defined here, and the running
 * kernel is asked whether it has them. */
#include "wasm_rt/tracker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FEATURE_WP_UNPOPULATED (1ull << 13)
#define FEATURE_WP_ASYNC (1ull << 15)
#define USER_MODE_ONLY 1

struct page_region {
  uint64_t start, end, categories;
};

struct pm_scan_arg {
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WRITTEN (1ull << 1)
#define PM_SCAN_CHECK_WPASYNC (1ull << 1)

const unsigned long wb_track_ioctls[WB_TRACK_IOCTLS] = {UFFDIO_REGISTER, UFFDIO_WRITEPROTECT, PAGEMAP_SCAN};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int uffd = -1, pagemap = -1;

static void open_fds(void) {
  int u = (int)syscall(SYS_userfaultfd, O_CLOEXEC | USER_MODE_ONLY);
  struct uffdio_api api = {.api = UFFD_API, .features = FEATURE_WP_ASYNC | FEATURE_WP_UNPOPULATED};
  int p = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (u < 0 || p < 0 || ioctl(u, UFFDIO_API, &api) != 0) {
    if (u >= 0) close(u);
    if (p >= 0) close(p);
    return;
  }
  uffd = u;
  pagemap = p;
}

bool wb_track_init(void) {
  pthread_once(&once, open_fds);
  return uffd >= 0;
}

bool wb_track_arm(uint8_t *base, size_t reserved, size_t len) {
  if (!wb_track_init()) return false;
  struct uffdio_register reg = {.range = {(uintptr_t)base, reserved}, .mode = UFFDIO_REGISTER_MODE_WP};
  struct uffdio_writeprotect wp = {.range = {(uintptr_t)base, len}, .mode = UFFDIO_WRITEPROTECT_MODE_WP};
  return ioctl(uffd, UFFDIO_REGISTER, &reg) == 0 && (len == 0 || ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) == 0);
}

/* One PAGEMAP_SCAN pass over [start, end): written regions into vec. */
static long scan(uint64_t start, uint64_t end, struct page_region *vec, size_t n, uint64_t *walk_end) {
  struct pm_scan_arg a = {.size = sizeof a,
                          .flags = PM_SCAN_CHECK_WPASYNC,
                          .start = start,
                          .end = end,
                          .vec = (uintptr_t)vec,
                          .vec_len = n,
                          .category_mask = PAGE_IS_WRITTEN,
                          .return_mask = PAGE_IS_WRITTEN};
  long r = ioctl(pagemap, PAGEMAP_SCAN, &a);
  *walk_end = a.walk_end;
  return r;
}

ssize_t wb_track_written(uint8_t *base, size_t len, wb_span **out) {
  *out = NULL;
  if (uffd < 0) return -1;
  struct page_region vec[256];
  size_t n = 0, cap = 0;
  wb_span *spans = NULL;
  uint64_t at = (uintptr_t)base, end = at + len;
  while (at < end) {
    uint64_t walked;
    long k = scan(at, end, vec, 256, &walked);
    if (k < 0 || walked <= at) {
      free(spans);
      return -1;
    }
    for (long i = 0; i < k; i++) {
      if (n == cap) {
        cap = cap ? cap * 2 : 64;
        wb_span *grown = realloc(spans, cap * sizeof *spans);
        if (!grown) {
          free(spans);
          return -1;
        }
        spans = grown;
      }
      spans[n++] = (wb_span){(size_t)(vec[i].start - (uintptr_t)base), (size_t)(vec[i].end - vec[i].start)};
    }
    at = walked;
  }
  *out = spans;
  return (ssize_t)n;
}

/* Protection by UFFDIO_WRITEPROTECT, not a PAGEMAP_SCAN with
 * PM_SCAN_WP_MATCHING: that one walks the whole range again and flushes the
 * TLB once for every 2 MB it changes (an IPI to each other CPU running the
 * process, every time); this one walks the ranges given and flushes once
 * for each. */
bool wb_track_rearm(uint8_t *base, size_t len) {
  if (uffd < 0) return false;
  struct uffdio_writeprotect wp = {.range = {(uintptr_t)base, len}, .mode = UFFDIO_WRITEPROTECT_MODE_WP};
  return len == 0 || ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) == 0;
}

/* Spans less than this apart are protected in one range: walking the
 * protected pages between costs less than another flush. */
#define REARM_GAP (1u << 20)

bool wb_track_rearm_spans(uint8_t *base, const wb_span *spans, size_t n) {
  if (uffd < 0) return false;
  for (size_t i = 0; i < n;) {
    size_t start = spans[i].start, end = start + spans[i].len;
    for (i++; i < n && spans[i].start - end < REARM_GAP; i++) end = spans[i].start + spans[i].len;
    struct uffdio_writeprotect wp = {.range = {(uintptr_t)base + start, end - start},
                                     .mode = UFFDIO_WRITEPROTECT_MODE_WP};
    if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) != 0) return false;
  }
  return true;
}
