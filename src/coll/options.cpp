#include "coll/options.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "core/status.hpp"
#include "core/units.hpp"

namespace relay::coll {

relay_status_t apply_environment(const core::RelayEnvironment& env, std::string_view prefix,
                                 const char* function, CommonOptions& o) {
  // Names are spelled out only for an error message.
  auto name = [prefix](const char* field) { return fmt::format("RELAY_{}_{}", prefix, field); };
  if (const char* v = env.get(prefix, "POLICY")) {
    if (relay_policy_from_name(v, &o.policy) != RELAY_SUCCESS) {
      return core::fail(RELAY_ERR_OPTIONS,
                        "{}: {}='{}' is not blocking, nonblocking or default", function,
                        name("POLICY"), v);
    }
  }
  if (const char* v = env.get(prefix, "SEGMENT_BYTES")) {
    if (std::strcmp(v, "default") == 0) {
      o.segment_bytes = RELAY_SEGMENT_DEFAULT;
    } else if (auto b = core::parse_bytes(v)) {
      o.segment_bytes = *b;
    } else {
      return core::fail(RELAY_ERR_OPTIONS,
                        "{}: {}='{}' is not a byte count (e.g. 65536, 64KiB, 0 for unsegmented, "
                        "default)", function, name("SEGMENT_BYTES"), v);
    }
  }
  if (const char* v = env.get(prefix, "FANOUT")) {
    if (auto f = core::parse_integer(v, 0, 1 << 20)) {
      o.fanout = static_cast<int>(*f);
    } else {
      return core::fail(RELAY_ERR_OPTIONS, "{}: {}='{}' is not an integer >= 0", function,
                        name("FANOUT"), v);
    }
  }
  if (const char* v = env.get(prefix, "MAX_REQUESTS")) {
    if (auto w = core::parse_integer(v, 0, kMaxMaxRequests)) {
      o.max_requests = static_cast<int>(*w);
    } else {
      return core::fail(RELAY_ERR_OPTIONS, "{}: {}='{}' is not in [0, {}]", function,
                        name("MAX_REQUESTS"), v, kMaxMaxRequests);
    }
  }
  if (const char* v = env.get("RELAY_CHECK"); v != nullptr && o.check == RELAY_CHECK_DEFAULT) {
    if (std::strcmp(v, "collective") == 0) {
      o.check = RELAY_CHECK_COLLECTIVE;
    } else if (std::strcmp(v, "local") == 0) {
      o.check = RELAY_CHECK_LOCAL;
    } else {
      return core::fail(RELAY_ERR_OPTIONS, "{}: RELAY_CHECK='{}' is not local or collective",
                        function, v);
    }
  }
  return RELAY_SUCCESS;
}

relay_status_t validate(const CommonOptions& o, std::int64_t elem_bytes, const char* function,
                        int position) {
  if (o.policy != RELAY_POLICY_DEFAULT && o.policy != RELAY_POLICY_BLOCKING &&
      o.policy != RELAY_POLICY_NONBLOCKING) {
    return core::fail(RELAY_ERR_POLICY, "{}: argument {} (options->policy = {}) is not a policy",
                      function, position, static_cast<int>(o.policy));
  }
  if (o.segment_bytes < RELAY_SEGMENT_DEFAULT) {
    return core::fail(RELAY_ERR_SEGMENT, "{}: argument {} (options->segment_bytes = {}) is "
                      "negative (use 0 for unsegmented, -1 for the default)",
                      function, position, o.segment_bytes);
  }
  if (o.segment_bytes > 0 && elem_bytes > 0 && o.segment_bytes % elem_bytes != 0) {
    return core::fail(RELAY_ERR_SEGMENT, "{}: argument {} (options->segment_bytes = {}) is not a "
                      "whole number of {}-byte elements", function, position, o.segment_bytes,
                      elem_bytes);
  }
  if (o.fanout < 0) {
    return core::fail(RELAY_ERR_FANOUT, "{}: argument {} (options->fanout = {}) is negative",
                      function, position, o.fanout);
  }
  if (o.max_requests < 0 || o.max_requests > kMaxMaxRequests) {
    return core::fail(RELAY_ERR_WINDOW, "{}: argument {} (options->max_requests = {}) is not in "
                      "[0, {}]", function, position, o.max_requests, kMaxMaxRequests);
  }
  if (o.check != RELAY_CHECK_DEFAULT && o.check != RELAY_CHECK_LOCAL &&
      o.check != RELAY_CHECK_COLLECTIVE) {
    return core::fail(RELAY_ERR_OPTIONS, "{}: argument {} (options->check = {}) is not a check "
                      "mode", function, position, static_cast<int>(o.check));
  }
  return RELAY_SUCCESS;
}

}  // namespace relay::coll
