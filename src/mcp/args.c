/* Tool argument checks (see args.h). */
#include "mcp/args.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void bad(mcp_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(mcp_args *a, const char *fmt, ...) {
  if (a->bad) return;
  a->bad = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a->msg, sizeof a->msg, fmt, ap);
  va_end(ap);
}

/* A short rendering of what was sent, for messages. */
static void shown(const cJSON *v, char *out, size_t n) {
  char *s = cJSON_PrintUnformatted(v);
  if (!s) {
    snprintf(out, n, "?");
    return;
  }
  if (strlen(s) > 40) snprintf(out, n, "%.37s...", s);
  else snprintf(out, n, "%s", s);
  cJSON_free(s);
}

void args_init(mcp_args *a, const cJSON *obj, const char *const *allowed) {
  memset(a, 0, sizeof *a);
  if (obj && cJSON_IsNull(obj)) obj = NULL;
  a->obj = obj;
  if (obj && !cJSON_IsObject(obj)) {
    bad(a, "arguments must be a JSON object");
    return;
  }
  for (const cJSON *it = obj ? obj->child : NULL; it; it = it->next) {
    bool ok = false;
    for (const char *const *n = allowed; *n && !ok; n++) ok = !strcmp(*n, it->string);
    if (!ok) {
      char names[256] = "";
      for (const char *const *n = allowed; *n; n++) {
        if (names[0]) strncat(names, ", ", sizeof names - strlen(names) - 1);
        strncat(names, *n, sizeof names - strlen(names) - 1);
      }
      bad(a, "unknown argument '%.64s'; this tool takes: %s", it->string, names[0] ? names : "no arguments");
      return;
    }
  }
}

static const cJSON *get(mcp_args *a, const char *name) {
  if (a->bad || !a->obj) return NULL;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(a->obj, name);
  return v && !cJSON_IsNull(v) ? v : NULL;
}

const char *args_str(mcp_args *a, const char *name, bool required, size_t max, size_t *len) {
  const cJSON *v = get(a, name);
  char s[64];
  if (!v) {
    if (required) bad(a, "missing required argument '%s' (a string)", name);
    return NULL;
  }
  if (!cJSON_IsString(v)) {
    shown(v, s, sizeof s);
    bad(a, "'%s' must be a string, got %s", name, s);
    return NULL;
  }
  size_t n = strlen(v->valuestring);
  if (n > max) {
    bad(a, "'%s' is %zu bytes; the limit is %zu", name, n, max);
    return NULL;
  }
  if (len) *len = n;
  return v->valuestring;
}

const char *args_enum(mcp_args *a, const char *name, const char *const *choices, const char *dflt) {
  const char *v = args_str(a, name, false, 64, NULL);
  if (!v) return a->bad ? NULL : dflt;
  for (const char *const *c = choices; *c; c++)
    if (!strcmp(*c, v)) return *c;
  char list[256] = "";
  for (const char *const *c = choices; *c; c++) {
    if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, *c, sizeof list - strlen(list) - 1);
  }
  bad(a, "'%s' must be one of %s, got \"%.64s\"", name, list, v);
  return NULL;
}

double args_num(mcp_args *a, const char *name, double min, double max, double dflt) {
  const cJSON *v = get(a, name);
  char s[64];
  if (!v) return dflt;
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < min || v->valuedouble > max) {
    shown(v, s, sizeof s);
    bad(a, "'%s' must be a number from %g to %g, got %s", name, min, max, s);
    return dflt;
  }
  return v->valuedouble;
}

uint64_t args_int(mcp_args *a, const char *name, uint64_t min, uint64_t max, uint64_t dflt) {
  const cJSON *v = get(a, name);
  char s[64];
  if (!v) return dflt;
  double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
  if (!cJSON_IsNumber(v) || d != floor(d) || d < (double)min || d > (double)max) {
    shown(v, s, sizeof s);
    bad(a, "'%s' must be a whole number from %llu to %llu, got %s", name, (unsigned long long)min,
        (unsigned long long)max, s);
    return dflt;
  }
  return (uint64_t)d;
}

bool args_bool(mcp_args *a, const char *name, bool dflt) {
  const cJSON *v = get(a, name);
  char s[64];
  if (!v) return dflt;
  if (!cJSON_IsBool(v)) {
    shown(v, s, sizeof s);
    bad(a, "'%s' must be true or false, got %s", name, s);
    return dflt;
  }
  return cJSON_IsTrue(v);
}
