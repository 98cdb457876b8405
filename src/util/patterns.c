/* Name patterns (see patterns.h). */
#include "util/patterns.h"

#include <fnmatch.h>

bool wb_patterns_allow(const char *const *patterns, size_t n, const char *name) {
  bool yes = false;
  for (size_t i = 0; i < n; i++) {
    const char *p = patterns[i];
    if (p[0] == '!') {
      if (fnmatch(p + 1, name, 0) == 0) return false;
    } else if (fnmatch(p, name, 0) == 0) {
      yes = true;
    }
  }
  return yes;
}
