/* The Python import policy of a request (allow_imports, deny_imports,
 * deny_builtins): the code is handed to the guest inside a call of
 * _wasmbox_policy.run (runtimes/python/lib/_wasmbox_policy.py), which checks
 * it statically, then runs it with the policy in force. Done before the
 * worker boundary: the wire, the worker and the engine see ordinary code. */
#include "api/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/library.h"
#include "api/resolve_request.h"
#include "util/buf.h"

#define POLICY_NAMES_MAX 256
#define POLICY_NAME_MAX 100

/* "pkg" or "pkg.sub.mod" (modules); dots not allowed for builtins */
static bool name_ok(const char *s, bool dotted) {
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n > POLICY_NAME_MAX) return false;
  bool start = true;
  for (const char *p = s; *p; p++) {
    char c = *p;
    if (c == '.' && dotted && !start && p[1]) {
      start = true;
      continue;
    }
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!(alpha || (!start && c >= '0' && c <= '9'))) return false;
    start = false;
  }
  return true;
}

static int tuple(wb_buf *b, const char *what, const char *const *v, size_t n, bool dotted, char *err, size_t errlen) {
  if (n > POLICY_NAMES_MAX) return wb_usage(err, errlen, "%s: at most %d names", what, POLICY_NAMES_MAX);
  wb_buf_puts(b, "(");
  for (size_t i = 0; i < n; i++) {
    if (!name_ok(v[i], dotted))
      return wb_usage(err, errlen, "%s: '%s' is not a %s name", what, v[i] ? v[i] : "(null)",
                      dotted ? "module" : "builtin");
    wb_buf_printf(b, "'%s',", v[i]);
  }
  wb_buf_puts(b, ")");
  return WASMBOX_OK;
}

bool wb_policy_wanted(const wasmbox_request *req) {
  return req->allow_imports || req->deny_imports_len || req->deny_builtins_len;
}

int wb_policy_wrap(wasmbox_request *req, char **owned, char *err, size_t errlen) {
  *owned = NULL;
  const char *name = req->filename ? req->filename : "<string>";
  size_t len = req->code_len ? req->code_len : strlen(req->code);
  wb_buf b = {0};
  wb_buf_puts(&b, "import _wasmbox_policy\n_wasmbox_policy.run(b'");
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)req->code[i];
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') wb_buf_append(&b, &c, 1);
    else wb_buf_printf(&b, "\\x%02x", c);
  }
  wb_buf_puts(&b, "', b'");
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) wb_buf_printf(&b, "\\x%02x", *p);
  wb_buf_puts(&b, "'.decode('utf-8', 'surrogateescape'), ");
  int rc = WASMBOX_OK;
  if (req->allow_imports)
    rc = tuple(&b, "allow_imports", req->allow_imports, req->allow_imports_len, true, err, errlen);
  else wb_buf_puts(&b, "None");
  wb_buf_puts(&b, ", ");
  if (!rc) rc = tuple(&b, "deny_imports", req->deny_imports, req->deny_imports_len, true, err, errlen);
  wb_buf_puts(&b, ", ");
  if (!rc) rc = tuple(&b, "deny_builtins", req->deny_builtins, req->deny_builtins_len, false, err, errlen);
  wb_buf_puts(&b, ")\n");
  if (rc) {
    wb_buf_free(&b);
    return rc;
  }
  if (!b.failed && b.len > WB_CODE_MAX) {
    wb_buf_free(&b);
    return wb_usage(err, errlen, "code is larger than %u MB with the import policy's wrapper", WB_CODE_MAX >> 20);
  }
  req->code_len = b.len;
  *owned = wb_buf_take(&b);
  if (!*owned) {
    snprintf(err, errlen, "out of memory");
    return WASMBOX_EINTERNAL;
  }
  req->code = *owned;
  req->filename = "<wasmbox>"; /* the wrapper's frames are left out of tracebacks */
  req->allow_imports = req->deny_imports = req->deny_builtins = NULL;
  req->allow_imports_len = req->deny_imports_len = req->deny_builtins_len = 0;
  return WASMBOX_OK;
}
