// Choosing what a broadcast call runs: defaults, then the caller's options, then the RELAY_*
// environment (so an unchanged application can be switched at launch), then `auto`.
#pragma once

#include <cstdint>
#include <string>

#include "coll/bcast/bcast.hpp"
#include "coll/options.hpp"
#include "exec/executor.hpp"
#include "relay/relay.h"
#include "tune/active.hpp"

namespace relay::coll {

/// A fully resolved broadcast configuration: a printable value, logged in one line.
struct BcastConfig {
  const BcastAlgorithm* algorithm = nullptr;
  exec::Policy policy = exec::Policy::nonblocking;
  std::int64_t segment_bytes = 0;  ///< effective: 0 = unsegmented
  int fanout = 1;
  int max_requests = 16;
  relay_check_t check = RELAY_CHECK_LOCAL;
  bool automatic = false;          ///< chosen by `auto`
  tune::AutoRule table_rule;         ///< for `auto`: the table rule it took, if any
};

/// Resolves options (NULL = defaults), then the RELAY_BCAST_* variables of `env`, for a
/// broadcast of total_bytes bytes of elem_bytes-sized elements on `size` ranks. Validates every option; on error returns its status with
/// relay_last_error() naming the option (argument `argument_position` of `function`).
relay_status_t resolve_bcast(const core::RelayEnvironment& env, const relay_bcast_options_t* options,
                             int size,
                             std::int64_t total_bytes, std::int64_t elem_bytes,
                             const char* function, int argument_position, BcastConfig& config);

/// "algorithm=pipeline policy=nonblocking segment_bytes=65536 fanout=1 max_requests=16"
std::string to_string(const BcastConfig& config);

/// The built-in choice of `auto` (until a tuning table is loaded): the cheapest closed form on
/// a built-in alpha-beta machine; sets segment_bytes (0 = unsegmented, else whole elements).
const BcastAlgorithm& auto_bcast_algorithm(int size, std::int64_t total_bytes,
                                           std::int64_t elem_bytes, std::int64_t& segment_bytes);

}  // namespace relay::coll
