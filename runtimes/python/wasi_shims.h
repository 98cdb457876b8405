/* Declarations the 2022 wasi-libc lacks but SQLite's unix VFS names.
 * WASI has no owners, modes or advisory locks; a guest is one process with one
 * thread that owns its workspace, so SQLite runs with the "unix-none" VFS and
 * these are never asked to do real work (see wasi_shims.c). */
#ifndef WASMBOX_WASI_SHIMS_H
#define WASMBOX_WASI_SHIMS_H
#include <sys/types.h>
#include <fcntl.h>

/* fcntl.h declares struct flock but not its constants. */
#ifndef F_RDLCK
#define F_RDLCK 0
#define F_WRLCK 1
#define F_UNLCK 2
#endif
#ifndef F_GETLK
#define F_GETLK 5
#define F_SETLK 6
#define F_SETLKW 7
#endif

int fchmod(int fd, mode_t mode);
int fchown(int fd, uid_t owner, gid_t group);
uid_t geteuid(void);
#endif
