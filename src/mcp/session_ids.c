/* Signed MCP session ids (see session_ids.h). */
#include "mcp/session_ids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/libs.h"

#define RANDOM_HEX 32
#define VERSION_DIGITS 8 /* "2025-11-25" -> 20251125 */
#define MAC_HEX 16

struct mcp_ids {
  unsigned char key[4096];
  size_t len;
};

mcp_ids *mcp_ids_load(const char *file, char *err, size_t errlen) {
  int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(err, errlen, "--session-key %s: %s", file, strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
  }
  mcp_ids *k = calloc(1, sizeof *k);
  ssize_t n = k && S_ISREG(st.st_mode) && !(st.st_mode & (S_IROTH | S_IWOTH)) ? read(fd, k->key, sizeof k->key) : -1;
  close(fd);
  if (!k || n < 32 || (size_t)n == sizeof k->key) {
    snprintf(err, errlen, "--session-key %s: %s", file,
             !k                                 ? "out of memory"
             : !S_ISREG(st.st_mode)             ? "not a regular file"
             : st.st_mode & (S_IROTH | S_IWOTH) ? "readable or writable by others: chmod o-rw it (it is a secret)"
             : n < 32                           ? "want at least 32 bytes of secret (e.g. head -c 48 /dev/urandom)"
                                                : "larger than 4095 bytes");
    mcp_ids_free(k);
    return NULL;
  }
  k->len = (size_t)n;
  if (!libcrypto_load(err, errlen)) {
    mcp_ids_free(k);
    return NULL;
  }
  return k;
}

void mcp_ids_free(mcp_ids *k) {
  if (!k) return;
  explicit_bzero(k->key, sizeof k->key);
  free(k);
}

static void random_hex(char *out, size_t hex) {
  unsigned char r[32];
  size_t got = 0;
  while (got < hex / 2) {
    ssize_t n = getrandom(r + got, hex / 2 - got, 0);
    if (n > 0) got += (size_t)n;
    else if (errno != EINTR) abort(); /* no randomness: ids would be guessable */
  }
  for (size_t i = 0; i < hex / 2; i++) sprintf(out + 2 * i, "%02x", r[i]);
}

/* the MAC of the id's first RANDOM_HEX + VERSION_DIGITS characters, in hex */
static bool mac_of(const mcp_ids *k, const char *id, char out[MAC_HEX + 1]) {
  unsigned char md[32];
  size_t n = 0;
  if (!libcrypto.q_mac(NULL, "HMAC", NULL, "SHA256", NULL, k->key, k->len, (const unsigned char *)id,
                       RANDOM_HEX + VERSION_DIGITS, md, sizeof md, &n) ||
      n < MAC_HEX / 2)
    return false;
  for (size_t i = 0; i < MAC_HEX / 2; i++) sprintf(out + 2 * i, "%02x", md[i]);
  return true;
}

void mcp_ids_make(const mcp_ids *k, const char *version, char out[MCP_SESSION_ID_LEN + 1]) {
  random_hex(out, RANDOM_HEX);
  out[RANDOM_HEX] = 0;
  if (!k) return;
  char *v = out + RANDOM_HEX;
  for (const char *p = version; *p && v < out + RANDOM_HEX + VERSION_DIGITS; p++)
    if (*p >= '0' && *p <= '9') *v++ = *p;
  *v = 0;
  if (v != out + RANDOM_HEX + VERSION_DIGITS || !mac_of(k, out, v)) out[RANDOM_HEX] = 0; /* unsigned: local only */
}

bool mcp_ids_check(const mcp_ids *k, const char *id, const char *const *known, char version[16]) {
  if (!k || strlen(id) != MCP_SESSION_ID_LEN) return false;
  for (size_t i = 0; i < MCP_SESSION_ID_LEN; i++)
    if (!strchr("0123456789abcdef", id[i])) return false;
  char want[MAC_HEX + 1];
  if (!mac_of(k, id, want)) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < MAC_HEX; i++) diff |= (unsigned char)(want[i] ^ id[RANDOM_HEX + VERSION_DIGITS + i]);
  if (diff) return false;
  const char *d = id + RANDOM_HEX;
  for (size_t i = 0; known[i]; i++) {
    const char *v = known[i]; /* "YYYY-MM-DD" */
    if (strlen(v) == 10 && !memcmp(d, v, 4) && !memcmp(d + 4, v + 5, 2) && !memcmp(d + 6, v + 8, 2)) {
      snprintf(version, 16, "%s", v);
      return true;
    }
  }
  return false;
}
