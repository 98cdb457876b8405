/* Session directory files (see format.h). */
#include "session/format.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session/pagelog.h"
#include "session/tree.h"
#include "util/hash.h"

/* ---- helpers ---------------------------------------------------------- */

bool wb_id_valid(const char *id) {
  size_t n = id ? strlen(id) : 0;
  if (n == 0 || n >= WASMBOX_ID_MAX) return false;
  for (size_t i = 0; i < n; i++)
    if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') ||
          id[i] == '-' || id[i] == '_'))
      return false;
  return true;
}

bool wb_owner_valid(const char *owner) {
  size_t n = strlen(owner);
  if (n >= WASMBOX_OWNER_MAX) return false;
  for (size_t i = 0; i < n; i++)
    if (owner[i] < ' ' || owner[i] > '~') return false;
  return true;
}

/* prefix + 24 random hex digits (ids, and names of temporary entries) */
void wb_random_name(char *out, size_t n, const char *prefix) {
  uint8_t r[12];
  if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
    /* not expected; the clock keeps names distinct enough to go on */
    uint64_t t = (uint64_t)(wb_wall_s() * 1e9);
    memcpy(r, &t, 8);
  }
  char digits[2 * sizeof r + 1];
  wb_hex(digits, r, sizeof r);
  snprintf(out, n, "%s%s", prefix, digits);
}

void wb_new_id(char prefix, char id[WASMBOX_ID_MAX]) {
  char p[2] = {prefix, 0};
  wb_random_name(id, WASMBOX_ID_MAX, p);
}

static bool write_all(int fd, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n) {
    ssize_t w = write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    b += w, n -= (size_t)w;
  }
  return true;
}

/* Replace dir/name with a then b: temp file, rename; when `flush`, fsync
 * of the file before the rename and of the directory after it. */
static bool replace(int dir, const char *name, const void *a, size_t alen, const void *b, size_t blen, bool flush) {
  char tmp[128];
  snprintf(tmp, sizeof tmp, "%s.tmp", name);
  int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  bool ok = write_all(fd, a, alen) && write_all(fd, b, blen) && (!flush || fsync(fd) == 0);
  ok = close(fd) == 0 && ok;
  ok = ok && renameat(dir, tmp, dir, name) == 0 && (!flush || fsync(dir) == 0);
  if (!ok) unlinkat(dir, tmp, 0);
  return ok;
}

bool wb_write_atomic(int dir, const char *name, const void *a, size_t alen, const void *b, size_t blen) {
  return replace(dir, name, a, alen, b, blen, true);
}

bool wb_write_replace(int dir, const char *name, const void *a, size_t alen) {
  return replace(dir, name, a, alen, "", 0, false);
}

char *wb_read_small(int dir, const char *name, size_t *len) {
  int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return NULL;
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) == 0 && st.st_size < (16 << 20)) {
    buf = malloc((size_t)st.st_size + 1);
    if (buf && pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
      free(buf);
      buf = NULL;
    }
    if (buf) {
      buf[st.st_size] = 0;
      *len = (size_t)st.st_size;
    }
  }
  close(fd);
  return buf;
}

bool wb_copy_range(int from, int to, uint64_t len) {
  loff_t in = 0, out = 0;
  while (len) {
    ssize_t n = copy_file_range(from, &in, to, &out, len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    len -= (uint64_t)n;
  }
  return true;
}

/* ---- meta: one "key value" line each; strings hex-encoded ------------------- */

static int hex_digit(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

void wb_hex(char *out, const void *data, size_t n) {
  static const char digits[] = "0123456789abcdef";
  const uint8_t *p = data;
  for (size_t i = 0; i < n; i++) out[2 * i] = digits[p[i] >> 4], out[2 * i + 1] = digits[p[i] & 15];
  out[2 * n] = 0;
}

bool wb_unhex(const char *s, size_t len, void *out) {
  uint8_t *o = out;
  if (len % 2) return false;
  for (size_t i = 0; i < len / 2; i++) {
    int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    o[i] = (uint8_t)(hi << 4 | lo);
  }
  return true;
}

static void put_hex(FILE *f, const char *s) {
  char pair[3];
  for (; *s; s++) {
    wb_hex(pair, s, 1);
    fputs(pair, f);
  }
}

/* Only what put_hex writes: pairs of hex digits, no NUL, not empty (an
 * empty or odd string would not come back the same once written again). */
static char *get_hex(const char *h) {
  size_t len = strlen(h), n = len / 2;
  char *s = len && len % 2 == 0 ? malloc(n + 1) : NULL;
  if (s && (!wb_unhex(h, len, s) || memchr(s, 0, n))) {
    free(s);
    return NULL;
  }
  if (s) s[n] = 0;
  return s;
}

void wb_meta_clear(wb_meta *m) {
  for (size_t i = 0; i < m->nenv; i++) free(m->env[i]);
  for (size_t i = 0; i < m->nmounts; i++) {
    free((char *)m->mounts[i].host_dir);
    free((char *)m->mounts[i].guest_path);
    free(m->mount_names[i]);
  }
  memset(m, 0, sizeof *m);
}

bool wb_meta_format(const wb_meta *m, char **text, size_t *len) {
  *text = NULL;
  FILE *f = open_memstream(text, len);
  if (!f) return false;
  fprintf(f, "language %s\ncreated %.6f\nttl %.3f\n", m->language, m->created, m->ttl);
  if (m->owner[0]) {
    fputs("owner ", f);
    put_hex(f, m->owner);
    fputc('\n', f);
  }
  for (size_t i = 0; i < m->nenv; i++) {
    fputs("env ", f);
    put_hex(f, m->env[i]);
    fputc('\n', f);
  }
  for (size_t i = 0; i < m->nmounts; i++) {
    fputs(m->mount_names[i] ? "mount_name " : "mount ", f);
    put_hex(f, m->mount_names[i] ? m->mount_names[i] : m->mounts[i].host_dir);
    fputc(' ', f);
    put_hex(f, m->mounts[i].guest_path);
    fputc('\n', f);
  }
  if (fclose(f) == 0) return true;
  free(*text);
  *text = NULL;
  return false;
}

bool wb_meta_write(int dir, const wb_meta *m) {
  char *text;
  size_t len;
  bool ok = wb_meta_format(m, &text, &len) && wb_write_atomic(dir, "meta", text, len, "", 0);
  free(text);
  return ok;
}

bool wb_meta_parse(char *text, wb_meta *m) {
  memset(m, 0, sizeof *m);
  bool ok = true;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); ok && line; line = strtok_r(NULL, "\n", &save)) {
    char key[16], a[8200], b[8200];
    int k = sscanf(line, "%15s %8199s %8199s", key, a, b);
    if (k >= 2 && !strcmp(key, "language")) snprintf(m->language, sizeof m->language, "%.15s", a);
    else if (k >= 2 && !strcmp(key, "created")) m->created = atof(a);
    else if (k >= 2 && !strcmp(key, "ttl")) m->ttl = atof(a);
    else if (k >= 2 && !strcmp(key, "env") && m->nenv < WB_SESSION_ENV_MAX)
      ok = (m->env[m->nenv++] = get_hex(a)) != NULL;
    else if (k == 3 && !strcmp(key, "mount") && m->nmounts < WASMBOX_MAX_MOUNTS) {
      m->mounts[m->nmounts].host_dir = get_hex(a);
      m->mounts[m->nmounts].guest_path = get_hex(b);
      ok = m->mounts[m->nmounts].host_dir && m->mounts[m->nmounts].guest_path;
      m->nmounts++;
    } else if (k == 3 && !strcmp(key, "mount_name") && m->nmounts < WASMBOX_MAX_MOUNTS) {
      m->mount_names[m->nmounts] = get_hex(a);
      m->mounts[m->nmounts].guest_path = get_hex(b);
      ok = m->mount_names[m->nmounts] && m->mounts[m->nmounts].guest_path;
      m->nmounts++;
    } else if (k >= 2 && !strcmp(key, "owner")) {
      char *o = get_hex(a);
      ok = o && wb_owner_valid(o);
      if (ok) snprintf(m->owner, sizeof m->owner, "%s", o);
      free(o);
    }
  }
  if (!ok || !m->language[0]) wb_meta_clear(m);
  return ok && m->language[0];
}

bool wb_meta_read(int dir, wb_meta *m) {
  memset(m, 0, sizeof *m);
  size_t len;
  char *text = wb_read_small(dir, "meta", &len);
  if (!text) return false;
  bool ok = wb_meta_parse(text, m);
  free(text);
  /* a cache's meta holds host paths: a name here was never resolved */
  for (size_t i = 0; ok && i < m->nmounts; i++) ok = !m->mount_names[i];
  if (!ok) wb_meta_clear(m);
  return ok;
}

/* ---- HEAD ------------------------------------------------------------------- */

/* HEAD holds two copies of the committed state, slots at 0 and HEAD_SLOT:
 * magic, u64 sequence, u64 checksum (FNV-1a of the sequence and what
 * follows), the wb_head, its globals. A write goes in place to a slot
 * other than the newest flushed one: no new file, rename or directory sync
 * on a call's path, and a write cut short leaves that one whole. A state
 * the log already holds under a seal (a call's commit) is written without
 * a flush ("WBHSLOT2"); any other is flushed ("WBHSLOT1"). A read takes
 * the valid slot of the higher sequence, then the states the log's seals
 * carry past it: those whose HEAD write a crash lost. A file of one
 * wb_head and its globals (older builds) reads as sequence 0. */
#define HEAD_SLOT 4096u /* a runtime's globals are a few bytes: far below the bound this sets */
#define SLOT_FLUSHED "WBHSLOT1"
#define SLOT_SEALED "WBHSLOT2"
#define SLOT_HEADER 24u

static uint64_t slot_sum(const uint8_t *slot, size_t len) {
  return wb_fnv1a(wb_fnv1a(WB_FNV1A_BASIS, slot + 8, 8), slot + SLOT_HEADER, len - SLOT_HEADER);
}

/* a wb_head from disk is checked whole: a build id that is a string, no
 * more memory than a 32-bit guest has, globals within `avail` bytes */
static bool head_valid(const wb_head *h, size_t avail) {
  return avail >= sizeof *h && !memcmp(h->magic, WB_HEAD_MAGIC, 8) && h->globals_size <= avail - sizeof *h &&
         memchr(h->build_id, 0, sizeof h->build_id) && h->pages <= 65536;
}

/* The slot at `p` (`avail` bytes of the file): its sequence, or -1 if it
 * is not a valid one; *flushed whether it was written with a flush. */
static int64_t slot_seq(const uint8_t *p, size_t avail, bool legacy_ok, bool *flushed) {
  wb_head h;
  *flushed = true;
  if (legacy_ok && avail >= sizeof h && !memcmp(p, WB_HEAD_MAGIC, 8)) {
    memcpy(&h, p, sizeof h);
    return head_valid(&h, avail) ? 0 : -1;
  }
  *flushed = avail >= 8 && !memcmp(p, SLOT_FLUSHED, 8);
  if (avail < SLOT_HEADER + sizeof h || (!*flushed && memcmp(p, SLOT_SEALED, 8))) return -1;
  memcpy(&h, p + SLOT_HEADER, sizeof h);
  if (!head_valid(&h, avail - SLOT_HEADER)) return -1;
  uint64_t seq, sum;
  memcpy(&seq, p + 8, 8), memcpy(&sum, p + 16, 8);
  size_t len = SLOT_HEADER + sizeof h + h.globals_size;
  return seq < INT64_MAX && sum == slot_sum(p, len) ? (int64_t)seq : -1;
}

/* The newest valid slot of the file's bytes: the offset of its wb_head, or
 * -1; *seq its sequence (-1: none); *flushed_slot the start of the newest
 * slot written with a flush (-1: none). */
static ssize_t newest_slot(const uint8_t *buf, size_t len, int64_t *seq, ssize_t *flushed_slot) {
  ssize_t best = -1;
  int64_t best_flushed = -1;
  *seq = -1, *flushed_slot = -1;
  for (size_t at = 0; at < 2 * (size_t)HEAD_SLOT && at < len; at += HEAD_SLOT) {
    size_t avail = len - at < HEAD_SLOT ? len - at : HEAD_SLOT;
    bool flushed;
    int64_t q = slot_seq(buf + at, avail, at == 0, &flushed);
    if (q > *seq) {
      *seq = q;
      best = (ssize_t)(at + (memcmp(buf + at, WB_HEAD_MAGIC, 8) ? SLOT_HEADER : 0));
    }
    if (q >= 0 && flushed && q > best_flushed) best_flushed = q, *flushed_slot = (ssize_t)at;
  }
  return best;
}

/* HEAD's two slots, read into buf (on the stack: no allocation per call);
 * -1 if the file cannot be read */
static ssize_t read_slots(int fd, uint8_t buf[2 * HEAD_SLOT]) {
  ssize_t got;
  do got = pread(fd, buf, 2 * HEAD_SLOT, 0);
  while (got < 0 && errno == EINTR);
  return got;
}

/* A seal's payload: the wb_head, then its globals. */
bool wb_head_seal(int log, uint64_t from, uint64_t at, wb_head *h, const uint8_t *globals) {
  uint8_t payload[WB_SEAL_MAX];
  size_t len = sizeof *h + h->globals_size;
  if (len > sizeof payload) return errno = EFBIG, false;
  h->log_len = at + WB_SEAL_HEADER + len; /* the state ends with its own seal */
  memcpy(payload, h, sizeof *h);
  if (h->globals_size) memcpy(payload + sizeof *h, globals, h->globals_size);
  uint64_t end;
  return wb_pagelog_seal(log, from, at, payload, (uint32_t)len, &end);
}

typedef struct {
  wb_head h;
  uint8_t *globals; /* malloc'd */
} sealed_state;

/* a seal's state follows the one before: the next generation, on the same
 * log and workspace, ending where its seal ends */
static bool accept_seal(const uint8_t *payload, uint32_t len, uint64_t end, void *ctx) {
  sealed_state *st = ctx;
  wb_head h;
  if (len < sizeof h) return false;
  memcpy(&h, payload, sizeof h);
  if (!head_valid(&h, len) || h.globals_size != len - sizeof h || h.gen != st->h.gen + 1 || h.log_no != st->h.log_no ||
      h.ws_no != st->h.ws_no || h.log_len != end)
    return false;
  uint8_t *g = malloc(h.globals_size ? h.globals_size : 1);
  if (!g) return false;
  memcpy(g, payload + sizeof h, h.globals_size);
  free(st->globals);
  st->h = h, st->globals = g;
  return true;
}

/* The states the log holds past HEAD's: *h and *globals move to the last.
 * Past HEAD's length there is nothing, room (zeros: the walk stops at
 * once) or the states of commits whose HEAD write was lost: the size
 * tells whether to look (not a stat: util/os.h's wb_fd_size says why). */
static void roll_forward(int dir, wb_head *h, uint8_t **globals) {
  char log[64];
  wb_state_name(log, sizeof log, "log", h->log_no);
  int fd = openat(dir, log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  uint64_t size;
  if (fd < 0) return;
  sealed_state s = {.h = *h};
  if (wb_fd_size(fd, &size) && size > h->log_len) wb_pagelog_follow(fd, h->log_len, size, accept_seal, &s);
  close(fd);
  if (s.globals) {
    *h = s.h;
    free(*globals);
    *globals = s.globals;
  }
}

bool wb_head_read(int dir, wb_head *h, uint8_t **globals) {
  uint8_t buf[2 * HEAD_SLOT];
  int fd = openat(dir, "HEAD", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  ssize_t got = read_slots(fd, buf);
  close(fd);
  int64_t seq;
  ssize_t flushed;
  ssize_t at = got > 0 ? newest_slot(buf, (size_t)got, &seq, &flushed) : -1;
  if (at < 0) return false;
  memcpy(h, buf + at, sizeof *h);
  *globals = malloc(h->globals_size ? h->globals_size : 1);
  if (!*globals) return false;
  memcpy(*globals, buf + at + sizeof *h, h->globals_size);
  roll_forward(dir, h, globals);
  return true;
}

static bool head_write(int dir, const wb_head *h, const uint8_t *globals, bool flush) {
  size_t len = SLOT_HEADER + sizeof *h + h->globals_size;
  if (len > HEAD_SLOT) return errno = EFBIG, false;
  bool created = false;
  int fd = openat(dir, "HEAD", O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT) {
    fd = openat(dir, "HEAD", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    created = true;
  }
  if (fd < 0) return false;
  /* the slots as they are: keep the newest flushed one (else the newest) */
  uint8_t slot[2 * HEAD_SLOT];
  ssize_t got = read_slots(fd, slot);
  int64_t seq = -1;
  ssize_t flushed = -1;
  ssize_t at = got > 0 ? newest_slot(slot, (size_t)got, &seq, &flushed) : -1;
  ssize_t keep = flushed >= 0 ? flushed : at >= 0 ? (at < (ssize_t)HEAD_SLOT ? 0 : (ssize_t)HEAD_SLOT) : -1;
  uint64_t target = keep == 0 ? HEAD_SLOT : 0;
  bool ok = got >= 0;
  if (ok) {
    uint64_t next = (uint64_t)(seq + 1);
    memcpy(slot, flush ? SLOT_FLUSHED : SLOT_SEALED, 8);
    memcpy(slot + 8, &next, 8);
    memcpy(slot + SLOT_HEADER, h, sizeof *h);
    if (h->globals_size) memcpy(slot + SLOT_HEADER + sizeof *h, globals, h->globals_size);
    uint64_t sum = slot_sum(slot, len);
    memcpy(slot + 16, &sum, 8);
    ok = wb_pwrite_all(fd, slot, len, target) && (!flush || fdatasync(fd) == 0);
  }
  ok = close(fd) == 0 && ok;
  if (created) ok = ok && fsync(dir) == 0; /* the new file's name, durable */
  return ok;
}

bool wb_head_write(int dir, const wb_head *h, const uint8_t *globals) { return head_write(dir, h, globals, true); }

bool wb_head_write_sealed(int dir, const wb_head *h, const uint8_t *globals) {
  return head_write(dir, h, globals, false);
}

void wb_state_name(char *out, size_t n, const char *kind, uint64_t no) {
  snprintf(out, n, "%s-%llu", kind, (unsigned long long)no);
}

#define CALL_MAGIC "WBCALL01"

typedef struct {
  char magic[8];
  uint64_t gen, ws_no, log_no, log_len; /* the state the call started from */
} call_mark;

bool wb_call_mark(int lockfd, const wb_head *h) {
  call_mark m = {.gen = h->gen, .ws_no = h->ws_no, .log_no = h->log_no, .log_len = h->log_len};
  memcpy(m.magic, CALL_MAGIC, 8);
  return wb_pwrite_all(lockfd, &m, sizeof m, 0);
}

void wb_call_unmark(int lockfd) {
  static const char none[8];
  wb_pwrite_all(lockfd, none, sizeof none, 0); /* a failure leaves a mark that repair finds stale */
}

/* The workspace of a marked call from state h that never ended is emptied
 * again; a mark from another state is dropped. */
static bool repair_marked_call(int dir, const wb_head *h, const char *ws) {
  int lf = openat(dir, "lock", O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (lf < 0) return errno == ENOENT;
  call_mark m;
  bool ok = true;
  if (pread(lf, &m, sizeof m, 0) == (ssize_t)sizeof m && !memcmp(m.magic, CALL_MAGIC, 8)) {
    if (m.gen == h->gen && m.ws_no == h->ws_no && m.log_no == h->log_no && m.log_len == h->log_len)
      ok = (mkdirat(dir, ws, 0755) == 0 || errno == EEXIST) && wb_empty_dir_at(dir, ws);
    if (ok) wb_call_unmark(lf);
  }
  close(lf);
  return ok;
}

/* Put back what an interrupted process left (see session.h). Lock held. */
bool wb_session_repair(int dir, const wb_head *h) {
  char pre[64], done[80], ws[64], log[64];
  wb_state_name(pre, sizeof pre, "pre", h->gen);
  snprintf(done, sizeof done, "%s.done", pre);
  wb_state_name(ws, sizeof ws, "ws", h->ws_no);
  wb_state_name(log, sizeof log, "log", h->log_no);
  if (faccessat(dir, done, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    /* a call from the committed state never finished: its copy of the
     * workspace is the truth */
    if (faccessat(dir, ws, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
      char trash[64];
      wb_random_name(trash, sizeof trash, "trash-");
      if (renameat(dir, ws, dir, trash) != 0) return false;
    }
    if (renameat(dir, pre, dir, ws) != 0 || unlinkat(dir, done, 0) != 0) return false;
  }
  if (!repair_marked_call(dir, h, ws)) return false;
  int it = dup(dir);
  DIR *d = it >= 0 ? fdopendir(it) : NULL;
  if (!d) {
    if (it >= 0) close(it);
    return false;
  }
  struct dirent *e;
  bool ok = true;
  while ((e = readdir(d))) {
    const char *nm = e->d_name;
    bool stale = !strncmp(nm, "trash-", 6) || !strncmp(nm, "pre-", 4) || strstr(nm, ".tmp") ||
                 (!strncmp(nm, "log-", 4) && strcmp(nm, log)) || (!strncmp(nm, "ws-", 3) && strcmp(nm, ws));
    if (stale) ok = wb_tree_remove(dir, nm) && ok;
  }
  closedir(d);
  int lf = openat(dir, log, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lf < 0) return false;
  uint64_t size;
  if (wb_fd_size(lf, &size) && size != h->log_len && !wb_pagelog_is_room(lf, h->log_len, size))
    ok = ftruncate(lf, (off_t)h->log_len) == 0 && ok;
  close(lf);
  return ok;
}

bool wb_meta_write_text(int dir, const void *text, size_t len) {
  return wb_write_atomic(dir, "meta", text, len, "", 0);
}

char *wb_meta_read_text(int dir, size_t *len) { return wb_read_small(dir, "meta", len); }

char *wb_head_read_bytes(int dir, size_t *len) {
  wb_head h;
  uint8_t *globals;
  if (!wb_head_read(dir, &h, &globals)) return NULL;
  char *out = malloc(sizeof h + h.globals_size);
  if (out) {
    memcpy(out, &h, sizeof h);
    memcpy(out + sizeof h, globals, h.globals_size);
    *len = sizeof h + h.globals_size;
  }
  free(globals);
  return out;
}
