/* The playground's files (see playground.h). */
#include "mcp/playground.h"

#include <pthread.h>
#include <string.h>

/* NAME and NAME_end: the first byte and one past the last (scripts/embed.sh) */
#define EMBEDDED(name) extern const unsigned char name[], name##_end[]
EMBEDDED(wb_playground_index);
EMBEDDED(wb_playground_app_js);
EMBEDDED(wb_playground_app_css);
EMBEDDED(wb_playground_editor_js);
EMBEDDED(wb_playground_editor_css);

static mcp_asset assets[5];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(void) {
#define ASSET(i, p, t, name) \
  assets[i] = (mcp_asset) { p, t, name, (size_t)(name##_end - name) }
  ASSET(0, "/", "text/html; charset=utf-8", wb_playground_index);
  ASSET(1, "/playground/app.js", "text/javascript; charset=utf-8", wb_playground_app_js);
  ASSET(2, "/playground/app.css", "text/css; charset=utf-8", wb_playground_app_css);
  ASSET(3, "/playground/editor.js", "text/javascript; charset=utf-8", wb_playground_editor_js);
  ASSET(4, "/playground/editor.css", "text/css; charset=utf-8", wb_playground_editor_css);
#undef ASSET
}

const mcp_asset *mcp_playground_find(const char *path) {
  pthread_once(&once, fill);
  for (size_t i = 0; i < sizeof assets / sizeof *assets; i++)
    if (!strcmp(path, assets[i].path)) return &assets[i];
  return NULL;
}
