/* Opening libmicrohttpd at run time (mhd.h says why). The soname is the one
 * Debian's libmicrohttpd12 ships and the -dev headers we compile against
 * describe; a function missing from it fails the load, never a call. */
#include "mcp/mhd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define MHD_SONAME "libmicrohttpd.so.12"

mhd_api mhd;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];

static void *symbol(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p && !load_error[0]) snprintf(load_error, sizeof load_error, "%s has no %s", MHD_SONAME, name);
  return p;
}

static void load(void) {
  void *lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(load_error, sizeof load_error, "cannot open %s (Debian package libmicrohttpd12): %s", MHD_SONAME,
             dlerror());
    return;
  }
  mhd_api a;
  /* POSIX: a void * from dlsym converts to a function pointer */
  *(void **)&a.start_daemon = symbol(lib, "MHD_start_daemon");
  *(void **)&a.stop_daemon = symbol(lib, "MHD_stop_daemon");
  *(void **)&a.get_daemon_info = symbol(lib, "MHD_get_daemon_info");
  *(void **)&a.get_connection_info = symbol(lib, "MHD_get_connection_info");
  *(void **)&a.lookup_connection_value = symbol(lib, "MHD_lookup_connection_value");
  *(void **)&a.create_response_from_buffer = symbol(lib, "MHD_create_response_from_buffer");
  *(void **)&a.add_response_header = symbol(lib, "MHD_add_response_header");
  *(void **)&a.queue_response = symbol(lib, "MHD_queue_response");
  *(void **)&a.destroy_response = symbol(lib, "MHD_destroy_response");
  if (load_error[0]) {
    dlclose(lib);
    return;
  }
  mhd = a; /* the library stays open for the life of the process */
}

bool mhd_load(char *err, size_t errlen) {
  pthread_once(&once, load);
  if (load_error[0]) snprintf(err, errlen, "%s", load_error);
  return !load_error[0];
}
