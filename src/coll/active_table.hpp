// The decision table `auto` consults at run time: loaded by relay_tuning_load or, lazily at
// the first `auto` call, from RELAY_TUNING_FILE. One per process, shared by all threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "coll/table.hpp"
#include "relay/relay.h"

namespace relay::coll {

struct LoadedTable {
  Table table;
  std::string path;
};

/// nullptr: none loaded (the model chooses). Copying it is the whole per-call cost of a lookup.
using ActiveTable = std::shared_ptr<const LoadedTable>;

/// The active table. On a RELAY_TUNING_FILE that cannot be used, returns RELAY_ERR_TUNING with
/// relay_last_error() set -- unless RELAY_TUNING_ON_ERROR=defaults, which warns once and
/// returns success with no table. Any other value of RELAY_TUNING_ON_ERROR is an error too
/// (RELAY_ERR_TUNING, naming the variable and its values), table or not.
relay_status_t active_table(ActiveTable& out);

/// Makes the table in `path` the active one (nullptr: none, the model chooses), replacing what
/// RELAY_TUNING_FILE named: relay_tuning_load. On a file that cannot be used, RELAY_ERR_TUNING
/// and the previous table stays.
relay_status_t load_table(const char* path);

/// The table step of a collective's `auto`: the rule of the active table for a call, when the
/// collective can use it; otherwise its own model chooses (and falls back to a safe default).
/// Cheap to make on every call: its text is formatted only when asked for (a log line or a
/// description), since formatting it cost about half a microsecond per broadcast.
struct AutoRule {
  ActiveTable table;           ///< keeps `rule` alive
  const Rule* rule = nullptr;  ///< nullptr: no usable rule, the model chooses
  /// "table FILE rule N", "model, no rule in FILE" or "model"
  std::string origin() const;
};

/// Looks up `operation` for `size` ranks and `bytes` in the active table; a rule that `usable`
/// turns down counts as none. Fails as active_table does.
relay_status_t auto_rule(const std::string& operation, int size, std::int64_t bytes,
                         const std::function<bool(const Rule&)>& usable, AutoRule& out);

/// Takes a usable rule's choice: its segment size, and its policy and fanout where the
/// caller's options left them to their defaults.
void take_choice(const Rule& rule, std::int64_t& segment_bytes, relay_policy_t& policy,
                 int& fanout);

}  // namespace relay::coll
