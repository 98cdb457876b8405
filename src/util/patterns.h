/* Name patterns as code mode's allowlists write them: shell globs
 * (fnmatch(3)), and a pattern starting with "!" excludes. A name is allowed
 * when some pattern matches it and no "!" pattern does; none is allowed by
 * an empty list. A thing with several names (an upstream tool: its own name
 * and the name the sandbox shows) is matched by a pattern that matches any
 * of them, so an exclusion written over either holds. */
#ifndef WASMBOX_UTIL_PATTERNS_H
#define WASMBOX_UTIL_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>

/* -1: a "!" pattern matches one of the names; 1: else some pattern does;
 * 0: none does. NULL names are skipped. */
int wb_patterns_match(const char *const *patterns, size_t n, const char *const *names, size_t nnames);

bool wb_patterns_allow(const char *const *patterns, size_t n, const char *name);

#endif
