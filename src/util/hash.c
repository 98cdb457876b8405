/* FNV-1a (see hash.h). */
#include "util/hash.h"

uint64_t wb_fnv1a(uint64_t hash, const void *bytes, size_t n) {
  for (const unsigned char *p = bytes; n--; p++) hash = (hash ^ *p) * 0x100000001b3ull;
  return hash;
}
