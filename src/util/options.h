/* Options from a table: each entry names an option, its kind, where its
 * value goes in the caller's struct, its bounds and its help line. Parsing,
 * checking (a missing value, a value given twice, a number out of range or
 * not a plain decimal, too many values) and the help text all come from
 * the table, so they never disagree. The CLI (wasmbox run, session) and
 * the MCP server's settings (flags, environment, config file) use it. */
#ifndef WASMBOX_UTIL_OPTIONS_H
#define WASMBOX_UTIL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
  WB_OPT_FLAG,   /* bool, no value */
  WB_OPT_TEXT,   /* const char * (size 0: points at the value) or char[size] (a copy) */
  WB_OPT_LIST,   /* const char *[max_count] with a size_t count at `size`; repeatable */
  WB_OPT_U64,    /* uint64_t, a plain decimal in [min, max] */
  WB_OPT_DOUBLE, /* double, a plain decimal in [min, max] */
} wb_opt_kind;

typedef struct {
  const char *name; /* as written: "--timeout", "-c" */
  wb_opt_kind kind;
  size_t off;        /* where the value goes */
  size_t size;       /* TEXT: buffer size (0: a pointer); LIST: offset of the count */
  size_t max_count;  /* LIST: most values */
  double min, max;   /* numbers */
  const char *wants; /* numbers: what a bad value is told it should be (NULL: the range) */
  const char *arg;   /* the value's name in the help ("SECONDS"); NULL for a flag */
  const char *help;  /* lines separated by '\n' */
  unsigned tags;     /* the caller's own (e.g. which commands take it) */
} wb_option;

/* The entry whose name, without its leading dashes, is the `len` bytes of
 * `bare` ('_' matches '-': "max_timeout" finds "--max-timeout"); or NULL. */
const wb_option *wb_opt_find(const wb_option *t, size_t n, const char *bare, size_t len);

/* Set `o` in `target` from text. `src` says where the value came from in
 * a message ("--timeout", "$WASMBOX_MCP_TIMEOUT"). A list appends. 0, or
 * -1 with a message in err. */
int wb_opt_set(const wb_option *o, void *target, const char *value, const char *src, char *err, size_t errlen);
void wb_opt_clear_list(const wb_option *o, void *target);

#define WB_OPT_MAX 64 /* entries of a table wb_opt_parse takes */

/* Parse argv[first..argc) as a command's options: "NAME VALUE" or
 * "--NAME=VALUE", each at most once unless a list; other words are
 * positional (at most maxpos, into pos[]). `cmd` names the command in
 * messages ("wasmbox run"). Returns 0; 1 for --help or -h; -1 with a
 * message in err. */
int wb_opt_parse(const wb_option *t, size_t n, void *target, int argc, char **argv, int first, const char **pos,
                 size_t maxpos, size_t *npos, const char *cmd, char *err, size_t errlen);

/* The table's options as help lines: "  NAME ARG   help". */
void wb_opt_usage(const wb_option *t, size_t n, FILE *out);

/* Plain decimals: no blanks, signs, hexadecimal, inf or nan (strtod and
 * strtoull take all of those, and " -1" wraps to 2^64-1). */
bool wb_parse_decimal(const char *s, double *v);
bool wb_parse_whole(const char *s, uint64_t *v);

#endif
