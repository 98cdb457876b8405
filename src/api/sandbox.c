/* The sandbox's file-system layout (see sandbox.h). */
#include "api/sandbox.h"

size_t wb_sandbox_mounts(const wb_runtime *rt, const char *workspace, const wasmbox_mount *extra, size_t nextra,
                         wb_mount *out) {
  size_t n = 0, nimages;
  out[n++] = (wb_mount){.guest_path = "/app", .host_dir = workspace, .writable = true};
  const wb_runtime_mount *images = rt->mounts(&nimages);
  for (size_t i = 0; i < nimages && i < WB_RUNTIME_MOUNTS_MAX; i++)
    out[n++] = (wb_mount){.guest_path = images[i].guest_path, .image = images[i].image};
  for (size_t i = 0; i < nextra && i < WASMBOX_MAX_MOUNTS; i++)
    out[n++] = (wb_mount){.guest_path = extra[i].guest_path, .host_dir = extra[i].host_dir};
  return n;
}
