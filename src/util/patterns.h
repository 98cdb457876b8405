/* Name patterns as code mode's allowlists write them: shell globs
 * (fnmatch(3)), and a pattern starting with "!" excludes. A name is allowed
 * when some pattern matches it and no "!" pattern does; none is allowed by
 * an empty list. */
#ifndef WASMBOX_UTIL_PATTERNS_H
#define WASMBOX_UTIL_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>

bool wb_patterns_allow(const char *const *patterns, size_t n, const char *name);

#endif
