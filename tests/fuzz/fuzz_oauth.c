/* libFuzzer: OAuth access tokens and the issuer's keys (mcp/oauth.c) as an
 * attacker or a broken authorization server writes them. At start the
 * harness makes an RSA and an EC P-256 key (kids "r" and "e"), writes their
 * JWKS to a file and makes a verifier on it. The first byte picks:
 *   0: the rest is a bearer token, verified as is;
 *   1: the rest is a JWKS document that replaces the keys (then a token
 *      signed by "r" is verified, and the harness's keys come back);
 *   2: the rest is a JOSE header and a payload (JSON, split at the first
 *      NUL byte) that the harness encodes and signs with key "r" (second
 *      byte even) or "e" (odd), so that mutations reach the claim checks
 *      behind the signature;
 *   3: the rest is a reason that mcp_oauth_challenge() quotes.
 * Properties beyond "no crash, leak or UB": a token made up without a key
 * (mode 0) is never accepted; an accepted token (mode 2) names the issuer,
 * the audience, an unexpired time and the subject it was given; a challenge
 * is one line with balanced quotes. libcrypto is linked here for signing;
 * the server opens the same library at run time. */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "mcp/base64.h"
#include "mcp/oauth.h"

#define ISSUER "https://issuer.example"
#define RESOURCE "https://mcp.example/mcp"
#define NOW 1750000000.0

static mcp_oauth *verifier;
static EVP_PKEY *rsa_key, *ec_key;
static char *jwks_text, *signed_token;

static void check(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_oauth: %s\n", what);
  abort();
}

/* base64url without padding, from base64 */
static char *b64url(const void *p, size_t n) {
  char *s = b64_encode(p, n);
  check(s != NULL, "out of memory");
  for (char *c = s; *c; c++) *c = *c == '+' ? '-' : *c == '/' ? '_' : *c;
  s[strcspn(s, "=")] = 0;
  return s;
}

static char *bn_member(EVP_PKEY *k, const char *name, size_t pad) {
  BIGNUM *bn = NULL;
  check(EVP_PKEY_get_bn_param(k, name, &bn) == 1, "a key's number");
  unsigned char buf[512];
  size_t n = pad ? pad : (size_t)BN_num_bytes(bn);
  check(BN_bn2binpad(bn, buf, (int)n) == (int)n, "a key's bytes");
  BN_free(bn);
  return b64url(buf, n);
}

static char *make_jwks(void) {
  char *n = bn_member(rsa_key, OSSL_PKEY_PARAM_RSA_N, 0), *e = bn_member(rsa_key, OSSL_PKEY_PARAM_RSA_E, 0);
  char *x = bn_member(ec_key, OSSL_PKEY_PARAM_EC_PUB_X, 32), *y = bn_member(ec_key, OSSL_PKEY_PARAM_EC_PUB_Y, 32);
  char *out = malloc(2048);
  check(out != NULL, "out of memory");
  snprintf(out, 2048,
           "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"r\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\"%s\",\"e\":\"%s\"},"
           "{\"kty\":\"EC\",\"kid\":\"e\",\"crv\":\"P-256\",\"x\":\"%s\",\"y\":\"%s\"}]}",
           n, e, x, y);
  free(n), free(e), free(x), free(y);
  return out;
}

/* JWS: RS256 as PKCS #1 v1.5, ES256 as r || s of 32 bytes each */
static char *sign(EVP_PKEY *k, const char *input) {
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  unsigned char sig[512], raw[64];
  size_t n = sizeof sig;
  check(md && EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, k, NULL) == 1 &&
            EVP_DigestSign(md, sig, &n, (const unsigned char *)input, strlen(input)) == 1,
        "signing");
  EVP_MD_CTX_free(md);
  if (k == rsa_key) return b64url(sig, n);
  const unsigned char *p = sig;
  ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)n);
  check(
      es && BN_bn2binpad(ECDSA_SIG_get0_r(es), raw, 32) == 32 && BN_bn2binpad(ECDSA_SIG_get0_s(es), raw + 32, 32) == 32,
      "an ECDSA signature");
  ECDSA_SIG_free(es);
  return b64url(raw, 64);
}

static char *make_token(EVP_PKEY *k, const char *header, size_t hlen, const char *payload, size_t plen) {
  char *h = b64url(header, hlen), *p = b64url(payload, plen);
  size_t n = strlen(h) + strlen(p) + 2;
  char *input = malloc(n);
  check(input != NULL, "out of memory");
  snprintf(input, n, "%s.%s", h, p);
  char *s = sign(k, input), *token = malloc(n + strlen(s) + 1);
  check(token != NULL, "out of memory");
  snprintf(token, n + strlen(s) + 1, "%s.%s", input, s);
  free(h), free(p), free(input), free(s);
  return token;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  rsa_key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
  ec_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  check(rsa_key && ec_key, "key generation");
  jwks_text = make_jwks();
  char path[64];
  snprintf(path, sizeof path, "/tmp/wasmbox-fuzz-jwks-%d.json", (int)getpid());
  FILE *f = fopen(path, "w");
  check(f && fputs(jwks_text, f) >= 0 && fclose(f) == 0, "cannot write the JWKS");
  mcp_oauth_settings s = {.issuer = ISSUER, .jwks = path, .resource = RESOURCE, .scopes = "mcp"};
  char err[512];
  int rc = mcp_oauth_new(&s, &verifier, err, sizeof err);
  unlink(path); /* read at start; a refetch (unknown kid) then fails and keeps the keys */
  if (rc) {
    fprintf(stderr, "fuzz_oauth: %s\n", err);
    exit(1);
  }
  static const char header[] = "{\"alg\":\"RS256\",\"kid\":\"r\"}";
  static const char claims[] =
      "{\"iss\":\"" ISSUER "\",\"aud\":\"" RESOURCE "\",\"sub\":\"s\",\"exp\":2e9,\"scope\":\"mcp\"}";
  signed_token = make_token(rsa_key, header, sizeof header - 1, claims, sizeof claims - 1);
  char subject[MCP_OAUTH_SUBJECT_MAX], why[256];
  check(mcp_oauth_verify(verifier, signed_token, NOW, subject, why, sizeof why) == MCP_OAUTH_OK, why);
  return 0;
}

/* an accepted token says what the verifier promises */
static void accepted(const char *payload, size_t n, const char *subject) {
  cJSON *c = cJSON_ParseWithLength(payload, n);
  const cJSON *iss = cJSON_GetObjectItemCaseSensitive(c, "iss"), *exp = cJSON_GetObjectItemCaseSensitive(c, "exp");
  const cJSON *sub = cJSON_GetObjectItemCaseSensitive(c, "sub"), *aud = cJSON_GetObjectItemCaseSensitive(c, "aud");
  check(cJSON_IsString(iss) && !strcmp(iss->valuestring, ISSUER), "accepted another issuer");
  check(cJSON_IsNumber(exp) && exp->valuedouble >= NOW - 60, "accepted an expired token");
  check(cJSON_IsString(sub) && !strcmp(sub->valuestring, subject) && strlen(subject) < MCP_OAUTH_SUBJECT_MAX,
        "a subject other than the token's");
  for (const char *p = subject; *p; p++) check(*p > ' ' && *p <= '~', "a subject not printable");
  bool aud_ok = cJSON_IsString(aud) && !strcmp(aud->valuestring, RESOURCE);
  for (const cJSON *a = cJSON_IsArray(aud) ? aud->child : NULL; a; a = a->next)
    aud_ok |= cJSON_IsString(a) && !strcmp(a->valuestring, RESOURCE);
  check(aud_ok, "accepted another audience");
  cJSON_Delete(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > 16384) return 0;
  char subject[MCP_OAUTH_SUBJECT_MAX], why[256], err[256];
  char *text = malloc(size);
  check(text != NULL, "out of memory");
  memcpy(text, data + 1, size - 1);
  text[size - 1] = 0;
  switch (data[0] & 3) {
    case 0:
      check(mcp_oauth_verify(verifier, text, NOW, subject, why, sizeof why) != MCP_OAUTH_OK,
            "accepted a token no key signed");
      break;
    case 1:
      if (!mcp_oauth_set_jwks(verifier, text, size - 1, err, sizeof err)) {
        mcp_oauth_verify(verifier, signed_token, NOW, subject, why, sizeof why);
        check(!mcp_oauth_set_jwks(verifier, jwks_text, strlen(jwks_text), err, sizeof err), "the keys back");
      }
      break;
    case 2: {
      if (size < 3) break;
      const char *header = text + 1, *nul = memchr(header, 0, size - 2);
      size_t hlen = nul ? (size_t)(nul - header) : size - 2;
      const char *payload = nul ? nul + 1 : "";
      size_t plen = nul ? size - 2 - hlen - 1 : 0;
      char *token = make_token(text[0] & 1 ? ec_key : rsa_key, header, hlen, payload, plen);
      if (mcp_oauth_verify(verifier, token, NOW, subject, why, sizeof why) == MCP_OAUTH_OK)
        accepted(payload, plen, subject);
      free(token);
      break;
    }
    default: {
      char out[1600];
      mcp_oauth_challenge(verifier, "invalid_token", text, out, sizeof out);
      size_t quotes = 0;
      for (const char *p = out; *p; p++) {
        check(*p >= ' ' && *p <= '~', "a challenge with a control character");
        quotes += *p == '"';
      }
      check(quotes % 2 == 0, "a challenge with unbalanced quotes");
    }
  }
  free(text);
  return 0;
}
