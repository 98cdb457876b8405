/* The store's state shared by the session files (store.c, call.c,
 * lifecycle.c): the table of live instances and the session lock. Not for
 * use outside src/session. */
#ifndef WASMBOX_SESSION_STORE_H
#define WASMBOX_SESSION_STORE_H

#include <pthread.h>

#include "session/format.h"
#include "session/session.h"

#define WB_LIVE_MAX 8

/* A session whose instance stays in this process between calls. */
typedef struct {
  char id[WASMBOX_ID_MAX];
  uint64_t gen;
  wb_instance *instance;
  wb_snapshot image; /* committed memory (memfd) and globals */
  uint8_t *logged;   /* bitmap: 4 KiB pages the log holds */
  size_t logged_pages;
  uint64_t used;
  bool busy;
  bool image_dropped; /* idle: image's pages given back (wb_session_idle) */
} wb_live;

struct wb_store {
  char *home;
  int sessions;         /* $home/sessions */
  pthread_mutex_t lock; /* the live table */
  wb_live live[WB_LIVE_MAX];
  uint64_t tick;
};

void wb_live_drop(wb_live *l);
/* Forget the live state of session `id` (its disk state changed under it). */
void wb_live_forget(wb_store *st, const char *id);

/* Open session `id` and lock it (waiting, or failing at once when it is
 * busy). Returns the directory fd, or -1 with *code and err set. */
int wb_open_locked(wb_store *st, const char *id, int *lockfd, bool wait, char *err, size_t n, int *code);

/* A session locked and repaired, with its HEAD read. */
typedef struct {
  int dir, lockfd;
  wb_head head;
  uint8_t *globals;
} wb_locked;

int wb_lock_session(wb_store *st, const char *id, wb_locked *k, char *err, size_t n);
void wb_unlock_session(wb_locked *k);

#endif
