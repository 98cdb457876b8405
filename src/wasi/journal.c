/* A call's journal (see journal.h). */
#include "wasi/journal.h"

#include <string.h>

bool wb_journal_init(wb_journal *j, const void *previous, size_t n) {
  memset(j, 0, sizeof *j);
  if (n) wb_buf_append(&j->data, previous, n);
  j->replay_end = j->data.len;
  return !j->data.failed;
}

void wb_journal_free(wb_journal *j) { wb_buf_free(&j->data); }

bool wb_journal_replaying(const wb_journal *j) { return !j->diverged && j->pos < j->replay_end; }

bool wb_journal_take(wb_journal *j, uint8_t kind, void *out, size_t n) {
  if (!wb_journal_replaying(j)) return false;
  const uint8_t *p = (const uint8_t *)j->data.data + j->pos;
  uint32_t len;
  if (j->replay_end - j->pos < 5 || (memcpy(&len, p + 1, 4), p[0] != kind) || len != n ||
      j->replay_end - j->pos - 5 < len) {
    /* another path than the recorded one: live from here, and what was
     * left of the old run is not this run's */
    j->diverged = true;
    j->data.len = j->pos;
    return false;
  }
  memcpy(out, p + 5, n);
  j->pos += 5 + n;
  return true;
}

void wb_journal_record(wb_journal *j, uint8_t kind, const void *p, size_t n) {
  if (j->overflowed || j->data.len + 5 + n > WB_JOURNAL_MAX) {
    j->overflowed = true;
    return;
  }
  uint32_t len = (uint32_t)n;
  wb_buf_append(&j->data, &kind, 1);
  wb_buf_append(&j->data, &len, 4);
  wb_buf_append(&j->data, p, n);
  if (j->data.failed) j->overflowed = true;
}
