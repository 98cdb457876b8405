/* Shared libraries opened when first needed instead of linked into the
 * binary: libmicrohttpd (wasmbox serve), libcurl (HTTP upstreams, an OAuth
 * issuer's keys) and libcrypto (the tool audit's hashes, signed session ids,
 * OAuth access tokens' signatures) bring GnuTLS, OpenSSL, Kerberos, LDAP
 * and a dozen more libraries whose loading would cost every `wasmbox run`
 * about 3 ms. libX_load() opens one once (thread-safe, idempotent); after
 * it returns true, its functions are callable as libX.NAME(...). A function
 * missing from the library fails the load, never a call; the error names
 * the Debian package. The sonames are the ones the -dev headers we compile
 * against describe. */
#ifndef WASMBOX_MCP_LIBS_H
#define WASMBOX_MCP_LIBS_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>
#include <microhttpd.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

typedef struct {
  __typeof__(MHD_start_daemon) *start_daemon;
  __typeof__(MHD_stop_daemon) *stop_daemon;
  __typeof__(MHD_get_daemon_info) *get_daemon_info;
  __typeof__(MHD_get_connection_info) *get_connection_info;
  __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
  __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
  __typeof__(MHD_add_response_header) *add_response_header;
  __typeof__(MHD_queue_response) *queue_response;
  __typeof__(MHD_destroy_response) *destroy_response;
} libmhd_api;

typedef struct {
  __typeof__(curl_global_init) *global_init; /* called once, by the load */
  __typeof__(curl_easy_init) *easy_init;
  __typeof__(curl_easy_cleanup) *easy_cleanup;
  __typeof__(curl_easy_reset) *easy_reset;
  __typeof__(curl_easy_setopt) *easy_setopt;
  __typeof__(curl_easy_perform) *easy_perform;
  __typeof__(curl_easy_getinfo) *easy_getinfo;
  __typeof__(curl_easy_strerror) *easy_strerror;
  __typeof__(curl_slist_append) *slist_append;
  __typeof__(curl_slist_free_all) *slist_free_all;
} libcurl_api;

typedef struct {
  __typeof__(SHA256) *sha256;
  __typeof__(EVP_Q_mac) *q_mac;
  /* OAuth (oauth.c): public keys from a JWKS's numbers, signatures checked */
  __typeof__(EVP_PKEY_CTX_new_from_name) *pkey_ctx_new_from_name;
  __typeof__(EVP_PKEY_CTX_new_from_pkey) *pkey_ctx_new_from_pkey;
  __typeof__(EVP_PKEY_CTX_free) *pkey_ctx_free;
  __typeof__(EVP_PKEY_fromdata_init) *pkey_fromdata_init;
  __typeof__(EVP_PKEY_fromdata) *pkey_fromdata;
  __typeof__(EVP_PKEY_public_check) *pkey_public_check;
  __typeof__(EVP_PKEY_get_bits) *pkey_get_bits;
  __typeof__(EVP_PKEY_free) *pkey_free;
  __typeof__(EVP_MD_CTX_new) *md_ctx_new;
  __typeof__(EVP_MD_CTX_free) *md_ctx_free;
  __typeof__(EVP_DigestVerifyInit_ex) *digest_verify_init_ex;
  __typeof__(EVP_DigestVerify) *digest_verify;
  __typeof__(ECDSA_SIG_new) *ecdsa_sig_new;
  __typeof__(ECDSA_SIG_set0) *ecdsa_sig_set0;
  __typeof__(ECDSA_SIG_free) *ecdsa_sig_free;
  __typeof__(i2d_ECDSA_SIG) *i2d_ecdsa_sig;
  __typeof__(BN_bin2bn) *bn_bin2bn;
  __typeof__(BN_free) *bn_free;
  __typeof__(ERR_clear_error) *err_clear_error;
} libcrypto_api;

extern libmhd_api libmhd;
extern libcurl_api libcurl;
extern libcrypto_api libcrypto;

/* false with a message naming the library when it cannot be opened */
bool libmhd_load(char *err, size_t errlen);
bool libcurl_load(char *err, size_t errlen);
bool libcrypto_load(char *err, size_t errlen);

#endif
