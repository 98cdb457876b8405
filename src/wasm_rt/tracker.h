/* Which pages of a linear memory the guest wrote, as the kernel saw it:
 * userfaultfd write-protection in asynchronous mode (a write to a protected
 * page is let through and only noted) read back with PAGEMAP_SCAN (Linux
 * 6.7 and later). Resetting a memory then means copying back the pages
 * written since it was armed, with nothing unmapped: no page faults in
 * again, no other CPU's TLB is flushed, and a session's commit needs no
 * remap. Without the kernel support every call fails and callers remap.
 *
 * Contract: one userfaultfd per process, opened by wb_track_init() before
 * a sandbox forbids the system call; the functions are thread-safe. */
#ifndef WASMBOX_WASM_RT_TRACKER_H
#define WASMBOX_WASM_RT_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

bool wb_track_init(void);

/* Watch [base, base+reserved) (a linear memory's reservation) and protect
 * its first `len` bytes: from now on writes there are noted. */
bool wb_track_arm(uint8_t *base, size_t reserved, size_t len);

/* Byte spans in [base, base+len) written since they were last protected
 * (malloc'd array in *out; sorted). -1: cannot tell. */
typedef struct {
  size_t start, len;
} wb_span;
ssize_t wb_track_written(uint8_t *base, size_t len, wb_span **out);

/* Protect what was written in [base, base+len) again; or only `spans`
 * (sorted, as wb_track_written gives them) when those are all. */
bool wb_track_rearm(uint8_t *base, size_t len);
bool wb_track_rearm_spans(uint8_t *base, const wb_span *spans, size_t n);

/* The ioctl requests the functions above make (for a seccomp allowlist). */
#define WB_TRACK_IOCTLS 3
extern const unsigned long wb_track_ioctls[WB_TRACK_IOCTLS];

#endif
