/* The Python import policy of a request (allow_imports, deny_imports,
 * deny_builtins), enforced by wrapping the code: see policy.c. */
#ifndef WASMBOX_API_POLICY_H
#define WASMBOX_API_POLICY_H

#include <stdbool.h>

#include "wasmbox.h"

/* Does the request ask for a policy at all? */
bool wb_policy_wanted(const wasmbox_request *req);

/* Rewrite a resolved request (wb_resolve) so that its code runs under its
 * policy; *owned holds the new code (free it after the call). */
int wb_policy_wrap(wasmbox_request *req, char **owned, char *err, size_t errlen);

#endif
