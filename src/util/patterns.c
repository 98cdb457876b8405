/* Name patterns (see patterns.h). */
#include "util/patterns.h"

#include <fnmatch.h>

int wb_patterns_match(const char *const *patterns, size_t n, const char *const *names, size_t nnames) {
  int verdict = 0;
  for (size_t i = 0; i < n; i++) {
    const char *p = patterns[i];
    bool neg = p[0] == '!';
    for (size_t k = 0; k < nnames; k++) {
      if (!names[k] || fnmatch(p + neg, names[k], 0) != 0) continue;
      if (neg) return -1;
      verdict = 1;
    }
  }
  return verdict;
}

bool wb_patterns_allow(const char *const *patterns, size_t n, const char *name) {
  return wb_patterns_match(patterns, n, &name, 1) > 0;
}
