/* A call's journal: what its guest learned from outside that another run of
 * the same code from the same state would not learn the same way (clock
 * readings, random bytes), so that a paused call (code mode's approval,
 * api/guest_tools.h) can be run again to the same point.
 *
 * Contract: recording appends entries. A journal made with previous entries
 * replays them: each clock reading or random request takes the next entry,
 * and once they run out the run is live again (and records on, so the
 * journal always holds the whole run). An entry of another kind or size than
 * asked for marks the journal diverged and the run goes live. Past
 * WB_JOURNAL_MAX bytes it stops recording and says so (overflowed): such a
 * run cannot be paused. */
#ifndef WASMBOX_WASI_JOURNAL_H
#define WASMBOX_WASI_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define WB_JOURNAL_MAX (16u << 20)

enum { WB_JOURNAL_CLOCK = 1, WB_JOURNAL_RANDOM = 2 };

typedef struct {
  wb_buf data; /* [u8 kind][u32 length][bytes]... */
  size_t pos;  /* replay position; replaying while pos < replay_end */
  size_t replay_end;
  bool diverged, overflowed;
} wb_journal;

/* Start with `n` bytes of a previous run's journal to replay (0: none).
 * False: out of memory. */
bool wb_journal_init(wb_journal *j, const void *previous, size_t n);
void wb_journal_free(wb_journal *j);
bool wb_journal_replaying(const wb_journal *j);
/* Replaying: fill `out` from the next entry (true). Live: false, and the
 * caller makes the value and records it. */
bool wb_journal_take(wb_journal *j, uint8_t kind, void *out, size_t n);
void wb_journal_record(wb_journal *j, uint8_t kind, const void *p, size_t n);

#endif
