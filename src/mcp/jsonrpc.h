/* JSON-RPC 2.0 framing for MCP: turn untrusted bytes into a checked message
 * and build responses. Contract: rpc_parse() accepts exactly one JSON value
 * of valid UTF-8 (nothing else, no trailing bytes) and never trusts sizes or
 * nesting it was not given; rpc_check() says whether a parsed value is a
 * request, a notification, a response or neither (with the reason). Ids are
 * echoed as they came: a string or an integer. */
#ifndef WASMBOX_MCP_JSONRPC_H
#define WASMBOX_MCP_JSONRPC_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

enum {
  RPC_PARSE_ERROR = -32700,
  RPC_INVALID_REQUEST = -32600,
  RPC_METHOD_NOT_FOUND = -32601,
  RPC_INVALID_PARAMS = -32602,
  RPC_INTERNAL_ERROR = -32603,
  RPC_SERVER_BUSY = -32000,
  MCP_HEADER_MISMATCH = -32020,
  MCP_MISSING_CAPABILITY = -32021,
  MCP_UNSUPPORTED_VERSION = -32022,
};

typedef enum { RPC_REQUEST, RPC_NOTIFICATION, RPC_RESPONSE, RPC_INVALID } rpc_kind;

bool rpc_utf8_valid(const char *s, size_t n);

/* NULL on failure, with *why set to a static message (invalid UTF-8, not
 * JSON, nested too deeply, trailing data). */
cJSON *rpc_parse(const char *body, size_t n, const char **why);

/* What `msg` is. For RPC_INVALID, *why says what is wrong and *id is the
 * request's id when it had a usable one (else NULL). */
rpc_kind rpc_check(const cJSON *msg, const cJSON **id, const char **why);

/* {"jsonrpc":"2.0","id":id|null,"error":{code,message[,data]}}; takes data. */
cJSON *rpc_error(const cJSON *id, int code, const char *message, cJSON *data);
/* {"jsonrpc":"2.0","id":id,"result":result}; takes result. */
cJSON *rpc_result(const cJSON *id, cJSON *result);
/* {"jsonrpc":"2.0","method":m,"params":params}; takes params. */
cJSON *rpc_notification(const char *method, cJSON *params);

/* obj[name] = v, printed exactly: cJSON keeps numbers as doubles and prints
 * them with 15 digits when that reads back close enough, so 2^53 (the
 * largest fuel) came out as 9007199254740990. NULL when out of memory. */
cJSON *rpc_add_u64(cJSON *obj, const char *name, unsigned long long v);

/* cJSON_PrintUnformatted, or NULL when out of memory. */
char *rpc_print(const cJSON *v);

#endif
