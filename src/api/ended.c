/* Ids ended for good (wasmbox.h): a file each in HOME/mcp-ended/, or a row in
 * the shared store. Entries past WASMBOX_ENDED_KEEP_S are cleared by the
 * first add of each instance. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/library.h"
#include "util/os.h"

static bool id_ok(const char *id) {
  size_t n = id ? strlen(id) : 0;
  if (!n || n > 127) return false;
  for (size_t i = 0; i < n; i++)
    if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9') ||
          id[i] == '-' || id[i] == '_'))
      return false;
  return true;
}

static void clear_old(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  time_t old = time(NULL) - (time_t)WASMBOX_ENDED_KEEP_S;
  struct stat st;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_mtime < old)
      unlinkat(dirfd(d), e->d_name, 0);
  closedir(d);
}

int wasmbox_ended_add(wasmbox *wb, const char *id, char *err, size_t errlen) {
  if (!id_ok(id)) return wb_usage(err, errlen, "'%s' is not an id", id ? id : "");
  if (wb->remote) return wb_remote_ended_add(wb->remote, id, WASMBOX_ENDED_KEEP_S, err, errlen);
  char dir[4200], path[4400];
  snprintf(dir, sizeof dir, "%s/mcp-ended", wb->home);
  if (!wb_mkdirs(dir)) return snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno)), WASMBOX_EINTERNAL;
  pthread_mutex_lock(&wb->lock);
  bool first = !wb->ended_cleared;
  wb->ended_cleared = true;
  pthread_mutex_unlock(&wb->lock);
  if (first) clear_old(dir);
  snprintf(path, sizeof path, "%s/%s", dir, id);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno)), WASMBOX_EINTERNAL;
  close(fd);
  return WASMBOX_OK;
}

int wasmbox_ended_has(wasmbox *wb, const char *id, char *err, size_t errlen) {
  if (!id_ok(id)) return 0;
  if (wb->remote) return wb_remote_ended_has(wb->remote, id, WASMBOX_ENDED_KEEP_S, err, errlen);
  char path[4400];
  snprintf(path, sizeof path, "%s/mcp-ended/%s", wb->home, id);
  struct stat st;
  if (stat(path, &st) == 0) return difftime(time(NULL), st.st_mtime) <= WASMBOX_ENDED_KEEP_S;
  if (errno == ENOENT) return 0;
  snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
  return -1;
}
