/* Settings of the MCP server: limits and policy. Each comes, in rising
 * precedence, from its default, a config file (JSON: --config FILE or
 * $WASMBOX_MCP_CONFIG), the environment ($WASMBOX_MCP_<NAME>) and a flag
 * (--name). mcp_config_load() validates every value and names the source of
 * a bad one; mcp_config_usage() documents them all. */
#ifndef WASMBOX_MCP_CONFIG_H
#define WASMBOX_MCP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MCP_MAX_LIST 64 /* repeatable settings: origins, external files */

typedef struct {
  bool http;                         /* wasmbox serve (else wasmbox mcp) */
  char listen[256];                  /* HOST:PORT */
  char token[512];                   /* bearer token; "" = none */
  char tokens[1024];                 /* HTTP: clients file (tenants.h); "" = none */
  char access_log[1024];             /* HTTP: JSON lines, a path or "-"; "" = none */
  char session_key[1024];            /* HTTP: file of the key that signs MCP session ids */
  bool no_playground;                /* HTTP: no page at / */
  bool allow_anonymous;              /* HTTP: no token needed even with --upstream or --store */
  char oauth_issuer[1024];           /* HTTP: OAuth access tokens of this issuer (oauth.h); "" = none */
  char oauth_jwks[1024];             /* HTTP: its keys, a JWKS URL or file */
  char oauth_resource[1024];         /* HTTP: this server's URL, the tokens' audience */
  char oauth_claim[64];              /* HTTP: the identity claim; "" = sub */
  char oauth_scopes[1024];           /* HTTP: scopes every token must carry; "" = none */
  const char *origins[MCP_MAX_LIST]; /* extra allowed Origin values */
  size_t n_origins;
  const char *external[MCP_MAX_LIST]; /* host files/dirs shown at /external */
  size_t n_external;
  const char *packages[MCP_MAX_LIST]; /* Python package directories (/packages/N) */
  size_t n_packages;
  const char *allow_imports[MCP_MAX_LIST]; /* Python import policy of every call */
  size_t n_allow_imports;
  const char *deny_imports[MCP_MAX_LIST];
  size_t n_deny_imports;
  const char *deny_builtins[MCP_MAX_LIST];
  size_t n_deny_builtins;
  char upstream[1024];                   /* mcpServers file: code mode; "" = none */
  const char *allow_tools[MCP_MAX_LIST]; /* server__tool patterns the sandbox may call */
  size_t n_allow_tools;
  bool approve_destructive; /* destructiveHint tools wait for approval */
  char tool_audit[1024];    /* JSONL audit log of tool calls: a path, "-" = stderr */
  uint64_t tool_audit_max_bytes;
  uint64_t max_tool_calls; /* per execute_code */
  uint64_t external_max_bytes;
  uint64_t max_request_bytes; /* one HTTP body or stdio line */
  double idle_timeout;        /* HTTP: seconds a connection may stay silent */
  double request_timeout;     /* HTTP: seconds to receive one request */
  uint64_t max_connections;   /* HTTP: open connections */
  uint64_t workers;           /* stdio: calls run in parallel */
  uint64_t max_sessions;      /* HTTP: MCP sessions (Mcp-Session-Id) kept */
  double timeout;             /* default execute_code timeout */
  double max_timeout;
  uint64_t memory_mb; /* default memory limit */
  uint64_t max_memory_mb;
  uint64_t fuel; /* default instruction budget, 0: none */
  uint64_t max_fuel;
  uint64_t max_output_bytes;   /* per stream */
  uint64_t max_file_bytes;     /* read_file / write_file / inline images */
  uint64_t max_image_bytes;    /* an image returned inline as image content */
  double session_ttl;          /* default create_session ttl */
  char package_index[1024];    /* install_package: pip's --index-url, or */
  char wheelhouse[1024];       /* a directory of wheels; "" = none */
  char home[1024];             /* state directory; "" = the library's default */
  char store[1024];            /* shared session store URL; "" = the library's default */
  double store_timeout;        /* the lease's wait on the store (0: the library's 120 s) */
  uint64_t store_connections;  /* store connections in use at once (0: the library's 32) */
  double session_idle_release; /* wasmbox_options.session_idle_release_s (0: the library's 30 s) */
  char log_level[16];          /* stderr: error, warning, info, debug */
  char *owned[2 * MCP_MAX_LIST];
  size_t n_owned;
} mcp_config;

/* 0: loaded; 1: --help was printed; -1: error (message in err). */
int mcp_config_load(mcp_config *c, bool http, int argc, char **argv, char *err, size_t errlen);
void mcp_config_free(mcp_config *c);
void mcp_config_usage(bool http, FILE *out);

#endif
