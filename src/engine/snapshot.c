/* Snapshot files (see snapshot.h). */
#include "engine/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/os.h"
#include "wasm_rt/wasm_rt_ext.h"

bool wb_snapshot_write(const wb_snapshot *s, const char *build_id, int fd, char *err, size_t errlen) {
  wb_snapshot_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, WB_SNAPSHOT_MAGIC, 8);
  snprintf(h.runtime, sizeof h.runtime, "%s", s->runtime->language);
  snprintf(h.build_id, sizeof h.build_id, "%s", build_id);
  h.pages = s->memory.pages;
  h.globals_size = s->runtime->globals_size();
  h.memory_offset = (sizeof h + h.globals_size + WB_SNAPSHOT_ALIGN - 1) / WB_SNAPSHOT_ALIGN * WB_SNAPSHOT_ALIGN;
  size_t bytes = (size_t)h.pages * WB_WASM_PAGE;
  uint8_t *mem = bytes ? mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, s->memory.fd, (off_t)s->memory.offset) : NULL;
  bool ok = mem != MAP_FAILED && ftruncate(fd, (off_t)(h.memory_offset + bytes)) == 0 &&
            wb_pwrite_all(fd, &h, sizeof h, 0) && wb_pwrite_all(fd, s->globals, h.globals_size, sizeof h) &&
            wb_pwrite_all(fd, mem, bytes, h.memory_offset);
  if (!ok) snprintf(err, errlen, "cannot write the snapshot: %s", strerror(errno));
  if (mem && mem != MAP_FAILED) munmap(mem, bytes);
  return ok;
}

/* Where in our executable file the bytes at `addr` are, or -1. */
struct locate {
  uintptr_t addr;
  int64_t file_offset;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct locate *l = arg;
  if (info->dlpi_name && info->dlpi_name[0]) return 0; /* only the executable itself */
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + p->p_vaddr;
    if (p->p_type == PT_LOAD && l->addr >= start && l->addr < start + p->p_filesz) {
      l->file_offset = (int64_t)(p->p_offset + (l->addr - start));
      return 1;
    }
  }
  return 0;
}

static int map_from_executable(const uint8_t *mem, uint64_t *offset) {
  struct locate l = {.addr = (uintptr_t)mem, .file_offset = -1};
  dl_iterate_phdr(find_segment, &l);
  if (l.file_offset < 0 || l.file_offset % 4096) return -1;
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  /* the file must really hold these bytes (not a replaced binary) */
  uint8_t probe[256];
  if (pread(fd, probe, sizeof probe, (off_t)l.file_offset) != (ssize_t)sizeof probe ||
      memcmp(probe, mem, sizeof probe) != 0) {
    close(fd);
    return -1;
  }
  *offset = (uint64_t)l.file_offset;
  return fd;
}

static int copy_to_memfd(const uint8_t *mem, size_t bytes) {
  int fd = memfd_create("wasmbox-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -1;
  if (ftruncate(fd, (off_t)bytes) != 0 || !wb_pwrite_all(fd, mem, bytes, 0)) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  return fd;
}

bool wb_snapshot_open_embedded(const wb_runtime *rt, const char *build_id, const uint8_t *bytes, size_t size,
                               wb_snapshot *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->memory.fd = -1;
  const wb_snapshot_header *h = (const wb_snapshot_header *)bytes;
  if (size < sizeof *h || memcmp(h->magic, WB_SNAPSHOT_MAGIC, 8) != 0 ||
      strncmp(h->runtime, rt->language, sizeof h->runtime) != 0 ||
      strncmp(h->build_id, build_id, sizeof h->build_id) != 0 || h->globals_size != rt->globals_size() ||
      h->memory_offset % WB_SNAPSHOT_ALIGN || h->memory_offset < sizeof *h + h->globals_size ||
      h->memory_offset > size || (uint64_t)h->pages * WB_WASM_PAGE != size - h->memory_offset) {
    snprintf(err, errlen, "the built-in %s snapshot does not belong to this build", rt->language);
    return false;
  }
  out->globals = malloc(h->globals_size ? h->globals_size : 1);
  if (!out->globals) {
    snprintf(err, errlen, "out of memory");
    return false;
  }
  memcpy(out->globals, bytes + sizeof *h, h->globals_size);
  const uint8_t *mem = bytes + h->memory_offset;
  uint64_t offset = 0;
  int fd = map_from_executable(mem, &offset);
  if (fd < 0) fd = copy_to_memfd(mem, (size_t)h->pages * WB_WASM_PAGE);
  if (fd < 0) {
    snprintf(err, errlen, "cannot set up the %s snapshot: %s", rt->language, strerror(errno));
    free(out->globals);
    out->globals = NULL;
    return false;
  }
  out->runtime = rt;
  out->memory = (wb_memory_image){.fd = fd, .offset = offset, .pages = h->pages, .view = mem};
  out->owns_fd = true;
  return true;
}
