/* OAuth access tokens checked against the issuer's keys (see oauth.h). The
 * order matters: nothing a token says is believed before its signature is
 * checked with a key we fetched, and its header picks only among those keys
 * (never jku, x5u or an embedded jwk, which would let it bring its own). */
#include "mcp/oauth.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "mcp/base64.h"
#include "mcp/libs.h"
#include "util/buf.h"
#include "util/fail.h"
#include "util/os.h"

#define LEEWAY 60        /* seconds of clock skew allowed on exp and nbf */
#define REFETCH_AFTER 10 /* seconds between two fetches of the keys, at least */
#define KEYS_MAX_AGE 600 /* keys older than this are fetched again */
#define FETCH_MS 5000    /* a hung issuer holds one request this long at most */
#define KID_MAX 256
#define URL_MAX 1024
#define SCOPES_MAX 1024
#define WELL_KNOWN "/.well-known/oauth-protected-resource"

typedef enum { KTY_RSA, KTY_EC } key_type;

/* The algorithms accepted: asymmetric ones only, so a public key can never
 * be used as an HMAC secret; "none" is not among them. */
typedef struct {
  const char *alg, *digest;
  key_type type;
  const char *crv, *group; /* EC: the JWK's curve and OpenSSL's name */
  size_t half;             /* EC: bytes of r, of s, and of a coordinate */
} alg_info;

static const alg_info algs[] = {
    {"RS256", "SHA256", KTY_RSA, NULL, NULL, 0},           {"RS384", "SHA384", KTY_RSA, NULL, NULL, 0},
    {"RS512", "SHA512", KTY_RSA, NULL, NULL, 0},           {"ES256", "SHA256", KTY_EC, "P-256", "prime256v1", 32},
    {"ES384", "SHA384", KTY_EC, "P-384", "secp384r1", 48}, {"ES512", "SHA512", KTY_EC, "P-521", "secp521r1", 66},
};
#define N_ALGS (sizeof algs / sizeof algs[0])

typedef struct {
  char kid[KID_MAX + 1]; /* "": none */
  const alg_info *alg;   /* the key's own "alg", or NULL: any of its type */
  key_type type;
  const alg_info *curve; /* EC: the algorithm of its curve (JWA: ES256 for P-256...) */
  EVP_PKEY *pkey;
} jwk;

/* One JWKS document's keys. Replaced whole by a fetch; a verification
 * holds a reference so the keys it uses outlive the swap. */
typedef struct {
  unsigned refs; /* under the verifier's lock */
  size_t n;
  jwk keys[];
} keyset;

struct mcp_oauth {
  char issuer[URL_MAX], resource[URL_MAX], jwks[URL_MAX], claim[64];
  char scopes[SCOPES_MAX];
  char path[URL_MAX]; /* the resource URL's path ("" for /) */
  char metadata_url[URL_MAX + 64];
  char *metadata;       /* the RFC 9728 document */
  bool remote;          /* jwks is a URL */
  pthread_mutex_t lock; /* what follows */
  keyset *keys;         /* NULL until a fetch succeeds */
  bool tried, fetching;
  double tried_at, fetched_at; /* monotonic */
  char fetch_error[256];
};

/* ---- settings ------------------------------------------------------------ */

static bool loopback(const char *host, size_t n) {
  if (n == 9 && !strncasecmp(host, "localhost", 9)) return true;
  if (n == 5 && !memcmp(host, "[::1]", 5)) return true;
  return n >= 4 && !memcmp(host, "127.", 4) && strspn(host, "0123456789.") >= n;
}

/* scheme://host[:port][/path], no user, query or fragment; plain http only
 * to loopback, where no one can read or change it on the way. Sets *path to
 * where the path begins. */
static int check_url(const char *u, const char *what, const char **path, char *err, size_t errlen) {
  const char *host = !strncmp(u, "https://", 8) ? u + 8 : !strncmp(u, "http://", 7) ? u + 7 : NULL;
  if (!host) return wb_fail(err, errlen, -1, "%s: wants an https:// URL, not '%s'", what, u);
  if (strlen(u) >= URL_MAX) return wb_fail(err, errlen, -1, "%s: longer than %d bytes", what, URL_MAX - 1);
  for (const char *p = u; *p; p++)
    if (*p <= ' ' || *p > '~' || *p == '"' || *p == '\\' || *p == '#' || *p == '?' || *p == '@')
      return wb_fail(err, errlen, -1, "%s: '%s' holds a space, quote, user, query or fragment", what, u);
  size_t hlen = strcspn(host, "/");
  const char *colon = host[0] == '[' ? strstr(host, "]:") : memchr(host, ':', hlen);
  size_t name = colon && (size_t)(colon - host) < hlen ? (size_t)(colon - host) + (host[0] == '[') : hlen;
  if (!name) return wb_fail(err, errlen, -1, "%s: '%s' has no host", what, u);
  if (host == u + 7 && !loopback(host, name))
    return wb_fail(err, errlen, -1, "%s: plain http is accepted only on loopback; use https for '%s'", what, u);
  *path = host + hlen;
  return 0;
}

/* required scopes: words of letters, digits and ASCII punctuation */
static int check_scopes(const char *s, char *out, size_t n, char *err, size_t errlen) {
  size_t k = 0;
  for (const char *p = s; *p;) {
    size_t w = strcspn(p, " ,");
    for (size_t i = 0; i < w; i++)
      if (p[i] <= ' ' || p[i] > '~' || p[i] == '"' || p[i] == '\\')
        return wb_fail(err, errlen, -1, "--oauth-scopes: a scope is printable ASCII without quotes");
    if (w && k + w + 2 > n) return wb_fail(err, errlen, -1, "--oauth-scopes: longer than %zu bytes", n - 1);
    if (w) k += (size_t)snprintf(out + k, n - k, "%s%.*s", k ? " " : "", (int)w, p);
    p += w;
    p += strspn(p, " ,");
  }
  return 0;
}

static char *metadata_json(const mcp_oauth *o) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "resource", o->resource);
  cJSON *servers = cJSON_AddArrayToObject(m, "authorization_servers");
  cJSON *methods = cJSON_AddArrayToObject(m, "bearer_methods_supported");
  cJSON_AddItemToArray(servers, cJSON_CreateString(o->issuer));
  cJSON_AddItemToArray(methods, cJSON_CreateString("header"));
  if (o->scopes[0]) {
    cJSON *scopes = cJSON_AddArrayToObject(m, "scopes_supported");
    for (const char *p = o->scopes; *p;) {
      size_t w = strcspn(p, " ");
      char one[SCOPES_MAX];
      snprintf(one, sizeof one, "%.*s", (int)w, p);
      cJSON_AddItemToArray(scopes, cJSON_CreateString(one));
      p += w + (p[w] == ' ');
    }
  }
  cJSON_AddStringToObject(m, "resource_name", "wasmbox");
  char *s = cJSON_PrintUnformatted(m);
  cJSON_Delete(m);
  return s;
}

/* ---- keys -------------------------------------------------------------------- */

static void keyset_free(keyset *ks) {
  if (!ks) return;
  for (size_t i = 0; i < ks->n; i++) libcrypto.pkey_free(ks->keys[i].pkey);
  free(ks);
}

static keyset *take(mcp_oauth *o) {
  pthread_mutex_lock(&o->lock);
  keyset *ks = o->keys;
  if (ks) ks->refs++;
  pthread_mutex_unlock(&o->lock);
  return ks;
}

static void drop(mcp_oauth *o, keyset *ks) {
  if (!ks) return;
  pthread_mutex_lock(&o->lock);
  bool last = --ks->refs == 0;
  pthread_mutex_unlock(&o->lock);
  if (last) keyset_free(ks);
}

/* A public key from OSSL_PARAMs, checked (an RSA modulus and exponent in
 * range, an EC point on its curve) once here rather than trusted per token. */
static EVP_PKEY *from_params(const char *type, OSSL_PARAM *params) {
  EVP_PKEY *pk = NULL;
  EVP_PKEY_CTX *ctx = libcrypto.pkey_ctx_new_from_name(NULL, type, NULL);
  if (!ctx || libcrypto.pkey_fromdata_init(ctx) <= 0 ||
      libcrypto.pkey_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) <= 0)
    pk = NULL;
  libcrypto.pkey_ctx_free(ctx);
  if (pk) {
    EVP_PKEY_CTX *check = libcrypto.pkey_ctx_new_from_pkey(NULL, pk, NULL);
    if (!check || libcrypto.pkey_public_check(check) != 1) libcrypto.pkey_free(pk), pk = NULL;
    libcrypto.pkey_ctx_free(check);
  }
  libcrypto.err_clear_error(); /* failures are answered here, not left in the thread's queue */
  return pk;
}

/* a member's base64url bytes, between min and max long */
static unsigned char *b64_member(const cJSON *k, const char *name, size_t min, size_t max, size_t *len) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(k, name);
  if (!cJSON_IsString(v) || strlen(v->valuestring) > max / 3 * 4 + 4) return NULL;
  unsigned char *d = b64url_decode(v->valuestring, strlen(v->valuestring), len);
  if (d && (*len < min || *len > max)) free(d), d = NULL;
  return d;
}

/* OSSL_PARAM integers are in the machine's byte order, JWK's big-endian */
static void native_order(unsigned char *p, size_t n) {
  const uint16_t one = 1;
  if (!*(const unsigned char *)&one) return;
  for (size_t i = 0; i < n / 2; i++) {
    unsigned char t = p[i];
    p[i] = p[n - 1 - i], p[n - 1 - i] = t;
  }
}

static EVP_PKEY *rsa_key(const cJSON *k) {
  size_t nlen, elen;
  unsigned char *n = b64_member(k, "n", 1, 512, &nlen), *e = b64_member(k, "e", 1, 8, &elen);
  EVP_PKEY *pk = NULL;
  if (n && e) {
    native_order(n, nlen), native_order(e, elen);
    OSSL_PARAM params[] = {OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_N, n, nlen), OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_E, e, elen),
                           OSSL_PARAM_END};
    pk = from_params("RSA", params);
    /* shorter moduli are forgeable in practice; longer ones (4096 bits at
       most, above) cost time to check */
    if (pk && libcrypto.pkey_get_bits(pk) < 2048) libcrypto.pkey_free(pk), pk = NULL;
  }
  free(n), free(e);
  return pk;
}

static EVP_PKEY *ec_key(const cJSON *k, const alg_info *curve) {
  size_t xlen, ylen;
  unsigned char *x = b64_member(k, "x", curve->half, curve->half, &xlen);
  unsigned char *y = b64_member(k, "y", curve->half, curve->half, &ylen);
  unsigned char point[1 + 2 * 66];
  EVP_PKEY *pk = NULL;
  if (x && y) {
    point[0] = 4; /* uncompressed: x then y */
    memcpy(point + 1, x, xlen), memcpy(point + 1 + xlen, y, ylen);
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)curve->group, 0),
                           OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, 1 + xlen + ylen), OSSL_PARAM_END};
    pk = from_params("EC", params);
  }
  free(x), free(y);
  return pk;
}

static const alg_info *alg_named(const char *name) {
  for (size_t i = 0; i < N_ALGS; i++)
    if (!strcmp(algs[i].alg, name)) return &algs[i];
  return NULL;
}

static bool printable(const char *s, size_t max) {
  size_t n = strlen(s);
  if (!n || n > max) return false;
  for (; *s; s++)
    if (*s <= ' ' || *s > '~') return false;
  return true;
}

/* One JWKS entry: true when it is a signing key we can use. Others (oct,
 * OKP, encryption keys, short RSA) are passed over, not fatal: an issuer's
 * JWKS may well hold them. */
static bool parse_jwk(const cJSON *k, jwk *out) {
  const cJSON *kty = cJSON_GetObjectItemCaseSensitive(k, "kty"), *use = cJSON_GetObjectItemCaseSensitive(k, "use");
  const cJSON *alg = cJSON_GetObjectItemCaseSensitive(k, "alg"), *kid = cJSON_GetObjectItemCaseSensitive(k, "kid");
  const cJSON *crv = cJSON_GetObjectItemCaseSensitive(k, "crv"), *ops = cJSON_GetObjectItemCaseSensitive(k, "key_ops");
  memset(out, 0, sizeof *out);
  if (!cJSON_IsObject(k) || !cJSON_IsString(kty)) return false;
  if (use && !(cJSON_IsString(use) && !strcmp(use->valuestring, "sig"))) return false;
  if (ops) {
    bool verify = false;
    for (const cJSON *op = cJSON_IsArray(ops) ? ops->child : NULL; op; op = op->next)
      verify |= cJSON_IsString(op) && !strcmp(op->valuestring, "verify");
    if (!verify) return false;
  }
  if (kid && !(cJSON_IsString(kid) && printable(kid->valuestring, KID_MAX))) return false;
  if (kid) snprintf(out->kid, sizeof out->kid, "%s", kid->valuestring);
  if (alg && !(cJSON_IsString(alg) && (out->alg = alg_named(alg->valuestring)))) return false;
  if (!strcmp(kty->valuestring, "RSA")) {
    out->type = KTY_RSA;
    if (out->alg && out->alg->type != KTY_RSA) return false;
    out->pkey = rsa_key(k);
  } else if (!strcmp(kty->valuestring, "EC") && cJSON_IsString(crv)) {
    out->type = KTY_EC;
    for (size_t i = 0; i < N_ALGS; i++)
      if (algs[i].crv && !strcmp(algs[i].crv, crv->valuestring)) out->curve = &algs[i];
    if (!out->curve || (out->alg && out->alg != out->curve)) return false;
    out->pkey = ec_key(k, out->curve);
  }
  return out->pkey != NULL;
}

int mcp_oauth_set_jwks(mcp_oauth *o, const char *text, size_t len, char *err, size_t errlen) {
  if (len > MCP_OAUTH_JWKS_MAX) return wb_fail(err, errlen, -1, "the JWKS is larger than 1 MiB");
  cJSON *doc = cJSON_ParseWithLength(text, len);
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "keys");
  if (!cJSON_IsObject(doc) || !cJSON_IsArray(list)) {
    cJSON_Delete(doc);
    return wb_fail(err, errlen, -1, "not a JWKS (a JSON object with a \"keys\" array)");
  }
  keyset *ks = calloc(1, sizeof *ks + MCP_OAUTH_KEYS_MAX * sizeof(jwk));
  if (!ks) return cJSON_Delete(doc), wb_fail(err, errlen, -1, "out of memory");
  size_t seen = 0;
  /* an entry costs a key check (a primality test for RSA): so many at most */
  for (const cJSON *k = list->child; k && ks->n < MCP_OAUTH_KEYS_MAX && seen < 4 * MCP_OAUTH_KEYS_MAX;
       k = k->next, seen++)
    if (parse_jwk(k, &ks->keys[ks->n])) ks->n++;
  cJSON_Delete(doc);
  if (!ks->n) {
    free(ks);
    return wb_fail(err, errlen, -1,
                   "no usable key among the JWKS's first %zu (signing keys: RSA of 2048 to 4096 bits, EC P-256, "
                   "P-384 or P-521)",
                   seen);
  }
  ks->refs = 1; /* the verifier's */
  pthread_mutex_lock(&o->lock);
  keyset *old = o->keys;
  o->keys = ks;
  o->fetched_at = wb_monotonic_s();
  o->fetch_error[0] = 0;
  pthread_mutex_unlock(&o->lock);
  drop(o, old);
  return 0;
}

/* ---- fetching the keys ---------------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t n, void *ctx) {
  wb_buf *b = ctx;
  if (b->len + size * n > MCP_OAUTH_JWKS_MAX) return 0; /* curl stops: CURLE_WRITE_ERROR */
  wb_buf_append(b, p, size * n);
  return b->failed ? 0 : size * n;
}

static int fetch_url(const char *url, wb_buf *body, char *err, size_t errlen) {
  if (!libcurl_load(err, errlen)) return -1;
  CURL *e = libcurl.easy_init();
  if (!e) return wb_fail(err, errlen, -1, "cannot make an HTTP client");
  struct curl_slist *h = libcurl.slist_append(NULL, "Accept: application/jwk-set+json, application/json");
  libcurl.easy_setopt(e, CURLOPT_URL, url);
  libcurl.easy_setopt(e, CURLOPT_HTTPHEADER, h);
  libcurl.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  libcurl.easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)FETCH_MS);
  libcurl.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)FETCH_MS);
  libcurl.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  libcurl.easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L); /* the URL the operator gave, not one it points to */
  libcurl.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  libcurl.easy_setopt(e, CURLOPT_WRITEDATA, body);
  CURLcode rc = libcurl.easy_perform(e);
  long status = 0;
  libcurl.easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  libcurl.easy_cleanup(e);
  libcurl.slist_free_all(h);
  if (rc == CURLE_WRITE_ERROR && !body->failed) return wb_fail(err, errlen, -1, "%s: larger than 1 MiB", url);
  if (rc == CURLE_OPERATION_TIMEDOUT)
    return wb_fail(err, errlen, -1, "%s: no answer within %d s", url, FETCH_MS / 1000);
  if (rc != CURLE_OK) return wb_fail(err, errlen, -1, "%s: %s", url, libcurl.easy_strerror(rc));
  if (status != 200) return wb_fail(err, errlen, -1, "%s: HTTP status %ld", url, status);
  return 0;
}

static int read_file(const char *path, wb_buf *body, char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return wb_fail(err, errlen, -1, "%s: %s", path, strerror(e));
  }
  /* whoever can write it chooses the keys, and so every identity */
  if (!S_ISREG(st.st_mode) || (st.st_mode & S_IWOTH) || st.st_size > MCP_OAUTH_JWKS_MAX) {
    close(fd);
    return wb_fail(err, errlen, -1, "%s: %s", path,
                   !S_ISREG(st.st_mode)   ? "not a regular file"
                   : st.st_mode & S_IWOTH ? "writable by others: chmod o-w it (it decides who may call)"
                                          : "larger than 1 MiB");
  }
  char chunk[65536];
  ssize_t n = 0;
  while (body->len <= MCP_OAUTH_JWKS_MAX && ((n = read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)))
    if (n > 0) wb_buf_append(body, chunk, (size_t)n);
  int e = errno;
  close(fd);
  if (n < 0) return wb_fail(err, errlen, -1, "%s: %s", path, strerror(e));
  if (body->len > MCP_OAUTH_JWKS_MAX) return wb_fail(err, errlen, -1, "%s: larger than 1 MiB", path);
  return 0;
}

/* Fetch the keys again unless one was fetched less than REFETCH_AFTER ago
 * or a fetch is under way: a flood of tokens with made-up kids costs the
 * issuer one request per 10 s, and no request waits for another's fetch. */
static void refetch(mcp_oauth *o) {
  double now = wb_monotonic_s();
  pthread_mutex_lock(&o->lock);
  bool go = !o->fetching && (!o->tried || now - o->tried_at >= REFETCH_AFTER);
  if (go) o->fetching = o->tried = true, o->tried_at = now;
  pthread_mutex_unlock(&o->lock);
  if (!go) return;
  wb_buf body = {0};
  char err[256];
  int rc = o->remote ? fetch_url(o->jwks, &body, err, sizeof err) : read_file(o->jwks, &body, err, sizeof err);
  if (!rc && body.failed) rc = wb_fail(err, sizeof err, -1, "out of memory");
  if (!rc && mcp_oauth_set_jwks(o, body.data ? body.data : "", body.len, err, sizeof err)) {
    char why[256];
    snprintf(why, sizeof why, "%s", err);
    rc = wb_fail(err, sizeof err, -1, "%s: %s", o->jwks, why);
  }
  wb_buf_free(&body);
  pthread_mutex_lock(&o->lock);
  o->fetching = false;
  if (rc) snprintf(o->fetch_error, sizeof o->fetch_error, "%s", err);
  pthread_mutex_unlock(&o->lock);
}

/* ---- the verifier ------------------------------------------------------------------ */

int mcp_oauth_new(const mcp_oauth_settings *s, mcp_oauth **out, char *err, size_t errlen) {
  *out = NULL;
  const char *path, *ignored;
  if (check_url(s->issuer, "--oauth-issuer", &ignored, err, errlen) ||
      check_url(s->resource, "--oauth-resource", &path, err, errlen))
    return -1;
  const char *claim = s->claim && *s->claim ? s->claim : "sub";
  if (!printable(claim, 63)) return wb_fail(err, errlen, -1, "--oauth-claim: a claim name of 1 to 63 characters");
  mcp_oauth *o = calloc(1, sizeof *o);
  if (!o) return wb_fail(err, errlen, -1, "out of memory");
  pthread_mutex_init(&o->lock, NULL);
  snprintf(o->issuer, sizeof o->issuer, "%s", s->issuer);
  snprintf(o->resource, sizeof o->resource, "%s", s->resource);
  snprintf(o->claim, sizeof o->claim, "%s", claim);
  /* RFC 9728 section 3.1: the well-known path goes between the host and the
     resource's path, without a slash at its end */
  snprintf(o->path, sizeof o->path, "%s", path);
  if (o->path[0] && o->path[strlen(o->path) - 1] == '/') o->path[strlen(o->path) - 1] = 0;
  snprintf(o->metadata_url, sizeof o->metadata_url, "%.*s" WELL_KNOWN "%s", (int)(path - s->resource), s->resource,
           o->path);
  o->remote = !strncmp(s->jwks, "https://", 8) || !strncmp(s->jwks, "http://", 7);
  snprintf(o->jwks, sizeof o->jwks, "%s", s->jwks);
  int rc = s->scopes ? check_scopes(s->scopes, o->scopes, sizeof o->scopes, err, errlen) : 0;
  if (!rc && strlen(s->jwks) >= URL_MAX)
    rc = wb_fail(err, errlen, -1, "--oauth-jwks: longer than %d bytes", URL_MAX - 1);
  if (!rc && o->remote) rc = check_url(s->jwks, "--oauth-jwks", &ignored, err, errlen);
  if (!rc && !libcrypto_load(err, errlen)) rc = -1;
  if (!rc && !(o->metadata = metadata_json(o))) rc = wb_fail(err, errlen, -1, "out of memory");
  if (!rc) refetch(o);
  /* a file is the operator's own: wrong, it is a setting to fix */
  if (!rc && !o->remote && !o->keys) rc = wb_fail(err, errlen, -1, "--oauth-jwks %s", o->fetch_error);
  if (rc) return mcp_oauth_free(o), -1;
  *out = o;
  return 0;
}

void mcp_oauth_free(mcp_oauth *o) {
  if (!o) return;
  keyset_free(o->keys);
  free(o->metadata);
  pthread_mutex_destroy(&o->lock);
  free(o);
}

bool mcp_oauth_ready(mcp_oauth *o, char *why, size_t n) {
  pthread_mutex_lock(&o->lock);
  bool ok = o->keys != NULL;
  if (!ok) snprintf(why, n, "%s", o->fetch_error);
  pthread_mutex_unlock(&o->lock);
  return ok;
}

/* A JSON object with each member once: with two "aud" members, one reader
 * would check the first and another use the last. */
static cJSON *json_part(const char *s, size_t n, const char *what, char *why, size_t whylen) {
  size_t len;
  char *text = b64url_decode(s, n, &len);
  cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  bool ok = cJSON_IsObject(j);
  for (const cJSON *a = ok ? j->child : NULL; a && ok; a = a->next)
    for (const cJSON *b = a->next; b && ok; b = b->next) ok = strcmp(a->string, b->string) != 0;
  if (!ok) {
    snprintf(why, whylen, "its %s is not base64url of a JSON object with distinct members", what);
    cJSON_Delete(j);
    return NULL;
  }
  return j;
}

static const char *string_member(const cJSON *j, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The header: an algorithm we accept, no extension we would have to
 * understand (crit), a plain kid. */
static const alg_info *check_header(const cJSON *h, const char **kid, char *why, size_t whylen) {
  const char *alg = string_member(h, "alg"), *typ = string_member(h, "typ");
  const alg_info *a = alg ? alg_named(alg) : NULL;
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(h, "kid");
  *kid = NULL;
  if (!a && alg && (!strcasecmp(alg, "none") || !strncmp(alg, "HS", 2)))
    snprintf(why, whylen, "alg %s is never accepted (only signatures by the issuer's public keys)",
             !strcasecmp(alg, "none") ? "none" : "HS*");
  else if (!a) snprintf(why, whylen, "its alg is not one of RS256, RS384, RS512, ES256, ES384, ES512");
  else if (cJSON_GetObjectItemCaseSensitive(h, "typ") &&
           !(typ && (!strcasecmp(typ, "JWT") || !strcasecmp(typ, "at+jwt") || !strcasecmp(typ, "application/at+jwt"))))
    snprintf(why, whylen, "its typ is not JWT or at+jwt");
  else if (cJSON_GetObjectItemCaseSensitive(h, "crit"))
    snprintf(why, whylen, "it has critical header parameters (crit), which this server does not know");
  else if (k && !(cJSON_IsString(k) && printable(k->valuestring, KID_MAX)))
    snprintf(why, whylen, "its kid is not 1 to %d printable characters", KID_MAX);
  else return *kid = k ? k->valuestring : NULL, a;
  return NULL;
}

/* JWS carries an ECDSA signature as r and s, each the curve's size; OpenSSL
 * checks the DER form. NULL when it does not have that size. */
static unsigned char *ecdsa_der(const unsigned char *sig, size_t n, size_t half, size_t *len) {
  if (n != 2 * half) return NULL;
  ECDSA_SIG *s = libcrypto.ecdsa_sig_new();
  BIGNUM *r = libcrypto.bn_bin2bn(sig, (int)half, NULL), *t = libcrypto.bn_bin2bn(sig + half, (int)half, NULL);
  if (!s || !r || !t || !libcrypto.ecdsa_sig_set0(s, r, t)) {
    libcrypto.bn_free(r), libcrypto.bn_free(t), libcrypto.ecdsa_sig_free(s);
    return NULL;
  }
  int k = libcrypto.i2d_ecdsa_sig(s, NULL);
  unsigned char *der = k > 0 ? malloc((size_t)k) : NULL, *p = der;
  if (der && libcrypto.i2d_ecdsa_sig(s, &p) != k) free(der), der = NULL;
  libcrypto.ecdsa_sig_free(s);
  *len = (size_t)k;
  return der;
}

static bool signed_by(const jwk *k, const alg_info *a, const char *input, size_t n, const unsigned char *sig,
                      size_t siglen) {
  unsigned char *der = NULL;
  if (a->type == KTY_EC && !(der = ecdsa_der(sig, siglen, a->half, &siglen))) return false;
  EVP_MD_CTX *md = libcrypto.md_ctx_new();
  bool ok = md && libcrypto.digest_verify_init_ex(md, NULL, a->digest, NULL, NULL, k->pkey, NULL) == 1 &&
            libcrypto.digest_verify(md, der ? der : sig, siglen, (const unsigned char *)input, n) == 1;
  libcrypto.md_ctx_free(md);
  libcrypto.err_clear_error();
  free(der);
  return ok;
}

/* the key may sign with this algorithm: same type and curve, and its own
 * alg, if it names one, is this one */
static bool fits(const jwk *k, const alg_info *a, const char *kid) {
  if (kid && strcmp(k->kid, kid)) return false;
  if (k->type != a->type || (k->alg && k->alg != a)) return false;
  return a->type != KTY_EC || k->curve == a; /* ES256 is P-256's, and so on */
}

/* 1: a key with this kid (or any key that fits, without kid) signed it; 0:
 * one fits but none signed it; -1: none fits */
static int check_signature(keyset *ks, const alg_info *a, const char *kid, const char *input, size_t n,
                           const unsigned char *sig, size_t siglen) {
  int found = -1;
  for (size_t i = 0; ks && i < ks->n; i++) {
    if (!fits(&ks->keys[i], a, kid)) continue;
    if (signed_by(&ks->keys[i], a, input, n, sig, siglen)) return 1;
    found = 0;
  }
  return found;
}

static mcp_oauth_verdict keys_verdict(mcp_oauth *o, const alg_info *a, const char *kid, const char *input, size_t n,
                                      const unsigned char *sig, size_t siglen, char *why, size_t whylen) {
  keyset *ks = take(o);
  pthread_mutex_lock(&o->lock);
  bool stale = ks && wb_monotonic_s() - o->fetched_at > KEYS_MAX_AGE;
  pthread_mutex_unlock(&o->lock);
  int r = stale ? -1 : check_signature(ks, a, kid, input, n, sig, siglen);
  if (r < 0) { /* an unknown kid may be a key rotated in since: fetch again */
    drop(o, ks);
    refetch(o);
    ks = take(o);
    r = check_signature(ks, a, kid, input, n, sig, siglen);
  }
  if (!ks) {
    char err[256];
    mcp_oauth_ready(o, err, sizeof err);
    snprintf(why, whylen, "the issuer's keys could not be loaded (%s); retry later", err[0] ? err : "not yet fetched");
  } else if (r < 0 && kid) {
    snprintf(why, whylen, "no key with its kid \"%.64s\" in the issuer's JWKS", kid);
  } else if (r < 0) {
    snprintf(why, whylen, "no key in the issuer's JWKS fits its alg %s", a->alg);
  } else if (r == 0) {
    snprintf(why, whylen, "its signature does not verify");
  }
  drop(o, ks);
  return !ks ? MCP_OAUTH_UNAVAILABLE : r == 1 ? MCP_OAUTH_OK : MCP_OAUTH_INVALID;
}

static bool has_word(const char *list, const char *w, size_t n) {
  for (const char *p = list; *p;) {
    size_t k = strcspn(p, " ");
    if (k == n && !memcmp(p, w, n)) return true;
    p += k + strspn(p + k, " ");
  }
  return false;
}

/* every required scope in "scope" (RFC 9068: space-separated) or "scp"
 * (a list or a string, as some issuers write it) */
static bool scopes_granted(const mcp_oauth *o, const cJSON *c) {
  const char *scope = string_member(c, "scope"), *scp = string_member(c, "scp");
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(c, "scp");
  for (const char *p = o->scopes; *p;) {
    size_t n = strcspn(p, " ");
    bool ok = (scope && has_word(scope, p, n)) || (scp && has_word(scp, p, n));
    for (const cJSON *e = cJSON_IsArray(list) ? list->child : NULL; e && !ok; e = e->next)
      ok = cJSON_IsString(e) && strlen(e->valuestring) == n && !memcmp(e->valuestring, p, n);
    if (!ok) return false;
    p += n + (p[n] == ' ');
  }
  return true;
}

static bool audience_is(const cJSON *aud, const char *resource) {
  if (cJSON_IsString(aud)) return !strcmp(aud->valuestring, resource);
  for (const cJSON *e = cJSON_IsArray(aud) ? aud->child : NULL; e; e = e->next)
    if (cJSON_IsString(e) && !strcmp(e->valuestring, resource)) return true;
  return false;
}

static mcp_oauth_verdict check_claims(const mcp_oauth *o, const cJSON *c, double now, char *subject, char *why,
                                      size_t whylen) {
  const cJSON *exp = cJSON_GetObjectItemCaseSensitive(c, "exp"), *nbf = cJSON_GetObjectItemCaseSensitive(c, "nbf");
  const char *iss = string_member(c, "iss"), *id = string_member(c, o->claim);
  if (!cJSON_IsNumber(exp)) snprintf(why, whylen, "it has no exp (expiry time)");
  else if (now > exp->valuedouble + LEEWAY) snprintf(why, whylen, "it expired");
  else if (nbf && !cJSON_IsNumber(nbf)) snprintf(why, whylen, "its nbf is not a number");
  else if (nbf && now + LEEWAY < nbf->valuedouble) snprintf(why, whylen, "it is not valid yet (nbf)");
  else if (!iss || strcmp(iss, o->issuer)) snprintf(why, whylen, "its issuer (iss) is not %s", o->issuer);
  else if (!audience_is(cJSON_GetObjectItemCaseSensitive(c, "aud"), o->resource))
    snprintf(why, whylen, "its audience (aud) is not %s", o->resource);
  else if (!id || !printable(id, MCP_OAUTH_SUBJECT_MAX - 1))
    snprintf(why, whylen, "its %s claim is not 1 to %d printable ASCII characters without spaces", o->claim,
             MCP_OAUTH_SUBJECT_MAX - 1);
  else if (o->scopes[0] && !scopes_granted(o, c))
    return snprintf(why, whylen, "it lacks a required scope (%s)", o->scopes), MCP_OAUTH_SCOPE;
  else return snprintf(subject, MCP_OAUTH_SUBJECT_MAX, "%s", id), MCP_OAUTH_OK;
  return MCP_OAUTH_INVALID;
}

mcp_oauth_verdict mcp_oauth_verify(mcp_oauth *o, const char *token, double now, char *subject, char *why,
                                   size_t whylen) {
  subject[0] = 0;
  size_t len = strnlen(token, MCP_OAUTH_TOKEN_MAX + 1);
  const char *dot1 = memchr(token, '.', len),
             *dot2 = dot1 ? memchr(dot1 + 1, '.', len - (size_t)(dot1 + 1 - token)) : NULL;
  if (len > MCP_OAUTH_TOKEN_MAX)
    return snprintf(why, whylen, "it is longer than %d bytes", MCP_OAUTH_TOKEN_MAX), MCP_OAUTH_INVALID;
  if (!dot2 || memchr(dot2 + 1, '.', len - (size_t)(dot2 + 1 - token)) || dot1 == token || dot2 == dot1 + 1 || !dot2[1])
    return snprintf(why, whylen, "it is not a signed JWT (three base64url parts)"), MCP_OAUTH_INVALID;
  cJSON *header = json_part(token, (size_t)(dot1 - token), "header", why, whylen), *claims = NULL;
  const char *kid;
  const alg_info *a = header ? check_header(header, &kid, why, whylen) : NULL;
  size_t siglen;
  unsigned char *sig = a ? b64url_decode(dot2 + 1, len - (size_t)(dot2 + 1 - token), &siglen) : NULL;
  mcp_oauth_verdict v = MCP_OAUTH_INVALID;
  if (a && !sig) snprintf(why, whylen, "its signature is not base64url");
  else if (a) v = keys_verdict(o, a, kid, token, (size_t)(dot2 - token), sig, siglen, why, whylen);
  /* the claims only once the issuer's key vouches for them */
  if (v == MCP_OAUTH_OK && (claims = json_part(dot1 + 1, (size_t)(dot2 - dot1 - 1), "payload", why, whylen)))
    v = check_claims(o, claims, now, subject, why, whylen);
  else if (v == MCP_OAUTH_OK) v = MCP_OAUTH_INVALID;
  cJSON_Delete(header);
  cJSON_Delete(claims);
  free(sig);
  return v;
}

/* ---- what clients are told ------------------------------------------------------- */

void mcp_oauth_challenge(const mcp_oauth *o, const char *error, const char *description, char *out, size_t n) {
  int k = snprintf(out, n, "Bearer resource_metadata=\"%s\"", o->metadata_url);
  if (o->scopes[0] && k > 0 && (size_t)k < n) k += snprintf(out + k, n - (size_t)k, ", scope=\"%s\"", o->scopes);
  if (!error || k < 0 || (size_t)k >= n) return;
  k += snprintf(out + k, n - (size_t)k, ", error=\"%s\"", error);
  if (!description || !*description || (size_t)k + 24 >= n) return;
  k += snprintf(out + k, n - (size_t)k, ", error_description=\"");
  /* RFC 6750: printable ASCII without '"' and '\' */
  for (const char *p = description; *p && (size_t)k + 2 < n; p++)
    out[k++] = *p < ' ' || *p > '~' || *p == '"' || *p == '\\' ? '\'' : *p;
  out[k++] = '"';
  out[k] = 0;
}

bool mcp_oauth_metadata_path(const mcp_oauth *o, const char *path) {
  if (strncmp(path, WELL_KNOWN, sizeof WELL_KNOWN - 1)) return false;
  path += sizeof WELL_KNOWN - 1;
  return !*path || !strcmp(path, "/mcp") || !strcmp(path, o->path);
}

char *mcp_oauth_metadata(const mcp_oauth *o) { return strdup(o->metadata); }
