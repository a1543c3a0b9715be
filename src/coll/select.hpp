// Choosing what a collective call runs, the same way for every collective: the caller's
// options, then the RELAY_<OP>_* environment (so an unchanged application can be switched at
// launch), then for `auto` a tuning-table rule, else the collective's closed form; then the
// registry's restrictions (a fallback is part of the printed configuration, so it is never
// silent).
#pragma once

#include <cstdint>
#include <string>

#include "coll/active_table.hpp"
#include "coll/options.hpp"
#include "coll/registry.hpp"
#include "relay/relay.h"
#include "schedule/policy.hpp"

namespace relay::coll {

/// A fully resolved configuration: a printable value, logged in one line.
struct Config {
  const Algorithm* algorithm = nullptr;
  schedule::Policy policy = schedule::Policy::nonblocking;
  std::int64_t segment_bytes = 0;  ///< effective: 0 = unsegmented
  int fanout = 1;
  int max_requests = kDefaultMaxRequests;
  relay_check_t check = RELAY_CHECK_LOCAL;
  bool automatic = false;                ///< chosen by `auto`
  const Algorithm* requested = nullptr;  ///< set when a restriction ran another algorithm
  coll::AutoRule table_rule;             ///< for `auto`: the table rule it took, if any
};

/// Resolves a broadcast's options (NULL = defaults) for `call`. Validates every option; on
/// error returns its status with relay_last_error() naming the option (argument `position` of
/// `function`).
relay_status_t resolve(const core::RelayEnvironment& env, const relay_bcast_options_t* options,
                       const Call& call, const char* function, int position, Config& config);
/// The same for the other collectives' options; an op the algorithm cannot keep in order is
/// reported as argument `op_position`.
relay_status_t resolve(const core::RelayEnvironment& env, const relay_coll_options_t* options,
                       const Call& call, const char* function, int position, int op_position,
                       Config& config);

/// "algorithm=ring policy=nonblocking segment_bytes=0 fanout=1 max_requests=16", plus
/// " (auto: table FILE rule N)", " (auto: model)" or
/// " (recursive_doubling needs a power-of-two size: ran bruck)".
std::string to_string(const Config& config);

/// `auto` without a tuning table rule: the collective's closed form (Traits::closed_form).
inline ClosedFormChoice closed_form(const Call& call) {
  return traits(call.collective).closed_form(call);
}

}  // namespace relay::coll
