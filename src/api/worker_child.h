/* A worker process, the child side of worker_parent.h. The library starts
 * /proc/self/exe with WASMBOX_WORKER_FD in its environment; a constructor
 * in worker_child.c takes over before the program's main() runs (in every
 * program that links the library: include/wasmbox.h says so), reads its
 * setup, jails itself (jail/jail.h) and runs the calls it is sent with the
 * in-process runner, one at a time, until the socket closes. */
#ifndef WASMBOX_API_WORKER_CHILD_H
#define WASMBOX_API_WORKER_CHILD_H

extern const char wb_worker_fd_env[];

/* A worker's whole life on socket `sock`; returns its exit status. (A
 * one-shot process's worker is a plain fork that calls this directly.)
 * `taken_fd` is a shared page where the worker counts the calls it has
 * taken off the socket, before it does anything for one: a parent whose
 * worker died can tell a call that never started from one that did, and
 * the count numbers the calls. `cancel_sock` carries the parent's cancels
 * (worker_protocol.h), apart from the calls, and its end is the parent's. */
int wb_worker_main(int sock, int cancel_sock, int taken_fd);
#define WB_WORKER_SOCKET_FD 3
#define WB_WORKER_TAKEN_FD 4
#define WB_WORKER_CANCEL_FD 5

#endif
