/* libFuzzer: the worker protocol's decoders (api/worker_protocol.h), fed
 * what a compromised worker or parent could send. The first byte picks the
 * message; the rest is its payload. Properties checked beyond "no crash,
 * no overread" (ASan) and "no UB" (UBSan): a payload that decodes encodes
 * back to one that decodes to the same value, and the decoded result keeps
 * the protocol's promises (counts bounded, strings whole). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/worker_protocol.h"

static void check(int ok) {
  if (!ok) abort();
}

static int same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

static void result_round_trip(const wasmbox_result *p) {
  check(p->guidance_len <= WB_GUIDANCE_MAX && p->stdout_total >= p->stdout_len && p->stderr_total >= p->stderr_len);
  check(p->status <= WASMBOX_STATUS_PAUSED);
  wb_buf b = {0};
  const wb_result *wr = (const wb_result *)p; /* decoded: a whole wb_result */
  wb_encode_result(&b, p, wr->journal, wr->journal_len, wr->journal_overflowed);
  wb_reader r = {.p = (const uint8_t *)b.data, .len = b.len};
  wb_result *again = wb_decode_result(&r);
  check(again != NULL);
  const wasmbox_result *q = &again->pub;
  check(q->status == p->status && q->exit_code == p->exit_code && q->stdout_len == p->stdout_len &&
        !memcmp(q->stdout_data, p->stdout_data, p->stdout_len) && q->stderr_len == p->stderr_len &&
        same_str(q->error_type, p->error_type) && same_str(q->session_id, p->session_id) &&
        q->files_changed_len == p->files_changed_len && q->guidance_len == p->guidance_len);
  for (size_t i = 0; i < p->files_changed_len; i++) check(!strcmp(q->files_changed[i], p->files_changed[i]));
  wasmbox_result_free(&again->pub);
  wb_buf_free(&b);
}

static void request_round_trip(const wasmbox_request *q) {
  wb_buf b = {0};
  wb_encode_request(&b, q, NULL);
  wb_reader r = {.p = (const uint8_t *)b.data, .len = b.len};
  wasmbox_request d;
  wb_request_storage st;
  wb_journal_wire jw;
  check(wb_decode_request(&r, &d, &st, &jw));
  check(d.code_len == q->code_len && !memcmp(d.code, q->code, q->code_len) && d.env_len == q->env_len &&
        d.mounts_len == q->mounts_len && same_str(d.session_id, q->session_id) && d.no_files == q->no_files);
  for (size_t i = 0; i < q->env_len; i++) check(same_str(d.env[i], q->env[i]));
  wb_request_storage_free(&st);
  wb_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  /* an exact-size copy, so that ASan sees any read past the payload */
  size_t n = size - 1;
  uint8_t *p = malloc(n ? n : 1);
  if (!p) return 0;
  memcpy(p, data + 1, n);
  wb_reader r = {.p = p, .len = n};
  switch (data[0] % 5) {
    case 0: {
      wb_result *res = wb_decode_result(&r);
      if (res) {
        result_round_trip(&res->pub);
        wasmbox_result_free(&res->pub);
      }
      break;
    }
    case 1: {
      wasmbox_request q;
      wb_request_storage st;
      wb_journal_wire jw;
      if (wb_decode_request(&r, &q, &st, &jw)) {
        check(q.env_len <= WB_ENV_MAX && q.mounts_len <= WASMBOX_MAX_MOUNTS && q.code);
        request_round_trip(&q);
      }
      wb_request_storage_free(&st);
      break;
    }
    case 2: {
      wb_worker_setup su;
      if (wb_decode_setup(&r, &su)) {
        check(su.spec.npaths <= WB_JAIL_PATHS_MAX && su.home[0] == '/');
        for (size_t i = 0; i < su.spec.npaths; i++) check(su.spec.paths[i].path[0] == '/');
        check(!su.runtime || strlen(su.runtime) < n);
      }
      break;
    }
    case 3: {
      wb_jail_report rep;
      const char *host_scratch;
      if (wb_decode_ready(&r, &rep, &host_scratch)) {
        for (int l = 0; l < WB_LAYER_COUNT; l++) check(memchr(rep.detail[l], 0, sizeof rep.detail[l]) != NULL);
        check(!host_scratch || host_scratch[0] == '/');
      }
      break;
    }
    case 4: {
      int rc;
      const char *msg;
      if (wb_decode_error(&r, &rc, &msg)) check((rc == WASMBOX_EUSAGE || rc == WASMBOX_EINTERNAL) && msg);
      break;
    }
  }
  free(p);
  return 0;
}
