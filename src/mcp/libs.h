/* Shared libraries opened when first needed instead of linked into the
 * binary: libmicrohttpd (wasmbox serve), libcurl (HTTP upstreams) and
 * libcrypto (the tool audit's hashes) bring GnuTLS, OpenSSL, Kerberos, LDAP
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
} libcrypto_api;

extern libmhd_api libmhd;
extern libcurl_api libcurl;
extern libcrypto_api libcrypto;

/* false with a message naming the library when it cannot be opened */
bool libmhd_load(char *err, size_t errlen);
bool libcurl_load(char *err, size_t errlen);
bool libcrypto_load(char *err, size_t errlen);

#endif
