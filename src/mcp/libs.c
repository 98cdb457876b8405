/* Opening libraries at run time (libs.h says why). */
#include "mcp/libs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

libmhd_api libmhd;
libcurl_api libcurl;
libcrypto_api libcrypto;

typedef struct {
  const char *name;
  size_t offset; /* of its pointer in the API table */
} symbol;

typedef struct {
  const char *soname, *package;
  void *api;
  size_t api_size;
  const symbol *symbols;
  size_t count;
  void (*after)(void); /* once loaded */
  pthread_mutex_t lock;
  bool tried;
  char error[256];
} library;

#define SYM(table, field, name) {name, offsetof(table, field)}
_Static_assert(sizeof(libmhd_api) <= 16 * sizeof(void *) && sizeof(libcurl_api) <= 16 * sizeof(void *),
               "load() fills a table of at most 16 pointers");

static const symbol mhd_symbols[] = {
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

static const symbol curl_symbols[] = {
    SYM(libcurl_api, global_init, "curl_global_init"),   SYM(libcurl_api, easy_init, "curl_easy_init"),
    SYM(libcurl_api, easy_cleanup, "curl_easy_cleanup"), SYM(libcurl_api, easy_reset, "curl_easy_reset"),
    SYM(libcurl_api, easy_setopt, "curl_easy_setopt"),   SYM(libcurl_api, easy_perform, "curl_easy_perform"),
    SYM(libcurl_api, easy_getinfo, "curl_easy_getinfo"), SYM(libcurl_api, easy_strerror, "curl_easy_strerror"),
    SYM(libcurl_api, slist_append, "curl_slist_append"), SYM(libcurl_api, slist_free_all, "curl_slist_free_all"),
};

static const symbol crypto_symbols[] = {SYM(libcrypto_api, sha256, "SHA256"), SYM(libcrypto_api, q_mac, "EVP_Q_mac")};

static void curl_global(void) { libcurl.global_init(CURL_GLOBAL_DEFAULT); }

#define LIBRARY(so, pkg, table, syms, then) \
  {.soname = so,                            \
   .package = pkg,                          \
   .api = &table,                           \
   .api_size = sizeof table,                \
   .symbols = syms,                         \
   .count = sizeof syms / sizeof *syms,     \
   .after = then,                           \
   .lock = PTHREAD_MUTEX_INITIALIZER}

static library mhd_lib = LIBRARY("libmicrohttpd.so.12", "libmicrohttpd12", libmhd, mhd_symbols, NULL);
static library curl_lib = LIBRARY("libcurl.so.4", "libcurl4", libcurl, curl_symbols, curl_global);
static library crypto_lib = LIBRARY("libcrypto.so.3", "libssl3", libcrypto, crypto_symbols, NULL);

static bool load(library *l, char *err, size_t errlen) {
  pthread_mutex_lock(&l->lock);
  if (!l->tried) {
    l->tried = true;
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      snprintf(l->error, sizeof l->error, "cannot open %s (Debian package %s): %s", l->soname, l->package, dlerror());
    void *table[16]; /* the API table being filled (no table has more) */
    for (size_t i = 0; h && i < l->count && !l->error[0]; i++) {
      void *p = dlsym(h, l->symbols[i].name);
      if (!p) snprintf(l->error, sizeof l->error, "%s has no %s", l->soname, l->symbols[i].name);
      memcpy((char *)table + l->symbols[i].offset, &p, sizeof p); /* POSIX: dlsym's pointer is the function's */
    }
    if (h && l->error[0]) dlclose(h);
    if (h && !l->error[0]) { /* the library stays open for the life of the process */
      memcpy(l->api, table, l->api_size);
      if (l->after) l->after();
    }
  }
  bool ok = !l->error[0];
  if (!ok) snprintf(err, errlen, "%s", l->error);
  pthread_mutex_unlock(&l->lock);
  return ok;
}

bool libmhd_load(char *err, size_t errlen) { return load(&mhd_lib, err, errlen); }
bool libcurl_load(char *err, size_t errlen) { return load(&curl_lib, err, errlen); }
bool libcrypto_load(char *err, size_t errlen) { return load(&crypto_lib, err, errlen); }
