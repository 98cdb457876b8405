/* Requests and results on the wire between the library and its workers
 * (jail/wire.h frames). Decoding trusts nothing: a worker may have been
 * subverted, so every count is bounded and every string checked. */
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "jail/wire.h"

#define ENV_MAX 4096

void wb_encode_request(wb_buf *b, const wasmbox_request *q) {
  wb_put_str(b, q->language);
  wb_put_bytes(b, q->code, q->code_len);
  wb_put_str(b, q->filename);
  wb_put_str(b, q->workspace);
  wb_put_f64(b, q->timeout_seconds);
  wb_put_u64(b, q->memory_bytes);
  wb_put_u64(b, q->fuel);
  wb_put_u64(b, q->max_output_bytes);
  wb_put_u64(b, q->quota_bytes);
  wb_put_bytes(b, q->stdin_data, q->stdin_data ? q->stdin_len : 0);
  wb_put_u32(b, (uint32_t)q->env_len);
  for (size_t i = 0; i < q->env_len; i++) wb_put_str(b, q->env[i]);
  wb_put_u32(b, (uint32_t)q->mounts_len);
  for (size_t i = 0; i < q->mounts_len; i++) {
    wb_put_str(b, q->mounts[i].host_dir);
    wb_put_str(b, q->mounts[i].guest_path);
  }
  wb_put_str(b, q->session_id);
  wb_put_u8(b, q->no_files);
}

bool wb_decode_request(wb_reader *r, wasmbox_request *q, wb_request_storage *s) {
  memset(q, 0, sizeof *q);
  memset(s, 0, sizeof *s);
  q->language = wb_get_str(r);
  q->code = wb_get_bytes(r, &q->code_len);
  q->filename = wb_get_str(r);
  q->workspace = wb_get_str(r);
  q->timeout_seconds = wb_get_f64(r);
  q->memory_bytes = wb_get_u64(r);
  q->fuel = wb_get_u64(r);
  q->max_output_bytes = (size_t)wb_get_u64(r);
  q->quota_bytes = wb_get_u64(r);
  q->stdin_data = wb_get_bytes(r, &q->stdin_len);
  uint32_t nenv = wb_get_u32(r);
  if (r->bad || nenv > ENV_MAX || !(s->env = calloc(nenv + 1, sizeof *s->env))) return false;
  for (uint32_t i = 0; i < nenv; i++) s->env[i] = wb_get_str(r);
  q->env = s->env;
  q->env_len = nenv;
  uint32_t nm = wb_get_u32(r);
  if (r->bad || nm > WASMBOX_MAX_MOUNTS) return false;
  for (uint32_t i = 0; i < nm; i++) {
    s->mounts[i].host_dir = wb_get_str(r);
    s->mounts[i].guest_path = wb_get_str(r);
  }
  q->mounts = s->mounts;
  q->mounts_len = nm;
  q->session_id = wb_get_str(r);
  q->no_files = wb_get_u8(r) != 0;
  return !r->bad && q->code;
}

void wb_request_storage_free(wb_request_storage *s) { free(s->env); }

void wb_encode_result(wb_buf *b, const wasmbox_result *p) {
  wb_put_u32(b, (uint32_t)p->status);
  wb_put_u32(b, (uint32_t)p->exit_code);
  wb_put_bytes(b, p->stdout_data, p->stdout_len);
  wb_put_bytes(b, p->stderr_data, p->stderr_len);
  wb_put_u8(b, p->stdout_truncated);
  wb_put_u8(b, p->stderr_truncated);
  wb_put_u64(b, p->stdout_total);
  wb_put_u64(b, p->stderr_total);
  wb_put_str(b, p->error_type);
  wb_put_str(b, p->error_message);
  wb_put_str(b, p->error_traceback);
  wb_put_u32(b, (uint32_t)p->guidance_len);
  for (size_t i = 0; i < p->guidance_len; i++) wb_put_str(b, p->guidance[i]);
  wb_put_f64(b, p->duration_ms);
  wb_put_u64(b, p->fuel_used);
  wb_put_u64(b, p->memory_peak_bytes);
  wb_put_str(b, p->session_id);
  wb_put_u8(b, p->session_rolled_back);
  wb_put_u32(b, (uint32_t)p->files_changed_len);
  for (size_t i = 0; i < p->files_changed_len; i++) wb_put_str(b, p->files_changed[i]);
}

static char *dup_or_null(const char *s, size_t n, bool *ok) {
  if (!s) return NULL;
  char *d = malloc(n + 1);
  if (!d) {
    *ok = false;
    return NULL;
  }
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

static char *dup_str(const char *s, bool *ok) { return dup_or_null(s, s ? strlen(s) : 0, ok); }

wb_result *wb_decode_result(wb_reader *r) {
  wb_result *res = calloc(1, sizeof *res);
  if (!res) return NULL;
  wasmbox_result *p = &res->pub;
  bool ok = true;
  uint32_t status = wb_get_u32(r);
  p->status = status <= WASMBOX_STATUS_CANCELLED ? (wasmbox_status)status : WASMBOX_STATUS_CRASHED;
  p->exit_code = (int)wb_get_u32(r);
  size_t n;
  const char *s = wb_get_bytes(r, &n);
  res->out = dup_or_null(s ? s : "", n, &ok);
  p->stdout_len = n;
  s = wb_get_bytes(r, &n);
  res->err = dup_or_null(s ? s : "", n, &ok);
  p->stderr_len = n;
  p->stdout_truncated = wb_get_u8(r);
  p->stderr_truncated = wb_get_u8(r);
  p->stdout_total = wb_get_u64(r);
  p->stderr_total = wb_get_u64(r);
  res->type = dup_str(wb_get_str(r), &ok);
  res->message = dup_str(wb_get_str(r), &ok);
  res->traceback = dup_str(wb_get_str(r), &ok);
  uint32_t ng = wb_get_u32(r);
  if (ng > WB_GUIDANCE_MAX) r->bad = true;
  for (uint32_t i = 0; !r->bad && i < ng; i++) res->guidance[i] = dup_str(wb_get_str(r), &ok);
  p->guidance_len = r->bad ? 0 : ng;
  p->duration_ms = wb_get_f64(r);
  p->fuel_used = wb_get_u64(r);
  p->memory_peak_bytes = wb_get_u64(r);
  res->session = dup_str(wb_get_str(r), &ok);
  p->session_rolled_back = wb_get_u8(r);
  uint32_t nf = wb_get_u32(r);
  if (nf > r->len) r->bad = true; /* each name takes bytes of the frame */
  res->files = r->bad ? NULL : calloc(nf ? nf : 1, sizeof *res->files);
  for (uint32_t i = 0; res->files && !r->bad && i < nf; i++) {
    res->files[i] = dup_str(wb_get_str(r), &ok);
    p->files_changed_len = i + 1;
    if (!res->files[i]) ok = false;
  }
  if (!res->files) ok = false;
  for (size_t i = 0; i < p->guidance_len; i++)
    if (!res->guidance[i]) ok = false;
  if (!ok || r->bad || r->at != r->len) {
    wasmbox_result_free(p);
    return NULL;
  }
  p->stdout_data = res->out;
  p->stderr_data = res->err;
  p->error_type = res->type;
  p->error_message = res->message;
  p->error_traceback = res->traceback;
  p->guidance = (const char *const *)res->guidance;
  p->session_id = res->session;
  p->files_changed = (const char *const *)res->files;
  return res;
}
