/* Shared libraries opened at run time instead of linked: those that only
 * some commands need (an HTTP server, PostgreSQL) and whose loading, with
 * the dozen libraries each brings, would cost every `wasmbox run` a few
 * milliseconds. A wb_dynlib names the library, its Debian package and the
 * functions to find; wb_dynlib_load() opens it once (thread-safe,
 * idempotent) and fills the caller's table of function pointers. A missing
 * function fails the load, never a call; the error names the package. */
#ifndef WASMBOX_UTIL_DYNLIB_H
#define WASMBOX_UTIL_DYNLIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const char *name;
  size_t offset; /* of its pointer in the table */
} wb_dynsym;

typedef struct {
  const char *soname, *package;
  void *table; /* a struct of function pointers, at most WB_DYNLIB_MAX */
  size_t table_size;
  const wb_dynsym *symbols;
  size_t count;
  void (*after)(void); /* once loaded */
  pthread_mutex_t lock;
  bool tried;
  char error[256];
} wb_dynlib;

#define WB_DYNLIB_MAX 32
#define WB_DYNSYM(type, field, name) {name, offsetof(type, field)}
#define WB_DYNLIB(so, pkg, tbl, syms, then) \
  {.soname = so,                            \
   .package = pkg,                          \
   .table = &tbl,                           \
   .table_size = sizeof tbl,                \
   .symbols = syms,                         \
   .count = sizeof syms / sizeof *syms,     \
   .after = then,                           \
   .lock = PTHREAD_MUTEX_INITIALIZER}

/* false, with a message naming the library and its package, when it cannot be used */
bool wb_dynlib_load(wb_dynlib *l, char *err, size_t errlen);

#endif
