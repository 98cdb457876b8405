/* wasmbox-worker: the program a shared libwasmbox starts its workers from
 * (include/wasmbox.h, wasmbox_options). The library's constructor becomes
 * the worker before this main() runs; run by hand, it only says what it is. */
#include <stdio.h>

#include "wasmbox.h"

int main(void) {
  fprintf(stderr, "wasmbox-worker: the workers of libwasmbox %s start from this program; it does nothing alone\n",
          wasmbox_version());
  return 2;
}
