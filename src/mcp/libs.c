/* Opening libraries at run time (libs.h says why). */
#include "mcp/libs.h"

#include "util/dynlib.h"

libmhd_api libmhd;
libcurl_api libcurl;
libcrypto_api libcrypto;

#define SYM WB_DYNSYM

/* One table of symbols a library: alike by design (util/dynlib.c loads them
 * all the same way). */

static const wb_dynsym mhd_symbols[] = {
    SYM(libmhd_api, start_daemon, "MHD_start_daemon"),
    SYM(libmhd_api, stop_daemon, "MHD_stop_daemon"),
    SYM(libmhd_api, get_daemon_info, "MHD_get_daemon_info"),
    SYM(libmhd_api, get_connection_info, "MHD_get_connection_info"),
    SYM(libmhd_api, lookup_connection_value, "MHD_lookup_connection_value"),
    SYM(libmhd_api, create_response_from_buffer, "MHD_create_response_from_buffer"),
    SYM(libmhd_api, add_response_header, "MHD_add_response_header"),
    SYM(libmhd_api, queue_response, "MHD_queue_response"),
    SYM(libmhd_api, destroy_response, "MHD_destroy_response"),
};

static const wb_dynsym curl_symbols[] = {
    SYM(libcurl_api, global_init, "curl_global_init"),   SYM(libcurl_api, easy_init, "curl_easy_init"),
    SYM(libcurl_api, easy_cleanup, "curl_easy_cleanup"), SYM(libcurl_api, easy_reset, "curl_easy_reset"),
    SYM(libcurl_api, easy_setopt, "curl_easy_setopt"),   SYM(libcurl_api, easy_perform, "curl_easy_perform"),
    SYM(libcurl_api, easy_getinfo, "curl_easy_getinfo"), SYM(libcurl_api, easy_strerror, "curl_easy_strerror"),
    SYM(libcurl_api, slist_append, "curl_slist_append"), SYM(libcurl_api, slist_free_all, "curl_slist_free_all"),
};

static const wb_dynsym crypto_symbols[] = {
    SYM(libcrypto_api, sha256, "SHA256"),
    SYM(libcrypto_api, q_mac, "EVP_Q_mac"),
    SYM(libcrypto_api, pkey_ctx_new_from_name, "EVP_PKEY_CTX_new_from_name"),
    SYM(libcrypto_api, pkey_ctx_new_from_pkey, "EVP_PKEY_CTX_new_from_pkey"),
    SYM(libcrypto_api, pkey_ctx_free, "EVP_PKEY_CTX_free"),
    SYM(libcrypto_api, pkey_fromdata_init, "EVP_PKEY_fromdata_init"),
    SYM(libcrypto_api, pkey_fromdata, "EVP_PKEY_fromdata"),
    SYM(libcrypto_api, pkey_public_check, "EVP_PKEY_public_check"),
    SYM(libcrypto_api, pkey_get_bits, "EVP_PKEY_get_bits"),
    SYM(libcrypto_api, pkey_free, "EVP_PKEY_free"),
    SYM(libcrypto_api, md_ctx_new, "EVP_MD_CTX_new"),
    SYM(libcrypto_api, md_ctx_free, "EVP_MD_CTX_free"),
    SYM(libcrypto_api, digest_verify_init_ex, "EVP_DigestVerifyInit_ex"),
    SYM(libcrypto_api, digest_verify, "EVP_DigestVerify"),
    SYM(libcrypto_api, ecdsa_sig_new, "ECDSA_SIG_new"),
    SYM(libcrypto_api, ecdsa_sig_set0, "ECDSA_SIG_set0"),
    SYM(libcrypto_api, ecdsa_sig_free, "ECDSA_SIG_free"),
    SYM(libcrypto_api, i2d_ecdsa_sig, "i2d_ECDSA_SIG"),
    SYM(libcrypto_api, bn_bin2bn, "BN_bin2bn"),
    SYM(libcrypto_api, bn_free, "BN_free"),
    SYM(libcrypto_api, err_clear_error, "ERR_clear_error"),
};

static void curl_global(void) { libcurl.global_init(CURL_GLOBAL_DEFAULT); }

static wb_dynlib mhd_lib = WB_DYNLIB("libmicrohttpd.so.12", "libmicrohttpd12", libmhd, mhd_symbols, NULL);
static wb_dynlib curl_lib = WB_DYNLIB("libcurl.so.4", "libcurl4", libcurl, curl_symbols, curl_global);
static wb_dynlib crypto_lib = WB_DYNLIB("libcrypto.so.3", "libssl3", libcrypto, crypto_symbols, NULL);

bool libmhd_load(char *err, size_t errlen) { return wb_dynlib_load(&mhd_lib, err, errlen); }
bool libcurl_load(char *err, size_t errlen) { return wb_dynlib_load(&curl_lib, err, errlen); }
bool libcrypto_load(char *err, size_t errlen) { return wb_dynlib_load(&crypto_lib, err, errlen); }
