// Tool arguments against a tool's inputSchema (see schema_check.h).
#include "mcp/schema_check.h"

// valijson reports a bad schema by exception (else it prints and aborts)
#define VALIJSON_USE_EXCEPTIONS 1

#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace {

struct too_deep : std::exception {};

// nlohmann's parser recurses per level: refuse deep documents first
nlohmann::json parse(const char *text, size_t len) {
  nlohmann::json::parser_callback_t depth = [](int d, nlohmann::json::parse_event_t, nlohmann::json &) {
    if (d > MCP_SCHEMA_DEPTH_MAX) throw too_deep();
    return true;
  };
  return nlohmann::json::parse(text, text + len, depth);
}

}  // namespace

extern "C" int mcp_schema_check(const char *schema, size_t schema_len, const char *instance, size_t instance_len,
                                char *err, size_t errlen) {
  valijson::Schema compiled;
  nlohmann::json doc;
  try {
    nlohmann::json s = parse(schema, schema_len);
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter sa(s);
    parser.populateSchema(sa, compiled);  // no fetcher: a remote $ref throws
    doc = parse(instance, instance_len);
  } catch (...) {
    std::snprintf(err, errlen, "the tool's inputSchema cannot be checked here");
    return MCP_SCHEMA_UNUSABLE;
  }
  try {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter da(doc);
    if (validator.validate(compiled, da, &results)) return MCP_SCHEMA_VALID;
    std::string text;
    valijson::ValidationResults::Error e;
    for (int shown = 0; shown < 3 && results.popError(e);) {
      // the innermost problems say it; "Failed to validate ..." repeats them
      if (e.description.rfind("Failed to validate", 0) == 0) continue;
      shown++;
      std::string where = "arguments";
      for (const std::string &c : e.context)
        if (c != "<root>") where += c[0] == '[' ? c : "." + c;
      if (!text.empty()) text += "; ";
      text += where + ": " + e.description;
    }
    std::snprintf(err, errlen, "%s", text.c_str());
    return MCP_SCHEMA_INVALID;
  } catch (...) {
    std::snprintf(err, errlen, "the tool's inputSchema cannot be checked here");
    return MCP_SCHEMA_UNUSABLE;
  }
}
