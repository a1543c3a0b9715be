// Option handling shared by every collective: the RELAY_<OP>_* environment overrides and the
// checks of the fields all option structs have, each naming the field or variable it rejects.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/environment.hpp"
#include "relay/relay.h"

namespace relay::coll {

inline constexpr int kDefaultMaxRequests = 16;
inline constexpr int kMaxMaxRequests = 1 << 16;

/// The fields every collective's options have.
struct CommonOptions {
  relay_policy_t policy = RELAY_POLICY_DEFAULT;
  long long segment_bytes = RELAY_SEGMENT_DEFAULT;
  int fanout = 0;
  int max_requests = 0;
  relay_check_t check = RELAY_CHECK_DEFAULT;
};

/// Applies RELAY_<prefix>_POLICY, _SEGMENT_BYTES, _FANOUT, _MAX_REQUESTS and RELAY_CHECK.
relay_status_t apply_environment(const core::RelayEnvironment& env, std::string_view prefix,
                                 const char* function, CommonOptions& o);

/// Validates the common fields (argument `position` of `function`); segments must be whole
/// elem_bytes-sized elements.
relay_status_t validate(const CommonOptions& o, std::int64_t elem_bytes, const char* function,
                        int position);

}  // namespace relay::coll
