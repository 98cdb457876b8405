/* Options from a table (see options.h). */
#include "util/options.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/fail.h"

bool wb_parse_decimal(const char *s, double *v) {
  char *end;
  if (!(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))) || strpbrk(s, "xX"))
    return false;
  errno = 0;
  *v = strtod(s, &end);
  return errno == 0 && *end == 0;
}

bool wb_parse_whole(const char *s, uint64_t *v) {
  char *end;
  if (!isdigit((unsigned char)s[0])) return false;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  *v = x;
  return errno == 0 && *end == 0;
}

static const char *bare(const char *name) {
  while (*name == '-') name++;
  return name;
}

const wb_option *wb_opt_find(const wb_option *t, size_t n, const char *want, size_t len) {
  for (size_t i = 0; i < n; i++) {
    const char *o = bare(t[i].name);
    if (strlen(o) != len) continue;
    bool same = true;
    for (size_t j = 0; j < len && same; j++) same = o[j] == want[j] || (o[j] == '-' && want[j] == '_');
    if (same) return &t[i];
  }
  return NULL;
}

static int bad_number(const wb_option *o, const char *src, const char *v, char *err, size_t errlen) {
  if (o->wants) return wb_fail(err, errlen, -1, "%s wants %s, not '%s'", src, o->wants, v);
  return wb_fail(err, errlen, -1, "%s wants a %s from %.17g to %.17g, not '%s'", src,
                 o->kind == WB_OPT_U64 ? "whole number" : "number", o->min, o->max, v);
}

int wb_opt_set(const wb_option *o, void *target, const char *v, const char *src, char *err, size_t errlen) {
  char *base = target;
  switch (o->kind) {
    case WB_OPT_FLAG: *(bool *)(base + o->off) = true; return 0;
    case WB_OPT_TEXT:
      if (!o->size) {
        *(const char **)(base + o->off) = v;
        return 0;
      }
      if (strlen(v) >= o->size) return wb_fail(err, errlen, -1, "%s: the value is too long", src);
      memcpy(base + o->off, v, strlen(v) + 1);
      return 0;
    case WB_OPT_LIST: {
      const char **list = (const char **)(base + o->off);
      size_t *count = (size_t *)(base + o->size);
      if (*count == o->max_count) return wb_fail(err, errlen, -1, "%s is given more than %zu times", src, o->max_count);
      if (!*v) return wb_fail(err, errlen, -1, "%s: empty value", src);
      list[(*count)++] = v;
      return 0;
    }
    case WB_OPT_U64: {
      uint64_t x;
      if (!wb_parse_whole(v, &x) || x < (uint64_t)o->min || (o->max < 0x1p64 && x > (uint64_t)o->max))
        return bad_number(o, src, v, err, errlen);
      *(uint64_t *)(base + o->off) = x;
      return 0;
    }
    case WB_OPT_DOUBLE: {
      double x;
      if (!wb_parse_decimal(v, &x) || !(x >= o->min && x <= o->max)) return bad_number(o, src, v, err, errlen);
      *(double *)(base + o->off) = x;
      return 0;
    }
  }
  return wb_fail(err, errlen, -1, "%s: unknown kind of option", src);
}

void wb_opt_clear_list(const wb_option *o, void *target) {
  if (o->kind == WB_OPT_LIST) *(size_t *)((char *)target + o->size) = 0;
}

int wb_opt_parse(const wb_option *t, size_t n, void *target, int argc, char **argv, int first, const char **pos,
                 size_t maxpos, size_t *npos, const char *cmd, char *err, size_t errlen) {
  bool seen[WB_OPT_MAX] = {0};
  *npos = 0;
  if (n > WB_OPT_MAX) return wb_fail(err, errlen, -1, "%s: more options than the parser takes", cmd);
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
    if (a[0] != '-' || !a[1]) {
      if (*npos == maxpos) return wb_fail(err, errlen, -1, "unexpected argument '%s' (see %s --help)", a, cmd);
      pos[(*npos)++] = a;
      continue;
    }
    const char *eq = !strncmp(a, "--", 2) ? strchr(a, '=') : NULL;
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const wb_option *o = NULL;
    for (size_t k = 0; k < n && !o; k++)
      if (strlen(t[k].name) == len && !strncmp(t[k].name, a, len)) o = &t[k];
    if (!o) return wb_fail(err, errlen, -1, "unknown option %.*s (see %s --help)", (int)len, a, cmd);
    size_t idx = (size_t)(o - t);
    if (seen[idx] && o->kind != WB_OPT_LIST) return wb_fail(err, errlen, -1, "%s is given twice", o->name);
    seen[idx] = true;
    const char *v = NULL;
    if (o->kind == WB_OPT_FLAG) {
      if (eq) return wb_fail(err, errlen, -1, "%s takes no value", o->name);
    } else if (eq) {
      v = eq + 1;
    } else if (i + 1 < argc) {
      v = argv[++i];
    } else {
      return wb_fail(err, errlen, -1, "%s needs a value", o->name);
    }
    if (wb_opt_set(o, target, v, o->name, err, errlen)) return -1;
  }
  return 0;
}

void wb_opt_usage(const wb_option *t, size_t n, FILE *out) {
  for (size_t i = 0; i < n; i++) {
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", t[i].name, t[i].arg ? " " : "", t[i].arg ? t[i].arg : "");
    const char *h = t[i].help;
    size_t k = strcspn(h, "\n");
    if (strlen(head) > 20) fprintf(out, "  %s\n  %-20s %.*s\n", head, "", (int)k, h);
    else fprintf(out, "  %-20s %.*s\n", head, (int)k, h);
    for (h += k; *h == '\n'; h += k) {
      h++;
      k = strcspn(h, "\n");
      fprintf(out, "  %-20s %.*s\n", "", (int)k, h);
    }
  }
}
