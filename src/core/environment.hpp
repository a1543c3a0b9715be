// The RELAY_* variables of the process environment, read in one pass.
#pragma once

#include <array>
#include <string_view>

#include "core/settings.hpp"

namespace relay::core {

/// The RELAY_* variables of the environment, found in one pass over it. A call reads up to
/// seven of them and most environments set none; a getenv for each scanned the whole
/// environment seven times (about 0.35 us of a 1.7 us 8-byte broadcast under mpirun, whose
/// environment holds a hundred variables). Read afresh on every call, like getenv, so a
/// program may change them between calls.
class RelayEnvironment {
 public:
  RelayEnvironment();
  /// The value of a variable of the table (core/settings.hpp), or nullptr when unset or
  /// empty; for a family (RELAY_<OP>_POLICY), `op` ("BCAST") names the collective.
  const char* get(Knob knob, std::string_view op = {}) const;

 private:
  static constexpr int kMaxEntries = 32;
  std::array<const char*, kMaxEntries> entries_{};  // "RELAY_NAME=value"
  int count_ = 0;
  bool overflow_ = false;  // more than kMaxEntries: get() falls back to getenv
};

}  // namespace relay::core
