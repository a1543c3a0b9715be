// The decision table `auto` consults at run time: loaded by relay_tuning_load or, lazily at
// the first `auto` call, from RELAY_TUNING_FILE. One per process, shared by all threads.
#pragma once

#include <memory>
#include <string>

#include "relay/relay.h"
#include "tune/table.hpp"

namespace relay::tune {

struct ActiveTable {
  std::shared_ptr<const Table> table;  ///< nullptr: none loaded (the model chooses)
  std::string path;
};

/// The active table. On a RELAY_TUNING_FILE that cannot be used, returns RELAY_ERR_TUNING with
/// relay_last_error() set -- unless RELAY_TUNING_ON_ERROR=defaults, which warns once and
/// returns success with no table.
relay_status_t active_table(ActiveTable& out);

}  // namespace relay::tune
