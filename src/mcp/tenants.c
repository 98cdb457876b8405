/* serve's clients as tenants: their tokens and their limits (see tenants.h). */
#include "mcp/tenants.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fail.h"

static const unsigned codes[MCP_TENANT_CODES - 1] = {200, 202, 204, 400, 401, 403, 404, 405,
                                                     406, 413, 415, 429, 500, 503, 504};

static bool valid_name(const char *s) {
  size_t n = strlen(s);
  if (!n || n > 64) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && !strchr("._-", *s)) return false;
  return true;
}

static bool valid_token(const char *s) {
  size_t n = strlen(s);
  if (n < 16 || n > 256) return false;
  for (; *s; s++)
    if (*s <= ' ' || *s > '~') return false;
  return true;
}

/* "N/s", "N/m", "N/h" -> per second */
static bool parse_rate(const char *v, double *out) {
  char *end;
  errno = 0;
  double n = strtod(v, &end);
  if (errno || end == v || *end != '/' || end[2] || !(n > 0) || n > 1e6) return false;
  double per = end[1] == 's' ? 1 : end[1] == 'm' ? 60 : end[1] == 'h' ? 3600 : 0;
  if (!per) return false;
  *out = n / per;
  return true;
}

static bool parse_count(const char *v, unsigned max, unsigned *out) {
  char *end;
  errno = 0;
  unsigned long n = strtoul(v, &end, 10);
  if (errno || end == v || *end || !isdigit((unsigned char)*v) || n < 1 || n > max) return false;
  *out = (unsigned)n;
  return true;
}

static int add(mcp_tenants *cs, const mcp_tenant *c, const char *where, char *err, size_t errlen) {
  for (size_t i = 0; i < cs->n; i++) {
    if (!strcmp(cs->v[i].name, c->name))
      return wb_fail(err, errlen, -1, "%s: client '%s' is named twice", where, c->name);
    if (!strcmp(cs->v[i].token, c->token))
      return wb_fail(err, errlen, -1, "%s: client '%s' has the token of '%s'", where, c->name, cs->v[i].name);
  }
  if (cs->n == MCP_TENANTS_MAX) return wb_fail(err, errlen, -1, "%s: more than %d clients", where, MCP_TENANTS_MAX);
  mcp_tenant *v = realloc(cs->v, (cs->n + 1) * sizeof *v);
  if (!v) return wb_fail(err, errlen, -1, "out of memory");
  cs->v = v;
  cs->v[cs->n++] = *c;
  return 0;
}

/* NAME TOKEN [key=value...] */
static int parse_line(mcp_tenants *cs, char *line, const char *where, char *err, size_t errlen) {
  char *words[8];
  size_t n = 0;
  for (char *save = NULL, *w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    if (n == 6) return wb_fail(err, errlen, -1, "%s: too many words (NAME TOKEN, up to 3 limits and a role)", where);
    words[n++] = w;
  }
  if (n < 2)
    return wb_fail(err, errlen, -1, "%s: want NAME TOKEN [rate=N/s] [burst=N] [max-in-flight=N] [role=admin]", where);
  mcp_tenant c = {0};
  if (!valid_name(words[0]))
    return wb_fail(err, errlen, -1, "%s: a client name is 1 to 64 letters, digits, '.', '_' or '-'", where);
  if (!valid_token(words[1]))
    return wb_fail(err, errlen, -1, "%s: the token of '%s' must be 16 to 256 printable characters", where, words[0]);
  snprintf(c.name, sizeof c.name, "%s", words[0]);
  snprintf(c.token, sizeof c.token, "%s", words[1]);
  bool have_burst = false;
  for (size_t i = 2; i < n; i++) {
    char *eq = strchr(words[i], '=');
    const char *v = eq ? eq + 1 : "";
    if (eq) *eq = 0;
    bool ok;
    if (!strcmp(words[i], "rate")) {
      ok = parse_rate(v, &c.rate);
    } else if (!strcmp(words[i], "burst")) {
      unsigned b;
      ok = parse_count(v, 1000000, &b);
      c.burst = b, have_burst = true;
    } else if (!strcmp(words[i], "max-in-flight")) {
      ok = parse_count(v, 100000, &c.max_in_flight);
    } else if (!strcmp(words[i], "role")) {
      if (strcmp(v, "admin") && strcmp(v, "client"))
        return wb_fail(err, errlen, -1, "%s: unknown role '%s' (admin or client)", where, v);
      ok = true;
      c.admin = !strcmp(v, "admin");
    } else {
      return wb_fail(err, errlen, -1, "%s: unknown setting '%s' (rate, burst, max-in-flight, role)", where, words[i]);
    }
    if (!ok || !eq)
      return wb_fail(err, errlen, -1, "%s: bad %s '%s' (rate=N/s, N/m or N/h; burst and max-in-flight: a count)", where,
                     words[i], v);
  }
  if (have_burst && !c.rate) return wb_fail(err, errlen, -1, "%s: burst without a rate", where);
  if (!have_burst) c.burst = c.rate ? fmax(1, ceil(c.rate)) : 0;
  c.level = c.burst;
  return add(cs, &c, where, err, errlen);
}

static int load_file(mcp_tenants *cs, const char *file, char *err, size_t errlen) {
  int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return wb_fail(err, errlen, -1, "--tokens %s: %s", file, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) return close(fd), wb_fail(err, errlen, -1, "--tokens %s: not a regular file", file);
  if (st.st_mode & (S_IROTH | S_IWOTH))
    return close(fd), wb_fail(err, errlen, -1,
                              "--tokens %s: readable or writable by others: chmod o-rw it (it holds tokens)", file);
  FILE *f = fdopen(fd, "r");
  if (!f) return close(fd), wb_fail(err, errlen, -1, "--tokens %s: %s", file, strerror(errno));
  char line[2048], where[1100];
  int rc = 0;
  for (unsigned no = 1; !rc && fgets(line, sizeof line, f); no++) {
    snprintf(where, sizeof where, "--tokens %s:%u", file, no);
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
      rc = wb_fail(err, errlen, -1, "%s: line longer than %zu bytes", where, sizeof line - 2);
      break;
    }
    line[strcspn(line, "\r\n")] = 0;
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p && *p != '#') rc = parse_line(cs, p, where, err, errlen);
  }
  if (!rc && ferror(f)) rc = wb_fail(err, errlen, -1, "--tokens %s: %s", file, strerror(errno));
  if (!rc && !cs->n) rc = wb_fail(err, errlen, -1, "--tokens %s: no client in it", file);
  fclose(f);
  return rc;
}

int mcp_tenants_load(mcp_tenants *cs, const char *token, const char *file, char *err, size_t errlen) {
  memset(cs, 0, sizeof *cs);
  pthread_mutex_init(&cs->lock, NULL);
  if (token && *token) {
    mcp_tenant c = {.name = "default"};
    snprintf(c.token, sizeof c.token, "%s", token);
    if (add(cs, &c, "--token", err, errlen)) return mcp_tenants_free(cs), -1;
  }
  if (file && *file && load_file(cs, file, err, errlen)) return mcp_tenants_free(cs), -1;
  return 0;
}

void mcp_tenants_free(mcp_tenants *cs) {
  /* tokens do not outlive the set */
  for (size_t i = 0; i < cs->n; i++) explicit_bzero(cs->v[i].token, sizeof cs->v[i].token);
  free(cs->v);
  cs->v = NULL;
  cs->n = 0;
  pthread_mutex_destroy(&cs->lock);
}

/* equal, in time that depends only on the lengths */
static bool same(const char *want, const char *got, size_t m) {
  size_t n = strlen(want);
  unsigned char diff = (unsigned char)(n != m);
  for (size_t i = 0; i < n; i++) diff |= (unsigned char)(want[i] ^ (i < m ? got[i] : 0));
  return diff == 0;
}

mcp_tenant *mcp_tenants_auth(mcp_tenants *cs, const char *auth) {
  if (!auth || strncasecmp(auth, "Bearer ", 7)) return NULL;
  auth += 7;
  while (*auth == ' ') auth++;
  size_t m = strlen(auth);
  mcp_tenant *found = NULL;
  for (size_t i = 0; i < cs->n; i++) /* no early exit: every token is compared */
    if (same(cs->v[i].token, auth, m)) found = &cs->v[i];
  return found;
}

int mcp_tenants_admit(mcp_tenants *cs, mcp_tenant *c, double now, unsigned *retry_after, char *why, size_t n) {
  if (!c) return 0;
  int rc = 0;
  pthread_mutex_lock(&cs->lock);
  if (c->rate) {
    c->level = fmin(c->burst, c->level + (now - c->refilled) * c->rate);
    c->refilled = now;
  }
  if (c->max_in_flight && c->in_flight >= c->max_in_flight) {
    c->limited_in_flight++;
    *retry_after = 1;
    snprintf(why, n, "Too many requests: client '%s' has %u in flight (max-in-flight=%u); retry after 1 s", c->name,
             c->in_flight, c->max_in_flight);
    rc = 429;
  } else if (c->rate && c->level < 1) {
    c->limited_rate++;
    double wait = (1 - c->level) / c->rate;
    *retry_after = wait < 1 ? 1 : (unsigned)ceil(wait);
    snprintf(why, n, "Too many requests: client '%s' is over its rate of %g per second; retry after %u s", c->name,
             c->rate, *retry_after);
    rc = 429;
  } else {
    if (c->rate) c->level -= 1;
    c->in_flight++;
  }
  pthread_mutex_unlock(&cs->lock);
  return rc;
}

void mcp_tenants_done(mcp_tenants *cs, mcp_tenant *c) {
  pthread_mutex_lock(&cs->lock);
  if (c->in_flight) c->in_flight--;
  pthread_mutex_unlock(&cs->lock);
}

static size_t code_index(unsigned status) {
  for (size_t i = 0; i < MCP_TENANT_CODES - 1; i++)
    if (codes[i] == status) return i;
  return MCP_TENANT_CODES - 1;
}

void mcp_tenants_count(mcp_tenants *cs, mcp_tenant *c, bool oauth, unsigned status) {
  pthread_mutex_lock(&cs->lock);
  (c ? c->by_code : oauth ? cs->oauth_by_code : cs->anonymous_by_code)[code_index(status)]++;
  pthread_mutex_unlock(&cs->lock);
}

static void codes_of(wb_buf *out, const char *client, const uint64_t *by_code) {
  for (size_t i = 0; i < MCP_TENANT_CODES; i++) {
    if (!by_code[i]) continue;
    char code[16];
    if (i < MCP_TENANT_CODES - 1) snprintf(code, sizeof code, "%u", codes[i]);
    else snprintf(code, sizeof code, "other");
    wb_buf_printf(out, "wasmbox_http_requests_total{client=\"%s\",code=\"%s\"} %llu\n", client, code,
                  (unsigned long long)by_code[i]);
  }
}

void mcp_tenants_prometheus(mcp_tenants *cs, wb_buf *out) {
  pthread_mutex_lock(&cs->lock);
  wb_buf_puts(out,
              "# HELP wasmbox_http_requests_total HTTP requests answered, by client (its token's name; "
              "\"-\": none; \"oauth:*\": OAuth access tokens) and status code.\n"
              "# TYPE wasmbox_http_requests_total counter\n");
  codes_of(out, "-", cs->anonymous_by_code);
  codes_of(out, "oauth:*", cs->oauth_by_code);
  for (size_t i = 0; i < cs->n; i++) codes_of(out, cs->v[i].name, cs->v[i].by_code);
  wb_buf_puts(out,
              "# HELP wasmbox_http_limited_total Requests refused with 429, by client and the limit hit.\n"
              "# TYPE wasmbox_http_limited_total counter\n");
  for (size_t i = 0; i < cs->n; i++) {
    wb_buf_printf(out, "wasmbox_http_limited_total{client=\"%s\",limit=\"rate\"} %llu\n", cs->v[i].name,
                  (unsigned long long)cs->v[i].limited_rate);
    wb_buf_printf(out, "wasmbox_http_limited_total{client=\"%s\",limit=\"in_flight\"} %llu\n", cs->v[i].name,
                  (unsigned long long)cs->v[i].limited_in_flight);
  }
  wb_buf_puts(out,
              "# HELP wasmbox_http_in_flight Requests being answered, by client.\n"
              "# TYPE wasmbox_http_in_flight gauge\n");
  for (size_t i = 0; i < cs->n; i++)
    wb_buf_printf(out, "wasmbox_http_in_flight{client=\"%s\"} %u\n", cs->v[i].name, cs->v[i].in_flight);
  pthread_mutex_unlock(&cs->lock);
}
