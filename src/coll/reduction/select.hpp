// Choosing what a reduction or gather runs: defaults, the caller's options, the RELAY_<OP>_*
// environment, `auto`, then the registry's restrictions (a fallback is part of the printed
// configuration, so it is never silent).
#pragma once

#include <cstdint>
#include <string>

#include "coll/options.hpp"
#include "coll/reduction/reduction.hpp"
#include "exec/executor.hpp"
#include "relay/relay.h"
#include "tune/active.hpp"

namespace relay::coll {

struct CollConfig {
  const CollAlgorithm* algorithm = nullptr;
  exec::Policy policy = exec::Policy::nonblocking;
  std::int64_t segment_bytes = 0;  ///< effective: 0 = unsegmented
  int fanout = 1;
  int max_requests = kDefaultMaxRequests;
  relay_check_t check = RELAY_CHECK_LOCAL;
  bool automatic = false;
  const CollAlgorithm* requested = nullptr;  ///< set when a restriction ran another algorithm
  tune::AutoRule table_rule;         ///< for `auto`: the table rule it took, if any
};

/// The call a configuration is resolved for.
struct CollCall {
  Collective collective = Collective::reduce;
  int size = 1;
  std::int64_t bytes = 0;       ///< the data moved (all blocks; allgatherv: the sum of them)
  std::int64_t elem_bytes = 1;
  bool commutative = true;
};

/// Resolves options (NULL = defaults); on error returns its status with relay_last_error()
/// naming the option (argument `position` of `function`) or, for an op the algorithm cannot
/// keep in order, the op (argument `op_position`).
relay_status_t resolve_coll(const core::RelayEnvironment& env, const relay_coll_options_t* options,
                            const CollCall& call,
                            const char* function, int position, int op_position,
                            CollConfig& config);

/// "algorithm=ring policy=nonblocking segment_bytes=0 fanout=1 max_requests=16", plus
/// " (auto: table FILE rule N)", " (auto: model)" or " (recursive_doubling needs a power-of-two size: ran bruck)".
std::string to_string(const CollConfig& config);

/// `auto` without a tuning table rule: closed forms (docs/collectives.md).
const CollAlgorithm& auto_coll_algorithm(const CollCall& call);

}  // namespace relay::coll
