/* The worker protocol against a compromised worker (api/worker_protocol.h):
 * every decoder fed truncated, oversized, padded and contradictory payloads
 * returns a clean failure, never a half value (ASan checks that nothing is
 * read past a payload), and frames that lie about their length, stop
 * halfway or never come fail with the errno the parent acts on. */
#include <math.h>
#include <poll.h>
#include <sys/socket.h>

#include "harness.h"
#include "api/worker_protocol.h"
#include "util/os.h"

/* A result as a worker sends it. */
static void good_result(wb_buf *b, const char *session) {
  static const char *const guidance[] = {"hint one", "hint two"}, *const kinds[] = {"no_network", "timeout"};
  static const char *const files[] = {"/app/a.txt", "/app/b/c.txt"};
  wasmbox_result r = {.status = WASMBOX_STATUS_ERROR,
                      .exit_code = 1,
                      .stdout_data = "out\n",
                      .stdout_len = 4,
                      .stderr_data = "err",
                      .stderr_len = 3,
                      .stdout_total = 4,
                      .stderr_total = 10,
                      .stderr_truncated = true,
                      .error_type = "ValueError",
                      .error_message = "bad",
                      .error_traceback = "Traceback",
                      .guidance = guidance,
                      .guidance_types = kinds,
                      .guidance_len = 2,
                      .duration_ms = 1.5,
                      .fuel_used = 77,
                      .memory_peak_bytes = 1 << 20,
                      .session_id = session,
                      .files_changed = files,
                      .files_changed_len = 2};
  wb_encode_result(b, &r, session ? "journal" : NULL, 7, !session);
  assert_false(b->failed);
}

static wb_result *decode(const void *p, size_t n) {
  /* a copy of exactly n bytes, so that ASan sees any read past it */
  uint8_t *copy = malloc(n ? n : 1);
  assert_non_null(copy);
  memcpy(copy, p, n);
  wb_reader r = {.p = copy, .len = n};
  wb_result *res = wb_decode_result(&r);
  free(copy);
  return res;
}

static void test_result_round_trip(void **state) {
  (void)state;
  wb_buf b = {0};
  good_result(&b, "s1");
  wb_result *res = decode(b.data, b.len);
  assert_non_null(res);
  wasmbox_result *p = &res->pub;
  assert_int_equal(p->status, WASMBOX_STATUS_ERROR);
  assert_int_equal(p->stdout_len, 4);
  assert_memory_equal(p->stdout_data, "out\n", 4);
  assert_true(p->stderr_truncated);
  assert_int_equal(p->stderr_total, 10);
  assert_string_equal(p->error_type, "ValueError");
  assert_int_equal(p->guidance_len, 2);
  assert_string_equal(p->guidance[1], "hint two");
  assert_string_equal(p->guidance_types[0], "no_network"); /* the kind, and its docs from the parent's own table */
  assert_string_equal(p->guidance_docs[0], "docs/security.md#security-model");
  assert_string_equal(p->guidance_docs[1], "docs/cli.md#guidance");
  assert_int_equal(p->files_changed_len, 2);
  assert_string_equal(p->files_changed[1], "/app/b/c.txt");
  assert_string_equal(p->session_id, "s1");
  assert_int_equal(p->fuel_used, 77);
  assert_int_equal(res->journal_len, 7); /* a run that may pause: its journal */
  assert_memory_equal(res->journal, "journal", 7);
  assert_false(res->journal_overflowed);
  wasmbox_result_free(p);
  wb_buf_free(&b);
}

static void test_result_truncated_or_padded(void **state) {
  (void)state;
  wb_buf b = {0};
  good_result(&b, NULL);
  for (size_t n = 0; n < b.len; n++) assert_null(decode(b.data, n));
  wb_buf_append(&b, "x", 1);
  assert_null(decode(b.data, b.len));
  wb_buf_free(&b);
}

/* Encode a result field by field, so that single fields can lie. */
typedef struct {
  uint32_t status, nguidance, nfiles;
  const char *kind; /* of each hint */
  int files_sent;   /* -1: as many as nfiles says */
  uint64_t stdout_total;
  double duration;
  const char *type;
  size_t type_len;
} fields;

static void encode_fields(wb_buf *b, const fields *f) {
  wb_put_u32(b, f->status);
  wb_put_u32(b, 0);
  wb_put_bytes(b, "abc", 3);
  wb_put_bytes(b, "", 0);
  wb_put_u8(b, 0);
  wb_put_u8(b, 0);
  wb_put_u64(b, f->stdout_total);
  wb_put_u64(b, 0);
  wb_put_bytes(b, f->type, f->type_len);
  wb_put_str(b, "message");
  wb_put_str(b, NULL);
  wb_put_u32(b, f->nguidance);
  for (uint32_t i = 0; i < f->nguidance && i < 8; i++) {
    wb_put_str(b, "g");
    wb_put_str(b, f->kind);
  }
  wb_put_f64(b, f->duration);
  wb_put_u64(b, 0);
  wb_put_u64(b, 0);
  wb_put_str(b, NULL);
  wb_put_u8(b, 0);
  wb_put_u32(b, f->nfiles);
  uint32_t sent = f->files_sent >= 0 ? (uint32_t)f->files_sent : f->nfiles;
  for (uint32_t i = 0; i < sent && i < 8; i++) wb_put_str(b, "/app/f");
  wb_put_bytes(b, NULL, 0); /* no journal */
  wb_put_u8(b, 0);
}

static wb_result *decode_fields(const fields *f) {
  wb_buf b = {0};
  encode_fields(&b, f);
  wb_result *res = decode(b.data, b.len);
  wb_buf_free(&b);
  return res;
}

static void test_result_contradictions(void **state) {
  (void)state;
  const fields ok = {.status = 0,
                     .nguidance = 1,
                     .kind = "quota_exceeded",
                     .nfiles = 1,
                     .files_sent = -1,
                     .stdout_total = 3,
                     .duration = 2.0,
                     .type = "T",
                     .type_len = 1};
  wb_result *res = decode_fields(&ok);
  assert_non_null(res);
  wasmbox_result_free(&res->pub);

  fields f = ok;
  f.stdout_total = 2; /* less output in all than it kept */
  assert_null(decode_fields(&f));
  f = ok;
  f.duration = -1;
  assert_null(decode_fields(&f));
  f.duration = NAN;
  assert_null(decode_fields(&f));
  f.duration = INFINITY;
  assert_null(decode_fields(&f));
  f = ok;
  f.nguidance = WB_GUIDANCE_MAX + 1; /* more hints than a result has */
  assert_null(decode_fields(&f));
  f = ok;
  f.kind = "made_up"; /* a kind this build does not know */
  assert_null(decode_fields(&f));
  f.kind = NULL;
  assert_null(decode_fields(&f));
  f = ok;
  f.nfiles = UINT32_MAX; /* a count no frame can hold: refused before any allocation */
  assert_null(decode_fields(&f));
  f.nfiles = 2; /* says two, sends one */
  f.files_sent = 1;
  assert_null(decode_fields(&f));
  f = ok;
  f.type = "Val\0ue"; /* a C string with a NUL inside */
  f.type_len = 6;
  assert_null(decode_fields(&f));
  f = ok;
  f.status = 999; /* no such status: the call is reported crashed */
  res = decode_fields(&f);
  assert_non_null(res);
  assert_int_equal(res->pub.status, WASMBOX_STATUS_CRASHED);
  wasmbox_result_free(&res->pub);
}

static void test_bytes_length_lies(void **state) {
  (void)state;
  wb_buf b = {0};
  wb_put_u8(&b, 1);
  wb_put_u64(&b, UINT64_MAX); /* a string longer than anything */
  wb_put_u8(&b, 0);
  wb_reader r = {.p = (const uint8_t *)b.data, .len = b.len};
  size_t n;
  assert_null(wb_get_bytes(&r, &n));
  assert_true(r.bad);
  assert_int_equal(wb_get_u32(&r), 0); /* a bad reader stays bad */
  wb_buf_free(&b);
  b = (wb_buf){0};
  wb_put_u8(&b, 1);
  wb_put_u64(&b, 2);
  wb_buf_append(&b, "abc", 3); /* no NUL where it must be */
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_null(wb_get_bytes(&r, &n));
  wb_buf_free(&b);
}

static void test_request_bounds(void **state) {
  (void)state;
  static const char *const env[] = {"A=1", "B=2"};
  wasmbox_mount m[2] = {{"/srv/data", "/data"}, {"/srv/more", "/more"}};
  wasmbox_request q = {.language = "python",
                       .code = "print(1)",
                       .code_len = 8,
                       .env = env,
                       .env_len = 2,
                       .mounts = m,
                       .mounts_len = 2,
                       .session_id = "s",
                       .no_files = true,
                       .timeout_seconds = 3};
  wb_buf b = {0};
  wb_journal_wire sent_jw = {.record = true, .replay = "abc", .replay_len = 3};
  wb_encode_request(&b, &q, &sent_jw);
  wasmbox_request d;
  wb_request_storage st;
  wb_journal_wire jw;
  wb_reader r = {.p = (const uint8_t *)b.data, .len = b.len};
  assert_true(wb_decode_request(&r, &d, &st, &jw));
  assert_true(jw.record);
  assert_int_equal(jw.replay_len, 3);
  assert_memory_equal(jw.replay, "abc", 3);
  assert_int_equal(d.env_len, 2);
  assert_string_equal(d.env[1], "B=2");
  assert_string_equal(d.mounts[1].guest_path, "/more");
  assert_true(d.no_files);
  wb_request_storage_free(&st);
  for (size_t n = 0; n < b.len; n++) {
    r = (wb_reader){.p = (const uint8_t *)b.data, .len = n};
    assert_false(wb_decode_request(&r, &d, &st, &jw));
    wb_request_storage_free(&st);
  }
  wb_buf_free(&b);
  /* more environment entries or mounts than a request may have */
  for (int which = 0; which < 2; which++) {
    b = (wb_buf){0};
    wb_put_str(&b, NULL);
    wb_put_bytes(&b, "x", 1);
    wb_put_str(&b, NULL);
    wb_put_str(&b, NULL);
    wb_put_f64(&b, 0);
    for (int i = 0; i < 4; i++) wb_put_u64(&b, 0);
    wb_put_bytes(&b, NULL, 0);
    wb_put_u32(&b, which == 0 ? WB_ENV_MAX + 1 : 0);
    if (which == 1) wb_put_u32(&b, WASMBOX_MAX_MOUNTS + 1);
    r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
    assert_false(wb_decode_request(&r, &d, &st, &jw));
    wb_request_storage_free(&st);
    wb_buf_free(&b);
  }
}

static void test_setup_ready_error(void **state) {
  (void)state;
  wb_worker_setup su = {.home = "/home/x",
                        .scratch = "/tmp/s",
                        .spec = {.npaths = 1, .max_fds = 9},
                        .image_release_ns = 1234567,
                        .runtime = "javascript"};
  su.spec.paths[0] = (wb_jail_path){.path = "/srv/ws", .writable = true, .tmpfs = true};
  wb_buf b = {0};
  wb_encode_setup(&b, &su);
  wb_worker_setup d;
  wb_reader r = {.p = (const uint8_t *)b.data, .len = b.len};
  assert_true(wb_decode_setup(&r, &d));
  assert_string_equal(d.spec.paths[0].path, "/srv/ws");
  assert_true(d.spec.paths[0].tmpfs);
  assert_int_equal(d.spec.max_fds, 9);
  assert_int_equal(d.image_release_ns, 1234567);
  assert_string_equal(d.runtime, "javascript");
  for (size_t n = 0; n < b.len; n++) {
    r = (wb_reader){.p = (const uint8_t *)b.data, .len = n};
    assert_false(wb_decode_setup(&r, &d));
  }
  wb_buf_free(&b);
  su.runtime = NULL; /* every runtime */
  b = (wb_buf){0};
  wb_encode_setup(&b, &su);
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_true(wb_decode_setup(&r, &d));
  assert_null(d.runtime);
  wb_buf_free(&b);
  su.spec.paths[0].path = "relative/path"; /* the jail takes absolute paths only */
  b = (wb_buf){0};
  wb_encode_setup(&b, &su);
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_false(wb_decode_setup(&r, &d));
  wb_buf_free(&b);
  b = (wb_buf){0};
  wb_put_str(&b, "/h");
  wb_put_str(&b, NULL);
  wb_put_u32(&b, WB_JAIL_PATHS_MAX + 1);
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_false(wb_decode_setup(&r, &d));
  wb_buf_free(&b);

  wb_jail_report rep = {0}, got;
  rep.active[WB_LAYER_SECCOMP] = true;
  snprintf(rep.detail[WB_LAYER_SECCOMP], sizeof rep.detail[0], "on");
  const char *host_scratch;
  b = (wb_buf){0};
  wb_encode_ready(&b, &rep, NULL);
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_true(wb_decode_ready(&r, &got, &host_scratch));
  assert_true(got.active[WB_LAYER_SECCOMP]);
  assert_string_equal(got.detail[WB_LAYER_SECCOMP], "on");
  assert_null(host_scratch);
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len - 1};
  assert_false(wb_decode_ready(&r, &got, &host_scratch));
  wb_buf_free(&b);
  /* the directory a worker without a mount view made for its /app */
  b = (wb_buf){0};
  wb_encode_ready(&b, &rep, "/tmp/wasmbox-abc123");
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_true(wb_decode_ready(&r, &got, &host_scratch));
  assert_string_equal(host_scratch, "/tmp/wasmbox-abc123");
  wb_buf_free(&b);
  b = (wb_buf){0};
  wb_encode_ready(&b, &rep, "tmp/relative");
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_false(wb_decode_ready(&r, &got, &host_scratch));
  wb_buf_free(&b);

  int rc;
  const char *msg;
  b = (wb_buf){0};
  wb_encode_error(&b, 7, "boom"); /* a code no call returns is an internal error */
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_true(wb_decode_error(&r, &rc, &msg));
  assert_int_equal(rc, WASMBOX_EINTERNAL);
  assert_string_equal(msg, "boom");
  wb_buf_free(&b);
  b = (wb_buf){0};
  wb_encode_error(&b, WASMBOX_EUSAGE, NULL); /* no message */
  r = (wb_reader){.p = (const uint8_t *)b.data, .len = b.len};
  assert_false(wb_decode_error(&r, &rc, &msg));
  wb_buf_free(&b);
}

/* Raw bytes into one end of a socket pair, then close it. */
static int peer_sends(const void *p, size_t n, bool close_after) {
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
  if (n) assert_int_equal(write(sv[1], p, n), (ssize_t)n);
  if (close_after) close(sv[1]);
  return close_after ? sv[0] : (sv[1] << 16) | sv[0];
}

static void test_frames_that_lie(void **state) {
  (void)state;
  uint8_t type, *payload;
  size_t len;
  uint64_t soon = wb_monotonic_ns() + 2000000000ull;
  /* a length over the reader's bound: refused before any allocation */
  uint8_t big[5] = {0xff, 0xff, 0xff, 0x7f, WB_FRAME_RESULT};
  int fd = peer_sends(big, sizeof big, true);
  assert_false(wb_frame_read(fd, &type, &payload, &len, 1u << 20, soon));
  assert_int_equal(errno, EMSGSIZE);
  assert_null(payload);
  close(fd);
  /* length 0: not even a type */
  uint8_t zero[5] = {0, 0, 0, 0, WB_FRAME_RESULT};
  fd = peer_sends(zero, sizeof zero, true);
  assert_false(wb_frame_read(fd, &type, &payload, &len, 1u << 20, soon));
  assert_int_equal(errno, EPROTO);
  close(fd);
  /* says 100 bytes, sends 10 and hangs up */
  uint8_t cut[15] = {101, 0, 0, 0, WB_FRAME_RESULT};
  fd = peer_sends(cut, sizeof cut, true);
  assert_false(wb_frame_read(fd, &type, &payload, &len, 1u << 20, soon));
  assert_int_equal(errno, EPROTO);
  close(fd);
  /* a header cut short */
  fd = peer_sends(cut, 3, true);
  assert_false(wb_frame_read(fd, &type, &payload, &len, 1u << 20, soon));
  assert_int_equal(errno, EPROTO);
  close(fd);
  /* hangs up between frames: a clean end */
  fd = peer_sends(NULL, 0, true);
  assert_false(wb_frame_read(fd, &type, &payload, &len, 1u << 20, soon));
  assert_int_equal(errno, 0);
  close(fd);
  /* says 100 bytes, sends 10 and stays silent: the deadline ends the wait */
  int both = peer_sends(cut, sizeof cut, false);
  fd = both & 0xffff;
  uint64_t t0 = wb_monotonic_ns();
  assert_false(wb_frame_read(fd, &type, &payload, &len, 1u << 20, t0 + 100000000ull));
  assert_int_equal(errno, ETIMEDOUT);
  assert_true(wb_monotonic_ns() - t0 < 1500000000ull);
  close(fd);
  close(both >> 16);
  /* and a well-formed frame still reads */
  wb_buf b = {0};
  wb_put_str(&b, "hi");
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  assert_true(wb_frame_write(sv[1], WB_FRAME_READY, &b, soon));
  assert_true(wb_frame_read(sv[0], &type, &payload, &len, 1u << 20, soon));
  assert_int_equal(type, WB_FRAME_READY);
  assert_int_equal(len, b.len);
  free(payload);
  close(sv[0]);
  close(sv[1]);
  wb_buf_free(&b);
}

/* TOOL / TOOL_REPLY: a number and bytes; anything cut, padded or without
 * its bytes fails whole. */
static void test_tool_frames(void **state) {
  (void)state;
  wb_buf b = {0};
  wb_encode_tool(&b, 7, 0, "{\"op\":\"list\"}", 13);
  uint32_t seq;
  uint8_t flags;
  const char *bytes;
  size_t n;
  wb_reader r = {.p = (const uint8_t *)b.data, .len = b.len};
  assert_true(wb_decode_tool(&r, &seq, &flags, &bytes, &n));
  assert_int_equal(seq, 7);
  assert_int_equal(n, 13);
  assert_memory_equal(bytes, "{\"op\":\"list\"}", 13);
  for (size_t cut = 0; cut < b.len; cut++) {
    wb_reader c = {.p = (const uint8_t *)b.data, .len = cut};
    assert_false(wb_decode_tool(&c, &seq, &flags, &bytes, &n));
  }
  wb_buf_append(&b, "x", 1);
  wb_reader padded = {.p = (const uint8_t *)b.data, .len = b.len};
  assert_false(wb_decode_tool(&padded, &seq, &flags, &bytes, &n));
  wb_buf_free(&b);
  wb_encode_tool(&b, 1, 0, NULL, 0); /* no bytes at all: not a request */
  wb_reader none = {.p = (const uint8_t *)b.data, .len = b.len};
  assert_false(wb_decode_tool(&none, &seq, &flags, &bytes, &n));
  wb_buf_free(&b);
  wb_encode_tool(&b, 2, WB_TOOL_PAUSE, NULL, 0); /* a pause: no bytes */
  wb_reader pause = {.p = (const uint8_t *)b.data, .len = b.len};
  assert_true(wb_decode_tool(&pause, &seq, &flags, &bytes, &n));
  assert_int_equal(flags, WB_TOOL_PAUSE);
  wb_buf_free(&b);
  wb_encode_tool(&b, 2, WB_TOOL_PAUSE, "x", 1); /* a pause with bytes, or other flags: malformed */
  wb_reader both = {.p = (const uint8_t *)b.data, .len = b.len};
  assert_false(wb_decode_tool(&both, &seq, &flags, &bytes, &n));
  wb_buf_free(&b);
  wb_encode_tool(&b, 2, 9, "x", 1);
  wb_reader odd = {.p = (const uint8_t *)b.data, .len = b.len};
  assert_false(wb_decode_tool(&odd, &seq, &flags, &bytes, &n));
  wb_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tool_frames),
      cmocka_unit_test(test_result_round_trip),
      cmocka_unit_test(test_result_truncated_or_padded),
      cmocka_unit_test(test_result_contradictions),
      cmocka_unit_test(test_bytes_length_lies),
      cmocka_unit_test(test_request_bounds),
      cmocka_unit_test(test_setup_ready_error),
      cmocka_unit_test(test_frames_that_lie),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
