/* Natives behind node's fs module. Each is one WASI call through wasi-libc,
 * so it reaches exactly what the file helpers reach (/app and read-only
 * mounts, resolved beneath them by the host); errors are node's, with the
 * errno numbers node reports on Linux (WASI numbers them differently). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glue.h"

static const struct {
  int e;
  const char *code;
  int linux_errno;
  const char *text; /* libuv's words, which node prints */
} errnos[] = {
    {ENOENT, "ENOENT", 2, "no such file or directory"},
    {EACCES, "EACCES", 13, "permission denied"},
    {EPERM, "EPERM", 1, "operation not permitted"},
    {ENOTDIR, "ENOTDIR", 20, "not a directory"},
    {EISDIR, "EISDIR", 21, "illegal operation on a directory"},
    {EEXIST, "EEXIST", 17, "file already exists"},
    {ENOTEMPTY, "ENOTEMPTY", 39, "directory not empty"},
    {EMFILE, "EMFILE", 24, "too many open files"},
    {ENFILE, "ENFILE", 23, "file table overflow"},
    {ENAMETOOLONG, "ENAMETOOLONG", 36, "name too long"},
    {EROFS, "EROFS", 30, "read-only file system"},
    {ELOOP, "ELOOP", 40, "too many symbolic links encountered"},
    {EINVAL, "EINVAL", 22, "invalid argument"},
    {ENOSPC, "ENOSPC", 28, "no space left on device"},
    {EBADF, "EBADF", 9, "bad file descriptor"},
    {EFBIG, "EFBIG", 27, "file too large"},
    {ENOMEM, "ENOMEM", 12, "not enough memory"},
    {EXDEV, "EXDEV", 18, "cross-device link not permitted"},
    {EIO, "EIO", 5, "i/o error"},
};
#define NERRNOS (sizeof errnos / sizeof errnos[0])

static size_t errno_index(int e) {
  for (size_t i = 0; i < NERRNOS; i++)
    if (errnos[i].e == e) return i;
  return NERRNOS - 1; /* anything else reads as EIO */
}

int wb_visible_errno(int e) {
#ifdef ENOTCAPABLE
  if (e == ENOTCAPABLE) return EACCES;
#endif
  return e;
}

const char *wb_errno_text(int e) { return errnos[errno_index(wb_visible_errno(e))].text; }

JSValue wb_write_file(JSContext *c, const char *path, int flags, const void *data, size_t len) {
  JSValue r = JS_UNDEFINED;
  int fd = open(path, flags, 0644);
  if (fd < 0) return wb_throw_errno(c, errno, "open", path, NULL);
  for (size_t off = 0; off < len;) {
    ssize_t w = write(fd, (const char *)data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      r = wb_throw_errno(c, w < 0 ? errno : EIO, "write", path, NULL);
      break;
    }
    off += (size_t)w;
  }
  if (close(fd) != 0 && JS_IsUndefined(r)) r = wb_throw_errno(c, errno, "close", path, NULL);
  return r;
}

JSValue wb_throw_errno(JSContext *c, int e, const char *syscall, const char *path, const char *dest) {
  size_t i = errno_index(wb_visible_errno(e));
  JSValue err = JS_NewError(c);
  if (JS_IsException(err)) return err;
  size_t n = strlen(errnos[i].text) + strlen(syscall) + (path ? strlen(path) : 0) + (dest ? strlen(dest) : 0) + 48;
  char *msg = malloc(n);
  if (!msg) {
    JS_FreeValue(c, err);
    return JS_ThrowOutOfMemory(c);
  }
  int k = path ? snprintf(msg, n, "%s: %s, %s '%s'", errnos[i].code, errnos[i].text, syscall, path)
               : snprintf(msg, n, "%s: %s, %s", errnos[i].code, errnos[i].text, syscall);
  if (dest) snprintf(msg + k, n - (size_t)k, " -> '%s'", dest);
  JS_DefinePropertyValueStr(c, err, "message", JS_NewString(c, msg), JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
  free(msg);
  JS_DefinePropertyValueStr(c, err, "errno", JS_NewInt32(c, -errnos[i].linux_errno), JS_PROP_C_W_E);
  JS_DefinePropertyValueStr(c, err, "code", JS_NewString(c, errnos[i].code), JS_PROP_C_W_E);
  JS_DefinePropertyValueStr(c, err, "syscall", JS_NewString(c, syscall), JS_PROP_C_W_E);
  if (path) JS_DefinePropertyValueStr(c, err, "path", JS_NewString(c, path), JS_PROP_C_W_E);
  if (dest) JS_DefinePropertyValueStr(c, err, "dest", JS_NewString(c, dest), JS_PROP_C_W_E);
  return JS_Throw(c, err);
}

uint8_t *wb_read_all(int fd, size_t *len) {
  size_t cap = 65536, n = 0;
  uint8_t *buf = malloc(cap);
  int e = ENOMEM;
  while (buf) {
    if (n == cap) {
      uint8_t *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (!b) break;
      buf = b;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      e = errno;
      break;
    }
    if (r == 0) {
      if (fd > 0) close(fd);
      *len = n;
      return buf;
    }
    n += (size_t)r;
  }
  free(buf);
  if (fd > 0) close(fd);
  errno = e;
  return NULL;
}

/* The path argument as a C string; the prelude has refused NUL bytes. */
#define PATH_ARG(var, i)                          \
  const char *var = JS_ToCString(c, argv[i]);     \
  if (!var) return JS_EXCEPTION

/* readBytes(path | 0) -> ArrayBuffer; 0 is stdin */
static JSValue n_read_bytes(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  if (JS_IsNumber(argv[0])) {
    size_t n;
    uint8_t *b = wb_read_all(0, &n);
    if (!b) return wb_throw_errno(c, errno, "read", "<stdin>", NULL);
    JSValue r = JS_NewArrayBufferCopy(c, b, n);
    free(b);
    return r;
  }
  PATH_ARG(path, 0);
  JSValue r;
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0) {
    r = wb_throw_errno(c, errno, "open", path, NULL);
  } else if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    r = wb_throw_errno(c, EISDIR, "read", NULL, NULL); /* node names no path here */
  } else {
    size_t n;
    uint8_t *b = wb_read_all(fd, &n);
    r = b ? JS_NewArrayBufferCopy(c, b, n) : wb_throw_errno(c, errno, "read", path, NULL);
    free(b);
  }
  JS_FreeCString(c, path);
  return r;
}

/* writeBytes(path, bytes, flag): flag 'w' (truncate), 'a' (append), 'wx'/'ax'
 * (the file must not exist) */
static JSValue n_write_bytes(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  const char *flag = JS_ToCString(c, argv[2]);
  if (!flag) return JS_EXCEPTION;
  int flags = O_WRONLY | O_CREAT | (flag[0] == 'a' ? O_APPEND : O_TRUNC) | (strchr(flag, 'x') ? O_EXCL : 0);
  JS_FreeCString(c, flag);
  PATH_ARG(path, 0);
  size_t len; /* the bytes last: converting the others could run code that detaches them */
  const uint8_t *p = wb_bytes(c, argv[1], &len);
  if (!p) {
    JS_FreeCString(c, path);
    return JS_EXCEPTION;
  }
  JSValue r = wb_write_file(c, path, flags, p, len);
  JS_FreeCString(c, path);
  return r;
}

/* stat(path, follow) -> [type, size, mtimeMs, atimeMs, ctimeMs, nlink, ino, dev];
 * type 1 file, 2 directory, 3 symlink, 0 other */
static JSValue n_stat(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  PATH_ARG(path, 0);
  int follow = JS_ToBool(c, argv[1]);
  struct stat st;
  if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
    JSValue r = wb_throw_errno(c, errno, follow ? "stat" : "lstat", path, NULL);
    JS_FreeCString(c, path);
    return r;
  }
  JS_FreeCString(c, path);
  int type = S_ISREG(st.st_mode) ? 1 : S_ISDIR(st.st_mode) ? 2 : S_ISLNK(st.st_mode) ? 3 : 0;
  double ms[3] = {(double)st.st_mtim.tv_sec * 1e3 + (double)st.st_mtim.tv_nsec / 1e6,
                  (double)st.st_atim.tv_sec * 1e3 + (double)st.st_atim.tv_nsec / 1e6,
                  (double)st.st_ctim.tv_sec * 1e3 + (double)st.st_ctim.tv_nsec / 1e6};
  JSValue a = JS_NewArray(c);
  if (JS_IsException(a)) return a;
  JS_SetPropertyUint32(c, a, 0, JS_NewInt32(c, type));
  JS_SetPropertyUint32(c, a, 1, JS_NewFloat64(c, (double)st.st_size));
  for (int i = 0; i < 3; i++) JS_SetPropertyUint32(c, a, (uint32_t)(2 + i), JS_NewFloat64(c, ms[i]));
  JS_SetPropertyUint32(c, a, 5, JS_NewFloat64(c, (double)st.st_nlink));
  JS_SetPropertyUint32(c, a, 6, JS_NewFloat64(c, (double)st.st_ino));
  JS_SetPropertyUint32(c, a, 7, JS_NewFloat64(c, (double)st.st_dev));
  return a;
}

/* readdir(path) -> [[name, type], ...] sorted by name, without . and .. */
static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

static JSValue n_readdir(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  PATH_ARG(path, 0);
  DIR *d = opendir(path);
  if (!d) {
    JSValue r = wb_throw_errno(c, errno, "scandir", path, NULL);
    JS_FreeCString(c, path);
    return r;
  }
  JS_FreeCString(c, path);
  char **names = NULL; /* each: a type byte, then the name */
  size_t n = 0, cap = 0;
  int oom = 0;
  struct dirent *e;
  while (!oom && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (n == cap) {
      char **g = realloc(names, (cap ? cap * 2 : 16) * sizeof *names);
      if (!g) {
        oom = 1;
        break;
      }
      names = g;
      cap = cap ? cap * 2 : 16;
    }
    size_t len = strlen(e->d_name);
    char *s = malloc(len + 2);
    if (!s) {
      oom = 1;
      break;
    }
    s[0] = (char)(e->d_type == DT_REG ? 1 : e->d_type == DT_DIR ? 2 : e->d_type == DT_LNK ? 3 : 0);
    memcpy(s + 1, e->d_name, len + 1);
    names[n++] = s;
  }
  closedir(d);
  JSValue arr = oom ? JS_ThrowOutOfMemory(c) : JS_NewArray(c);
  if (!JS_IsException(arr)) {
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
      JSValue pair = JS_NewArray(c);
      JS_SetPropertyUint32(c, pair, 0, JS_NewString(c, names[i] + 1));
      JS_SetPropertyUint32(c, pair, 1, JS_NewInt32(c, names[i][0]));
      JS_SetPropertyUint32(c, arr, (uint32_t)i, pair);
    }
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return arr;
}

/* mkdir, rmdir, unlink: one path, node's syscall name in errors */
static JSValue path_call(JSContext *c, JSValueConst *argv, int (*fn)(const char *), const char *syscall) {
  PATH_ARG(path, 0);
  JSValue r = fn(path) == 0 ? JS_UNDEFINED : wb_throw_errno(c, errno, syscall, path, NULL);
  JS_FreeCString(c, path);
  return r;
}

static int mkdir_0777(const char *p) { return mkdir(p, 0777); }

static JSValue n_mkdir(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  return path_call(c, argv, mkdir_0777, "mkdir");
}

static JSValue n_rmdir(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  return path_call(c, argv, rmdir, "rmdir");
}

static JSValue n_unlink(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  return path_call(c, argv, unlink, "unlink");
}

static JSValue n_rename(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  PATH_ARG(from, 0);
  const char *to = JS_ToCString(c, argv[1]);
  if (!to) {
    JS_FreeCString(c, from);
    return JS_EXCEPTION;
  }
  JSValue r = rename(from, to) == 0 ? JS_UNDEFINED : wb_throw_errno(c, errno, "rename", from, to);
  JS_FreeCString(c, from);
  JS_FreeCString(c, to);
  return r;
}

/* symlink(target, path): the link is made; following it is the host's
 * resolver's business (a target outside the preopens fails there) */
static JSValue n_symlink(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  PATH_ARG(target, 0);
  const char *path = JS_ToCString(c, argv[1]);
  if (!path) {
    JS_FreeCString(c, target);
    return JS_EXCEPTION;
  }
  JSValue r = symlink(target, path) == 0 ? JS_UNDEFINED : wb_throw_errno(c, errno, "symlink", target, path);
  JS_FreeCString(c, target);
  JS_FreeCString(c, path);
  return r;
}

static JSValue n_readlink(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv) {
  PATH_ARG(path, 0);
  char buf[4096];
  ssize_t n = readlink(path, buf, sizeof buf);
  JSValue r = n >= 0 ? JS_NewStringLen(c, buf, (size_t)n) : wb_throw_errno(c, errno, "readlink", path, NULL);
  JS_FreeCString(c, path);
  return r;
}

const JSCFunctionListEntry wb_fs_natives[] = {
    JS_CFUNC_DEF("readBytes", 1, n_read_bytes),
    JS_CFUNC_DEF("writeBytes", 3, n_write_bytes),
    JS_CFUNC_DEF("stat", 2, n_stat),
    JS_CFUNC_DEF("readdir", 1, n_readdir),
    JS_CFUNC_DEF("mkdir", 1, n_mkdir),
    JS_CFUNC_DEF("rmdir", 1, n_rmdir),
    JS_CFUNC_DEF("unlink", 1, n_unlink),
    JS_CFUNC_DEF("rename", 2, n_rename),
    JS_CFUNC_DEF("symlink", 2, n_symlink),
    JS_CFUNC_DEF("readlink", 1, n_readlink),
};
const size_t wb_fs_natives_len = sizeof wb_fs_natives / sizeof wb_fs_natives[0];
