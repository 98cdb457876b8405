/* Guest side, shared by every runtime: what wasi-libc caches at start-up and
 * a copy of a snapshot must refresh. wasi-libc reads the environment and the
 * list of preopened directories once; an instance restored from a snapshot
 * taken after start-up would otherwise keep the snapshot's (empty env, the
 * standard mounts) instead of its own call's (--env, --mount). */
#ifndef WASMBOX_GUEST_LIBC_H
#define WASMBOX_GUEST_LIBC_H

/* At init: remember how many descriptors were preopened. */
void wb_guest_note_preopens(void);

/* On a fresh copy: re-read the environment from the host and register the
 * preopened directories added after the snapshot. 0 on success. */
int wb_guest_refresh_libc(void);

#endif
