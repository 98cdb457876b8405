/* The runtimes linked into wasmbox, and their names. */
#include <string.h>

#include "engine/runtime.h"

extern const wb_runtime wb_runtime_python, wb_runtime_javascript;

const wb_runtime *const wb_runtimes[] = {&wb_runtime_python, &wb_runtime_javascript, NULL};

static const struct {
  const char *alias, *language;
} aliases[] = {{"py", "python"}, {"python3", "python"}, {"js", "javascript"}, {"node", "javascript"}};

const wb_runtime *wb_runtime_find(const char *language) {
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (!strcmp(language, aliases[i].alias)) language = aliases[i].language;
  for (size_t i = 0; wb_runtimes[i]; i++)
    if (!strcmp(language, wb_runtimes[i]->language)) return wb_runtimes[i];
  return NULL;
}
