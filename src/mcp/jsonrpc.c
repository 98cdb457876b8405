/* JSON-RPC 2.0 framing (see jsonrpc.h). cJSON does not check UTF-8, so the
 * raw bytes are checked first: a string we later print must be valid. */
#include "mcp/jsonrpc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

bool rpc_utf8_valid(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  while (p < end) {
    unsigned c = *p;
    if (c < 0x80) {
      p++;
      continue;
    }
    size_t len;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
    else return false;
    if ((size_t)(end - p) < len) return false;
    unsigned cp = c & (0x3F >> (len - 1));
    for (size_t i = 1; i < len; i++) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    p += len;
  }
  return true;
}

/* The value of the escape \uXXXX at s (6 bytes available), or -1. */
static long escape_at(const char *s) {
  if (s[0] != '\\' || s[1] != 'u') return -1;
  long v = 0;
  for (int i = 2; i < 6; i++) {
    int c = (unsigned char)s[i], d = isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/* \u escapes cJSON cannot take as they are: \u0000 (its strings end at
 * NUL, so it would cut the string there) and a UTF-16 surrogate without its
 * pair (no character: it refuses the whole message). The first found. */
typedef enum { ESCAPES_OK, ESCAPE_NUL, ESCAPE_LONE_SURROGATE } escape_problem;

static escape_problem bad_escape(const char *s, size_t n) {
  for (size_t i = 0; i + 1 < n; i++) {
    if (s[i] != '\\') continue;
    long v = i + 6 <= n ? escape_at(s + i) : -1;
    if (v < 0) {
      i++; /* an escaped character, maybe a backslash */
      continue;
    }
    if (v == 0) return ESCAPE_NUL;
    if (v >= 0xd800 && v <= 0xdfff) {
      long low = i + 12 <= n ? escape_at(s + i + 6) : -1;
      if (v >= 0xdc00 || low < 0xdc00 || low > 0xdfff) return ESCAPE_LONE_SURROGATE;
      i += 6; /* the pair's first half */
    }
    i += 5;
  }
  return ESCAPES_OK;
}

cJSON *rpc_parse(const char *body, size_t n, const char **why) {
  if (!rpc_utf8_valid(body, n)) {
    *why = "the message is not valid UTF-8";
    return NULL;
  }
  const char *end = NULL;
  cJSON *v = cJSON_ParseWithLengthOpts(body, n, &end, false);
  if (!v) {
    *why = bad_escape(body, n) == ESCAPE_LONE_SURROGATE
               ? "a string holds a UTF-16 surrogate escape (\\ud800-\\udfff) without its pair: not a character"
               : "the message is not valid JSON (or is nested deeper than 1000 levels)";
    return NULL;
  }
  /* only whitespace may follow the value */
  while (end && end < body + n && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) end++;
  if (end && end < body + n && *end) {
    cJSON_Delete(v);
    *why = "unexpected data after the JSON message (send one message per line or request)";
    return NULL;
  }
  if (bad_escape(body, n) == ESCAPE_NUL) {
    cJSON_Delete(v);
    *why = "a string holds \\u0000, which would cut it short here (send such data base64-encoded)";
    return NULL;
  }
  return v;
}

static bool valid_id(const cJSON *id) {
  if (cJSON_IsString(id)) return true;
  if (!cJSON_IsNumber(id)) return false;
  double d = id->valuedouble;
  return isfinite(d) && d == floor(d) && fabs(d) <= 9007199254740991.0;
}

rpc_kind rpc_check(const cJSON *msg, const cJSON **id, const char **why) {
  *id = NULL;
  if (cJSON_IsArray(msg)) {
    *why = "JSON-RPC batches are not supported (MCP 2025-06-18 and later removed them): send one message at a time";
    return RPC_INVALID;
  }
  if (!cJSON_IsObject(msg)) {
    *why = "a JSON-RPC message must be a JSON object";
    return RPC_INVALID;
  }
  const cJSON *idv = cJSON_GetObjectItemCaseSensitive(msg, "id");
  if (idv && valid_id(idv)) *id = idv;
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
  if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0) {
    *why = "\"jsonrpc\" must be \"2.0\"";
    return RPC_INVALID;
  }
  if (idv && !valid_id(idv)) {
    *why = "\"id\" must be a string or an integer";
    return RPC_INVALID;
  }
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
  if (method) {
    if (!cJSON_IsString(method) || !method->valuestring[0]) {
      *why = "\"method\" must be a non-empty string";
      return RPC_INVALID;
    }
    if (params && !cJSON_IsObject(params)) {
      *why = "\"params\" must be an object";
      return RPC_INVALID;
    }
    if (cJSON_GetObjectItemCaseSensitive(msg, "result") || cJSON_GetObjectItemCaseSensitive(msg, "error")) {
      *why = "a message cannot be both a request and a response";
      return RPC_INVALID;
    }
    return idv ? RPC_REQUEST : RPC_NOTIFICATION;
  }
  bool has_result = cJSON_GetObjectItemCaseSensitive(msg, "result") != NULL;
  bool has_error = cJSON_GetObjectItemCaseSensitive(msg, "error") != NULL;
  if (has_result != has_error && idv) return RPC_RESPONSE;
  *why = "a request needs \"method\" (and \"id\"); a response needs \"id\" and one of \"result\" or \"error\"";
  return RPC_INVALID;
}

static cJSON *envelope(const cJSON *id) {
  cJSON *r = cJSON_CreateObject();
  if (!r) return NULL;
  cJSON_AddStringToObject(r, "jsonrpc", "2.0");
  cJSON_AddItemToObject(r, "id", id ? cJSON_Duplicate(id, false) : cJSON_CreateNull());
  return r;
}

cJSON *rpc_error(const cJSON *id, int code, const char *message, cJSON *data) {
  cJSON *r = envelope(id), *e = cJSON_CreateObject();
  if (!r || !e) {
    cJSON_Delete(r);
    cJSON_Delete(e);
    cJSON_Delete(data);
    return NULL;
  }
  cJSON_AddNumberToObject(e, "code", code);
  cJSON_AddStringToObject(e, "message", message);
  if (data) cJSON_AddItemToObject(e, "data", data);
  cJSON_AddItemToObject(r, "error", e);
  return r;
}

cJSON *rpc_result(const cJSON *id, cJSON *result) {
  cJSON *r = envelope(id);
  if (!r || !result) {
    cJSON_Delete(r);
    cJSON_Delete(result);
    return NULL;
  }
  cJSON_AddItemToObject(r, "result", result);
  return r;
}

cJSON *rpc_notification(const char *method, cJSON *params) {
  cJSON *r = cJSON_CreateObject();
  if (!r) {
    cJSON_Delete(params);
    return NULL;
  }
  cJSON_AddStringToObject(r, "jsonrpc", "2.0");
  cJSON_AddStringToObject(r, "method", method);
  if (params) cJSON_AddItemToObject(r, "params", params);
  return r;
}

cJSON *rpc_add_u64(cJSON *obj, const char *name, unsigned long long v) {
  char text[24];
  snprintf(text, sizeof text, "%llu", v);
  return cJSON_AddRawToObject(obj, name, text);
}

char *rpc_print(const cJSON *v) { return v ? cJSON_PrintUnformatted(v) : NULL; }
