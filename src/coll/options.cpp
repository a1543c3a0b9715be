#include "coll/options.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "coll/registry.hpp"
#include "core/sized_struct.hpp"
#include "core/status.hpp"
#include "core/units.hpp"

namespace relay::coll {

namespace {

bool is_policy(long long v) {
  return v == RELAY_POLICY_DEFAULT || v == RELAY_POLICY_BLOCKING || v == RELAY_POLICY_NONBLOCKING;
}
bool is_check(long long v) {
  return v == RELAY_CHECK_DEFAULT || v == RELAY_CHECK_LOCAL || v == RELAY_CHECK_COLLECTIVE;
}

template <class Options>
relay_status_t validate_policy_and_check(const Options& o, const char* function, int position) {
  if (const long long policy = stored_value(o.policy); !is_policy(policy)) {
    return core::fail(RELAY_ERR_POLICY,
                      "{}: argument {} (options->policy = {}) is not a policy "
                      "(RELAY_POLICY_DEFAULT, _BLOCKING or _NONBLOCKING)",
                      function, position, policy);
  }
  if (const long long check = stored_value(o.check); !is_check(check)) {
    return core::fail(RELAY_ERR_OPTIONS,
                      "{}: argument {} (options->check = {}) is not a check "
                      "mode (RELAY_CHECK_DEFAULT, _LOCAL or _COLLECTIVE)",
                      function, position, check);
  }
  return RELAY_SUCCESS;
}

template <class Options>
relay_check_t stored_check_of(const Options* options, std::size_t first_bytes) {
  if (options == nullptr) return RELAY_CHECK_DEFAULT;
  // A struct_size no version has (read_options reports it): check may lie past the struct.
  const std::size_t size = core::stored_struct_size(options);
  if (size < first_bytes || size > core::kMaxStructBytes) return RELAY_CHECK_DEFAULT;
  const long long check = stored_value(options->check);
  return is_check(check) ? static_cast<relay_check_t>(check) : RELAY_CHECK_DEFAULT;
}

}  // namespace

relay_status_t validate_stored_enums(const relay_bcast_options_t& o, const char* function,
                                     int position) {
  const long long algorithm = stored_value(o.algorithm);
  bool known = algorithm == RELAY_BCAST_AUTO;
  for (const auto& a : algorithms(Collective::bcast)) {
    known = known || algorithm == static_cast<long long>(a.id);
  }
  if (!known) {
    return core::fail(RELAY_ERR_ALGORITHM,
                      "{}: argument {} (options->algorithm = {}) is not a "
                      "broadcast algorithm (relay algorithms lists them)",
                      function, position, algorithm);
  }
  return validate_policy_and_check(o, function, position);
}

relay_status_t validate_stored_enums(const relay_coll_options_t& o, const char* function,
                                     int position) {
  return validate_policy_and_check(o, function, position);
}

relay_check_t stored_check(const relay_bcast_options_t* options) {
  return stored_check_of(options, kBcastOptionsFirstBytes);
}
relay_check_t stored_check(const relay_coll_options_t* options) {
  return stored_check_of(options, kCollOptionsFirstBytes);
}

namespace {

// The defaults of the fields every options struct has, and struct_size.
template <class Options>
Options with_common_defaults(Options o) {
  o.struct_size = sizeof o;
  o.policy = RELAY_POLICY_DEFAULT;
  o.segment_bytes = RELAY_SEGMENT_DEFAULT;
  o.fanout = 0;
  o.max_requests = 0;
  o.check = RELAY_CHECK_DEFAULT;
  return o;
}

relay_bcast_options_t default_bcast_options() {
  relay_bcast_options_t o{};
  o.algorithm = RELAY_BCAST_AUTO;
  return with_common_defaults(o);
}

relay_coll_options_t default_coll_options() {
  relay_coll_options_t o{};
  o.algorithm = 0;  // auto
  return with_common_defaults(o);
}

template <class Options>
relay_status_t read_options_of(const Options* given, Options& out, const Options& defaults,
                               std::size_t first_bytes, const char* function, int position) {
  out = defaults;
  if (given == nullptr) return RELAY_SUCCESS;
  std::string why;
  if (!core::copy_sized_struct(given, out, first_bytes, why)) {
    return core::fail(RELAY_ERR_OPTIONS, "{}: argument {} (options->struct_size = {}) {}", function,
                      position, core::stored_struct_size(given), why);
  }
  return validate_stored_enums(out, function, position);
}

}  // namespace

void init_options(relay_bcast_options_t* options, std::size_t struct_size) {
  core::init_sized_struct(options, struct_size, default_bcast_options());
}
void init_options(relay_coll_options_t* options, std::size_t struct_size) {
  core::init_sized_struct(options, struct_size, default_coll_options());
}

relay_status_t read_options(const relay_bcast_options_t* given, relay_bcast_options_t& out,
                            const char* function, int position) {
  return read_options_of(given, out, default_bcast_options(), kBcastOptionsFirstBytes, function,
                         position);
}
relay_status_t read_options(const relay_coll_options_t* given, relay_coll_options_t& out,
                            const char* function, int position) {
  return read_options_of(given, out, default_coll_options(), kCollOptionsFirstBytes, function,
                         position);
}

relay_status_t apply_environment(const core::RelayEnvironment& env, std::string_view prefix,
                                 const char* function, CommonOptions& o) {
  // Names are spelled out only for an error message.
  auto name = [prefix](core::Knob knob) { return core::setting_name(knob, prefix); };
  if (const char* v = env.get(core::Knob::op_policy, prefix)) {
    if (relay_policy_from_name(v, &o.policy) != RELAY_SUCCESS) {
      return core::fail(RELAY_ERR_OPTIONS, "{}: {}='{}' is not blocking, nonblocking or default",
                        function, name(core::Knob::op_policy), v);
    }
  }
  if (const char* v = env.get(core::Knob::op_segment_bytes, prefix)) {
    if (std::strcmp(v, "default") == 0) {
      o.segment_bytes = RELAY_SEGMENT_DEFAULT;
    } else if (auto b = core::parse_bytes(v)) {
      o.segment_bytes = *b;
    } else {
      return core::fail(RELAY_ERR_OPTIONS,
                        "{}: {}='{}' is not a byte count (e.g. 65536, 64KiB, 0 for unsegmented, "
                        "default)",
                        function, name(core::Knob::op_segment_bytes), v);
    }
  }
  if (const char* v = env.get(core::Knob::op_fanout, prefix)) {
    if (auto f = core::parse_integer(v, 0, kMaxFanout)) {
      o.fanout = static_cast<int>(*f);
    } else {
      return core::fail(RELAY_ERR_OPTIONS, "{}: {}='{}' is not an integer in [0, {}]", function,
                        name(core::Knob::op_fanout), v, kMaxFanout);
    }
  }
  if (const char* v = env.get(core::Knob::op_max_requests, prefix)) {
    if (auto w = core::parse_integer(v, 0, kMaxMaxRequests)) {
      o.max_requests = static_cast<int>(*w);
    } else {
      return core::fail(RELAY_ERR_OPTIONS, "{}: {}='{}' is not in [0, {}]", function,
                        name(core::Knob::op_max_requests), v, kMaxMaxRequests);
    }
  }
  if (const char* v = env.get(core::Knob::check); v != nullptr && o.check == RELAY_CHECK_DEFAULT) {
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
    return core::fail(RELAY_ERR_SEGMENT,
                      "{}: argument {} (options->segment_bytes = {}) is "
                      "negative (use 0 for unsegmented, -1 for the default)",
                      function, position, o.segment_bytes);
  }
  if (o.segment_bytes > 0 && elem_bytes > 0 && o.segment_bytes % elem_bytes != 0) {
    return core::fail(RELAY_ERR_SEGMENT,
                      "{}: argument {} (options->segment_bytes = {}) is not a "
                      "whole number of {}-byte elements",
                      function, position, o.segment_bytes, elem_bytes);
  }
  // The same cap as RELAY_<OP>_FANOUT's.
  if (o.fanout < 0 || o.fanout > kMaxFanout) {
    return core::fail(RELAY_ERR_FANOUT,
                      "{}: argument {} (options->fanout = {}) is not in "
                      "[0, {}] (0 = the algorithm's default)",
                      function, position, o.fanout, kMaxFanout);
  }
  if (o.max_requests < 0 || o.max_requests > kMaxMaxRequests) {
    return core::fail(RELAY_ERR_WINDOW,
                      "{}: argument {} (options->max_requests = {}) is not in "
                      "[0, {}]",
                      function, position, o.max_requests, kMaxMaxRequests);
  }
  if (o.check != RELAY_CHECK_DEFAULT && o.check != RELAY_CHECK_LOCAL &&
      o.check != RELAY_CHECK_COLLECTIVE) {
    return core::fail(RELAY_ERR_OPTIONS,
                      "{}: argument {} (options->check = {}) is not a check "
                      "mode",
                      function, position, static_cast<int>(o.check));
  }
  return RELAY_SUCCESS;
}

}  // namespace relay::coll
