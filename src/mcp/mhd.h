/* libmicrohttpd, opened when `wasmbox serve` starts instead of linked into
 * the binary: it brings GnuTLS and a dozen more libraries whose loading and
 * constructors would cost every `wasmbox run` about 3 ms. mhd_load() opens
 * it once (thread-safe, idempotent); after it returns true, the functions
 * below are callable as mhd.NAME(...). */
#ifndef WASMBOX_MCP_MHD_H
#define WASMBOX_MCP_MHD_H

#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

typedef struct {
  __typeof__(MHD_start_daemon) *start_daemon;
  __typeof__(MHD_stop_daemon) *stop_daemon;
  __typeof__(MHD_get_daemon_info) *get_daemon_info;
  __typeof__(MHD_get_connection_info) *get_connection_info;
  __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
  __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
  __typeof__(MHD_add_response_header) *add_response_header;
  __typeof__(MHD_queue_response) *queue_response;
  __typeof__(MHD_destroy_response) *destroy_response;
} mhd_api;

extern mhd_api mhd;

/* false with a message naming the library when it cannot be opened */
bool mhd_load(char *err, size_t errlen);

#endif
